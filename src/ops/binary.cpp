// The binary and variadic elementwise operators, each defined once (binary.hpp): attribute, result
// type, Loom forms and build-time values; and stage 0's rule for all of them (ONNX's
// multidirectional broadcast, PRelu's slope to X; a fold where the build knows every operand).
#include "ops/binary.hpp"

#include <cmath>
#include <cstdint>
#include <limits>

#include "ops/op.hpp"

namespace loam::ops {
namespace {

using loom::Lanes;
using loom::Scalar;
using loom::Value;
using stage0::Extent;
using stage0::Proof;
using stage0::prove_nonnegative;
using Family = BinaryOp::Family;
constexpr Scalar I = Scalar::I64;
constexpr Scalar B = Scalar::I1;

// One Loom operation of the lane form on x and y, giving `s`.
BinaryOp::Form direct(const char* op, Scalar s) {
  return [op, s](const Lanes& l, Value* x, Value* y, double) { return l.op(op, {x, y}, s); };
}
// The same on floats, giving the lanes' float format.
BinaryOp::Form direct_real(const char* op) {
  return [op](const Lanes& l, Value* x, Value* y, double) { return l.op(op, {x, y}, l.real_type()); };
}
BinaryOp::Form compare_f(int predicate) {
  return [predicate](const Lanes& l, Value* x, Value* y, double) { return l.cmpf(predicate, x, y); };
}
BinaryOp::Form compare_i(int predicate) {
  return [predicate](const Lanes& l, Value* x, Value* y, double) { return l.cmpi(predicate, x, y); };
}

// x^y over int64 by squaring through y's 64 bits (wrapping); a negative y gives 1 for x = 1, +-1
// for x = -1, else 0, as integer division of 1 by x^-y would.
Value* int_pow(const Lanes& l, Value* x, Value* y) {
  loom::Builder& b = l.builder();
  Value* zero = b.index(0, "zero");
  Value* bits = b.index(64, "bits");
  Value* one_step = b.index(1, "step");
  loom::Op& loop = b.op("scf.for", {zero, bits, one_step, l.i64(1), x, y},
                        {{"result", l.type(I)}, {"base", l.type(I)}, {"exponent", l.type(I)}});
  loom::Block* outer = b.insertion();
  loom::Block& body = b.region(loop, {{"bit", loom::Type::index()}, {"acc", l.type(I)}, {"b", l.type(I)}, {"e", l.type(I)}});
  Value* r = body.args[1].get();
  Value* p = body.args[2].get();
  Value* e = body.args[3].get();
  Value* odd = l.cmpi(Lanes::NE, l.op("andi", {e, l.i64(1)}, I), l.i64(0));
  Value* next_r = l.select(odd, l.op("muli", {r, p}, I), r, I);
  Value* next_p = l.op("muli", {p, p}, I);
  Value* next_e = l.op("shrui", {e, l.i64(1)}, I);
  b.op("scf.yield", {next_r, next_p, next_e});
  b.set_insertion(*outer);
  Value* positive = loop.result(0);
  // A negative exponent: 1 for x = 1; for x = -1, 1 when y is even, else -1; 0 otherwise.
  Value* y_odd = l.cmpi(Lanes::NE, l.op("andi", {y, l.i64(1)}, I), l.i64(0));
  Value* minus_one = l.select(y_odd, l.i64(-1), l.i64(1), I);
  Value* negative = l.select(l.cmpi(Lanes::EQ, x, l.i64(1)), l.i64(1), l.select(l.cmpi(Lanes::EQ, x, l.i64(-1)), minus_one, l.i64(0), I), I);
  return l.select(l.cmpi(Lanes::SLT, y, l.i64(0)), negative, positive, I);
}

std::optional<Extent> int_div(const Extent& a, const Extent& b, const BinaryOp::Refuse& refuse) {
  if (auto bc = b.constant()) {
    if (*bc == 0) refuse("integer division by 0");
    if (auto ac = a.constant()) {
      if (*ac == INT64_MIN && *bc == -1) refuse("integer division -2^63 / -1 is past 2^63");
      return Extent(*ac / *bc);  // C++ truncates toward zero, as ONNX's Div does
    }
    if (auto q = a.divide_exactly(b)) return q;
    // Truncating is rounding down only where the dividend is never negative and the divisor positive.
    if (*bc > 0 && prove_nonnegative(a) == Proof::Holds) return stage0::floor_div(a, b);
    refuse("integer Div of " + a.to_string() + " by " + b.to_string() +
           ": the build divides a symbol only where the dividend is never negative and the divisor a positive number");
  }
  if (prove_nonnegative(b - Extent(1)) == Proof::Holds)
    if (auto q = a.divide_exactly(b)) return q;
  refuse("integer Div of " + a.to_string() + " by the symbolic " + b.to_string() +
         ": the build divides a symbol only by a number, or by a length it can show is at least 1");
  return std::nullopt;
}

std::optional<Extent> int_pow_fold(const Extent& a, const Extent& b) {
  auto e = b.constant();
  if (!e || *e < 0 || *e > 64) return std::nullopt;
  Extent r(1);
  for (int64_t k = 0; k < *e; ++k) r = r * a;
  return r;
}

// A comparison decided for every input; nullopt where the run decides it.
std::optional<Extent> decided(const Extent& nonnegative) {
  switch (prove_nonnegative(nonnegative)) {
    case Proof::Holds: return Extent(1);
    case Proof::Fails: return Extent(0);
    case Proof::Unknown: return std::nullopt;
  }
  return std::nullopt;
}

// Max and Min over extents: a number is the limit a symbol is clamped by; otherwise the first
// operand is the value.
std::optional<Extent> clamp(const Extent& r, const Extent& x, bool is_min) {
  const bool x_is_limit = x.is_constant() || !r.is_constant();
  const Extent& value = x_is_limit ? r : x;
  const Extent& limit = x_is_limit ? x : r;
  return is_min ? stage0::min_of(value, limit) : stage0::max_of(value, limit);
}

BinaryOp arithmetic(std::string_view name, const char* f32_op, const char* i64_op, std::function<float(float, float)> fold_f32,
                    std::function<Extent(const Extent&, const Extent&)> fold_i64) {
  BinaryOp o;
  o.name = name;
  o.leaves_range = true;
  o.real = direct_real(f32_op);
  o.i64 = direct(i64_op, I);
  o.fold_f32 = [f = std::move(fold_f32)](float x, float y, double) { return f(x, y); };
  o.fold_i64 = [f = std::move(fold_i64)](const Extent& x, const Extent& y, double, const BinaryOp::Refuse&) {
    return std::optional<Extent>(f(x, y));
  };
  return o;
}

BinaryOp comparison(std::string_view name, int float_predicate, int int_predicate, std::function<bool(float, float)> fold_f32,
                    std::function<std::optional<Extent>(const Extent&, const Extent&)> fold_i64) {
  BinaryOp o;
  o.name = name;
  o.family = Family::Comparison;
  o.real = compare_f(float_predicate);
  o.i64 = compare_i(int_predicate);
  o.fold_f32 = [f = std::move(fold_f32)](float x, float y, double) { return f(x, y) ? 1.f : 0.f; };
  o.fold_i64 = [f = std::move(fold_i64)](const Extent& x, const Extent& y, double, const BinaryOp::Refuse&) { return f(x, y); };
  return o;
}

BinaryOp logic(std::string_view name, const char* op, std::function<bool(bool, bool)> truth) {
  BinaryOp o;
  o.name = name;
  o.family = Family::Logic;
  o.i1 = direct(op, B);
  o.fold_i64 = [t = std::move(truth)](const Extent& x, const Extent& y, double, const BinaryOp::Refuse&) -> std::optional<Extent> {
    auto a = x.constant(), b = y.constant();
    if (!a || !b) return std::nullopt;
    return Extent(t(*a != 0, *b != 0) ? 1 : 0);
  };
  return o;
}

std::vector<BinaryOp> table() {
  std::vector<BinaryOp> t;
  t.push_back(arithmetic("Add", "addf", "addi", [](float x, float y) { return x + y; }, [](const Extent& x, const Extent& y) { return x + y; }));
  t.push_back(arithmetic("Sub", "subf", "subi", [](float x, float y) { return x - y; }, [](const Extent& x, const Extent& y) { return x - y; }));
  t.push_back(arithmetic("Mul", "mulf", "muli", [](float x, float y) { return x * y; }, [](const Extent& x, const Extent& y) { return x * y; }));

  BinaryOp o;
  o.name = "Div";
  o.leaves_range = true;
  o.real = direct_real("divf");
  o.i64 = [](const Lanes& l, Value* x, Value* y, double) {
    // INT64_MIN / -1 wraps to INT64_MIN, as int64 arithmetic does; a zero divisor stops the run.
    Value* overflow = l.op("andi", {l.cmpi(Lanes::EQ, x, l.i64(std::numeric_limits<std::int64_t>::min())), l.cmpi(Lanes::EQ, y, l.i64(-1))}, B, "cmp");
    return l.op("divsi", {x, l.select(overflow, l.i64(1), y, I)}, I);
  };
  o.fold_f32 = [](float x, float y, double) { return x / y; };
  o.fold_i64 = [](const Extent& x, const Extent& y, double, const BinaryOp::Refuse& refuse) { return int_div(x, y, refuse); };
  t.push_back(o);

  o = {};
  o.name = "Mod";
  o.attributes = {{"fmod", 0, true}};
  o.real = [](const Lanes& l, Value* x, Value* y, double fmod) {
    Value* r = l.op("remf", {x, y}, l.real_type());  // C's fmod: the dividend's sign
    if (fmod != 0) return r;
    // fmod = 0 (defined on floats since opset 28): x - floor(x / y) * y, the divisor's sign. A
    // remainder of the other sign moves by the divisor; a zero takes the divisor's sign.
    Value* y_negative = l.cmpf(Lanes::OLT, y, l.real(0));
    Value* other_sign = l.op("xori", {l.cmpf(Lanes::OLT, r, l.real(0)), y_negative}, B, "cmp");
    Value* moves = l.op("andi", {l.cmpf(Lanes::UNE, r, l.real(0)), other_sign}, B, "cmp");
    Value* zero = l.select(y_negative, l.op("negf", {l.real(0)}, l.real_type()), l.real(0), l.real_type());
    return l.select(moves, l.op("addf", {r, y}, l.real_type()), l.select(l.cmpf(Lanes::OEQ, r, l.real(0)), zero, r, l.real_type()), l.real_type());
  };
  o.i64 = [](const Lanes& l, Value* x, Value* y, double fmod) {
    Value* r = l.op("remsi", {x, y}, I);
    if (fmod != 0) return r;
    // The divisor's sign, as Python's % does: a remainder of the other sign moves by the divisor.
    Value* other_sign = l.op("xori", {l.cmpi(Lanes::SLT, r, l.i64(0)), l.cmpi(Lanes::SLT, y, l.i64(0))}, B, "cmp");
    Value* moves = l.op("andi", {l.cmpi(Lanes::NE, r, l.i64(0)), other_sign}, B, "cmp");
    return l.select(moves, l.op("addi", {r, y}, I), r, I);
  };
  o.fold_f32 = [](float x, float y, double fmod) {
    float r = std::fmod(x, y);
    if (fmod == 0 && r != 0 && ((r < 0) != (y < 0))) r += y;
    if (fmod == 0 && r == 0) r = std::copysign(0.0f, y);
    return r;
  };
  o.fold_i64 = [](const Extent& a, const Extent& b, double fmod, const BinaryOp::Refuse& refuse) -> std::optional<Extent> {
    auto x = a.constant(), y = b.constant();
    if (!x || !y) return std::nullopt;
    if (*y == 0) refuse("integer Mod by 0");
    if (*y == -1) return Extent(0);
    int64_t r = *x % *y;
    if (fmod == 0 && r != 0 && ((r < 0) != (*y < 0))) r += *y;  // the divisor's sign, as numpy
    return Extent(r);
  };
  t.push_back(o);

  o = {};
  o.name = "Pow";
  o.leaves_range = true;
  o.own_exponent = true;
  o.real = direct_real("powf");
  o.i64 = [](const Lanes& l, Value* x, Value* y, double) { return int_pow(l, x, y); };
  o.fold_f32 = [](float x, float y, double) { return std::pow(x, y); };
  o.fold_i64 = [](const Extent& x, const Extent& y, double, const BinaryOp::Refuse&) { return int_pow_fold(x, y); };
  t.push_back(o);

  o = {};
  o.name = "PRelu";  // x below 0 times its slope
  o.shape_of_first = true;
  o.leaves_range = true;  // -100 * 2 in int8
  o.real = [](const Lanes& l, Value* x, Value* slope, double) { return l.select(l.cmpf(Lanes::OLT, x, l.real(0)), l.op("mulf", {x, slope}, l.real_type()), x, l.real_type()); };
  o.i64 = [](const Lanes& l, Value* x, Value* slope, double) { return l.select(l.cmpi(Lanes::SLT, x, l.i64(0)), l.op("muli", {x, slope}, I), x, I); };
  o.fold_f32 = [](float x, float slope, double) { return x < 0 ? x * slope : x; };
  t.push_back(o);

  // Variadic: one or more operands, applied left to right.
  for (const bool is_min : {false, true}) {
    o = {};
    o.name = is_min ? "Min" : "Max";
    o.variadic = true;
    o.real = direct_real(is_min ? "minf" : "maxf");
    o.i64 = direct(is_min ? "minsi" : "maxsi", I);
    o.fold_f32 = [is_min](float r, float x, double) { return std::isnan(x) || std::isnan(r) ? NAN : (is_min ? std::min(r, x) : std::max(r, x)); };
    o.fold_i64 = [is_min](const Extent& r, const Extent& x, double, const BinaryOp::Refuse&) { return clamp(r, x, is_min); };
    t.push_back(o);
  }
  o = arithmetic("Sum", "addf", "addi", [](float x, float y) { return x + y; }, [](const Extent& x, const Extent& y) { return x + y; });
  o.variadic = true;
  t.push_back(o);
  o = {};
  o.name = "Mean";  // on floats only
  o.variadic = true;
  o.mean = true;
  o.real = direct_real("addf");
  o.fold_f32 = [](float x, float y, double) { return x + y; };
  t.push_back(o);

  // Comparisons: a bool of each element pair (Equal also of bools).
  o = comparison("Equal", Lanes::OEQ, Lanes::EQ, [](float x, float y) { return x == y; }, [](const Extent& x, const Extent& y) -> std::optional<Extent> {
    if (x == y) return Extent(1);
    const Extent d = x - y;
    if (d.is_constant()) return Extent(0);
    if (prove_nonnegative(d - Extent(1)) == Proof::Holds || prove_nonnegative(-d - Extent(1)) == Proof::Holds) return Extent(0);
    return std::nullopt;
  });
  o.i1 = compare_i(Lanes::EQ);
  t.push_back(o);
  t.push_back(comparison("Less", Lanes::OLT, Lanes::SLT, [](float x, float y) { return x < y; },
                         [](const Extent& x, const Extent& y) { return decided(y - x - Extent(1)); }));
  t.push_back(comparison("Greater", Lanes::OGT, Lanes::SGT, [](float x, float y) { return x > y; },
                         [](const Extent& x, const Extent& y) { return decided(x - y - Extent(1)); }));
  t.push_back(comparison("LessOrEqual", Lanes::OLE, Lanes::SLE, [](float x, float y) { return x <= y; },
                         [](const Extent& x, const Extent& y) { return decided(y - x); }));
  t.push_back(comparison("GreaterOrEqual", Lanes::OGE, Lanes::SGE, [](float x, float y) { return x >= y; },
                         [](const Extent& x, const Extent& y) { return decided(x - y); }));

  // Logic over bools.
  t.push_back(logic("And", "andi", [](bool p, bool q) { return p && q; }));
  t.push_back(logic("Or", "ori", [](bool p, bool q) { return p || q; }));
  t.push_back(logic("Xor", "xori", [](bool p, bool q) { return p != q; }));

  // BitShift has a shape rule and no kernel yet: its lowering refuses it by name.
  o = {};
  o.name = "BitShift";
  t.push_back(o);
  return t;
}

// Stage 0: the broadcast shape (PRelu: X's, the slope broadcasting to it); a fold, applying the
// operator left to right, where the build knows every operand.
void binary_rule(OpContext& c) {
  const BinaryOp& b = *find_binary(c.node.op_type);
  std::vector<std::size_t> operands = {0, 1};
  if (b.variadic) {
    operands.clear();
    for (std::size_t i = 0; i < c.input_count(); ++i) operands.push_back(i);
    if (operands.empty()) c.error("takes at least one input");
  }
  if (!b.own_exponent) require_same_types(c, operands);
  const ElementType t = c.input(0).elem;
  std::vector<Extent> dims = c.broadcast(operands);
  if (b.shape_of_first) {
    if (dims.size() != c.rank(0)) c.error(c.tensor(1) + " " + c.input(1).shape_string() + " does not broadcast to " + c.tensor(0));
    for (std::size_t k = 0; k < dims.size(); ++k)
      if (!(dims[k] == c.input(0).dims[k]))
        c.error(c.tensor(1) + " " + c.input(1).shape_string() + " stretches " + c.tensor(0) + " " + c.input(0).shape_string());
  }
  c.set_output(0, b.bool_result() ? ElementType::Bool : t, dims);

  double p = 0;
  if (!b.attributes.empty()) {
    const ElementwiseAttribute& a = b.attributes[0];
    const std::string name(a.name);
    p = a.integer ? static_cast<double>(c.attr_int(name, static_cast<int64_t>(a.fallback))) : c.attr_float(name, static_cast<float>(a.fallback));
  }
  FloatFn floats;
  IntFn ints;
  if (b.fold_f32)
    floats = [&b, p](const std::vector<float>& a) {
      float r = a[0];
      for (std::size_t k = 1; k < a.size(); ++k) r = b.fold_f32(r, a[k], p);
      return b.mean ? r / static_cast<float>(a.size()) : r;
    };
  if (b.fold_i64 && !b.mean)
    ints = [&b, &c, p](const std::vector<Extent>& a) -> std::optional<Extent> {
      std::optional<Extent> r = a[0];
      const BinaryOp::Refuse refuse = [&c](const std::string& why) { c.error(why); };
      for (std::size_t k = 1; k < a.size() && r; ++k) r = b.fold_i64(*r, a[k], p, refuse);
      return r;
    };
  if (b.family == Family::Arithmetic && is_float_type(t)) fold_elementwise(c, operands, nullptr, floats, true);
  else fold_elementwise(c, operands, ints, b.family == Family::Comparison ? floats : nullptr, false);
}

// A one-element operand the build knows, beside one it does not (whose type it meets, or f32):
// the kernel's constant.
bool binary_constant_operand(const Node& n, std::size_t i, const stage0::Stage0Result& st) {
  if (n.inputs.size() != 2 || i > 1) return false;
  const auto* v = st.find(n.inputs[i]);
  const auto* other = st.find(n.inputs[1 - i]);
  if (!v || !other || !v->value || other->value) return false;
  if (v->value->size() != 1 || !v->value->all_constant()) return false;
  if (other->elem != ElementType::F32 && other->elem != v->elem) return false;
  return v->dims.size() <= other->dims.size();
}

// The operands (each tensor an operand, a one-element number the build knows a constant of the
// other operand's type) folded left through the table's form for their compute type; Pow's mixed
// types and its squares and cubes; Mean's 1/n; a narrow integer result taken back into its range.
RowNormalisation compose_binary(Expression& e, const Node& n) {
  LowerContext& cx = e.context();
  const BinaryOp& bin = *cx.st.operators->find(n)->binary;
  const std::string& op = n.op_type;
  const TensorInfo out = cx.info(n.outputs.at(0));
  std::vector<std::size_t> present;
  for (std::size_t i = 0; i < n.inputs.size(); ++i)
    if (!n.inputs[i].empty()) present.push_back(i);
  if (present.empty()) cx.error("no operands");
  ElementType operand_type = ElementType::F32;
  for (std::size_t i : present)
    if (!axes::is_folded_scalar_operand(n, i, cx.st)) {
      operand_type = e.compute_of(cx.info(cx.in(i)).elem);
      break;
    }
  std::vector<int> leaf;
  for (std::size_t i : present) leaf.push_back(e.input(i, out.axes, operand_type));
  // Pow's exponent may be of another element type than its base (ONNX's T1). A float exponent of
  // an integer base computes in float, as ONNX's reference does, and truncates back; any other
  // exponent is cast to the base's type.
  ElementType compute = e.type_of(leaf[0]);
  if (op == "Pow" && leaf.size() == 2 && e.type_of(leaf[0]) != e.type_of(leaf[1])) {
    if (e.type_of(leaf[0]) == ElementType::I64 && is_float_type(e.type_of(leaf[1]))) {
      compute = e.type_of(leaf[1]);
      leaf[0] = e.op("Cast", {leaf[0]}, compute);
    } else {
      leaf[1] = e.op("Cast", {leaf[1]}, e.type_of(leaf[0]));
    }
  }
  if (op == "Pow" && leaf.size() == 2 && is_float_type(compute) && e.compute_of(out.elem) == compute) {
    // x^2 and x^3 as products (onnxruntime's too): exact for 2, within an ulp of pow for 3, and a
    // vector multiply where pow is a call per lane (GELU's cube, a LayerNorm's square).
    const auto exponent = e.float_constant(leaf[1]);
    if (exponent && (*exponent == 2 || *exponent == 3)) {
      int r = e.op("Mul", {leaf[0], leaf[0]}, compute);
      if (*exponent == 3) e.op("Mul", {r, leaf[0]}, compute);
      return RowNormalisation::None;
    }
    // x^-1 as 1 / x (correctly rounded, as pow is within an ulp of it).
    if (exponent && *exponent == -1) {
      e.op("Reciprocal", {leaf[0]}, compute);
      return RowNormalisation::None;
    }
    // x^0.5 as a square root, with pow's two differences from sqrt: pow(-0, 0.5) is +0 (sqrt(-0)
    // is -0, which adding +0 turns into +0) and pow(-inf, 0.5) is +inf (sqrt's is NaN).
    if (exponent && *exponent == 0.5) {
      const double inf = std::numeric_limits<double>::infinity();
      const int root = e.op("Add", {e.op("Sqrt", {leaf[0]}, compute), e.number(0.0, compute)}, compute);
      const int minus_infinity = e.op("Equal", {leaf[0], e.number(-inf, compute)}, ElementType::Bool);
      e.op("Where", {minus_infinity, e.number(inf, compute), root}, compute);
      return RowNormalisation::None;
    }
  }
  // The table's form for the compute type; none (Mean of integers, BitShift) refuses by name.
  const BinaryOp::Form& form = bin.form(compute);
  if (!form) cx.error(std::string("no kernel computes ") + op + " on " + element_type_name(cx.info(cx.in(present[0])).elem) + " elements");
  const double p = bin.attributes.empty() ? 0 : e.attribute(bin.attributes[0]);
  const ElementType value_type = bin.bool_result() ? ElementType::Bool : compute;
  int acc = leaf[0];
  for (std::size_t k = 1; k < leaf.size(); ++k) acc = e.op(op, {acc, leaf[k]}, value_type, p);
  if (bin.mean && leaf.size() > 1) acc = e.op("Mul", {acc, e.number(1.0 / static_cast<double>(leaf.size()), compute)}, compute);
  if (leaf.size() == 1) acc = e.op("Identity", {acc}, value_type);
  if (is_float_type(value_type) && e.compute_of(out.elem) == ElementType::I64) acc = e.op("Cast", {acc}, ElementType::I64);
  if (is_narrow_integer(out.elem) && bin.leaves_range) e.wrapped(acc, out.elem);
  return RowNormalisation::None;
}

}  // namespace

const std::vector<BinaryOp>& binary_ops() {
  static const std::vector<BinaryOp> t = table();
  return t;
}

const BinaryOp* find_binary(std::string_view op) {
  for (const auto& b : binary_ops())
    if (b.name == op) return &b;
  return nullptr;
}

void register_binary(std::vector<Operator>& rules) {
  // Each composes into a generated kernel from its forms; one with none (BitShift) is refused by
  // name when it is composed.
  for (const auto& b : binary_ops())
    rules.push_back({.op_type = b.name, .infer = binary_rule, .name_axes = name_broadcast, .fusion_role = elementwise_role,
                     .compose = compose_binary, .constant_operand = binary_constant_operand, .keeps_narrow_range = static_cast<bool>(b.i64), .in_scope = b.real || b.i64 || b.i1,
                     .binary = &b});
}

}  // namespace loam::ops
