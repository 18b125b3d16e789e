#include "lower/elementwise_kernel.hpp"

#include <bit>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>

#include "loom/builder.hpp"
#include "loom/lanes.hpp"
#include "ops/binary.hpp"
#include "ops/op.hpp"
#include "ops/unary.hpp"
#include "support/error.hpp"

namespace loam::lower {

using loom::Builder;
using loom::Op;
using loom::Scalar;
using loom::Type;
using loom::TypeKind;
using loom::Value;
using stage0::Extent;

loom::Scalar loom_scalar(ElementType t) {
  switch (t) {
    case ElementType::F32: return Scalar::F32;
    case ElementType::F64: return Scalar::F64;
    case ElementType::I64: return Scalar::I64;
    case ElementType::Bool: return Scalar::I1;
    default: fail(std::string("an elementwise kernel computes in f32, f64, i64 or bool, not ") + element_type_name(t));
  }
}

bool has_reduction(const ElementwiseKernel& k) {
  for (const auto& v : k.values)
    if (v.kind == ExprValue::Kind::Reduce) return true;
  return false;
}

namespace {

constexpr std::int64_t kIndexMax = std::numeric_limits<std::int64_t>::max();

bool is_constant_one(const Extent& e) {
  auto c = e.constant();
  return c && *c == 1;
}

// The result's axes merged where every operand steps through them alike.
struct Group {
  std::vector<std::size_t> dims;  // result axes, in order
  std::vector<bool> present;      // per operand: it spans these axes (else it broadcasts along them)
};

// Whether operand `o` spans result axis d (an extent of 1 broadcasts; any other is the result's,
// as stage 0 proved or owes).
bool spans(const ElementwiseOperand& o, std::size_t d, std::size_t rank) {
  const std::size_t r = o.dims.size();
  return d + r >= rank && !is_constant_one(o.dims[d + r - rank]);
}

// A row that is normalised or reduced stays the last group, alone, whatever its extent; an
// epilogue's row is the axes from its row axis on, one group.
std::vector<Group> merge_axes(const ElementwiseKernel& k) {
  const std::size_t rank = k.out_dims.size();
  const bool row = k.normalise != RowNormalisation::None || has_reduction(k);
  const std::size_t row_from = k.row_axis ? *k.row_axis : row && rank > 0 ? rank - 1 : rank;
  std::vector<Group> groups;
  for (std::size_t d = 0; d < row_from; ++d) {
    if (is_constant_one(k.out_dims[d])) continue;  // one element: no operand steps along it
    std::vector<bool> present;
    for (const auto& o : k.operands) present.push_back(spans(o, d, rank));
    if (!groups.empty() && groups.back().present == present) groups.back().dims.push_back(d);
    else groups.push_back({{d}, present});
  }
  if (row_from < rank) {
    Group the_row;
    for (std::size_t d = row_from; d < rank; ++d) the_row.dims.push_back(d);
    for (const auto& o : k.operands) {
      std::optional<bool> has;
      for (std::size_t d = row_from; d < rank; ++d) {
        if (is_constant_one(k.out_dims[d])) continue;
        if (has && *has != spans(o, d, rank))
          fail("kernel " + k.symbol + ": an operand spans part of the row only, which one merged row cannot read");
        has = spans(o, d, rank);
      }
      the_row.present.push_back(has.value_or(false));
    }
    groups.push_back(std::move(the_row));
  }
  if (groups.empty()) groups.push_back({{}, std::vector<bool>(k.operands.size(), true)});
  return groups;
}

// Builds an expression's values in one form: scalars (lanes 0) or vectors of a kernel's width,
// typed by the module's compute types.
class ExprEmitter : public loom::Lanes {
 public:
  ExprEmitter(Builder& b, int lanes) : Lanes(b, lanes) {}
  using Lanes::op;
  using Lanes::select;
  using Lanes::splat;
  using Lanes::type;

