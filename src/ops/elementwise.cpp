// Elementwise operators: unary and binary arithmetic, comparisons, logic, Where, Cast, Identity,
// Clip, the activation functions, and loam.ZipAt (pre-opset-7 broadcast). Shape rule: ONNX's
// multidirectional broadcast. Fold: over the build-known integers as Extents (polynomials and
// derived symbols), over a float Constant's values in f32; never over a float initializer.
#include <cmath>
#include <functional>

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

void require_same_types(OpContext& c, const std::vector<std::size_t>& inputs) {
  ElementType t = c.input(inputs[0]).elem;
  for (std::size_t i : inputs)
    if (c.input(i).elem != t)
      c.error(c.tensor(i) + " is " + element_type_name(c.input(i).elem) + " but " + c.tensor(inputs[0]) + " is " +
              element_type_name(t));
}

// ----- binary arithmetic -----

std::optional<Extent> int_div(OpContext& c, const Extent& a, const Extent& b) {
  if (auto bc = b.constant()) {
    if (*bc == 0) c.error("integer division by 0");
    if (auto ac = a.constant()) {
      if (*ac == INT64_MIN && *bc == -1) c.error("integer division -2^63 / -1 is past 2^63");
      return Extent(*ac / *bc);  // C++ truncates toward zero, as ONNX's Div does
    }
    if (auto q = a.divide_exactly(b)) return q;
    // Truncating is rounding down only where the dividend is never negative and the divisor positive.
    if (*bc > 0 && prove_nonnegative(a) == Proof::Holds) return stage0::floor_div(a, b);
    c.error("integer Div of " + a.to_string() + " by " + b.to_string() +
            ": the build divides a symbol only where the dividend is never negative and the divisor a positive number");
  }
  if (prove_nonnegative(b - Extent(1)) == Proof::Holds)
    if (auto q = a.divide_exactly(b)) return q;
  c.error("integer Div of " + a.to_string() + " by the symbolic " + b.to_string() +
          ": the build divides a symbol only by a number, or by a length it can show is at least 1");
}

std::optional<Extent> int_pow(const Extent& a, const Extent& b) {
  auto e = b.constant();
  if (!e || *e < 0 || *e > 64) return std::nullopt;
  Extent r(1);
  for (int64_t k = 0; k < *e; ++k) r = r * a;
  return r;
}

// Decides a comparison for every input; nullopt where the run decides it.
std::optional<bool> decide_nonnegative(const Extent& e) {
  switch (prove_nonnegative(e)) {
    case Proof::Holds: return true;
    case Proof::Fails: return false;
    case Proof::Unknown: return std::nullopt;
  }
  return std::nullopt;
}

std::optional<Extent> from_bool(std::optional<bool> b) {
  if (!b) return std::nullopt;
  return Extent(*b ? 1 : 0);
}

