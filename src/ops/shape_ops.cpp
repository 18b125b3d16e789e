// Operators whose result is read from shapes or attributes: Shape, Size, Constant, ConstantOfShape,
// Range. Stage 0 always evaluates Shape and Size (no kernel computes them); ConstantOfShape and Range
// read their shape or bounds at build time, and a symbolic one makes the values a kernel's.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "ops/op.hpp"
#include "support/error.hpp"

namespace loam::ops {

using stage0::OwedKind;
using stage0::Proof;
using stage0::prove_nonnegative;

namespace {

float half_to_float(uint16_t h) {
  uint32_t sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  float v;
  if (exp == 0) v = std::ldexp(static_cast<float>(mant), -24);
  else if (exp == 31) v = mant ? NAN : INFINITY;
  else v = std::ldexp(static_cast<float>(mant | 0x400), static_cast<int>(exp) - 25);
  return sign ? -v : v;
}

// Decodes a tensor constant into a folded value and its shape. `what` names it in errors.
void decode_tensor(OpContext& c, const TensorData& t, const std::string& what, std::size_t out) {
  std::vector<Extent> dims;
  for (int64_t d : t.dims) {
    if (d < 0) c.error(what + " has the negative length " + std::to_string(d));
    dims.emplace_back(d);
  }
  c.set_output(out, t.elem, dims);
  auto count = t.element_count();
  std::size_t size = element_size(t.elem);
  switch (t.elem) {
    case ElementType::F32: case ElementType::F16: case ElementType::BF16: case ElementType::F64:
    case ElementType::I32: case ElementType::I64: case ElementType::Bool: break;
    default: c.error(what + " holds " + element_type_name(t.elem) + " elements, which the build does not carry");
  }
  if (!t.has_data) c.error(what + " carries no data");
  if (!count || t.data.size() != static_cast<std::size_t>(*count) * size)
    c.error(what + " holds " + std::to_string(t.data.size()) + " bytes, not what its shape needs");
  // A large constant is a weight the module embeds (lower_constant); so is a double one, whose
  // values the build's float folding would round.
  if (*count > kFoldLimit || t.elem == ElementType::F64) return;
  const std::byte* p = t.data.data();
  if (is_float_type(t.elem)) {
    std::vector<float> f(static_cast<std::size_t>(*count));
    for (auto& x : f) {
      if (t.elem == ElementType::F32) {
        std::memcpy(&x, p, 4);
      } else {
        uint16_t h;
        std::memcpy(&h, p, 2);
        if (t.elem == ElementType::F16) x = half_to_float(h);
        else {
          uint32_t bits = static_cast<uint32_t>(h) << 16;
          std::memcpy(&x, &bits, 4);
        }
      }
      p += size;
    }
    c.fold_floats(out, std::move(f));
    return;
  }
  std::vector<Extent> v;
  v.reserve(static_cast<std::size_t>(*count));
  for (int64_t i = 0; i < *count; ++i, p += size) {
    int64_t x = 0;
    if (t.elem == ElementType::I64) std::memcpy(&x, p, 8);
    else if (t.elem == ElementType::I32) {
      int32_t y;
      std::memcpy(&y, p, 4);
      x = y;
    } else x = static_cast<uint8_t>(*p) != 0;
    v.emplace_back(x);
  }
  c.fold_ints(out, std::move(v));
}

void shape_op(OpContext& c) {
  const auto& dims = c.input(0).dims;
  int64_t r = static_cast<int64_t>(dims.size());
  int64_t start = c.attr_int("start", 0), end = c.attr_int("end", r);
  // Shape's start and end clamp to [0, rank] after a negative one is read from the end.
  if (start < 0) start += r;
  if (end < 0) end += r;
  start = std::clamp<int64_t>(start, 0, r);
  end = std::clamp<int64_t>(end, 0, r);
  std::vector<Extent> v;
  for (int64_t k = start; k < end; ++k) v.push_back(dims[static_cast<std::size_t>(k)]);
  c.set_output(0, ElementType::I64, {Extent(static_cast<int64_t>(v.size()))});
  c.fold_ints(0, std::move(v));
}

void size_op(OpContext& c) {
  c.set_output(0, ElementType::I64, {});
  c.fold_ints(0, {product(c.input(0).dims)});
}

void constant(OpContext& c) {
  if (const Attribute* a = c.attr("value", Attribute::Kind::Tensor)) {
    if (!a->t) c.error("attribute 'value' holds no tensor");
    decode_tensor(c, *a->t, "attribute 'value'", 0);
    return;
  }
  if (const Attribute* a = c.attr("value_float", Attribute::Kind::Float)) {
    c.set_output(0, ElementType::F32, {});
    c.fold_floats(0, {a->f});
    return;
  }
  if (const Attribute* a = c.attr("value_floats", Attribute::Kind::Floats)) {
    c.set_output(0, ElementType::F32, {Extent(static_cast<int64_t>(a->floats.size()))});
    c.fold_floats(0, a->floats);
    return;
  }
  if (const Attribute* a = c.attr("value_int", Attribute::Kind::Int)) {
    c.set_output(0, ElementType::I64, {});
    c.fold_ints(0, {Extent(a->i)});
    return;
  }
  if (const Attribute* a = c.attr("value_ints", Attribute::Kind::Ints)) {
    c.set_output(0, ElementType::I64, {Extent(static_cast<int64_t>(a->ints.size()))});
    std::vector<Extent> v(a->ints.begin(), a->ints.end());
    c.fold_ints(0, std::move(v));
    return;
  }
  for (const auto& at : c.node.attributes)
    if (at.name == "value_string" || at.name == "value_strings" || at.name == "sparse_value")
      c.error("attribute '" + at.name + "': the build does not carry string or sparse constants");
  c.error("has no value attribute");
}

// A shape operand read at build time: 1-D, every element a length.
std::vector<Extent> shape_operand(OpContext& c, std::size_t i, const std::string& what) {
  const auto& in = c.input(i);
  if (in.dims.size() != 1) c.error(what + " (" + c.tensor(i) + ") must be 1-D, not " + in.shape_string());
  std::vector<Extent> v = c.known_ints(i, what);
  for (std::size_t k = 0; k < v.size(); ++k) {
    if (auto n = v[k].constant(); n && *n < 0)
      c.error(what + " element " + std::to_string(k) + " is the negative length " + std::to_string(*n));
    if (!v[k].is_constant() && prove_nonnegative(v[k]) != Proof::Holds)
      c.error(what + " element " + std::to_string(k) + " is " + v[k].to_string() + ", which the build cannot show is a length");
  }
  return v;
}

void constant_of_shape(OpContext& c) {
  std::vector<Extent> dims = shape_operand(c, 0, "the shape");
  ElementType elem = ElementType::F32;
  FoldedValue fill;
  fill.kind = FoldedValue::Kind::Float;
  fill.floats = {0.f};
  if (const Attribute* a = c.attr("value", Attribute::Kind::Tensor)) {
    if (!a->t) c.error("attribute 'value' holds no tensor");
    // Decode the one element through a scratch context sharing the checks.
    OpContext scratch(c.node, c.where, {}, c.owed);
    scratch.out.resize(1);
    decode_tensor(scratch, *a->t, "attribute 'value'", 0);
    if (!scratch.out[0].value || scratch.out[0].value->size() != 1) c.error("attribute 'value' must hold one element");
    elem = a->t->elem;
    fill = *scratch.out[0].value;
  }
  c.set_output(0, elem, dims);
  auto n = c.foldable_count(0);
  if (!n) return;
  if (fill.kind == FoldedValue::Kind::Float) c.fold_floats(0, std::vector<float>(static_cast<std::size_t>(*n), fill.floats[0]));
  else c.fold_ints(0, std::vector<Extent>(static_cast<std::size_t>(*n), fill.ints[0]));
}

void range(OpContext& c) {
  for (std::size_t i = 0; i < 3; ++i)
    if (!c.input(i).dims.empty() && !(c.input(i).dims.size() == 1 && c.input(i).dims[0] == Extent(1)))
      c.error(c.tensor(i) + " must be a scalar, not " + c.input(i).shape_string());
  ElementType t = c.input(0).elem;
  if (is_float_type(t)) {
    auto value = [&](std::size_t i, const char* what) {
      const auto& v = c.input(i);
      if (!v.value) c.error(std::string(what) + " (" + c.tensor(i) + ") is computed at run time; the build must know it");
      if (v.value->kind == FoldedValue::Kind::Float) return static_cast<double>(v.value->floats[0]);
      auto k = v.value->ints[0].constant();
      if (!k) c.error(std::string(what) + " (" + c.tensor(i) + ") is symbolic in a float Range");
      return static_cast<double>(*k);
    };
    double start = value(0, "start"), limit = value(1, "limit"), delta = value(2, "delta");
    if (delta == 0) c.error("delta is 0");
    double steps = std::ceil((limit - start) / delta);
    if (!(steps < 1e15)) c.error("the Range counts past any length");
    int64_t n = std::max<int64_t>(0, static_cast<int64_t>(steps));
    c.set_output(0, t, {Extent(n)});
    if (n <= kFoldLimit) {
      std::vector<float> f;
      for (int64_t k = 0; k < n; ++k) f.push_back(static_cast<float>(start + static_cast<double>(k) * delta));
      c.fold_floats(0, std::move(f));
    }
    return;
  }
  Extent start = c.known_ints(0, "start")[0], limit = c.known_ints(1, "limit")[0], delta = c.known_ints(2, "delta")[0];
  Extent count;
  if (auto d = delta.constant()) {
    if (*d == 0) c.error("delta is 0");
    if (*d > 0) count = stage0::ceil_div(stage0::count_max0(limit - start), *d);
    else if (*d == INT64_MIN) c.error("delta -2^63 has no magnitude in int64");
    else count = stage0::ceil_div(stage0::count_max0(start - limit), -*d);
  } else {
    // A symbolic step counts the way its sign says; a sign the build cannot tell stops the build.
    bool positive = prove_nonnegative(delta) == Proof::Holds;
    bool negative = prove_nonnegative(-delta) == Proof::Holds;
    if (!positive && !negative)
      c.error("delta " + delta.to_string() + " has a sign the build cannot tell, which decides the way Range counts");
    Extent mag = positive ? delta : -delta;
    c.owed.require(mag - Extent(1), OwedKind::RangeStepNonzero, c.where, "the Range step " + delta.to_string() + " is not 0");
    Extent span = stage0::count_max0(positive ? limit - start : start - limit);
    // ceil(span / mag) = floor((span + mag - 1) / mag) for mag >= 1.
    count = stage0::floor_div(span + mag - Extent(1), mag);
  }
  c.set_output(0, t, {count});
  auto n = count.constant();
  if (!n || *n > kFoldLimit) return;  // the values depend on a symbol: a kernel computes them
  std::vector<Extent> v;
  for (int64_t k = 0; k < *n; ++k) v.push_back(start + delta * Extent(k));
  c.fold_ints(0, std::move(v));
}

// A Constant the build does not fold (more elements than it folds: paddle2onnx writes every weight
// this way) is a weight the module embeds, as an initializer the graph carries is.
void lower_constant(LowerContext& cx, const Node& n) {
  const Attribute* a = n.attr("value");
  if (!a || a->kind != Attribute::Kind::Tensor || !a->t)
    cx.error("a constant of more than " + std::to_string(kFoldLimit) + " elements is read from its 'value' tensor, which it lacks");
  lower::Weight w;
  w.info = cx.info(n.outputs.at(0));
  w.data = a->t.get();
  cx.out.weights.push_back(std::move(w));
}

// A kernel computes the values only where the build cannot (a shape a symbol decides).
void lower_range(LowerContext& cx, const Node& n) {
  TensorInfo out = cx.info(n.outputs.at(0));
  std::string et = cx.compute_type(out.elem);
  std::vector<Arg> args;
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& v = cx.value(cx.in(i));
    if (!v.value || v.value->size() != 1) cx.error("Range reads its bounds at build time; '" + cx.in(i) + "' only the run knows");
    if (v.value->kind == stage0::FoldedValue::Kind::Float)
      args.push_back(Arg::of_element(out.elem, v.value->floats[0], i == 0 ? "start" : i == 1 ? "limit" : "delta"));
    else
      args.push_back(Arg::of_scalar(v.value->ints[0]));
  }
  cx.call("range", {TypeArg::of_axes(out.axes), TypeArg::of_code(et)}, args);
}

void lower_constant_of_shape(LowerContext& cx, const Node& n) {
  TensorInfo out = cx.info(n.outputs.at(0));
  std::string et = cx.compute_type(out.elem);
  Arg value = Arg::of_element(out.elem, 0, "value");
  if (const Attribute* a = n.attr("value"); a && a->t && !a->t->data.empty()) {
    const auto& d = a->t->data;
    if (a->t->elem == ElementType::F32 && d.size() >= 4) {
      float f;
      std::memcpy(&f, d.data(), 4);
      value = Arg::of_element(out.elem, f, "value");
    } else if (a->t->elem == ElementType::I64 && d.size() >= 8) {
      int64_t i;
      std::memcpy(&i, d.data(), 8);
      value = Arg::of_integer_element(out.elem, i, "value");
    } else if (a->t->elem == ElementType::Bool && d.size() >= 1) {
      value = Arg::of_integer_element(out.elem, static_cast<int>(d[0]) != 0, "value");
    } else if (a->t->elem == ElementType::I32 && d.size() >= 4) {
      int32_t i;
      std::memcpy(&i, d.data(), 4);
      value = Arg::of_integer_element(out.elem, i, "value");
    }
  }
  cx.call("constant_of_shape", {TypeArg::of_axes(out.axes), TypeArg::of_code(et)}, {Arg::of_extents(out.dims), value});
}

}  // namespace

void register_shape_ops(std::vector<Operator>& r) {
  // Every axis of their results is the layout's; the build reads all their inputs.
  r.push_back({.op_type = "Shape", .infer = shape_op, .name_axes = name_created, .data_operands = no_inputs, .in_scope = true});
  r.push_back({.op_type = "Size", .infer = size_op, .name_axes = name_created, .data_operands = no_inputs, .in_scope = true});
  r.push_back({.op_type = "Constant", .infer = constant, .name_axes = name_created, .data_operands = no_inputs,
               .lower = lower_constant, .computes_double = true, .in_scope = true});
  r.push_back({.op_type = "ConstantOfShape", .infer = constant_of_shape, .name_axes = name_created, .data_operands = no_inputs,
               .lower = lower_constant_of_shape, .keeps_narrow_range = true, .in_scope = true});
  r.push_back({.op_type = "Range", .infer = range, .name_axes = name_created, .data_operands = no_inputs, .lower = lower_range,
               .in_scope = true});
}

}  // namespace loam::ops