  Type type(ElementType t) const { return type(loom_scalar(t)); }
  Value* splat(Value* scalar, ElementType t) const { return splat(scalar, loom_scalar(t)); }
  Value* op(const std::string& suffix, std::vector<Value*> args, ElementType t, const std::string& hint = "t") const {
    return op(suffix, std::move(args), loom_scalar(t), hint);
  }
  Value* select(Value* c, Value* a, Value* b, ElementType t) const { return select(c, a, b, loom_scalar(t)); }

  // The lane form computing in compute type t: a float form computes in t's float format.
  Lanes in(ElementType t) const { return in_real(ops::is_float_type(t) ? loom_scalar(t) : Scalar::F32); }

  // `x != 0` as an i1, for the logical operators' operands.
  Value* truth(Value* x, ElementType t) {
    if (t == ElementType::Bool) return x;
    if (ops::is_float_type(t)) return cmpf(UNE, x, in(t).real(0));
    return cmpi(NE, x, i64(0));
  }

  Value* cast(Value* x, ElementType from, ElementType to) {
    if (from == to) return x;
    if (to == ElementType::Bool) return truth(x, from);
    if (from == ElementType::Bool) return op(ops::is_float_type(to) ? "uitofp" : "extui", {x}, to, "cast");
    if (ops::is_float_type(from) && ops::is_float_type(to)) return op("convertf", {x}, to, "cast");
    if (ops::is_float_type(to)) return op("sitofp", {x}, to, "cast");
    // A float to i64: toward zero; NaN and values past int64 give INT64_MIN, as x86's conversion does.
    const Lanes f = in(from);
    Value* in_range = builder().value(prefix() + "andi",
                               {cmpf(OGE, x, f.real(-9223372036854775808.0)), cmpf(OLT, x, f.real(9223372036854775808.0))}, "cmp",
                               type(ElementType::Bool));
    return select(in_range, op("fptosi", {x}, to, "cast"), i64(std::numeric_limits<std::int64_t>::min()), to);
  }

  Value* emit(const ExprValue& v, const std::vector<Value*>& a, const std::vector<ElementType>& t) {
    const std::string& o = v.op;
    const ElementType rt = v.type;
    if (const ops::UnaryOp* u = v.unary) {
      const ops::UnaryOp::Form& form = u->form(t[0]);
      if (!form) fail(std::string("the elementwise operator ") + o + " is not defined on " + element_type_name(t[0]));
      return form(in(t[0]), a[0], v.p, v.q);
    }
    if (const ops::BinaryOp* bin = v.binary) {
      // Logic reads its operands as truth values; the rest compute in the first operand's type.
      if (bin->family == ops::BinaryOp::Family::Logic) return bin->i1(*this, truth(a[0], t[0]), truth(a[1], t[1]), v.p);
      const ops::BinaryOp::Form& form = bin->form(t[0]);
      if (!form) fail(std::string("the elementwise operator ") + o + " is not defined on " + element_type_name(t[0]));
      return form(in(t[0]), a[0], a[1], v.p);
    }
    if (o == "Cast") return cast(a[0], t[0], rt);
    if (o == "Where") return select(a[0], a[1], a[2], rt);
    if (o == "Identity") return a[0];
    if (o == "Wrap") {
      // The low bits of an int64 as a narrow integer of p bits, sign-extended when q is set.
      const int bits = static_cast<int>(v.p);
      const Scalar narrow = bits == 8 ? Scalar::I8 : bits == 16 ? Scalar::I16 : Scalar::I32;
      Value* low = builder().value(prefix() + "trunci", {a[0]}, "low", type(narrow));
      return op(v.q != 0 ? "extsi" : "extui", {low}, ElementType::I64, "wrapped");
    }
    fail("no form of the elementwise operator " + o);
  }
};

// What a kernel's launch region holds for its body: the views, the row's outer indices.
struct Row {
  Value* out_view = nullptr;
  std::vector<Value*> views;         // per operand
  std::vector<Value*> outer;         // the row's index along each merged axis but the last
  Value* last = nullptr;             // the last merged axis's extent
  Value* zero = nullptr;             // index constants the loops along the row share
  Value* one = nullptr;
  int width = kWideLanes;            // the lanes of a vector
  Value* lanes = nullptr;            // the same, as an index
  Value* vector_end = nullptr;       // where the whole vectors end
  bool no_vectors = false;           // the build knows the row is shorter than a vector
  std::optional<std::int64_t> known_length;  // the row's length, when the build knows it
};

// Coordinates of column `c` of the row.
std::vector<Value*> at_column(const Row& row, Value* c) {
  std::vector<Value*> at = row.outer;
  at.push_back(c);
  return at;
}

// The expression along one row. A reduction, and a value computed from reductions and constants
// alone, is a scalar of the row: `reduce` computes them once, in order, each reduction one loop
// over the row; `at` gives any other value at a column, in the loop's form (scalars or vectors),
// reading those scalars.
class RowExpression {
 public:
  RowExpression(Builder& b, const ElementwiseKernel& k, const std::vector<Group>& groups, const Row& row)
      : b_(b), k_(k), groups_(groups), row_(row), of_row_(k.values.size(), false) {
    for (std::size_t i = 0; i < k.values.size(); ++i) {
      const auto& v = k.values[i];
      if (v.kind == ExprValue::Kind::Reduce) {
        of_row_[i] = true;
      } else if (v.kind == ExprValue::Kind::Op && !v.args.empty()) {
        bool all = true, any = false;
        for (int a : v.args) {
          const auto j = static_cast<std::size_t>(a);
          all = all && (of_row_[j] || k.values[j].kind == ExprValue::Kind::Constant);
          any = any || of_row_[j];
        }
        of_row_[i] = all && any;
      }
    }
  }