void binary(OpContext& c) {
  const std::string& op = c.node.op_type;
  require_same_types(c, {0, 1});
  ElementType t = c.input(0).elem;
  bool compare = op == "Equal" || op == "Less" || op == "Greater" || op == "LessOrEqual" || op == "GreaterOrEqual";
  bool logic = op == "And" || op == "Or" || op == "Xor";
  c.set_output(0, compare || logic ? ElementType::Bool : t, c.broadcast({0, 1}));
  IntFn ints;
  FloatFn floats;
  if (op == "Add") {
    ints = [](const std::vector<Extent>& a) { return std::optional<Extent>(a[0] + a[1]); };
    floats = [](const std::vector<float>& a) { return a[0] + a[1]; };
  } else if (op == "Sub") {
    ints = [](const std::vector<Extent>& a) { return std::optional<Extent>(a[0] - a[1]); };
    floats = [](const std::vector<float>& a) { return a[0] - a[1]; };
  } else if (op == "Mul") {
    ints = [](const std::vector<Extent>& a) { return std::optional<Extent>(a[0] * a[1]); };
    floats = [](const std::vector<float>& a) { return a[0] * a[1]; };
  } else if (op == "Div") {
    ints = [&c](const std::vector<Extent>& a) { return int_div(c, a[0], a[1]); };
    floats = [](const std::vector<float>& a) { return a[0] / a[1]; };
  } else if (op == "Mod") {
    bool fmod = c.attr_int("fmod", 0) != 0;
    ints = [&c, fmod](const std::vector<Extent>& a) -> std::optional<Extent> {
      auto x = a[0].constant(), y = a[1].constant();
      if (!x || !y) return std::nullopt;
      if (*y == 0) c.error("integer Mod by 0");
      if (*y == -1) return Extent(0);
      int64_t r = *x % *y;
      if (!fmod && r != 0 && ((r < 0) != (*y < 0))) r += *y;  // the divisor's sign, as numpy
      return Extent(r);
    };
    floats = [fmod](const std::vector<float>& a) {
      float r = std::fmod(a[0], a[1]);
      if (!fmod && r != 0 && ((r < 0) != (a[1] < 0))) r += a[1];
      return r;
    };
  } else if (op == "Pow") {
    // Pow's exponent may carry its own type (T1); the result keeps the base's.
    ints = [](const std::vector<Extent>& a) { return int_pow(a[0], a[1]); };
    floats = [](const std::vector<float>& a) { return std::pow(a[0], a[1]); };
  } else if (op == "Equal") {
    ints = [](const std::vector<Extent>& a) -> std::optional<Extent> {
      if (a[0] == a[1]) return Extent(1);
      Extent d = a[0] - a[1];
      if (d.is_constant()) return Extent(0);
      if (prove_nonnegative(d - Extent(1)) == Proof::Holds || prove_nonnegative(-d - Extent(1)) == Proof::Holds)
        return Extent(0);
      return std::nullopt;
    };
    floats = [](const std::vector<float>& a) { return a[0] == a[1] ? 1.f : 0.f; };
  } else if (op == "Less") {
    ints = [](const std::vector<Extent>& a) { return from_bool(decide_nonnegative(a[1] - a[0] - Extent(1))); };
    floats = [](const std::vector<float>& a) { return a[0] < a[1] ? 1.f : 0.f; };
  } else if (op == "Greater") {
    ints = [](const std::vector<Extent>& a) { return from_bool(decide_nonnegative(a[0] - a[1] - Extent(1))); };
    floats = [](const std::vector<float>& a) { return a[0] > a[1] ? 1.f : 0.f; };
  } else if (op == "LessOrEqual") {
    ints = [](const std::vector<Extent>& a) { return from_bool(decide_nonnegative(a[1] - a[0])); };
    floats = [](const std::vector<float>& a) { return a[0] <= a[1] ? 1.f : 0.f; };
  } else if (op == "GreaterOrEqual") {
    ints = [](const std::vector<Extent>& a) { return from_bool(decide_nonnegative(a[0] - a[1])); };
    floats = [](const std::vector<float>& a) { return a[0] >= a[1] ? 1.f : 0.f; };
  } else if (logic) {
    ints = [op](const std::vector<Extent>& a) -> std::optional<Extent> {
      auto x = a[0].constant(), y = a[1].constant();
      if (!x || !y) return std::nullopt;
      bool p = *x != 0, q = *y != 0;
      bool r = op == "And" ? (p && q) : op == "Or" ? (p || q) : (p != q);
      return Extent(r ? 1 : 0);
    };
  }
  if (is_float_type(t) && !compare) {
    fold_elementwise(c, {0, 1}, nullptr, floats, true);
    return;
  }
  fold_elementwise(c, {0, 1}, ints, compare ? floats : nullptr, false);
}

void pow_op(OpContext& c) {
  // Pow(T, T1): the exponent may differ in type.
  ElementType t = c.input(0).elem;
  c.set_output(0, t, c.broadcast({0, 1}));
  if (is_float_type(t)) {
    fold_elementwise(c, {0, 1}, nullptr, [](const std::vector<float>& a) { return std::pow(a[0], a[1]); }, true);
  } else {
    fold_elementwise(c, {0, 1}, [](const std::vector<Extent>& a) { return int_pow(a[0], a[1]); }, nullptr, false);
  }
}

// ----- variadic Min / Max / Sum / Mean -----

