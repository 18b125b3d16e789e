// Elementwise arithmetic, declared once per operation and registered twice: `scalar.X` on a
// scalar and `vector.X` on a vector, lane by lane. Each lane's meaning is one function of the
// shared runtime (runtime/loom/), which the interpreter calls on one lane and the emitted C++ calls
// on a whole vector, so the two agree bit for bit.
//
// Floats compute in their own format: f32 and f64 as IEEE 754 does; f16, bf16 and the f8 formats
// compute the operation in f32 and round the result once to the format (for +, -, *, / and sqrt
// this is the correctly rounded result). Integers are payloads: addi, subi, muli and shli wrap
// modulo 2^N; each use says whether it reads them signed (..si) or unsigned (..ui). Division by
// zero, and a signed quotient that overflows, stop the run.
#include <cmath>

#include "loom/loom_rt.hpp"
#include "loom/ops_common.hpp"
#include "support/error.hpp"

namespace loam::loom {

namespace {

using namespace detail;
namespace c = constraint;

// ---- lanes as the interpreter sees them

float to_float(std::uint64_t bits, Scalar t) { return static_cast<float>(float_value(bits, t)); }
std::uint64_t from_double(double d, Scalar t, bool saturate = false) { return float_bits(d, t, saturate); }
double to_double(std::uint64_t bits, Scalar t) { return float_value(bits, t); }

// Applies a lane function generic over float and double: f64 lanes in double, every other float
// format in float, the result rounded to the format.
template <class F>
std::uint64_t float_lane(Scalar t, F f, std::uint64_t a, std::uint64_t b = 0, std::uint64_t cc = 0) {
  if (t == Scalar::F64)
    return std::bit_cast<std::uint64_t>(static_cast<double>(
        f(std::bit_cast<double>(a), std::bit_cast<double>(b), std::bit_cast<double>(cc))));
  const float r = f(to_float(a, t), to_float(b, t), to_float(cc, t));
  if (t == Scalar::F32) return std::bit_cast<std::uint32_t>(r);
  return from_double(static_cast<double>(r), t);
}

using LaneFn = std::function<std::uint64_t(Scalar, const std::uint64_t*)>;
using CppFn = std::function<std::string(CppEmitter&, const Op&, const std::vector<std::string>&)>;

int lanes_of(const Type& t) { return t.is_vector() ? static_cast<int>(t.dims()[0].size) : 0; }

// Wraps a float result in the rounding its narrow format needs.
std::string rounded(CppEmitter& e, Scalar t, const std::string& expr) {
  const std::string fn = narrow_round_function(t);
  return fn.empty() ? expr : e.rt() + fn + "(" + expr + ")";
}

// The element type and lane shape of the op's first operand (or result).
Scalar element_of(const Op& op) { return (op.operands.empty() ? op.result()->type : op.operands[0]->type).element(); }

struct Family {
  std::string suffix;           // "addf"
  std::string summary;
  std::vector<std::string> operands;
  TypeConstraint scalar_constraint;
  TypeConstraint vector_constraint;
  LaneFn lane;                  // the interpreter's lane
  CppFn cpp;                    // the emitted expression (for scalars and vectors alike)
  std::function<void(const Op&, OpVerifier&)> verify;
  bool fails = false;           // may stop the run (division)
};

// Registers scalar.X and vector.X: operands and result of one type.
void add_same_type(OpTable& t, const Family& fam) {
  for (const bool vec : {false, true}) {
    OpDef d;
    d.name = intern((vec ? "vector." : "scalar.") + fam.suffix);
    d.summary = intern(fam.summary);
    std::string format;
    std::string types;
    for (std::size_t i = 0; i < fam.operands.size(); ++i) {
      d.operands.push_back({intern(fam.operands[i]), vec ? fam.vector_constraint : fam.scalar_constraint});
      format += (i ? ", $" : "$") + fam.operands[i];
      types += fam.operands[i] + ", ";
    }
    d.format = intern(format + " : type(" + types + "result)");
    d.results = {{"result", vec ? fam.vector_constraint : fam.scalar_constraint}};
    d.traits = fam.fails ? 0u : kPure;
    if (fam.verify) d.verify = fam.verify;
    const LaneFn lane = fam.lane;
    d.eval = [lane, vec](const Op& op, Frame& fr) {
      const Scalar type = element_of(op);
      if (!vec) {
        std::uint64_t args[3] = {};
        for (std::size_t i = 0; i < op.operands.size(); ++i) args[i] = fr.bits(op.operands[i]);
        RtValue r = RtValue::scalar(0);
        try {
          r.bits = lane(type, args);
        } catch (const Error& err) {
          fr.fail(op, err.what());
        }
        fr.set(op.result(), std::move(r));
        return;
      }
      RtValue r;
      r.kind = RtValue::Kind::Vector;
      const std::size_t n = fr.get(op.operands[0]).lanes.size();
      r.lanes.resize(n);
      for (std::size_t l = 0; l < n; ++l) {
        std::uint64_t args[3] = {};
        for (std::size_t i = 0; i < op.operands.size(); ++i) args[i] = fr.get(op.operands[i]).lanes[l];
        try {
          r.lanes[l] = lane(type, args);
        } catch (const Error& err) {
          fr.fail(op, std::string(err.what()) + " in lane " + std::to_string(l));
        }
      }
      fr.set(op.result(), std::move(r));
    };
    const CppFn cpp = fam.cpp;
    d.emit = [cpp](const Op& op, CppEmitter& e) {
      std::vector<std::string> args;
      for (const Value* v : op.operands) args.push_back(e.use(v));
      e.define(op.result(), cpp(e, op, args));
    };
    t.add(std::move(d));
  }
}

// ---- floats

void add_float_ops(OpTable& t) {
  auto binary = [&](std::string suffix, std::string summary, auto f, std::string cpp_op, std::string cpp_fn) {
    Family fam;
    fam.suffix = std::move(suffix);
    fam.summary = std::move(summary);
    fam.operands = {"lhs", "rhs"};
    fam.scalar_constraint = c::scalar_float;
    fam.vector_constraint = c::vector_float;
    fam.lane = [f](Scalar type, const std::uint64_t* a) {
      return float_lane(type, [f](auto x, auto y, auto) { return f(x, y); }, a[0], a[1]);
    };
    fam.cpp = [cpp_op, cpp_fn](CppEmitter& e, const Op& op, const std::vector<std::string>& a) {
      const std::string expr = cpp_op.empty() ? e.rt() + cpp_fn + "(" + a[0] + ", " + a[1] + ")"
                                              : "(" + a[0] + " " + cpp_op + " " + a[1] + ")";
      return rounded(e, element_of(op), expr);
    };
    add_same_type(t, fam);
  };
  binary("addf", "the IEEE sum", [](auto x, auto y) { return x + y; }, "+", "");
  binary("subf", "the IEEE difference", [](auto x, auto y) { return x - y; }, "-", "");
  binary("mulf", "the IEEE product", [](auto x, auto y) { return x * y; }, "*", "");
  binary("divf", "the IEEE quotient", [](auto x, auto y) { return x / y; }, "/", "");
  binary("maxf", "the larger; NaN if either is NaN, +0 above -0", [](auto x, auto y) { return loom_rt::max_lanes(x, y); }, "", "max_lanes");
  binary("minf", "the smaller; NaN if either is NaN, -0 below +0", [](auto x, auto y) { return loom_rt::min_lanes(x, y); }, "", "min_lanes");
  binary("powf", "x to the power y", [](auto x, auto y) { return loom_rt::math::pow(x, y); }, "", "math::pow");
  binary("remf", "the remainder of x / y with x's sign (C's fmod)", [](auto x, auto y) { return loom_rt::fmod_lanes(x, y); }, "", "fmod_lanes");

  auto unary = [&](std::string suffix, std::string summary, auto f, std::string cpp_fn) {
    Family fam;
    fam.suffix = std::move(suffix);
    fam.summary = std::move(summary);
    fam.operands = {"input"};
    fam.scalar_constraint = c::scalar_float;
    fam.vector_constraint = c::vector_float;
    fam.lane = [f](Scalar type, const std::uint64_t* a) {
      return float_lane(type, [f](auto x, auto, auto) { return f(x); }, a[0]);
    };
    fam.cpp = [cpp_fn](CppEmitter& e, const Op& op, const std::vector<std::string>& a) {
      const std::string expr = cpp_fn == "-" ? "(-" + a[0] + ")" : e.rt() + cpp_fn + "(" + a[0] + ")";
      return rounded(e, element_of(op), expr);
    };
    add_same_type(t, fam);
  };
  unary("negf", "the negation (flips the sign bit)", [](auto x) { return -x; }, "-");
  unary("absf", "the magnitude (clears the sign bit)", [](auto x) { return loom_rt::abs_lanes(x); }, "abs_lanes");
  unary("sqrt", "the correctly rounded square root", [](auto x) { return loom_rt::sqrt_lanes(x); }, "sqrt_lanes");
  unary("floor", "rounds toward -inf", [](auto x) { return loom_rt::floor_lanes(x); }, "floor_lanes");
  unary("ceil", "rounds toward +inf", [](auto x) { return loom_rt::ceil_lanes(x); }, "ceil_lanes");
  unary("trunc", "rounds toward zero", [](auto x) { return loom_rt::trunc_lanes(x); }, "trunc_lanes");
  unary("roundeven", "rounds to the nearest integer, ties to even", [](auto x) { return loom_rt::round_even_lanes(x); }, "round_even_lanes");
#define LOOM_MATH(name, summary) unary(#name, summary, [](auto x) { return loom_rt::math::name(x); }, "math::" #name)
  LOOM_MATH(exp, "e to the x");
  LOOM_MATH(log, "the natural logarithm");
  LOOM_MATH(tanh, "the hyperbolic tangent");
  LOOM_MATH(erf, "the error function");
  LOOM_MATH(sigmoid, "1 / (1 + e^-x)");
  LOOM_MATH(sin, "the sine");
  LOOM_MATH(cos, "the cosine");
  LOOM_MATH(tan, "the tangent");
  LOOM_MATH(asin, "the arcsine");
  LOOM_MATH(acos, "the arccosine");
  LOOM_MATH(atan, "the arctangent");
  LOOM_MATH(sinh, "the hyperbolic sine");
  LOOM_MATH(cosh, "the hyperbolic cosine");
  LOOM_MATH(asinh, "the inverse hyperbolic sine");
  LOOM_MATH(acosh, "the inverse hyperbolic cosine");
  LOOM_MATH(atanh, "the inverse hyperbolic tangent");
  LOOM_MATH(log1p, "log(1 + x), accurate where x is small");
  LOOM_MATH(expm1, "e to the x, minus 1, accurate where x is small");
#undef LOOM_MATH

  Family fma;
  fma.suffix = "fma";
  fma.summary = "a * b + c with one rounding (narrow formats: through f64)";
  fma.operands = {"a", "b", "c"};
  fma.scalar_constraint = c::scalar_float;
  fma.vector_constraint = c::vector_float;
  fma.lane = [](Scalar type, const std::uint64_t* a) {
    if (type == Scalar::F64)
      return std::bit_cast<std::uint64_t>(loom_rt::fma_lanes(std::bit_cast<double>(a[0]), std::bit_cast<double>(a[1]),
                                                             std::bit_cast<double>(a[2])));
    if (type == Scalar::F32)
      return std::uint64_t{std::bit_cast<std::uint32_t>(loom_rt::fma_lanes(to_float(a[0], type), to_float(a[1], type), to_float(a[2], type)))};
    return from_double(loom_rt::fma_lanes(to_double(a[0], type), to_double(a[1], type), to_double(a[2], type)), type);
  };
  fma.cpp = [](CppEmitter& e, const Op& op, const std::vector<std::string>& a) {
    const Scalar type = element_of(op);
    if (type == Scalar::F32 || type == Scalar::F64) return e.rt() + "fma_lanes(" + a[0] + ", " + a[1] + ", " + a[2] + ")";
    return e.rt() + "narrow_fma_" + narrow_round_function(type).substr(6) + "(" + a[0] + ", " + a[1] + ", " + a[2] + ")";
  };
  add_same_type(t, fma);
}

// ---- integers

std::uint64_t int_binary(const std::string& which, Scalar type, std::uint64_t a, std::uint64_t b) {
  const int n = scalar_bits(type);
  const std::int64_t sa = signed_payload(a, n), sb = signed_payload(b, n);
  const std::uint64_t ua = mask_bits(a, n), ub = mask_bits(b, n);
  auto wrap = [&](std::uint64_t v) { return mask_bits(v, n); };
  if (which == "addi") return wrap(ua + ub);
  if (which == "subi") return wrap(ua - ub);
  if (which == "muli") return wrap(ua * ub);
  if (which == "andi") return ua & ub;
  if (which == "ori") return ua | ub;
  if (which == "xori") return ua ^ ub;
  if (which == "minsi") return sa < sb ? ua : ub;
  if (which == "maxsi") return sa < sb ? ub : ua;
  if (which == "minui") return ua < ub ? ua : ub;
  if (which == "maxui") return ua < ub ? ub : ua;
  if (which == "shli") return ub >= static_cast<std::uint64_t>(n) ? 0 : wrap(ua << ub);
  if (which == "shrui") return ub >= static_cast<std::uint64_t>(n) ? 0 : ua >> ub;
  if (which == "shrsi") return wrap(static_cast<std::uint64_t>(sa >> (ub >= static_cast<std::uint64_t>(n) ? n - 1 : static_cast<int>(ub))));
  if (which == "divui" || which == "remui") {
    if (ub == 0) fail("division by zero");
    return which == "divui" ? ua / ub : ua % ub;
  }
  if (which == "divsi" || which == "remsi") {
    if (sb == 0) fail("division by zero");
    const std::int64_t min = n == 64 ? std::numeric_limits<std::int64_t>::min() : -(std::int64_t{1} << (n - 1));
    if (sa == min && sb == -1) {
      if (which == "remsi") return 0;
      fail("the quotient overflows i" + std::to_string(n));
    }
    return wrap(static_cast<std::uint64_t>(which == "divsi" ? sa / sb : sa % sb));
  }
  fail("no integer operation " + which);
}

void add_integer_ops(OpTable& t) {
  struct Info {
    const char* suffix;
    const char* summary;
    const char* cpp_op;  // a C++ operator on the unsigned carrier, or null for a runtime helper
    bool fails;
    bool bool_ok;        // also defined on i1
  };
  static const Info kInts[] = {
      {"addi", "the sum modulo 2^N", "+", false, false},
      {"subi", "the difference modulo 2^N", "-", false, false},
      {"muli", "the product modulo 2^N", "*", false, false},
      {"divsi", "the signed quotient, rounded toward zero", nullptr, true, false},
      {"divui", "the unsigned quotient", nullptr, true, false},
      {"remsi", "the signed remainder, with the dividend's sign", nullptr, true, false},
      {"remui", "the unsigned remainder", nullptr, true, false},
      {"minsi", "the smaller, read signed", nullptr, false, false},
      {"maxsi", "the larger, read signed", nullptr, false, false},
      {"minui", "the smaller, read unsigned", nullptr, false, false},
      {"maxui", "the larger, read unsigned", nullptr, false, false},
      {"andi", "bitwise and", "&", false, true},
      {"ori", "bitwise or", "|", false, true},
      {"xori", "bitwise exclusive or", "^", false, true},
      {"shli", "shifts left; a shift of N or more gives 0", nullptr, false, false},
      {"shrui", "shifts right, filling with zeros; N or more gives 0", nullptr, false, false},
      {"shrsi", "shifts right, filling with the sign bit", nullptr, false, false},
  };
  for (const Info& info : kInts) {
    Family fam;
    fam.suffix = info.suffix;
    fam.summary = info.summary;
    fam.operands = {"lhs", "rhs"};
    fam.scalar_constraint = c::scalar_integer;
    fam.vector_constraint = c::vector_integer;
    fam.fails = info.fails;
    const std::string which = info.suffix;
    fam.lane = [which](Scalar type, const std::uint64_t* a) { return int_binary(which, type, a[0], a[1]); };
    const bool bool_ok = info.bool_ok;
    fam.verify = [bool_ok](const Op& op, OpVerifier& v) {
      if (!bool_ok && element_of(op) == Scalar::I1)
        v.fail(op, ref(op.operands[0]) + " is a boolean (i1): combine it with andi, ori or xori, or extend it first");
    };
    const char* cpp_op = info.cpp_op;
    const bool fails = info.fails;
    fam.cpp = [cpp_op, which, fails](CppEmitter& e, const Op& op, const std::vector<std::string>& a) -> std::string {
      const Type& ty = op.operands[0]->type;
      const std::string cty = e.cpp_type(ty);
      if (cpp_op && ty.is_vector()) return "(" + a[0] + " " + cpp_op + " " + a[1] + ")";
      if (cpp_op && ty.element() == Scalar::I1) return "bool(" + a[0] + " " + cpp_op + " " + a[1] + ")";
      if (cpp_op) {
        const std::string wide = ty.element() == Scalar::I64 ? "std::uint64_t" : "unsigned";
        return cty + "(" + wide + "(" + a[0] + ") " + cpp_op + " " + wide + "(" + a[1] + "))";
      }
      std::string call = e.rt() + which + "(" + a[0] + ", " + a[1];
      if (fails) call += ", " + cpp_string(fail_message(e.module(), op, ref(op.result()) + " = " + which + " " + ref(op.operands[0]) +
                                                                            ", " + ref(op.operands[1]) + " divides by zero or overflows"));
      return call + ")";
    };
    add_same_type(t, fam);
  }
}

// ---- comparisons, select

const std::vector<std::string_view> kFloatPredicates{"oeq", "one", "olt", "ole", "ogt", "oge", "ord",
                                                     "ueq", "une", "ult", "ule", "ugt", "uge", "uno"};
const std::vector<std::string_view> kIntPredicates{"eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"};

bool float_compare(std::int64_t p, double a, double b) {
  const bool unordered = std::isnan(a) || std::isnan(b);
  switch (p) {
    case 0: return !unordered && a == b;
    case 1: return !unordered && a != b;
    case 2: return !unordered && a < b;
    case 3: return !unordered && a <= b;
    case 4: return !unordered && a > b;
    case 5: return !unordered && a >= b;
    case 6: return !unordered;
    case 7: return unordered || a == b;
    case 8: return unordered || a != b;
    case 9: return unordered || a < b;
    case 10: return unordered || a <= b;
    case 11: return unordered || a > b;
    case 12: return unordered || a >= b;
    default: return unordered;
  }
}

bool int_compare(std::int64_t p, std::uint64_t a, std::uint64_t b, int n) {
  const std::int64_t sa = signed_payload(a, n), sb = signed_payload(b, n);
  const std::uint64_t ua = mask_bits(a, n), ub = mask_bits(b, n);
  switch (p) {
    case 0: return ua == ub;
    case 1: return ua != ub;
    case 2: return sa < sb;
    case 3: return sa <= sb;
    case 4: return sa > sb;
    case 5: return sa >= sb;
    case 6: return ua < ub;
    case 7: return ua <= ub;
    case 8: return ua > ub;
    default: return ua >= ub;
  }
}

void add_compare(OpTable& t, bool is_float) {
  for (const bool vec : {false, true}) {
    OpDef d;
    d.name = is_float ? (vec ? "vector.cmpf" : "scalar.cmpf") : (vec ? "vector.cmpi" : "scalar.cmpi");
    d.summary = is_float ? "compares floats: ordered (o..) predicates are false on NaN, unordered (u..) true"
                         : "compares integers, read signed (s..) or unsigned (u..)";
    const TypeConstraint in = is_float ? (vec ? c::vector_float : c::scalar_float) : (vec ? c::vector_integer : c::scalar_integer);
    d.operands = {{"lhs", in}, {"rhs", in}};
    d.results = {{"result", vec ? c::vector_mask : c::i1}};
    d.attrs = {{"predicate", AttrKind::Choice, is_float ? kFloatPredicates : kIntPredicates}};
    d.format = "$predicate, $lhs, $rhs : type(lhs, rhs)";
    d.traits = kPure;
    d.infer = [](Op& op) { op.result()->type = op.operands[0]->type.with_element(Scalar::I1); };
    if (!is_float)
      d.verify = [](const Op& op, OpVerifier& v) {
        if (element_of(op) == Scalar::I1 && op.attr("predicate").i > 1)
          v.fail(op, ref(op.operands[0]) + " is a boolean (i1): compare it with eq or ne");
      };
    d.eval = [is_float, vec](const Op& op, Frame& fr) {
      const Scalar type = element_of(op);
      const std::int64_t p = op.attr("predicate").i;
      auto lane = [&](std::uint64_t a, std::uint64_t b) -> std::uint64_t {
        return is_float ? float_compare(p, to_double(a, type), to_double(b, type)) : int_compare(p, a, b, scalar_bits(type));
      };
      if (!vec) {
        fr.set(op.result(), RtValue::scalar(lane(fr.bits(op.operands[0]), fr.bits(op.operands[1]))));
        return;
      }
      RtValue r;
      r.kind = RtValue::Kind::Vector;
      const auto& a = fr.get(op.operands[0]).lanes;
      const auto& b = fr.get(op.operands[1]).lanes;
      for (std::size_t l = 0; l < a.size(); ++l) r.lanes.push_back(lane(a[l], b[l]));
      fr.set(op.result(), std::move(r));
    };
    d.emit = [is_float, vec](const Op& op, CppEmitter& e) {
      const Scalar type = element_of(op);
      const std::int64_t p = op.attr("predicate").i;
      std::string a = e.use(op.operands[0]), b = e.use(op.operands[1]);
      if (is_float) {
        const std::string pred(kFloatPredicates[static_cast<std::size_t>(p)]);
        e.define(op.result(), e.rt() + "cmpf_" + pred + "(" + a + ", " + b + ")");
        return;
      }
      static const char* kOps[] = {"==", "!=", "<", "<=", ">", ">=", "<", "<=", ">", ">="};
      if (vec) {
        // Through the lane helpers: on vectors wider than the machine's, raw comparisons become
        // scalar code.
        static const char* kLanes[] = {"eq", "ne", "lt", "le", "gt", "ge", "lt", "le", "gt", "ge"};
        if (p >= 2 && p <= 5) {
          a = e.rt() + "as_signed(" + a + ")";
          b = e.rt() + "as_signed(" + b + ")";
        }
        e.define(op.result(), e.rt() + "to_mask(" + e.rt() + kLanes[p] + "_lanes(" + a + ", " + b + "))");
        return;
      }
      if (p >= 2 && p <= 5 && type != Scalar::I1) {
        const std::string s = vec ? "(" + e.rt() + "vec<std::int" + std::to_string(scalar_bits(type)) + "_t, " +
                                        std::to_string(lanes_of(op.operands[0]->type)) + ">)"
                                  : "std::int" + std::to_string(scalar_bits(type)) + "_t";
        a = vec ? s + a : s + "(" + a + ")";
        b = vec ? s + b : s + "(" + b + ")";
      }
      const std::string cmp = "(" + a + " " + kOps[p] + " " + b + ")";
      e.define(op.result(), vec ? e.rt() + "to_mask(" + cmp + ")" : cmp);
    };
    t.add(std::move(d));
  }
}

void add_select(OpTable& t) {
  for (const bool vec : {false, true}) {
    OpDef d;
    d.name = vec ? "vector.select" : "scalar.select";
    d.summary = vec ? "per lane, the true value where the mask is set, else the false value"
                    : "the true value when the condition holds, else the false value";
    d.operands = {{"condition", vec ? c::vector_mask : c::i1},
                  {"true_value", vec ? c::vector : c::scalar_value},
                  {"false_value", vec ? c::vector : c::scalar_value}};
    d.results = {{"result", vec ? c::vector : c::scalar_value}};
    d.format = "$condition, $true_value, $false_value : type(true_value, false_value, result)";
    d.traits = kPure;
    if (vec)
      d.verify = [](const Op& op, OpVerifier& v) {
        if (op.operands[0]->type.dims() != op.operands[1]->type.dims())
          v.fail(op, "the mask " + ref(op.operands[0]) + " is " + print_type(op.operands[0]->type) + ", but the values are " +
                         print_type(op.operands[1]->type));
      };
    d.eval = [vec](const Op& op, Frame& fr) {
      if (!vec) {
        fr.set(op.result(), fr.get(fr.bits(op.operands[0]) ? op.operands[1] : op.operands[2]));
        return;
      }
      RtValue r = fr.get(op.operands[2]);
      const auto& m = fr.get(op.operands[0]).lanes;
      const auto& a = fr.get(op.operands[1]).lanes;
      for (std::size_t l = 0; l < m.size(); ++l)
        if (m[l]) r.lanes[l] = a[l];
      fr.set(op.result(), std::move(r));
    };
    d.emit = [vec](const Op& op, CppEmitter& e) {
      const std::string m = e.use(op.operands[0]), a = e.use(op.operands[1]), b = e.use(op.operands[2]);
      if (!vec) {
        e.define(op.result(), "(" + m + " ? " + a + " : " + b + ")");
        return;
      }
      const std::string vt = e.cpp_type(op.result()->type);
      e.define(op.result(), e.rt() + "select_mask<" + vt + ">(" + m + ", " + a + ", " + b + ")");
    };
    t.add(std::move(d));
  }
}

// ---- constants

void add_scalar_constant(OpTable& t) {
  OpDef d;
  d.name = "scalar.constant";
  d.summary = "a fixed-width integer or float literal";
  d.results = {{"result", c::scalar_value}};
  d.attrs = {{"value", AttrKind::Literal, {}}};
  d.format = "$value : type(result)";
  d.traits = kPure;
  d.facts = [](const Op& op, FactScope& s) {
    if (is_integer(op.result()->type.element())) s.set(op.result(), exact(value_of(op.attr("value").bits, op.result()->type.element())));
  };
  d.eval = [](const Op& op, Frame& fr) {
    fr.set(op.result(), RtValue::scalar(quiet_narrow_nan(op.attr("value").bits, op.result()->type.element())));
  };
  d.emit = [](const Op& op, CppEmitter& e) {
    e.define(op.result(), cpp_literal(op.attr("value").bits, op.result()->type.element(), e.rt()));
  };
  t.add(std::move(d));
}

// ---- conversions

enum class Conversion { ConvertF, SIToFP, UIToFP, FPToSI, FPToUI, ExtSI, ExtUI, TruncI, Bitcast };

struct ConversionInfo {
  Conversion kind;
  const char* suffix;
  const char* summary;
};

constexpr ConversionInfo kConversions[] = {
    {Conversion::ConvertF, "convertf", "to another float format, rounding to nearest even (saturate: f8 overflow to the largest finite)"},
    {Conversion::SIToFP, "sitofp", "a payload read signed, to the nearest float"},
    {Conversion::UIToFP, "uitofp", "a payload read unsigned, to the nearest float"},
    {Conversion::FPToSI, "fptosi", "toward zero to a signed payload, saturating; NaN gives 0"},
    {Conversion::FPToUI, "fptoui", "toward zero to an unsigned payload, saturating; NaN gives 0"},
    {Conversion::ExtSI, "extsi", "widens a payload, repeating its sign bit"},
    {Conversion::ExtUI, "extui", "widens a payload with zeros"},
    {Conversion::TruncI, "trunci", "keeps the low bits of a payload"},
    {Conversion::Bitcast, "bitcast", "the same bits read as another type of the same width"},
};

bool float_in(Conversion k) { return k == Conversion::ConvertF || k == Conversion::FPToSI || k == Conversion::FPToUI; }
bool float_out(Conversion k) { return k == Conversion::ConvertF || k == Conversion::SIToFP || k == Conversion::UIToFP; }

std::uint64_t fp_to_int(double d, int n, bool is_signed) {
  if (std::isnan(d)) return 0;
  const double t = std::trunc(d);
  if (is_signed) {
    const double lo = -std::ldexp(1.0, n - 1), hi = std::ldexp(1.0, n - 1);
    if (t <= lo) return mask_bits(static_cast<std::uint64_t>(n == 64 ? std::numeric_limits<std::int64_t>::min() : static_cast<std::int64_t>(lo)), n);
    if (t >= hi) return mask_bits(n == 64 ? static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) : (std::uint64_t{1} << (n - 1)) - 1, n);
    return mask_bits(static_cast<std::uint64_t>(static_cast<std::int64_t>(t)), n);
  }
  if (t <= 0) return 0;
  const double hi = std::ldexp(1.0, n);
  if (t >= hi) return n == 64 ? std::numeric_limits<std::uint64_t>::max() : (std::uint64_t{1} << n) - 1;
  return static_cast<std::uint64_t>(t);
}

std::uint64_t convert_lane(Conversion k, Scalar from, Scalar to, bool saturate, std::uint64_t a) {
  const int nf = scalar_bits(from), nt = scalar_bits(to);
  switch (k) {
    case Conversion::ConvertF: {
      if (from == Scalar::F64 && to == Scalar::F32) return std::bit_cast<std::uint32_t>(static_cast<float>(std::bit_cast<double>(a)));
      return from_double(to_double(a, from), to, saturate);
    }
    case Conversion::SIToFP: {
      const std::int64_t v = signed_payload(a, nf);
      if (from == Scalar::I1) return from_double(a ? -1.0 : 0.0, to);
      if (to == Scalar::F32) return std::bit_cast<std::uint32_t>(static_cast<float>(v));
      if (to == Scalar::F64) return std::bit_cast<std::uint64_t>(static_cast<double>(v));
      return from_double(loom_rt::int_to_double_odd(v), to);
    }
    case Conversion::UIToFP: {
      const std::uint64_t v = mask_bits(a, nf);
      if (to == Scalar::F32) return std::bit_cast<std::uint32_t>(static_cast<float>(v));
      if (to == Scalar::F64) return std::bit_cast<std::uint64_t>(static_cast<double>(v));
      return from_double(loom_rt::int_to_double_odd(v), to);
    }
    case Conversion::FPToSI: return fp_to_int(to_double(a, from), nt, true);
    case Conversion::FPToUI: return fp_to_int(to_double(a, from), nt, false);
    case Conversion::ExtSI: return mask_bits(static_cast<std::uint64_t>(signed_payload(a, nf)), nt);
    case Conversion::ExtUI: return mask_bits(a, nf);
    case Conversion::TruncI: return mask_bits(a, nt);
    case Conversion::Bitcast: return quiet_narrow_nan(a, to);
  }
  return 0;
}

std::string convert_cpp(CppEmitter& e, Conversion k, const Type& from_t, const Type& to_t, bool saturate, const std::string& x) {
  const Scalar from = from_t.element(), to = to_t.element();
  const bool vec = from_t.is_vector();
  const std::string rt = e.rt();
  const std::string to_cpp = e.cpp_type(to_t);
  const int nf = scalar_bits(from), nt = scalar_bits(to);
  auto signed_of = [&](const std::string& v) {
    if (from == Scalar::I1) return vec ? v : "std::int8_t(" + v + " ? -1 : 0)";
    const std::string st = "std::int" + std::to_string(nf) + "_t";
    return vec ? "(" + rt + "vec<" + st + ", " + std::to_string(lanes_of(from_t)) + ">)" + v : st + "(" + v + ")";
  };
  auto convert = [&](const std::string& v) { return vec ? "__builtin_convertvector(" + v + ", " + to_cpp + ")" : to_cpp + "(" + v + ")"; };
  switch (k) {
    case Conversion::ConvertF: {
      if (is_float(to) && narrow_round_function(to).empty()) return convert(x);  // to f32 or f64: exact or IEEE
      std::string fn = narrow_round_function(to);
      if (saturate) fn += "_sat";
      return rt + fn + "(" + x + ")";
    }
    case Conversion::SIToFP:
    case Conversion::UIToFP: {
      const std::string src = k == Conversion::SIToFP ? signed_of(x) : (from == Scalar::I1 && !vec ? "unsigned(" + x + ")" : x);
      std::string v = src;
      if (from == Scalar::I1 && vec && k == Conversion::UIToFP) v = "(" + x + " & 1)";
      if (narrow_round_function(to).empty()) return convert(v);
      // A narrow float: the value as a double rounded to odd, then rounded once to the format.
      return rt + narrow_round_function(to) + "(" + rt + "int_lanes_to_double_odd(" + v + "))";
    }
    case Conversion::FPToSI:
    case Conversion::FPToUI: {
      const std::string target = (k == Conversion::FPToSI ? "std::int" : "std::uint") + std::to_string(nt) + "_t";
      return rt + "fp_to_int_sat<" + target + ">(" + x + ")";
    }
    case Conversion::ExtSI:
      if (!vec && from == Scalar::I1) return to_cpp + "(" + x + " ? -1 : 0)";
      return vec ? "(" + to_cpp + ")__builtin_convertvector(" + signed_of(x) + ", " + rt + "vec<std::int" + std::to_string(nt) +
                       "_t, " + std::to_string(lanes_of(from_t)) + ">)"
                 : to_cpp + "(std::int" + std::to_string(nt) + "_t(" + signed_of(x) + "))";
    case Conversion::ExtUI:
      if (from == Scalar::I1 && vec) return convert("(" + x + " & 1)");
      return convert(x);
    case Conversion::TruncI:
      if (to == Scalar::I1) return vec ? rt + "to_mask((" + x + " & 1) != 0)" : "bool(" + x + " & 1)";
      return convert(x);
    case Conversion::Bitcast: {
      // A narrow float is held as a float: its bits first, then the target read from them.
      const std::string from_narrow = is_float(from) ? narrow_round_function(from) : "";
      const std::string to_narrow = is_float(to) ? narrow_round_function(to) : "";
      const std::string bits = from_narrow.empty() ? x : rt + "bits_" + from_narrow.substr(6) + "(" + x + ")";
      if (!to_narrow.empty()) return rt + "widen_" + to_narrow.substr(6) + "(" + bits + ")";
      return rt + "bitcast_lanes<" + to_cpp + ">(" + bits + ")";
    }
  }
  return x;
}

void add_conversions(OpTable& t) {
  for (const ConversionInfo& info : kConversions) {
    for (const bool vec : {false, true}) {
      OpDef d;
      d.name = intern(std::string(vec ? "vector." : "scalar.") + info.suffix);
      d.summary = info.summary;
      const TypeConstraint any_in = vec ? c::vector : c::scalar_value;
      d.operands = {{"input", any_in}};
      d.results = {{"result", any_in}};
      const Conversion k = info.kind;
      if (k == Conversion::ConvertF) {
        d.attrs = {{"saturate", AttrKind::Flag, {}}};
        d.format = "[[$saturate ]]$input : type(input) to type(result)";
      } else {
        d.format = "$input : type(input) to type(result)";
      }
      d.traits = kPure;
      d.verify = [k](const Op& op, OpVerifier& v) {
        const Type& ft = op.operands[0]->type;
        const Type& tt = op.result()->type;
        const Scalar from = ft.element(), to = tt.element();
        const std::string fs(scalar_name(from)), ts(scalar_name(to));
        if (ft.is_vector() && ft.dims() != tt.dims())
          v.fail(op, "converts lane by lane, but " + ref(op.operands[0]) + " is " + print_type(ft) + " and " + ref(op.result()) + " is " +
                         print_type(tt));
        if (float_in(k) != is_float(from) || float_out(k) != is_float(to)) {
          std::string want = float_in(k) ? "a float" : "an integer";
          want += " to ";
          want += float_out(k) ? "a float" : "an integer";
          if (k == Conversion::Bitcast) want = "";
          if (!want.empty()) v.fail(op, "converts " + want + ", not " + ref(op.operands[0]) + " (" + fs + ") to " + ts);
        }
        const int nf = scalar_bits(from), nt = scalar_bits(to);
        if (from == to) v.fail(op, ref(op.operands[0]) + " is already " + ts);
        if (k == Conversion::ConvertF && op.attr("saturate").present && to != Scalar::F8E4M3 && to != Scalar::F8E5M2)
          v.fail(op, "saturate applies to a conversion to f8E4M3 or f8E5M2, not of " + ref(op.operands[0]) + " to " + ts);
        if ((k == Conversion::ExtSI || k == Conversion::ExtUI) && nt <= nf)
          v.fail(op, "widens, but " + ref(op.operands[0]) + " (" + fs + ") to " + ts + " does not");
        if (k == Conversion::TruncI && nt >= nf) v.fail(op, "narrows, but " + ref(op.operands[0]) + " (" + fs + ") to " + ts + " does not");
        if ((k == Conversion::FPToSI || k == Conversion::FPToUI) && to == Scalar::I1)
          v.fail(op, "of " + ref(op.operands[0]) + " to i1 is a comparison: use scalar.cmpf");
        if (k == Conversion::Bitcast && (nf != nt || from == Scalar::I1))
          v.fail(op, "reads the same bits, but " + ref(op.operands[0]) + " (" + fs + ") and " + ts + " differ in width");
      };
      d.eval = [k, vec](const Op& op, Frame& fr) {
        const Scalar from = op.operands[0]->type.element(), to = op.result()->type.element();
        const bool sat = k == Conversion::ConvertF && op.attr("saturate").present;
        if (!vec) {
          fr.set(op.result(), RtValue::scalar(convert_lane(k, from, to, sat, fr.bits(op.operands[0]))));
          return;
        }
        RtValue r;
        r.kind = RtValue::Kind::Vector;
        for (std::uint64_t lane : fr.get(op.operands[0]).lanes) r.lanes.push_back(convert_lane(k, from, to, sat, lane));
        fr.set(op.result(), std::move(r));
      };
      d.emit = [k](const Op& op, CppEmitter& e) {
        const bool sat = k == Conversion::ConvertF && op.attr("saturate").present;
        e.define(op.result(), convert_cpp(e, k, op.operands[0]->type, op.result()->type, sat, e.use(op.operands[0])));
      };
      t.add(std::move(d));
    }
  }
}

// ---- reductions

const std::vector<std::string_view> kReductions{"add", "mul", "max", "min", "and", "or", "xor", "smax", "smin", "umax", "umin"};

// One step of a reduction on two lanes, as the interpreter computes it.
std::uint64_t reduce_step(std::int64_t kind, Scalar type, std::uint64_t a, std::uint64_t b) {
  if (is_float(type)) {
    const std::uint64_t args[2] = {a, b};
    auto f = [&](auto fn) { return float_lane(type, [fn](auto x, auto y, auto) { return fn(x, y); }, args[0], args[1]); };
    switch (kind) {
      case 0: return f([](auto x, auto y) { return x + y; });
      case 1: return f([](auto x, auto y) { return x * y; });
      case 2: return f([](auto x, auto y) { return loom_rt::max_lanes(x, y); });
      default: return f([](auto x, auto y) { return loom_rt::min_lanes(x, y); });
    }
  }
  static const char* kInt[] = {"addi", "muli", "", "", "andi", "ori", "xori", "maxsi", "minsi", "maxui", "minui"};
  if (type == Scalar::I1) return kind == 4 ? (a & b) : kind == 5 ? (a | b) : (a ^ b);
  return int_binary(kInt[kind], type, a, b);
}

// The C++ of one step on two scalar lanes `a` and `b` held as the emitter holds them.
std::string reduce_step_cpp(CppEmitter& e, std::int64_t kind, Scalar type) {
  if (is_float(type)) {
    std::string expr;
    switch (kind) {
      case 0: expr = "a + b"; break;
      case 1: expr = "a * b"; break;
      case 2: expr = e.rt() + "max_lanes(a, b)"; break;
      default: expr = e.rt() + "min_lanes(a, b)"; break;
    }
    return rounded(e, type, expr);
  }
  if (type == Scalar::I1) {
    static const char* kOps[] = {"", "", "", "", "&", "|", "^"};
    return std::string("a ") + kOps[kind] + " b";
  }
  const std::string held = cpp_scalar(type);
  const std::string wide = type == Scalar::I64 ? "std::uint64_t" : "unsigned";
  const std::string s = "std::int" + std::to_string(scalar_bits(type)) + "_t";
  switch (kind) {
    case 0: return held + "(" + wide + "(a) + " + wide + "(b))";
    case 1: return held + "(" + wide + "(a) * " + wide + "(b))";
    case 4: return held + "(a & b)";
    case 5: return held + "(a | b)";
    case 6: return held + "(a ^ b)";
    case 7: return "(" + s + "(a) < " + s + "(b) ? b : a)";
    case 8: return "(" + s + "(a) < " + s + "(b) ? a : b)";
    case 9: return "(a < b ? b : a)";
    default: return "(a < b ? a : b)";
  }
}

// Lanes combine in one fixed order, which the emitted code follows too: lanes past the largest
// power of two P fold onto the first ones, then each step folds the upper half onto the lower.
std::uint64_t reduce_lanes(std::int64_t kind, Scalar type, std::vector<std::uint64_t> v) {
  std::size_t p = 1;
  while (p * 2 <= v.size()) p *= 2;
  for (std::size_t i = p; i < v.size(); ++i) v[i - p] = reduce_step(kind, type, v[i - p], v[i]);
  for (std::size_t n = p; n > 1; n /= 2)
    for (std::size_t i = 0; i < n / 2; ++i) v[i] = reduce_step(kind, type, v[i], v[i + n / 2]);
  return v[0];
}

void add_reduce(OpTable& t) {
  OpDef d;
  d.name = "vector.reduce";
  d.summary = "combines a vector's lanes into one scalar, in a fixed order (halving)";
  d.operands = {{"input", c::vector}};
  d.results = {{"result", c::scalar_value}};
  d.attrs = {{"kind", AttrKind::Choice, kReductions}};
  d.format = "$kind, $input : type(input) -> type(result)";
  d.traits = kPure;
  d.verify = [](const Op& op, OpVerifier& v) {
    const Scalar type = element_of(op);
    const std::int64_t kind = op.attr("kind").i;
    const std::string k(kReductions[static_cast<std::size_t>(kind)]);
    if (!op.result()->type.is_scalar(type))
      v.fail(op, "reduces the " + std::string(scalar_name(type)) + " lanes of " + ref(op.operands[0]) + " to " + std::string(scalar_name(type)) + ", not " +
                     print_type(op.result()->type));
    if (is_float(type) && kind > 3) v.fail(op, "'" + k + "' does not reduce the float lanes of " + ref(op.operands[0]) + " (add, mul, max, min do)");
    if (type == Scalar::I1 && (kind < 4 || kind > 6))
      v.fail(op, "'" + k + "' does not reduce the i1 lanes of " + ref(op.operands[0]) + " (and, or, xor do)");
    if (is_integer(type) && type != Scalar::I1 && (kind == 2 || kind == 3))
      v.fail(op, "'" + k + "' reduces floats; for the integer lanes of " + ref(op.operands[0]) + " use smax, smin, umax or umin");
  };
  d.eval = [](const Op& op, Frame& fr) {
    fr.set(op.result(), RtValue::scalar(reduce_lanes(op.attr("kind").i, element_of(op), fr.get(op.operands[0]).lanes)));
  };
  d.emit = [](const Op& op, CppEmitter& e) {
    const Scalar type = element_of(op);
    const std::string held = type == Scalar::I1 ? "std::int32_t" : cpp_scalar(type);
    const std::string step = "[](" + held + " a, " + held + " b) -> " + held + " { return " + reduce_step_cpp(e, op.attr("kind").i, type) + "; }";
    const std::string r = e.rt() + "reduce_lanes(" + e.use(op.operands[0]) + ", " + step + ")";
    e.define(op.result(), type == Scalar::I1 ? "(" + r + " != 0)" : r);
  };
  t.add(std::move(d));
}

}  // namespace

void register_arith_ops(OpTable& t) {
  add_scalar_constant(t);
  add_float_ops(t);
  add_integer_ops(t);
  add_compare(t, true);
  add_compare(t, false);
  add_select(t);
  add_conversions(t);
  add_reduce(t);
}

}  // namespace loam::loom
