// The generated kernels of elementwise work (elementwise_kernel.hpp): the expression builder an
// operator's `compose` writes a node with (expression.hpp), and the lowering that asks each node's
// operator for its fusion role and composes it. An elementwise node, a row reduction its reader
// computes, a Softmax or LayerNormalization along the last axis each become (or join) one Loom
// kernel over their operands, broadcast to the result, with a one-element operand the build knows
// folded into the expression as a constant.
#include <algorithm>
#include <bit>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "axes/naming.hpp"
#include "loom/syntax.hpp"
#include "lower/context.hpp"
#include "lower/expression.hpp"
#include "ops/op.hpp"
#include "ops/operator.hpp"
#include "ops/unary.hpp"

namespace loam::lower {

double Expression::attribute(const ops::ElementwiseAttribute& a) const {
  const std::string name(a.name);
  return a.integer ? static_cast<double>(cx_.attr_int(name.c_str(), static_cast<std::int64_t>(a.fallback)))
                   : static_cast<double>(cx_.attr_float(name.c_str(), static_cast<float>(a.fallback)));
}

ElementType Expression::compute_of(ElementType t) const {
  const std::string s = cx_.compute_type(t);
  if (s == "float") return ElementType::F32;
  if (s == "double") return ElementType::F64;
  if (s == "std::int64_t") return ElementType::I64;
  if (s == "bool") return ElementType::Bool;
  cx_.error(std::string("element type ") + element_type_name(t) + " has no elementwise kernel");
}

int Expression::operand(const std::string& tensor, const std::vector<AxisName>& out_axes) {
  if (auto seen = read_.find(tensor); seen != read_.end()) return seen->second;
  if (auto p = cx_.pending.find(tensor); p != cx_.pending.end()) return read_[tensor] = splice(p->second);
  // A contraction's epilogue reads the product where it lies, whatever its axes of 1 are named.
  const ProductEpilogue* epilogue = cx_.epilogue();
  Arg a = epilogue && epilogue->operand == tensor ? Arg::of_tensor(tensor) : cx_.broadcast_operand(tensor, out_axes);
  auto it = cx_.synthetic.find(a.tensor);
  const TensorInfo info = it != cx_.synthetic.end() ? it->second : cx_.info(a.tensor);
  ElementwiseOperand o;
  o.tensor = a.tensor;
  o.type = compute_of(info.elem);
  o.dims = info.dims;
  return read_[tensor] = load(add_operand(o));
}

int Expression::input(std::size_t i, const std::vector<AxisName>& out_axes, ElementType constant_type) {
  const Node& n = *cx_.node;
  if (!axes::is_folded_scalar_operand(n, i, cx_.st)) return operand(n.inputs[i], out_axes);
  return constant(i, constant_type);
}

int Expression::constant(std::size_t i, ElementType type) {
  ExprValue v;
  v.kind = ExprValue::Kind::Constant;
  v.type = type;
  const auto& state = cx_.value(cx_.in(i));
  if (type != ElementType::F32 && state.value && state.value->kind == stage0::FoldedValue::Kind::Integer) {
    auto c = state.value->ints.at(0).constant();
    if (!c) cx_.error("'" + cx_.in(i) + "' holds " + state.value->ints.at(0).to_string() + ", which only the run knows");
    v.integer = *c;
  } else {
    auto f = cx_.folded_floats(i);
    if (!f || f->size() != 1) cx_.error("'" + cx_.in(i) + "' must be one number known at build time");
    v.number = (*f)[0];
    v.integer = static_cast<std::int64_t>((*f)[0]);
  }
  return push(v);
}

int Expression::number(double value, ElementType type) { return push(ExprValue::constant(value, type)); }

int Expression::op(const std::string& name, std::vector<int> args, ElementType type, double p, double q) {
  ExprValue v = ExprValue::apply(name, std::move(args), type, p, q);
  if (const ops::Operator* record = cx_.st.operators->find("", name)) {
    v.unary = record->unary;
    v.binary = record->binary;
  }
  return push(std::move(v));
}

int Expression::reduce(const std::string& reduction, int value) { return push(ExprValue::reduce(reduction, value)); }

std::optional<double> Expression::float_constant(int value) const {
  const ExprValue& v = values_.at(static_cast<std::size_t>(value));
  if (v.kind != ExprValue::Kind::Constant || !ops::is_float_type(v.type)) return std::nullopt;
  return v.number;
}

int Expression::wrapped(int value, ElementType narrow) {
  return op("Wrap", {value}, ElementType::I64, narrow_integer_bits(narrow), narrow_integer_signed(narrow) ? 1 : 0);
}

void Expression::finish(const TensorInfo& out, RowNormalisation normalise) {
  const ElementType out_type = compute_of(out.elem);
  if (values_.back().type != out_type) op("Cast", {static_cast<int>(values_.size() - 1)}, out_type);
  ops_[cx_.graph_node.value_or(0)] = cx_.node->op_type;
  if (cx_.inline_into_reader) {
    cx_.pending[out.name] = PendingExpression{operands_, values_, ops_};
    return;
  }
  if (operands_.empty()) cx_.error("every operand is a constant; the build should have folded it");
  // A contraction's epilogue reads the product as its first operand, and runs on its rows.
  const ProductEpilogue* epilogue = cx_.epilogue();
  if (epilogue) make_first(epilogue->operand);
  ElementwiseKernel k;
  k.normalise = normalise;
  k.out_type = out_type;
  k.out_dims = out.dims;
  k.operands = operands_;
  k.values = values_;
  if (epilogue) k.row_axis = epilogue->row_axis;
  const char* kind = normalise == RowNormalisation::Softmax      ? "softmax"
                     : normalise == RowNormalisation::LogSoftmax ? "log_softmax"
                     : has_reduction(k)                          ? "row"
                                                                 : "ew";
  if (!cx_.out.kernels) cx_.out.kernels = std::make_shared<loom::Module>();
  if (!cx_.out.narrow_kernels) cx_.out.narrow_kernels = std::make_shared<loom::Module>();
  cx_.out.kernels->file = cx_.origin;
  cx_.out.narrow_kernels->file = cx_.origin;
  // The kernel is built apart under its kind's name alone: one built before with the same text is
  // this one; a new one takes its own name and joins the module.
  loom::Module built;
  built.file = cx_.origin;
  k.symbol = kind;
  const std::vector<Extent> passed = build_elementwise_kernel(built, k);
  const auto [known, fresh] = cx_.out.kernel_texts.emplace(loom::print_module(built), kind + std::to_string(cx_.out.loom_kernels.size()));
  k.symbol = known->second;
  if (fresh) {
    for (auto& op : built.ops) {
      if (op->symbol() == kind) op->attr("symbol").text = k.symbol;
      cx_.out.kernels->ops.push_back(std::move(op));
    }
    loom::Module narrow;
    narrow.file = cx_.origin;
    build_elementwise_kernel(narrow, k, kNarrowLanes);
    for (auto& op : narrow.ops) cx_.out.narrow_kernels->ops.push_back(std::move(op));
    // An epilogue's kernel takes the rows of a run too, which the product passes.
    cx_.out.loom_kernels.push_back({k.symbol, passed.size() + (epilogue ? 2 : 0), operands_.size()});
  }
  std::vector<Arg> args = {Arg::of_code(k.symbol), Arg::of_extents(out.dims), Arg::of_extents(passed)};
  args.insert(args.end(), args_.begin(), args_.end());
  cx_.call("loom", {TypeArg::of_axes(out.axes), TypeArg::of_code(cx_.compute_type(out.elem))}, args);
  std::string label;
  for (const auto& [index, o] : ops_) label += (label.empty() ? "" : " + ") + o;
  cx_.out.calls.back().op = label;
  if (epilogue) {
    Extent rows(1);
    for (std::size_t d = 0; d < epilogue->row_axis; ++d) rows *= out.dims[d];
    cx_.attach_epilogue(rows);
  }
}

// The operand passing `o.tensor`, added once.
int Expression::add_operand(const ElementwiseOperand& o) {
  for (std::size_t k = 0; k < args_.size(); ++k)
    if (args_[k].tensor == o.tensor) return static_cast<int>(k);
  operands_.push_back(o);
  args_.push_back(Arg::of_tensor(o.tensor));
  return static_cast<int>(operands_.size() - 1);
}
// Moves the operand passing `tensor` to the front (an epilogue's product).
void Expression::make_first(const std::string& tensor) {
  std::size_t at = 0;
  while (at < operands_.size() && operands_[at].tensor != tensor) ++at;
  if (at == operands_.size()) cx_.error("the epilogue kernel does not read the product '" + tensor + "'");
  std::rotate(operands_.begin(), operands_.begin() + static_cast<std::ptrdiff_t>(at), operands_.begin() + static_cast<std::ptrdiff_t>(at) + 1);
  std::rotate(args_.begin(), args_.begin() + static_cast<std::ptrdiff_t>(at), args_.begin() + static_cast<std::ptrdiff_t>(at) + 1);
  for (auto& v : values_) {
    if (v.kind != ExprValue::Kind::Operand) continue;
    if (v.operand == static_cast<int>(at)) v.operand = 0;
    else if (v.operand < static_cast<int>(at)) ++v.operand;
  }
}
// The value reading operand `k`, one per operand.
int Expression::load(int k) { return push(ExprValue::load(k, operands_.at(static_cast<std::size_t>(k)).type)); }

// An inlined node's values, appended with their operands and earlier values renumbered; an
// operand this expression reads already is the value that reads it.
int Expression::splice(const PendingExpression& p) {
  std::vector<int> operand_of;
  for (const auto& o : p.operands) operand_of.push_back(add_operand(o));
  std::vector<int> value_of;
  for (ExprValue v : p.values) {
    if (v.kind == ExprValue::Kind::Operand) {
      value_of.push_back(load(operand_of.at(static_cast<std::size_t>(v.operand))));
      continue;
    }
    for (int& a : v.args) a = value_of.at(static_cast<std::size_t>(a));
    value_of.push_back(push(v));
  }
  ops_.insert(p.ops.begin(), p.ops.end());
  return value_of.back();
}
// The value, or the one computing the same already: a node that several nodes of the kernel
// read (a LayerNorm's x - mean, GELU's x) is spliced once per reader, and computed once.
int Expression::push(const ExprValue& v) {
  auto key = std::make_tuple(v.kind, v.type, v.operand, std::bit_cast<std::uint64_t>(v.number), v.integer, v.op, v.args,
                             std::bit_cast<std::uint64_t>(v.p), std::bit_cast<std::uint64_t>(v.q));
  if (auto it = index_.find(key); it != index_.end()) return it->second;
  values_.push_back(v);
  return index_[key] = static_cast<int>(values_.size() - 1);
}
bool lower_elementwise(LowerContext& cx, const Node& n) {
  const ops::Operator* op = cx.st.operators->find(n);
  if (!op || !op->compose) return false;
  switch (op->role(n, cx.st)) {
    case ops::FusionRole::None:
    case ops::FusionRole::Contraction: return false;
    // A reduction along the row is a scalar of its reader's kernel, which has the row; alone, it
    // is the runtime's reduction.
    case ops::FusionRole::RowReduction:
      if (!cx.inline_into_reader) return false;
      break;
    case ops::FusionRole::Elementwise:
    case ops::FusionRole::RowNormaliser:
    case ops::FusionRole::LayerNormaliser: break;
  }
  Expression e(cx);
  const RowNormalisation normalise = op->compose(e, n);
  e.finish(cx.info(n.outputs.at(0)), normalise);
  return true;
}

}  // namespace loam::lower