void variadic(OpContext& c) {
  const std::string& op = c.node.op_type;
  std::vector<std::size_t> all;
  for (std::size_t i = 0; i < c.input_count(); ++i) all.push_back(i);
  if (all.empty()) c.error("takes at least one input");
  require_same_types(c, all);
  ElementType t = c.input(0).elem;
  c.set_output(0, t, c.broadcast(all));
  IntFn ints;
  FloatFn floats;
  if (op == "Min" || op == "Max") {
    bool is_min = op == "Min";
    ints = [is_min](const std::vector<Extent>& a) -> std::optional<Extent> {
      // A number is the limit a symbol is clamped by; otherwise the first operand is the value.
      Extent r = a[0];
      for (std::size_t k = 1; k < a.size(); ++k) {
        const Extent& x = a[k];
        bool x_is_limit = x.is_constant() || !r.is_constant();
        const Extent& value = x_is_limit ? r : x;
        const Extent& limit = x_is_limit ? x : r;
        r = is_min ? stage0::min_of(value, limit) : stage0::max_of(value, limit);
      }
      return r;
    };
    floats = [is_min](const std::vector<float>& a) {
      float r = a[0];
      for (float x : a) r = std::isnan(x) || std::isnan(r) ? NAN : (is_min ? std::min(r, x) : std::max(r, x));
      return r;
    };
  } else if (op == "Sum") {
    ints = [](const std::vector<Extent>& a) -> std::optional<Extent> {
      Extent r(0);
      for (const auto& x : a) r = r + x;
      return r;
    };
    floats = [](const std::vector<float>& a) {
      float r = 0;
      for (float x : a) r += x;
      return r;
    };
  } else {  // Mean: floats only
    floats = [](const std::vector<float>& a) {
      float r = 0;
      for (float x : a) r += x;
      return r / static_cast<float>(a.size());
    };
  }
  fold_elementwise(c, all, is_float_type(t) ? nullptr : ints, floats, is_float_type(t));
}

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
  ElementType t = c.input(0).elem;
  ElementType out_t = op == "Not" ? ElementType::Bool : t;
  c.set_output(0, out_t, c.input(0).dims);
  if (op == "Dropout" && c.out.size() > 1 && !c.out[1].name.empty()) c.set_output(1, ElementType::Bool, c.input(0).dims);
  // Identity and Dropout (inference) pass the value through, whatever it is.
  if (op == "Identity" || op == "Dropout") {
    if (c.input(0).value) c.out[0].value = c.input(0).value;
    return;
  }
  IntFn ints;
  FloatFn floats;
  if (op == "Not") {
    ints = [](const std::vector<Extent>& a) -> std::optional<Extent> {
      auto x = a[0].constant();
      if (!x) return std::nullopt;
      return Extent(*x ? 0 : 1);
    };
  }
  if (!ints && !floats) return;  // a kernel's to compute
  bool f = is_float_type(t);
  fold_elementwise(c, {0}, f ? nullptr : ints, floats, f);
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

void prelu(OpContext& c) {
  require_same_types(c, {0, 1});
  // Slope broadcasts unidirectionally to X.
  std::vector<Extent> r = c.broadcast({0, 1});
  if (r.size() != c.rank(0)) c.error(c.tensor(1) + " " + c.input(1).shape_string() + " does not broadcast to " + c.tensor(0));
  for (std::size_t k = 0; k < r.size(); ++k)
    if (!(r[k] == c.input(0).dims[k])) c.error(c.tensor(1) + " " + c.input(1).shape_string() + " stretches " + c.tensor(0) + " " + c.input(0).shape_string());
  c.set_output(0, c.input(0).elem, c.input(0).dims);
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
  bool compare = op == "Equal" || op == "Less" || op == "Greater";
  if (op != "Add" && op != "Sub" && op != "Mul" && op != "Div" && op != "Pow" && !compare && op != "And" && op != "Or" && op != "Xor")
    c.error("attribute 'op' names no arithmetic operator ('" + op + "')");
  c.set_output(0, compare || op == "And" || op == "Or" || op == "Xor" ? ElementType::Bool : a.elem, a.dims);
}

}  // namespace

void register_elementwise(std::vector<OpRule>& r) {
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Mod", "Equal", "Less", "Greater", "LessOrEqual",
                         "GreaterOrEqual", "And", "Or", "Xor", "BitShift"})
    r.push_back({"", op, binary});
  r.push_back({"", "Pow", pow_op});
  for (const char* op : {"Min", "Max", "Sum", "Mean"}) r.push_back({"", op, variadic});
  r.push_back({"", "Where", where_op});
  // The math and activations are unary.cpp's.
  for (const char* op : {"Identity", "Dropout", "Not", "Gelu", "Trilu", "CumSum"}) r.push_back({"", op, unary_same});
  r.push_back({"", "Clip", clip});
  r.push_back({"", "PRelu", prelu});
  r.push_back({"", "Cast", cast});
  r.push_back({"", "CastLike", cast_like});
  r.push_back({"loam", "ZipAt", zip_at});
}

}  // namespace loam::ops
