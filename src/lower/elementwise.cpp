// Lowering of the elementwise operators: each becomes a Loom kernel (elementwise_kernel.hpp) over
// its operands, broadcast to the result, with a one-element operand the build knows folded into
// the expression as a constant. Identity, Dropout and a Cast that changes no compute type move no
// element and stay calls of their own. Softmax and LogSoftmax over the last axis are kernels of the
// same kind that normalise the row, reading their input as an expression too.
#include <algorithm>
#include <bit>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "axes/naming.hpp"
#include "lower/context.hpp"
#include "lower/elementwise_kernel.hpp"
#include "ops/binary.hpp"
#include "ops/operator.hpp"
#include "ops/unary.hpp"

namespace loam::lower {
namespace {

// A table operator's attribute on the node, or ONNX's default: what its Loom form reads as p or q.
double attribute(const LowerContext& cx, const ops::ElementwiseAttribute& a) {
  const std::string name(a.name);
  return a.integer ? static_cast<double>(cx.attr_int(name.c_str(), static_cast<std::int64_t>(a.fallback)))
                   : static_cast<double>(cx.attr_float(name.c_str(), static_cast<float>(a.fallback)));
}

// The module's compute type of an element type: F32, I64 or Bool.
ElementType compute_of(const LowerContext& cx, ElementType t) {
  const std::string s = cx.compute_type(t);
  if (s == "float") return ElementType::F32;
  if (s == "std::int64_t") return ElementType::I64;
  if (s == "bool") return ElementType::Bool;
  cx.error(std::string("element type ") + element_type_name(t) + " has no elementwise kernel");
}

// An expression being built for one node, and the operands it reads.
class Expression {
 public:
  explicit Expression(LowerContext& cx) : cx_(cx) {}

  // A tensor operand: lifted to the result's axes where a layout named an axis of 1 apart. A
  // tensor the plan inlines is its pending expression, computed here; a tensor read twice is one
  // value.
  int operand(const std::string& tensor, const std::vector<AxisName>& out_axes) {
    if (auto seen = read_.find(tensor); seen != read_.end()) return seen->second;
    if (auto p = cx_.pending.find(tensor); p != cx_.pending.end()) return read_[tensor] = splice(p->second);
    // A contraction's epilogue reads the product where it lies, whatever its axes of 1 are named.
    const ProductEpilogue* epilogue = cx_.epilogue();
    Arg a = epilogue && epilogue->operand == tensor ? Arg::of_tensor(tensor) : cx_.broadcast_operand(tensor, out_axes);
    auto it = cx_.synthetic.find(a.tensor);
    const TensorInfo info = it != cx_.synthetic.end() ? it->second : cx_.info(a.tensor);
    ElementwiseOperand o;
    o.tensor = a.tensor;
    o.type = compute_of(cx_, info.elem);
    o.dims = info.dims;
    return read_[tensor] = load(add_operand(o));
  }

  // Input i of the node, folded to a constant when the build knows it, else an operand.
  int input(std::size_t i, const std::vector<AxisName>& out_axes, ElementType constant_type) {
    const Node& n = *cx_.node;
    if (!axes::is_folded_scalar_operand(n, i, cx_.st)) return operand(n.inputs[i], out_axes);
    return constant(i, constant_type);
  }