  // The row's scalars, at the current insertion point (before the loops that read them).
  void reduce() {
    for (std::size_t i = 0; i < k_.values.size(); ++i) {
      if (!of_row_[i]) continue;
      const auto& v = k_.values[i];
      scalar_[i] = v.kind == ExprValue::Kind::Reduce ? reduction(v) : at(nullptr, 0, static_cast<int>(i));
    }
  }

  // Value `root` (-1: the result) at column c.
  Value* at(Value* c, int lanes, int root = -1) {
    if (root < 0) root = static_cast<int>(k_.values.size()) - 1;
    // The values the root reads, stopping at the row's scalars; computed in the expression's order.
    std::vector<bool> needed(k_.values.size(), false);
    needed[static_cast<std::size_t>(root)] = true;
    for (std::size_t i = static_cast<std::size_t>(root) + 1; i-- > 0;)
      if (needed[i] && !scalar_.count(i))
        for (int a : k_.values[i].args) needed[static_cast<std::size_t>(a)] = true;
    ExprEmitter e(b_, lanes);
    std::vector<Value*> values(k_.values.size(), nullptr);
    for (std::size_t i = 0; i <= static_cast<std::size_t>(root); ++i) {
      if (!needed[i]) continue;
      const auto& v = k_.values[i];
      if (auto s = scalar_.find(i); s != scalar_.end()) {
        values[i] = e.splat(s->second, v.type);
      } else if (v.kind == ExprValue::Kind::Operand) {
        values[i] = load(e, v, c, lanes);
      } else if (v.kind == ExprValue::Kind::Constant) {
        values[i] = ops::is_float_type(v.type)               ? e.in(v.type).real(v.number)
                    : v.type == ElementType::I64 ? e.i64(v.integer)
                                                 : e.boolean(v.integer != 0);
      } else if (v.kind == ExprValue::Kind::Reduce) {
        fail("kernel " + k_.symbol + ": a reduction is read before the row computes it");
      } else {
        std::vector<Value*> args;
        std::vector<ElementType> arg_types;
        for (int a : v.args) {
          args.push_back(values.at(static_cast<std::size_t>(a)));
          arg_types.push_back(k_.values.at(static_cast<std::size_t>(a)).type);
        }
        values[i] = e.emit(v, args, arg_types);
      }
    }
    return values[static_cast<std::size_t>(root)];
  }

