// The unary elementwise operators, each defined once (unary.hpp): attributes, result type, Loom
// forms and build-time values; and stage 0's rule for all of them (the input's shape; a bool for
// IsNaN and IsInf; a fold where the build knows the input).
#include "ops/unary.hpp"

#include <cmath>
#include <limits>

#include "ops/op.hpp"

namespace loam::ops {
namespace {

using loom::Lanes;
using loom::Scalar;
using loom::Value;
using stage0::Extent;
constexpr Scalar I = Scalar::I64;

// One Loom operation of the lane form on x.
UnaryOp::Form direct(const char* op) {
  return [op](const Lanes& l, Value* x, double, double) { return l.op(op, {x}, l.real_type()); };
}

// log(1 + e^x), which is x to float's precision above 20.
Value* softplus(const Lanes& l, Value* x) {
  return l.select(l.cmpf(Lanes::OGT, x, l.real(20)), x, l.op("log1p", {l.op("exp", {x}, l.real_type())}, l.real_type()), l.real_type());
}

// max(0, min(1, alpha * x + beta)).
Value* hard_sigmoid(const Lanes& l, Value* x, double alpha, double beta) {
  return l.op("maxf", {l.real(0), l.op("minf", {l.real(1), l.op("addf", {l.op("mulf", {l.real(alpha), x}, l.real_type()), l.real(beta)}, l.real_type())}, l.real_type())}, l.real_type());
}

UnaryOp math(std::string_view name, const char* loom_op, std::function<float(float)> fold = {}) {
  UnaryOp u;
  u.name = name;
  u.real = direct(loom_op);
  u.fold_f32 = std::move(fold);
  return u;
}

std::vector<UnaryOp> table() {
  std::vector<UnaryOp> t;
  UnaryOp u;

  // Arithmetic, on floats and integers.
  u = {};
  u.name = "Neg";
  u.leaves_range = true;  // -(-128) is 128
  u.real = direct("negf");
  u.i64 = [](const Lanes& l, Value* x, double, double) { return l.op("subi", {l.i64(0), x}, I); };
  u.fold_f32 = [](float x) { return -x; };
  u.fold_i64 = [](const Extent& x) { return std::optional<Extent>(-x); };
  t.push_back(u);

  u = {};
  u.name = "Abs";
  u.leaves_range = true;
  u.real = direct("absf");
  u.i64 = [](const Lanes& l, Value* x, double, double) {
    return l.select(l.cmpi(Lanes::SLT, x, l.i64(0)), l.op("subi", {l.i64(0), x}, I), x, I);
  };
  u.fold_f32 = [](float x) { return std::fabs(x); };
  u.fold_i64 = [](const Extent& x) -> std::optional<Extent> {
    if (stage0::prove_nonnegative(x) == stage0::Proof::Holds) return x;
    if (stage0::prove_nonnegative(-x) == stage0::Proof::Holds) return -x;
    return std::nullopt;
  };
  t.push_back(u);

  u = {};
  u.name = "Relu";
  u.real = [](const Lanes& l, Value* x, double, double) { return l.op("maxf", {x, l.real(0)}, l.real_type()); };
  u.i64 = [](const Lanes& l, Value* x, double, double) { return l.op("maxsi", {x, l.i64(0)}, I); };
  u.fold_f32 = [](float x) { return x > 0 ? x : 0.f; };
  u.fold_i64 = [](const Extent& x) { return std::optional<Extent>(stage0::max_of(x, Extent(0))); };
  t.push_back(u);

  u = {};
  u.name = "Sign";
  u.real = [](const Lanes& l, Value* x, double, double) {
    return l.select(l.cmpf(Lanes::OGT, x, l.real(0)), l.real(1), l.select(l.cmpf(Lanes::OLT, x, l.real(0)), l.real(-1), x, l.real_type()), l.real_type());
  };
  u.i64 = [](const Lanes& l, Value* x, double, double) {
    return l.select(l.cmpi(Lanes::SGT, x, l.i64(0)), l.i64(1), l.select(l.cmpi(Lanes::SLT, x, l.i64(0)), l.i64(-1), l.i64(0), I), I);
  };
  t.push_back(u);

  u = {};
  u.name = "Reciprocal";
  u.real = [](const Lanes& l, Value* x, double, double) { return l.op("divf", {l.real(1), x}, l.real_type()); };
  u.fold_f32 = [](float x) { return 1.f / x; };
  t.push_back(u);

  // Math on floats: one Loom operation each.
  t.push_back(math("Sqrt", "sqrt", [](float x) { return std::sqrt(x); }));
  t.push_back(math("Exp", "exp", [](float x) { return std::exp(x); }));
  t.push_back(math("Log", "log", [](float x) { return std::log(x); }));
  t.push_back(math("Floor", "floor", [](float x) { return std::floor(x); }));
  t.push_back(math("Ceil", "ceil", [](float x) { return std::ceil(x); }));
  t.push_back(math("Tanh", "tanh", [](float x) { return std::tanh(x); }));
  t.push_back(math("Erf", "erf", [](float x) { return std::erf(x); }));
  t.push_back(math("Round", "roundeven"));  // halves to even, as ONNX rounds
  t.push_back(math("Sigmoid", "sigmoid"));
  t.push_back(math("Sin", "sin"));
  t.push_back(math("Cos", "cos"));
  t.push_back(math("Tan", "tan"));
  t.push_back(math("Asin", "asin"));
  t.push_back(math("Acos", "acos"));
  t.push_back(math("Atan", "atan"));
  t.push_back(math("Sinh", "sinh"));
  t.push_back(math("Cosh", "cosh"));
  t.push_back(math("Asinh", "asinh"));
  t.push_back(math("Acosh", "acosh"));
  t.push_back(math("Atanh", "atanh"));

  // Activations.
  u = {};
  u.name = "Softplus";
  u.real = [](const Lanes& l, Value* x, double, double) { return softplus(l, x); };
  t.push_back(u);

  u = {};
  u.name = "Softsign";  // x / (1 + |x|)
  u.real = [](const Lanes& l, Value* x, double, double) { return l.op("divf", {x, l.op("addf", {l.real(1), l.op("absf", {x}, l.real_type())}, l.real_type())}, l.real_type()); };
  t.push_back(u);

  u = {};
  u.name = "Mish";  // x * tanh(softplus(x))
  u.real = [](const Lanes& l, Value* x, double, double) { return l.op("mulf", {x, l.op("tanh", {softplus(l, x)}, l.real_type())}, l.real_type()); };
  t.push_back(u);

  u = {};
  u.name = "LeakyRelu";
  u.attributes = {{"alpha", 0.01}};
  u.real = [](const Lanes& l, Value* x, double alpha, double) {
    return l.select(l.cmpf(Lanes::OGE, x, l.real(0)), x, l.op("mulf", {l.real(alpha), x}, l.real_type()), l.real_type());
  };
  t.push_back(u);

  u = {};
  u.name = "Elu";  // x at or above 0, else alpha * (e^x - 1)
  u.attributes = {{"alpha", 1.0}};
  u.real = [](const Lanes& l, Value* x, double alpha, double) {
    Value* below = l.op("mulf", {l.real(alpha), l.op("subf", {l.op("exp", {x}, l.real_type()), l.real(1)}, l.real_type())}, l.real_type());
    return l.select(l.cmpf(Lanes::OGE, x, l.real(0)), x, below, l.real_type());
  };
  t.push_back(u);

  u = {};
  u.name = "Selu";  // gamma * x above 0, else gamma * (alpha * e^x - alpha)
  u.attributes = {{"alpha", 1.67326319217681884765625}, {"gamma", 1.05070102214813232421875}};
  u.real = [](const Lanes& l, Value* x, double alpha, double gamma) {
    Value* below = l.op("subf", {l.op("mulf", {l.real(alpha), l.op("exp", {x}, l.real_type())}, l.real_type()), l.real(alpha)}, l.real_type());
    return l.op("mulf", {l.real(gamma), l.select(l.cmpf(Lanes::OGT, x, l.real(0)), x, below, l.real_type())}, l.real_type());
  };
  t.push_back(u);

  u = {};
  u.name = "Celu";  // max(0, x) + min(0, alpha * (e^(x / alpha) - 1))
  u.attributes = {{"alpha", 1.0}};
  u.real = [](const Lanes& l, Value* x, double alpha, double) {
    Value* e = l.op("subf", {l.op("exp", {l.op("divf", {x, l.real(alpha)}, l.real_type())}, l.real_type()), l.real(1)}, l.real_type());
    return l.op("addf", {l.op("maxf", {l.real(0), x}, l.real_type()), l.op("minf", {l.real(0), l.op("mulf", {l.real(alpha), e}, l.real_type())}, l.real_type())}, l.real_type());
  };
  t.push_back(u);

  u = {};
  u.name = "ThresholdedRelu";  // x above alpha, else 0
  u.attributes = {{"alpha", 1.0}};
  u.real = [](const Lanes& l, Value* x, double alpha, double) { return l.select(l.cmpf(Lanes::OGT, x, l.real(alpha)), x, l.real(0), l.real_type()); };
  t.push_back(u);

  u = {};
  u.name = "HardSigmoid";
  u.attributes = {{"alpha", 0.2}, {"beta", 0.5}};
  u.real = [](const Lanes& l, Value* x, double alpha, double beta) { return hard_sigmoid(l, x, alpha, beta); };
  t.push_back(u);

  u = {};
  u.name = "HardSwish";  // x * HardSigmoid(x) with alpha 1/6, beta 1/2
  u.real = [](const Lanes& l, Value* x, double, double) { return l.op("mulf", {x, hard_sigmoid(l, x, 1.0 / 6.0, 0.5)}, l.real_type()); };
  t.push_back(u);

  u = {};
  u.name = "Shrink";  // x + bias below -lambd, x - bias above lambd, else 0
  u.attributes = {{"bias", 0.0}, {"lambd", 0.5}};
  u.real = [](const Lanes& l, Value* x, double bias, double lambd) {
    Value* above = l.select(l.cmpf(Lanes::OGT, x, l.real(lambd)), l.op("subf", {x, l.real(bias)}, l.real_type()), l.real(0), l.real_type());
    return l.select(l.cmpf(Lanes::OLT, x, l.real(-lambd)), l.op("addf", {x, l.real(bias)}, l.real_type()), above, l.real_type());
  };
  t.push_back(u);

  // Logic.
  u = {};
  u.name = "Not";
  u.bool_result = true;
  u.i1 = [](const Lanes& l, Value* x, double, double) { return l.op("xori", {x, l.boolean(true)}, Scalar::I1); };
  u.fold_i64 = [](const Extent& x) -> std::optional<Extent> {
    auto c = x.constant();
    if (!c) return std::nullopt;
    return Extent(*c ? 0 : 1);
  };
  t.push_back(u);

  // Tests of floats.
  u = {};
  u.name = "IsNaN";
  u.bool_result = true;
  u.real = [](const Lanes& l, Value* x, double, double) { return l.cmpf(Lanes::UNO, x, x); };
  t.push_back(u);

  u = {};
  u.name = "IsInf";
  u.bool_result = true;
  u.attributes = {{"detect_negative", 1, true}, {"detect_positive", 1, true}};
  u.real = [](const Lanes& l, Value* x, double negative, double positive) {
    Value* r = nullptr;
    for (const auto& [detect, inf] : {std::pair{positive != 0, std::numeric_limits<double>::infinity()},
                                      std::pair{negative != 0, -std::numeric_limits<double>::infinity()}}) {
      if (!detect) continue;
      Value* is = l.cmpf(Lanes::OEQ, x, l.real(inf));
      r = r ? l.op("ori", {r, is}, Scalar::I1) : is;
    }
    return r ? r : l.boolean(false);
  };
  t.push_back(u);
  return t;
}

// Stage 0: the input's shape; a fold where the build knows the input.
void unary_rule(OpContext& c) {
  const UnaryOp& u = *find_unary(c.node.op_type);
  const ElementType t = c.input(0).elem;
  c.set_output(0, u.bool_result ? ElementType::Bool : t, c.input(0).dims);
  const bool floats = is_float_type(t);
  FloatFn f32;
  IntFn i64;
  if (u.fold_f32) f32 = [f = u.fold_f32](const std::vector<float>& a) { return f(a[0]); };
  if (u.fold_i64) i64 = [f = u.fold_i64](const std::vector<Extent>& a) { return f(a[0]); };
  if (!f32 && !i64) return;  // a kernel's to compute
  fold_elementwise(c, {0}, floats ? nullptr : i64, f32, floats);
}

// The operator's form over its operand's compute type, its attributes (with ONNX's defaults) as p
// and q, and a narrow integer result taken back into its range.
RowNormalisation compose_unary(Expression& e, const Node& n) {
  LowerContext& cx = e.context();
  const UnaryOp& u = *cx.st.operators->find(n)->unary;
  const TensorInfo out = cx.info(n.outputs.at(0));
  double pq[2] = {0, 0};
  for (std::size_t k = 0; k < u.attributes.size() && k < 2; ++k) pq[k] = e.attribute(u.attributes[k]);
  const int x = e.operand(cx.in(0), out.axes);
  const ElementType t = e.type_of(x);
  if (!u.form(t))
    cx.error(std::string("no kernel computes ") + n.op_type + " on " + element_type_name(cx.info(cx.in(0)).elem) + " elements");
  const int r = e.op(std::string(u.name), {x}, u.bool_result ? ElementType::Bool : t, pq[0], pq[1]);
  if (is_narrow_integer(out.elem) && u.leaves_range) e.wrapped(r, out.elem);
  return RowNormalisation::None;
}

}  // namespace

const std::vector<UnaryOp>& unary_ops() {
  static const std::vector<UnaryOp> t = table();
  return t;
}

const UnaryOp* find_unary(std::string_view op) {
  for (const auto& u : unary_ops())
    if (u.name == op) return &u;
  return nullptr;
}

void register_unary(std::vector<Operator>& rules) {
  // Each composes into a generated kernel from its forms.
  for (const auto& u : unary_ops())
    rules.push_back({.op_type = u.name, .infer = unary_rule, .name_axes = name_like_input, .fusion_role = elementwise_role,
                     .compose = compose_unary, .keeps_narrow_range = static_cast<bool>(u.i64), .in_scope = true, .unary = &u});
}

}  // namespace loam::ops
