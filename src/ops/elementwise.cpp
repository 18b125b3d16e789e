// Elementwise operators besides the unary (unary.cpp) and binary (binary.cpp) tables: Where, Cast,
// Identity, Clip, and loam.ZipAt (pre-opset-7 broadcast); and the fold they all share. Shape rule: ONNX's
// multidirectional broadcast. Fold: over the build-known integers as Extents (polynomials and
// derived symbols), over a float Constant's values in f32; never over a float initializer.
#include <cmath>
#include <functional>

#include "ops/binary.hpp"
#include "ops/op.hpp"
#include "support/error.hpp"

namespace loam::ops {

using stage0::Proof;
using stage0::prove_nonnegative;

namespace {

// The inputs' shapes and the output's, all numbers, for a fold; nullopt where any is symbolic.
struct FoldShapes {
  std::vector<int64_t> out;
  std::vector<std::vector<std::size_t>> maps;
};
std::optional<FoldShapes> fold_shapes(OpContext& c, const std::vector<std::size_t>& inputs) {
  if (!c.foldable_count(0)) return std::nullopt;
  FoldShapes f;
  f.out = *constant_shape(c.out[0].dims);
  for (std::size_t i : inputs) {
    auto s = constant_shape(c.input(i).dims);
    if (!s) return std::nullopt;
    f.maps.push_back(broadcast_map(f.out, *s));
  }
  return f;
}

bool same_kind_known(OpContext& c, const std::vector<std::size_t>& inputs, FoldedValue::Kind kind) {
  for (std::size_t i : inputs)
    if (!c.has_input(i) || !c.in[i]->value || c.in[i]->value->kind != kind) return false;
  return true;
}

// The value of input i as floats (a Float value, or an Integer value of numbers).
std::optional<std::vector<float>> float_values(const ValueState& v) {
  if (!v.value) return std::nullopt;
  if (v.value->kind == FoldedValue::Kind::Float) return v.value->floats;
  std::vector<float> r;
  for (const auto& e : v.value->ints) {
    auto k = e.constant();
    if (!k) return std::nullopt;
    r.push_back(static_cast<float>(*k));
  }
  return r;
}

// Integer results wrap to their element type's width, as the type keeps its low bits.
Extent wrap_to(ElementType t, const Extent& e) {
  if (t == ElementType::I32) return stage0::wrap_i32(e);
  return e;
}

}  // namespace

void require_same_types(OpContext& c, const std::vector<std::size_t>& inputs) {
  ElementType t = c.input(inputs[0]).elem;
  for (std::size_t i : inputs)
    if (c.input(i).elem != t)
      c.error(c.tensor(i) + " is " + element_type_name(c.input(i).elem) + " but " + c.tensor(inputs[0]) + " is " +
              element_type_name(t));
}

void fold_elementwise(OpContext& c, const std::vector<std::size_t>& inputs, const IntFn& ints,
                      const FloatFn& floats, bool float_output) {
  for (std::size_t i : inputs)
    if (!c.has_input(i) || !c.in[i]->value) return;
  auto shapes = fold_shapes(c, inputs);
  if (!shapes) return;
  std::size_t n = shapes->maps.empty() ? 1 : shapes->maps[0].size();
  if (ints && same_kind_known(c, inputs, FoldedValue::Kind::Integer) && !float_output) {
    std::vector<Extent> out;
    out.reserve(n);
    std::vector<Extent> args(inputs.size());
    for (std::size_t e = 0; e < n; ++e) {
      for (std::size_t a = 0; a < inputs.size(); ++a) args[a] = c.in[inputs[a]]->value->ints[shapes->maps[a][e]];
      auto r = ints(args);
      if (!r) return;
      out.push_back(wrap_to(c.out[0].elem, *r));
    }
    c.fold_ints(0, std::move(out));
    return;
  }
  if (!floats) return;
  std::vector<std::vector<float>> vals;
  for (std::size_t i : inputs) {
    auto v = float_values(*c.in[i]);
    if (!v) return;
    vals.push_back(std::move(*v));
  }
  std::vector<float> out;
  out.reserve(n);
  std::vector<float> args(inputs.size());
  for (std::size_t e = 0; e < n; ++e) {
    for (std::size_t a = 0; a < inputs.size(); ++a) args[a] = vals[a][shapes->maps[a][e]];
    out.push_back(floats(args));
  }
  if (is_float_type(c.out[0].elem)) {
    c.fold_floats(0, std::move(out));
  } else {
    std::vector<Extent> ints_out;
    for (float f : out) ints_out.emplace_back(static_cast<int64_t>(f));
    c.fold_ints(0, std::move(ints_out));
  }
}

namespace {

// ----- Where -----

void where_op(OpContext& c) {
  if (c.input(0).elem != ElementType::Bool) c.error(c.tensor(0) + " must be bool, not " + element_type_name(c.input(0).elem));
  require_same_types(c, {1, 2});
  ElementType t = c.input(1).elem;
  c.set_output(0, t, c.broadcast({0, 1, 2}));
  if (!c.known({0, 1, 2})) return;
  auto shapes = fold_shapes(c, {0, 1, 2});
  if (!shapes || c.in[0]->value->kind != FoldedValue::Kind::Integer) return;
  const auto& cond = c.in[0]->value->ints;
  std::size_t n = shapes->maps[0].size();
  for (const auto& e : cond)
    if (!e.is_constant()) return;
  if (c.in[1]->value->kind == FoldedValue::Kind::Integer && c.in[2]->value->kind == FoldedValue::Kind::Integer) {
    std::vector<Extent> out;
    for (std::size_t e = 0; e < n; ++e)
      out.push_back(*cond[shapes->maps[0][e]].constant() ? c.in[1]->value->ints[shapes->maps[1][e]]
                                                         : c.in[2]->value->ints[shapes->maps[2][e]]);
    c.fold_ints(0, std::move(out));
    return;
  }
  auto x = float_values(*c.in[1]), y = float_values(*c.in[2]);
  if (!x || !y) return;
  std::vector<float> out;
  for (std::size_t e = 0; e < n; ++e)
    out.push_back(*cond[shapes->maps[0][e]].constant() ? (*x)[shapes->maps[1][e]] : (*y)[shapes->maps[2][e]]);
  c.fold_floats(0, std::move(out));
}

// ----- unary -----

void unary_same(OpContext& c) {
  const std::string& op = c.node.op_type;
  c.set_output(0, c.input(0).elem, c.input(0).dims);
  if (op == "Dropout" && c.out.size() > 1 && !c.out[1].name.empty()) c.set_output(1, ElementType::Bool, c.input(0).dims);
  // Identity and Dropout (inference) pass the value through, whatever it is.
  if ((op == "Identity" || op == "Dropout") && c.input(0).value) c.out[0].value = c.input(0).value;
}

void clip(OpContext& c) {
  ElementType t = c.input(0).elem;
  c.set_output(0, t, c.input(0).dims);
  for (std::size_t i = 1; i < 3; ++i)
    if (c.has_input(i) && !c.input(i).dims.empty() && !(c.input(i).dims.size() == 1 && c.input(i).dims[0] == Extent(1)))
      c.error(c.tensor(i) + " must hold one element, not " + c.input(i).shape_string());
  if (is_float_type(t)) return;  // fold of integer clips only
  if (!c.known({0})) return;
  const auto* x = c.ints(0);
  if (!x) return;
  const auto* lo = c.has_input(1) ? c.ints(1) : nullptr;
  const auto* hi = c.has_input(2) ? c.ints(2) : nullptr;
  if ((c.has_input(1) && !lo) || (c.has_input(2) && !hi)) return;
  std::vector<Extent> out;
  for (const auto& e : *x) {
    Extent r = e;
    if (hi && !hi->empty()) r = stage0::min_of(r, (*hi)[0]);
    if (lo && !lo->empty()) r = stage0::max_of(r, (*lo)[0]);
    out.push_back(r);
  }
  c.fold_ints(0, std::move(out));
}

// ----- Cast -----

ElementType cast_target(OpContext& c) {
  int64_t to = c.attr_int("to", -1);
  if (!is_known_element_type(static_cast<int32_t>(to)) || to == 0) c.error("attribute 'to' names no element type (" + std::to_string(to) + ")");
  return static_cast<ElementType>(to);
}

void cast_to(OpContext& c, ElementType to) {
  c.set_output(0, to, c.input(0).dims);
  const auto& in = c.input(0);
  if (!in.value) return;
  if (in.value->kind == FoldedValue::Kind::Integer) {
    std::vector<Extent> out;
    out.reserve(in.value->ints.size());
    for (const auto& e : in.value->ints) {
      switch (to) {
        case ElementType::I64: out.push_back(e); break;
        case ElementType::I32: out.push_back(stage0::wrap_i32(e)); break;
        case ElementType::F16: out.push_back(stage0::round_f16(e)); break;
        case ElementType::F32: out.push_back(stage0::round_f32(e)); break;
        case ElementType::F64: out.push_back(e); break;
        case ElementType::Bool: {
          if (auto k = e.constant()) out.emplace_back(*k != 0 ? 1 : 0);
          else if (prove_nonnegative(e - Extent(1)) == Proof::Holds) out.emplace_back(1);
          else return;  // the run decides
          break;
        }
        default: return;  // other widths: a kernel's to compute
      }
    }
    // Whole numbers in a float type stay Extents while symbolic; numbers become floats.
    if (is_float_type(to)) {
      bool numbers = true;
      for (const auto& e : out) numbers = numbers && e.is_constant();
      if (numbers) {
        std::vector<float> f;
        for (const auto& e : out) f.push_back(static_cast<float>(*e.constant()));
        c.fold_floats(0, std::move(f));
        return;
      }
    }
    c.fold_ints(0, std::move(out));
    return;
  }
  // From floats.
  if (is_float_type(to)) {
    std::vector<float> f = in.value->floats;
    if (to == ElementType::F16 || to == ElementType::BF16) return;  // rounding to half: a kernel's
    c.fold_floats(0, std::move(f));
    return;
  }
  std::vector<Extent> out;
  for (float f : in.value->floats) {
    if (to == ElementType::Bool) {
      out.emplace_back(f != 0 ? 1 : 0);
      continue;
    }
    if (!std::isfinite(f) || std::fabs(f) >= 9.2e18f) c.error("Cast of " + std::to_string(f) + " to " + element_type_name(to) + " has no integer value");
    Extent e(static_cast<int64_t>(std::trunc(f)));
    out.push_back(to == ElementType::I32 ? stage0::wrap_i32(e) : e);
  }
  c.fold_ints(0, std::move(out));
}

void cast(OpContext& c) { cast_to(c, cast_target(c)); }
void cast_like(OpContext& c) { cast_to(c, c.input(1).elem); }

// ----- loam.ZipAt: arithmetic before opset 7 with broadcast, B aligned at A's `axis` -----

void zip_at(OpContext& c) {
  std::string op = c.attr_string("op", "");
  int64_t axis_attr = c.attr_int("axis", 0);
  const auto& a = c.input(0);
  const auto& b = c.input(1);
  std::size_t ax = c.axis(axis_attr, a.dims.size(), "attribute 'axis'");
  if (ax + b.dims.size() > a.dims.size())
    c.error(c.tensor(1) + " " + b.shape_string() + " aligned at axis " + std::to_string(ax) + " runs past " + c.tensor(0) + " " + a.shape_string());
  // B followed by A's remaining axes at extent 1.
  std::vector<Extent> padded = b.dims;
  while (padded.size() + ax < a.dims.size()) padded.emplace_back(1);
  std::vector<Extent> r = c.broadcast_shapes({a.dims, padded}, {c.tensor(0), c.tensor(1)});
  for (std::size_t k = 0; k < r.size(); ++k)
    if (!(r[k] == a.dims[k])) c.error(c.tensor(1) + " " + b.shape_string() + " stretches " + c.tensor(0) + " " + a.shape_string());
  const BinaryOp* zipped = find_binary(op);
  if (!zipped || zipped->variadic || zipped->shape_of_first) c.error("attribute 'op' names no arithmetic operator ('" + op + "')");
  c.set_output(0, zipped->bool_result() ? ElementType::Bool : a.elem, a.dims);
}

// loam.ZipAt: B aligned at A's axis.
void name_zip_at(axes::NodeNaming& x) {
  std::size_t axis = x.norm_axis(x.int_attr("axis", 0), x.axes_of(0).size());
  const auto& a = x.axes_of(0);
  const auto& b = x.axes_of(1);
  for (std::size_t i = 0; i < b.size() && axis + i < a.size(); ++i)
    if (!axes::is_one(x.input_dims(1)[i]) && !axes::is_one(x.input_dims(0)[axis + i]))
      x.meet(a[axis + i], b[i], "operand B axis " + std::to_string(i));
  x.same_as_input();
}

// Where(c, x, y): the condition's bool selects x's element or y's.
RowNormalisation compose_where(Expression& e, const Node& n) {
  LowerContext& cx = e.context();
  const TensorInfo out = cx.info(n.outputs.at(0));
  const int c = e.operand(cx.in(0), out.axes);
  const int x = e.operand(cx.in(1), out.axes);
  const int y = e.operand(cx.in(2), out.axes);
  e.op("Where", {c, x, y}, e.type_of(x));
  return RowNormalisation::None;
}

// A bound the build knows (folded, or an initializer the graph carries) is the kernel's constant.
bool clip_constant_operand(const Node& n, std::size_t i, const stage0::Stage0Result& st) {
  if (i != 1 && i != 2) return false;
  const auto* v = st.find(n.inputs[i]);
  if (!v) return false;
  if (v->source == stage0::ValueState::Source::Initializer) return true;
  return v->value && v->value->size() == 1 && v->value->all_constant();
}

// Clip as max(x, min), then min(., max): a bound the build knows is a constant of the kernel, one
// the run supplies (a 0-d tensor) an operand.
RowNormalisation compose_clip(Expression& e, const Node& n) {
  LowerContext& cx = e.context();
  const TensorInfo out = cx.info(n.outputs.at(0));
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
  return RowNormalisation::None;
}

// A Cast (or CastLike) between types the module holds alike moves nothing: a call of `identity`.
bool cast_moves_nothing(const Node& n, const stage0::Stage0Result& st) {
  const auto* from = n.inputs.empty() ? nullptr : st.find(n.inputs[0]);
  const auto* to = n.outputs.empty() ? nullptr : st.find(n.outputs[0]);
  return from && to && lower::cpp_compute_type(from->elem) == lower::cpp_compute_type(to->elem) && !is_narrow_integer(to->elem);
}

FusionRole cast_role(const Node& n, const stage0::Stage0Result& st) {
  return cast_moves_nothing(n, st) ? FusionRole::None : elementwise_role(n, st);
}

// To another compute type, then (to a narrow integer from a wider or differently signed one) the
// low bits, as ONNX keeps them.
RowNormalisation compose_cast(Expression& e, const Node& n) {
  LowerContext& cx = e.context();
  const TensorInfo out = cx.info(n.outputs.at(0));
  const TensorInfo src = cx.info(cx.in(0));
  const bool same = cx.compute_type(src.elem) == cx.compute_type(out.elem);
  const int x = e.operand(cx.in(0), out.axes);
  int r = same ? x : e.op("Cast", {x}, e.compute_of(out.elem));
  if (is_narrow_integer(out.elem)) r = e.wrapped(same ? e.op("Identity", {x}, ElementType::I64) : r, out.elem);
  return RowNormalisation::None;
}

void lower_identity(LowerContext& cx, const Node&) { cx.call("identity", {}, {Arg::of_tensor(cx.in(0))}); }

// Dropout in inference passes its input through and keeps every element: its mask is all true.
// Training mode draws a random mask, which no kernel computes.
void lower_dropout(LowerContext& cx, const Node& n) {
  if (cx.has(2) && cx.folded_ints(2, "the training mode") != std::vector<int64_t>{0})
    cx.error("training mode draws a random mask, which no kernel computes");
  lower_identity(cx, n);
  if (n.outputs.size() > 1 && !n.outputs[1].empty()) {
    const TensorInfo mask = cx.info(n.outputs[1]);
    cx.call("constant_of_shape", {TypeArg::of_axes(mask.axes), TypeArg::of_code("bool")},
            {Arg::of_extents(mask.dims), Arg::of_integer_element(ElementType::Bool, 1, "value")}, {n.outputs[1]});
  }
}

}  // namespace

void register_elementwise(std::vector<Operator>& r) {
  // The math and activations are unary.cpp's, the arithmetic, comparisons and logic binary.cpp's.
  r.push_back({.op_type = "Where", .infer = where_op, .name_axes = name_broadcast, .fusion_role = elementwise_role,
               .compose = compose_where, .keeps_narrow_range = true, .in_scope = true});
  // Identity and Dropout (in inference) move no element: calls of `identity`, which fusion looks through.
  r.push_back({.op_type = "Identity", .infer = unary_same, .name_axes = name_like_input, .data_operands = first_input,
               .lower = lower_identity, .regrouping = true, .keeps_narrow_range = true, .computes_double = true, .in_scope = true});
  r.push_back({.op_type = "Dropout", .infer = unary_same, .name_axes = name_like_input, .data_operands = first_input,
               .lower = lower_dropout, .regrouping = true, .keeps_narrow_range = true, .computes_double = true, .in_scope = true});
  // A shape rule and no kernel yet.
  r.push_back({.op_type = "Gelu", .infer = unary_same, .name_axes = name_like_input});
  r.push_back({.op_type = "Clip", .infer = clip, .name_axes = name_like_input, .fusion_role = elementwise_role,
               .compose = compose_clip, .constant_operand = clip_constant_operand, .keeps_narrow_range = true, .in_scope = true});
  for (const auto& [op, rule] : {std::pair{"Cast", &cast}, std::pair{"CastLike", &cast_like}})
    r.push_back({.op_type = op, .infer = rule, .name_axes = name_like_input, .data_operands = first_input, .lower = lower_identity,
                 .fusion_role = cast_role, .compose = compose_cast, .keeps_narrow_range = true, .computes_double = true,
                 .in_scope = true});
  r.push_back({.domain = "loam", .op_type = "ZipAt", .infer = zip_at, .name_axes = name_zip_at});
}

}  // namespace loam::ops