 private:
  Value* load(ExprEmitter& e, const ExprValue& v, Value* c, int lanes) {
    const auto k = static_cast<std::size_t>(v.operand);
    const auto& operand = k_.operands[k];
    std::vector<Value*> operands{row_.views[k]};
    for (Value* i : at_column(row_, c)) operands.push_back(i);
    const Scalar s = loom_scalar(operand.type);
    if (lanes && groups_.back().present[k])
      return b_.value("vector.load", operands, "x", Type::shaped(TypeKind::Vector, {loom::Extent::of(lanes)}, s));
    return e.splat(b_.value("view.load", operands, "x", Type::scalar(s)), operand.type);
  }

  // A sum, maximum or minimum of its argument along the row; a mean divides the sum by the row's
  // length.
  Value* reduction(const ExprValue& v);

  Builder& b_;
  const ElementwiseKernel& k_;
  const std::vector<Group>& groups_;
  const Row& row_;
  std::vector<bool> of_row_;
  std::map<std::size_t, Value*> scalar_;
};

void store(Builder& b, const Row& row, Value* value, Value* c, int lanes) {
  std::vector<Value*> operands{value, row.out_view};
  for (Value* i : at_column(row, c)) operands.push_back(i);
  b.op(lanes ? "vector.store" : "view.store", operands);
}

Value* load_result(Builder& b, const Row& row, Value* c, int lanes) {
  std::vector<Value*> operands{row.out_view};
  for (Value* i : at_column(row, c)) operands.push_back(i);
  const Type t = lanes ? Type::shaped(TypeKind::Vector, {loom::Extent::of(lanes)}, Scalar::F32) : Type::scalar(Scalar::F32);
  return b.value(lanes ? "vector.load" : "view.load", operands, "y", t);
}

// Runs `body` over the row: whole vectors of row.width lanes from 0 (none in a row the build knows
// is shorter), then the elements left one at a time.
void for_each_column(Builder& b, const Row& row, const std::function<void(Value* c, int lanes)>& body) {
  loom::Block* outer = b.insertion();
  for (const int width : {row.width, 0}) {
    if (width && row.no_vectors) continue;
    Op& loop = b.op("scf.for", width ? std::vector<Value*>{row.zero, row.vector_end, row.lanes}
                                     : std::vector<Value*>{row.vector_end, row.last, row.one});
    loom::Block& region = b.region(loop, {{"i", Type::index()}});
    body(region.args[0].get(), width);
    b.set_insertion(*outer);
  }
}

// A float reduction along the row: vectors into a vector accumulator that starts at `init`, its
// lanes folded in Loom's fixed order (`kind`: add, max), then the tail element by element. `step`
// gives the next accumulator from the current one at column c.
Value* reduce_row(Builder& b, const Row& row, double init, int kind, const std::function<Value*(Value* acc, Value* c, int lanes)>& step) {
  loom::Block* outer = b.insertion();
  const Type st = Type::scalar(Scalar::F32);
  Value* folded = nullptr;
  if (row.no_vectors) {
    folded = ExprEmitter(b, 0).f32(init);
  } else {
    ExprEmitter vectors(b, row.width);
    const Type vt = vectors.type(ElementType::F32);
    Op& vloop = b.op("scf.for", {row.zero, row.vector_end, row.lanes, vectors.f32(init)}, {{"acc", vt}});
    loom::Block& vbody = b.region(vloop, {{"i", Type::index()}, {"acc", vt}});
    b.op("scf.yield", {step(vbody.args[1].get(), vbody.args[0].get(), row.width)});
    b.set_insertion(*outer);
    folded = b.value("vector.reduce", {vloop.result(0)}, "acc", st, [kind](Op& o) { o.attr("kind").i = kind; });
  }
  Op& sloop = b.op("scf.for", {row.vector_end, row.last, row.one, folded}, {{"acc", st}});
  loom::Block& sbody = b.region(sloop, {{"i", Type::index()}, {"acc", st}});
  b.op("scf.yield", {step(sbody.args[1].get(), sbody.args[0].get(), 0)});
  b.set_insertion(*outer);
  return sloop.result(0);
}

constexpr int kAdd = 0, kMax = 2, kMin = 3;  // Loom's reduction kinds, by position

Value* RowExpression::reduction(const ExprValue& v) {
  constexpr ElementType F = ElementType::F32;
  const int arg = v.args.at(0);
  if (k_.values.at(static_cast<std::size_t>(arg)).type != F) fail("kernel " + k_.symbol + ": a row reduces f32 values");
  const bool sum = v.op == "ReduceSum" || v.op == "ReduceMean";
  const bool max = v.op == "ReduceMax";
  if (!sum && !max && v.op != "ReduceMin") fail("kernel " + k_.symbol + ": no row reduction " + v.op);
  const double init = sum ? 0.0 : max ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  const char* combine = sum ? "addf" : max ? "maxf" : "minf";
  Value* r = reduce_row(b_, row_, init, sum ? kAdd : max ? kMax : kMin, [&](Value* acc, Value* c, int lanes) {
    return ExprEmitter(b_, lanes).op(combine, {acc, at(c, lanes, arg)}, F, "acc");
  });
  if (v.op != "ReduceMean") return r;
  ExprEmitter scalars(b_, 0);
  Value* n = row_.known_length ? scalars.f32(static_cast<double>(*row_.known_length))
                               : scalars.op("sitofp", {b_.value("index.cast", {row_.last}, "n", Type::scalar(Scalar::I64))}, F, "n");
  return scalars.op("divf", {r, n}, F, "mean");
}

// Softmax or LogSoftmax of the expression along the row, as the runtime's kernel computes it: the
// maximum, the sum of exp(x - max), then exp(x - max) * (1 / sum) or x - max - log(sum).
void emit_row_normalisation(Builder& b, const ElementwiseKernel& k, RowExpression& x, const Row& row) {
  constexpr ElementType F = ElementType::F32;
  const bool softmax = k.normalise == RowNormalisation::Softmax;
  Value* max = reduce_row(b, row, -std::numeric_limits<double>::infinity(), kMax, [&](Value* acc, Value* c, int lanes) {
    return ExprEmitter(b, lanes).op("maxf", {acc, x.at(c, lanes)}, F, "max");
  });
  Value* sum = reduce_row(b, row, 0.0, kAdd, [&](Value* acc, Value* c, int lanes) {
    ExprEmitter e(b, lanes);
    Value* exp = e.op("exp", {e.op("subf", {x.at(c, lanes), e.splat(max, F)}, F)}, F, "exp");
    if (softmax) store(b, row, exp, c, lanes);
    return e.op("addf", {acc, exp}, F, "sum");
  });
  ExprEmitter scalars(b, 0);
  // x - max is exact near the maximum; subtracting log(sum) from it, not from x, keeps that.
  Value* scale = softmax ? scalars.op("divf", {scalars.f32(1), sum}, F, "inverse") : scalars.op("log", {sum}, F, "log_sum");
  for_each_column(b, row, [&](Value* c, int lanes) {
    ExprEmitter e(b, lanes);
    Value* y = softmax ? e.op("mulf", {load_result(b, row, c, lanes), e.splat(scale, F)}, F, "y")
                       : e.op("subf", {e.op("subf", {x.at(c, lanes), e.splat(max, F)}, F), e.splat(scale, F)}, F, "y");
    store(b, row, y, c, lanes);
  });
}

}  // namespace

std::vector<Extent> build_elementwise_kernel(loom::Module& module, const ElementwiseKernel& k, int lanes) {
  if (k.values.empty() || k.values.back().type != k.out_type)
    fail("elementwise kernel " + k.symbol + ": the expression's result is not of the result's type");
  if (k.normalise != RowNormalisation::None && (k.out_type != ElementType::F32 || k.out_dims.empty()))
    fail("kernel " + k.symbol + ": a row is normalised in f32, along the result's last axis");
  if (has_reduction(k) && k.out_dims.empty()) fail("kernel " + k.symbol + ": a row reduction needs the result's last axis");
  const std::vector<Group> groups = merge_axes(k);
  std::vector<Extent> passed;
  std::vector<int> param_of(k.out_dims.size(), -1);
  for (std::size_t d = 0; d < k.out_dims.size(); ++d) {
    if (k.out_dims[d].constant()) continue;
    for (std::size_t p = 0; p < passed.size(); ++p)
      if (passed[p] == k.out_dims[d]) param_of[d] = static_cast<int>(p);
    if (param_of[d] < 0) {
      param_of[d] = static_cast<int>(passed.size());
      passed.push_back(k.out_dims[d]);
    }
  }
  std::vector<std::pair<std::string, Type>> extent_params;
  for (std::size_t p = 0; p < passed.size(); ++p) extent_params.emplace_back("d" + std::to_string(p), Type::index());
  // An epilogue runs on the rows the product has finished: from `first`, `count` of them.
  const bool ranged = k.row_axis.has_value();
  if (ranged) {
    extent_params.emplace_back("first", Type::index());
    extent_params.emplace_back("count", Type::index());
  }
  const std::size_t buffers = extent_params.size();  // where the buffer parameters start

  // Per merged axis, the product of its extents the build knows, and whether it knows them all (a
  // stride along such an axis is a constant of the view's type).
  std::vector<std::int64_t> constant_part(groups.size(), 1);
  std::vector<std::optional<std::int64_t>> known(groups.size());
  for (std::size_t j = 0; j < groups.size(); ++j) {
    bool all = true;
    for (std::size_t d : groups[j].dims) {
      if (auto c = k.out_dims[d].constant()) constant_part[j] *= *c;
      else all = false;
    }
    if (all) known[j] = constant_part[j];
  }

  Builder b(module);
  // The extents of the first `count` merged axes: constants, the kernel's parameters, or products.
  auto merged_extents = [&](const std::vector<Value*>& params, bool promise, std::size_t count) {
    std::vector<Value*> assumed(params.size(), nullptr);
    for (std::size_t p = 0; p < params.size(); ++p)
      assumed[p] = promise ? b.value("index.assume", {params[p]}, "n", Type::index(),
                                     [](Op& o) { o.attr("facts").facts = {loom::Fact{loom::Fact::Kind::Range, 0, kIndexMax, 1}}; })
                           : params[p];
    std::vector<Value*> out;
    for (std::size_t j = 0; j < count; ++j) {
      Value* product = nullptr;
      for (std::size_t d : groups[j].dims) {
        if (k.out_dims[d].constant()) continue;
        Value* dim = assumed[static_cast<std::size_t>(param_of[d])];
        product = product ? b.value("index.mul", {product, dim}, "n", Type::index()) : dim;
      }
      if (!product) out.push_back(b.index(constant_part[j], "n"));
      else if (constant_part[j] == 1) out.push_back(product);
      else out.push_back(b.value("index.mul", {product, b.index(constant_part[j], "n")}, "n", Type::index()));
    }
    return out;
  };

  Op& kernel = b.kernel(k.symbol, extent_params);
  {
    std::vector<Value*> params;
    for (const auto& a : kernel.regions[0]->block.args) params.push_back(a.get());
    // The launch runs one work item per row: the extents of every merged axis but the last.
    const std::vector<Value*> extents = merged_extents(params, false, groups.size() - 1);
    Value* one = b.index(1, "one");
    Value* rows = extents.empty() ? one : extents[0];
    for (std::size_t j = 1; j < extents.size(); ++j) rows = b.value("index.mul", {rows, extents[j]}, "rows", Type::index());
    // A run past the last row launches a negative count, which the launch refuses.
    if (ranged)
      rows = b.value("index.min", {params[passed.size() + 1], b.value("index.sub", {rows, params[passed.size()]}, "left", Type::index())},
                     "run", Type::index());
    b.op("kernel.launch.config", {rows, one, one, one, one, one});
  }

  std::vector<std::pair<std::string, Type>> launch_params = extent_params;
  launch_params.emplace_back("out", Type::buffer());
  for (std::size_t i = 0; i < k.operands.size(); ++i) launch_params.emplace_back("in" + std::to_string(i), Type::buffer());
  loom::Block& launch = b.launch(kernel, launch_params);
  std::vector<Value*> params;
  for (std::size_t p = 0; p < passed.size(); ++p) params.push_back(launch.args[p].get());
  const std::vector<Value*> extents = merged_extents(params, true, groups.size());
  const std::size_t m = extents.size();

  // Views: the result dense; each operand strided, stride 0 along the axes it broadcasts over.
  Value* base = b.offset(0, "base");
  std::vector<loom::Extent> view_dims;
  for (std::size_t j = 0; j < m; ++j)
    view_dims.push_back(known[j] ? loom::Extent::of(*known[j]) : loom::Extent::bound_to(extents[j]));
  Row row;
  row.out_view = b.value("buffer.view", {launch.args[buffers].get(), base}, "out_view",
                         Type::shaped(TypeKind::View, view_dims, loom_scalar(k.out_type)));
  std::vector<Value*> byte_extent(m, nullptr);
  for (std::size_t i = 0; i < k.operands.size(); ++i) {
    const auto& o = k.operands[i];
    const auto bytes = static_cast<std::int64_t>(element_size(o.type));
    loom::StridedLayout layout;
    layout.strides.resize(m);
    // The bytes one step of axis j moves: a number while the extents after j are known, then a value.
    std::int64_t stride = bytes;
    Value* running = nullptr;
    bool dense = true;
    for (const auto& g : groups) dense = dense && g.present[i];
    // The extent of the last axis the operand spans is multiplied in only when an axis before it
    // spans it too (a stride no axis uses is never computed).
    std::optional<std::size_t> pending;
    for (std::size_t j = m; !dense && j-- > 0;) {
      if (!groups[j].present[i]) {
        layout.strides[j] = loom::Extent::of(0);
        continue;
      }
      if (pending) {
        const std::size_t p = *pending;
        if (!running && known[p] && *known[p] <= kIndexMax / stride) {
          stride *= *known[p];
        } else {
          if (!byte_extent[p]) byte_extent[p] = b.value("index.cast", {extents[p]}, "bytes", Type::offset());
          Value* step = running ? running : b.offset(static_cast<std::uint64_t>(stride), "bytes");
          running = b.value("index.mul", {step, byte_extent[p]}, "stride", Type::offset());
        }
      }
      layout.strides[j] = running ? loom::Extent::bound_to(running) : loom::Extent::of(stride);
      pending = j;
    }
    loom::Attachment attach;
    if (!dense) attach.layout = layout;
    row.views.push_back(b.value("buffer.view", {launch.args[buffers + 1 + i].get(), base}, "in_view",
                                Type::shaped(TypeKind::View, view_dims, loom_scalar(o.type), attach)));
  }

  // This work item's row: its index along each merged axis but the last.
  Value* r = m > 1 ? b.value("kernel.workgroup.id", {}, "row", Type::index(), [](Op& o) { o.attr("dim").i = 0; }) : nullptr;
  if (r && ranged) r = b.value("index.add", {launch.args[passed.size()].get(), r}, "row", Type::index());
  row.outer.resize(m - 1);
  for (std::size_t j = m - 1; j-- > 0;) {
    row.outer[j] = j == 0 ? r : b.value("index.rem", {r, extents[j]}, "i", Type::index());
    if (j > 0) r = b.value("index.div", {r, extents[j]}, "rest", Type::index());
  }
  row.last = extents[m - 1];

  // Whole vectors along the row, then the elements left one at a time.
  row.zero = b.index(0, "zero");
  row.one = b.index(1, "one");
  row.known_length = known[m - 1];
  row.width = lanes;
  row.no_vectors = known[m - 1] && *known[m - 1] < lanes;
  if (row.no_vectors) {
    row.vector_end = row.zero;
  } else {
    row.lanes = b.index(lanes, "lanes");
    Value* vectors = b.value("index.div", {row.last, row.lanes}, "vectors", Type::index());
    row.vector_end = b.value("index.mul", {vectors, row.lanes}, "vector_end", Type::index());
  }
  RowExpression x(b, k, groups, row);
  x.reduce();
  if (k.normalise != RowNormalisation::None) {
    emit_row_normalisation(b, k, x, row);
  } else {
    for_each_column(b, row, [&](Value* c, int width) { store(b, row, x.at(c, width), c, width); });
  }
  b.op("kernel.return", {});
  return passed;
}

}  // namespace loam::lower