  // The one element of input i the build knows, as a constant of `type`.
  int constant(std::size_t i, ElementType type) {
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

  // A number the lowering chooses (Mean's 1/n), as a constant of `type`.
  int number(double value, ElementType type) {
    return push(ExprValue::constant(value, type));
  }

  int op(const std::string& name, std::vector<int> args, ElementType type, double p = 0, double q = 0) {
    ExprValue v = ExprValue::apply(name, std::move(args), type, p, q);
    if (const ops::Operator* record = cx_.st.operators->find("", name)) {
      v.unary = record->unary;
      v.binary = record->binary;
    }
    return push(std::move(v));
  }

  // `reduction` (ReduceSum, ReduceMean, ReduceMax, ReduceMin) of a float value along the row.
  int reduce(const std::string& reduction, int value) { return push(ExprValue::reduce(reduction, value)); }

  ElementType type_of(int value) const { return values_.at(static_cast<std::size_t>(value)).type; }

  // The float number a value is, when it is a constant.
  std::optional<double> float_constant(int value) const {
    const ExprValue& v = values_.at(static_cast<std::size_t>(value));
    if (v.kind != ExprValue::Kind::Constant || v.type != ElementType::F32) return std::nullopt;
    return v.number;
  }

  // The result as a narrow integer's: wrapped into its range.
  int wrapped(int value, ElementType narrow) {
    return op("Wrap", {value}, ElementType::I64, narrow_integer_bits(narrow), narrow_integer_signed(narrow) ? 1 : 0);
  }

  // Writes the kernel and the call that runs it, defining the node's first output; or, for a node
  // the plan inlines into its reader, leaves the expression for that reader.
  void finish(const TensorInfo& out, RowNormalisation normalise = RowNormalisation::None) {
    const ElementType out_type = compute_of(cx_, out.elem);
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
    k.symbol = kind + std::to_string(cx_.out.loom_kernels.size());
    if (!cx_.out.kernels) cx_.out.kernels = std::make_shared<loom::Module>();
    cx_.out.kernels->file = cx_.origin;
    const std::vector<Extent> passed = build_elementwise_kernel(*cx_.out.kernels, k);
    // An epilogue's kernel takes the rows of a run too, which the product passes.
    cx_.out.loom_kernels.push_back({k.symbol, passed.size() + (epilogue ? 2 : 0), operands_.size()});
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

 private:
  // The operand passing `o.tensor`, added once.
  int add_operand(const ElementwiseOperand& o) {
    for (std::size_t k = 0; k < args_.size(); ++k)
      if (args_[k].tensor == o.tensor) return static_cast<int>(k);
    operands_.push_back(o);
    args_.push_back(Arg::of_tensor(o.tensor));
    return static_cast<int>(operands_.size() - 1);
  }

  // Moves the operand passing `tensor` to the front (an epilogue's product).
  void make_first(const std::string& tensor) {
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
  int load(int k) { return push(ExprValue::load(k, operands_.at(static_cast<std::size_t>(k)).type)); }

  // An inlined node's values, appended with their operands and earlier values renumbered; an
  // operand this expression reads already is the value that reads it.
  int splice(const PendingExpression& p) {
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
  int push(const ExprValue& v) {
    auto key = std::make_tuple(v.kind, v.type, v.operand, std::bit_cast<std::uint64_t>(v.number), v.integer, v.op, v.args,
                               std::bit_cast<std::uint64_t>(v.p), std::bit_cast<std::uint64_t>(v.q));
    if (auto it = index_.find(key); it != index_.end()) return it->second;
    values_.push_back(v);
    return index_[key] = static_cast<int>(values_.size() - 1);
  }

  LowerContext& cx_;
  std::vector<ElementwiseOperand> operands_;
  std::vector<Arg> args_;
  std::vector<ExprValue> values_;
  std::map<std::string, int> read_;  // tensor -> the value reading it
  std::map<std::tuple<ExprValue::Kind, ElementType, int, std::uint64_t, std::int64_t, std::string, std::vector<int>, std::uint64_t,
                      std::uint64_t>,
           int>
      index_;  // each value computed, by what it computes
  std::map<std::size_t, std::string> ops_;  // the operators computed, by node index
};

}  // namespace

bool is_elementwise_kernel(const Node& n, const stage0::Stage0Result& analysed) {
  if (!n.domain.empty() || n.outputs.size() != 1 || n.outputs[0].empty()) return false;
  const std::string& op = n.op_type;
  if (op == "Cast" || op == "CastLike") {
    // A Cast between types held alike moves nothing: it stays an `identity`.
    const auto* from = n.inputs.empty() ? nullptr : analysed.find(n.inputs[0]);
    const auto* to = analysed.find(n.outputs[0]);
    return from && to && (cpp_compute_type(from->elem) != cpp_compute_type(to->elem) || is_narrow_integer(to->elem));
  }
  const ops::Operator* record = analysed.operators->find(n);
  return record && (record->unary || record->binary || op == "Clip" || op == "Where");
}

bool is_row_normaliser(const Node& n, const stage0::Stage0Result& analysed) {
  const bool current = n.domain.empty() && (n.op_type == "Softmax" || n.op_type == "LogSoftmax");
  const bool flattened = n.domain == "loam" && (n.op_type == "SoftmaxFlattened" || n.op_type == "LogSoftmaxFlattened");
  if ((!current && !flattened) || n.inputs.empty() || n.outputs.size() != 1) return false;
  const auto* x = analysed.find(n.inputs[0]);
  if (!x || x->elem != ElementType::F32 || x->dims.empty()) return false;
  const Attribute* a = n.attr("axis");
  if (a && a->kind != Attribute::Kind::Int) return false;
  const auto rank = static_cast<std::int64_t>(x->dims.size());
  const std::int64_t axis = a ? a->i : current ? -1 : 1;
  return axis == -1 || axis == rank - 1;
}

namespace {

// The axes a reduction names: its attribute, or (opset 18) its second input, which the build knows.
std::optional<std::vector<std::int64_t>> reduction_axes(const Node& n, const stage0::Stage0Result& analysed) {
  if (n.inputs.size() > 1 && !n.inputs[1].empty()) {
    const auto* a = analysed.find(n.inputs[1]);
    if (!a || !a->value || a->value->kind != stage0::FoldedValue::Kind::Integer) return std::nullopt;
    std::vector<std::int64_t> axes;
    for (const auto& e : a->value->ints) {
      auto c = e.constant();
      if (!c) return std::nullopt;
      axes.push_back(*c);
    }
    return axes;
  }
  const Attribute* a = n.attr("axes");
  if (!a) return std::vector<std::int64_t>{};
  if (a->kind != Attribute::Kind::Ints) return std::nullopt;
  return a->ints;
}

// Whether the node's input is a float tensor whose last axis `axis` (an attribute, or `fallback`)
// names.
bool reads_float_rows(const Node& n, const stage0::Stage0Result& analysed, std::int64_t axis) {
  if (n.inputs.empty() || n.outputs.empty() || n.outputs[0].empty()) return false;
  const auto* x = analysed.find(n.inputs[0]);
  if (!x || x->elem != ElementType::F32 || x->dims.empty()) return false;
  return axis == -1 || axis == static_cast<std::int64_t>(x->dims.size()) - 1;
}

}  // namespace

bool is_row_reduction(const Node& n, const stage0::Stage0Result& analysed) {
  if (!n.domain.empty() || n.outputs.size() != 1) return false;
  if (n.op_type != "ReduceSum" && n.op_type != "ReduceMean" && n.op_type != "ReduceMax" && n.op_type != "ReduceMin") return false;
  const Attribute* keep = n.attr("keepdims");
  if (keep && (keep->kind != Attribute::Kind::Int || keep->i != 1)) return false;
  auto axes = reduction_axes(n, analysed);
  return axes && axes->size() == 1 && reads_float_rows(n, analysed, axes->front());
}

bool is_layer_normaliser(const Node& n, const stage0::Stage0Result& analysed) {
  if (!n.domain.empty() || n.op_type != "LayerNormalization" || n.inputs.size() < 2 || n.inputs[1].empty()) return false;
  for (std::size_t k = 1; k < n.outputs.size(); ++k)
    if (!n.outputs[k].empty()) return false;  // Mean and InvStdDev: the runtime's kernel computes them
  const Attribute* axis = n.attr("axis");
  const Attribute* eps = n.attr("epsilon");
  const Attribute* stash = n.attr("stash_type");
  if ((axis && axis->kind != Attribute::Kind::Int) || (eps && eps->kind != Attribute::Kind::Float) ||
      (stash && (stash->kind != Attribute::Kind::Int || stash->i != 1)))
    return false;
  return reads_float_rows(n, analysed, axis ? axis->i : -1);
}

bool lower_elementwise(LowerContext& cx, const Node& n) {
  const std::string& op = n.op_type;
  if (cx.inline_into_reader && is_row_reduction(n, cx.st)) {
    // Its reader's kernel reduces the row (the plan inlines a reduction only there).
    const TensorInfo out = cx.info(n.outputs.at(0));
    Expression e(cx);
    e.reduce(op, e.operand(cx.in(0), cx.info(cx.in(0)).axes));
    e.finish(out);
    return true;
  }
  if (is_layer_normaliser(n, cx.st)) {
    // ONNX's definition: d = x - mean(x), then d / sqrt(mean(d * d) + epsilon) * scale + bias.
    constexpr ElementType F = ElementType::F32;
    const TensorInfo out = cx.info(n.outputs.at(0));
    Expression e(cx);
    const int x = e.operand(cx.in(0), out.axes);
    const int d = e.op("Sub", {x, e.reduce("ReduceMean", x)}, F);
    const int variance = e.reduce("ReduceMean", e.op("Mul", {d, d}, F));
    const int epsilon = e.number(static_cast<double>(cx.attr_float("epsilon", 1e-5f)), F);
    const int inverse = e.op("Reciprocal", {e.op("Sqrt", {e.op("Add", {variance, epsilon}, F)}, F)}, F);
    int y = e.op("Mul", {e.op("Mul", {d, inverse}, F), e.input(1, out.axes, F)}, F);
    if (cx.has(2)) y = e.op("Add", {y, e.input(2, out.axes, F)}, F);
    e.finish(out);
    return true;
  }
  if (cx.inline_into_reader && is_row_normaliser(n, cx.st)) {
    // Its reader's kernel computes it along the row, with reductions: the maximum m, the sum s of
    // exp(x - m), then exp(x - m) * (1 / s) or (x - m) - log(s). The work after it (sdpa's
    // Where(IsNaN(p), 0, p)) is in the same loop.
    constexpr ElementType F = ElementType::F32;
    const TensorInfo out = cx.info(n.outputs.at(0));
    Expression e(cx);
    const int x = e.operand(cx.in(0), out.axes);
    const int shifted = e.op("Sub", {x, e.reduce("ReduceMax", x)}, F);
    const int exp = e.op("Exp", {shifted}, F);
    const int sum = e.reduce("ReduceSum", exp);
    if (op.rfind("Log", 0) == 0) e.op("Sub", {shifted, e.op("Log", {sum}, F)}, F);
    else e.op("Mul", {exp, e.op("Reciprocal", {sum}, F)}, F);
    e.finish(out);
    return true;
  }
  if (is_row_normaliser(n, cx.st)) {
    const TensorInfo out = cx.info(n.outputs.at(0));
    Expression e(cx);
    e.operand(cx.in(0), out.axes);
    e.finish(out, op.rfind("Log", 0) == 0 ? RowNormalisation::LogSoftmax : RowNormalisation::Softmax);
    return true;
  }
  if (!n.domain.empty()) return false;
  const ops::Operator* record = cx.st.operators->find(n);
  // Only an elementwise operator's node is composed here (an operator with its own lowering may
  // leave its first result unread).
  if (!record || !record->elementwise) return false;
  const TensorInfo out = cx.info(n.outputs.at(0));
  Expression e(cx);

  if (const ops::UnaryOp* u = record ? record->unary : nullptr) {
    // The operator's attributes, with ONNX's defaults, reach its Loom form as p and q.
    double pq[2] = {0, 0};
    for (std::size_t k = 0; k < u->attributes.size() && k < 2; ++k) pq[k] = attribute(cx, u->attributes[k]);
    const int x = e.operand(cx.in(0), out.axes);
    const ElementType t = e.type_of(x);
    if ((t == ElementType::F32 && !u->f32) || (t == ElementType::I64 && !u->i64) || (t == ElementType::Bool && !u->i1))
      cx.error(std::string("no kernel computes ") + op + " on " + element_type_name(cx.info(cx.in(0)).elem) + " elements");
    const int r = e.op(std::string(u->name), {x}, u->bool_result ? ElementType::Bool : t, pq[0], pq[1]);
    if (is_narrow_integer(out.elem) && u->leaves_range) e.wrapped(r, out.elem);
    e.finish(out);
    return true;
  }
  if (op == "Clip") {
    // A bound the build knows is a constant of the kernel; one the run supplies (a 0-d tensor) an
    // operand: max(x, min), then min(., max).
    int r = e.operand(cx.in(0), out.axes);
    const ElementType t = e.type_of(r);
    for (std::size_t i = 1; i < 3; ++i) {
      if (!cx.has(i)) continue;
      const char* what = i == 1 ? "the minimum" : "the maximum";
      int bound;
      if (axes::is_folded_scalar_operand(n, i, cx.st)) {
        auto v = cx.folded_floats(i);
        if (!v || v->size() != 1) cx.error(std::string(what) + " '" + cx.in(i) + "' must be one number known at build time");
        bound = e.constant(i, t);
      } else {
        if (!cx.info(cx.in(i)).axes.empty()) cx.error(std::string(what) + " '" + cx.in(i) + "' must be a 0-d tensor");
        bound = e.operand(cx.in(i), out.axes);
      }
      r = e.op(i == 1 ? "Max" : "Min", {r, bound}, t);
    }
    e.finish(out);
    return true;
  }
  if (op == "Identity" || op == "Dropout") {
    // Dropout in inference passes its input through and keeps every element: its mask is all true.
    // Training mode draws a random mask, which no kernel computes.
    if (op == "Dropout" && cx.has(2) && cx.folded_ints(2, "the training mode") != std::vector<int64_t>{0})
      cx.error("training mode draws a random mask, which no kernel computes");
    cx.call("identity", {}, {Arg::of_tensor(cx.in(0))});
    if (op == "Dropout" && n.outputs.size() > 1 && !n.outputs[1].empty()) {
      const TensorInfo mask = cx.info(n.outputs[1]);
      cx.call("constant_of_shape", {TypeArg::of_axes(mask.axes), TypeArg::of_code("bool")},
              {Arg::of_extents(mask.dims), Arg::of_integer_element(ElementType::Bool, 1, "value")}, {n.outputs[1]});
    }
    return true;
  }
  if (op == "Cast" || op == "CastLike") {
    const TensorInfo src = cx.info(cx.in(0));
    const bool same = cx.compute_type(src.elem) == cx.compute_type(out.elem);
    if (same && !is_narrow_integer(out.elem)) {
      cx.call("identity", {}, {Arg::of_tensor(cx.in(0))});
      return true;
    }
    const int x = e.operand(cx.in(0), out.axes);
    int r = same ? x : e.op("Cast", {x}, compute_of(cx, out.elem));
    // To a narrow integer from a wider or differently signed one: ONNX keeps the low bits.
    if (is_narrow_integer(out.elem)) r = e.wrapped(same ? e.op("Identity", {x}, ElementType::I64) : r, out.elem);
    e.finish(out);
    return true;
  }
  if (op == "Where") {
    const int c = e.operand(cx.in(0), out.axes);
    const int x = e.operand(cx.in(1), out.axes);
    const int y = e.operand(cx.in(2), out.axes);
    e.op("Where", {c, x, y}, e.type_of(x));
    e.finish(out);
    return true;
  }
  const ops::BinaryOp* bin = record ? record->binary : nullptr;
  if (!bin) return false;

  // The operands: each tensor an operand, a one-element number the build knows a constant of the
  // other operand's type; variadic Sum/Mean/Max/Min fold left.
  std::vector<std::size_t> present;
  for (std::size_t i = 0; i < n.inputs.size(); ++i)
    if (!n.inputs[i].empty()) present.push_back(i);
  if (present.empty()) cx.error("no operands");
  ElementType operand_type = ElementType::F32;
  for (std::size_t i : present)
    if (!axes::is_folded_scalar_operand(n, i, cx.st)) {
      operand_type = compute_of(cx, cx.info(cx.in(i)).elem);
      break;
    }
  std::vector<int> leaf;
  for (std::size_t i : present) leaf.push_back(e.input(i, out.axes, operand_type));
  // Pow's exponent may be of another element type than its base (ONNX's T1). A float exponent of
  // an integer base computes in float, as ONNX's reference does, and truncates back; any other
  // exponent is cast to the base's type.
  ElementType compute = e.type_of(leaf[0]);
  if (op == "Pow" && leaf.size() == 2 && e.type_of(leaf[0]) != e.type_of(leaf[1])) {
    if (e.type_of(leaf[0]) == ElementType::I64 && e.type_of(leaf[1]) == ElementType::F32) {
      leaf[0] = e.op("Cast", {leaf[0]}, ElementType::F32);
      compute = ElementType::F32;
    } else {
      leaf[1] = e.op("Cast", {leaf[1]}, e.type_of(leaf[0]));
    }
  }
  if (op == "Pow" && leaf.size() == 2 && compute == ElementType::F32 && compute_of(cx, out.elem) == ElementType::F32) {
    // x^2 and x^3 as products (onnxruntime's too): exact for 2, within an ulp of pow for 3, and a
    // vector multiply where pow is a call per lane (GELU's cube, a LayerNorm's square).
    const auto exponent = e.float_constant(leaf[1]);
    if (exponent && (*exponent == 2 || *exponent == 3)) {
      int r = e.op("Mul", {leaf[0], leaf[0]}, compute);
      if (*exponent == 3) r = e.op("Mul", {r, leaf[0]}, compute);
      e.finish(out);
      return true;
    }
  }
  // The table's form for the compute type; none (Mean of integers, BitShift) refuses by name.
  const ops::BinaryOp::Form& form = compute == ElementType::F32 ? bin->f32 : compute == ElementType::I64 ? bin->i64 : bin->i1;
  if (!form) cx.error(std::string("no kernel computes ") + op + " on " + element_type_name(cx.info(cx.in(present[0])).elem) + " elements");
  const double p = bin->attributes.empty() ? 0 : attribute(cx, bin->attributes[0]);
  const ElementType value_type = bin->bool_result() ? ElementType::Bool : compute;
  int acc = leaf[0];
  for (std::size_t k = 1; k < leaf.size(); ++k) acc = e.op(op, {acc, leaf[k]}, value_type, p);
  if (bin->mean && leaf.size() > 1) acc = e.op("Mul", {acc, e.number(1.0 / static_cast<double>(leaf.size()), compute)}, compute);
  if (leaf.size() == 1) acc = e.op("Identity", {acc}, value_type);
  if (value_type == ElementType::F32 && compute_of(cx, out.elem) == ElementType::I64) acc = e.op("Cast", {acc}, ElementType::I64);
  if (is_narrow_integer(out.elem) && bin->leaves_range) acc = e.wrapped(acc, out.elem);
  e.finish(out);
  return true;
}

}  // namespace loam::lower
