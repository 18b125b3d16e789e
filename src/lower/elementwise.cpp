// Lowering of the elementwise operators: one unary operator becomes `unary`, everything else an
// expression (`elementwise`, or `compare` for a bool result) over broadcast operands, with a
// one-element float the build knows folded into the expression as a constant.
#include <map>

#include "axes/naming.hpp"
#include "lower/context.hpp"

namespace loam::lower {
namespace {

const std::map<std::string, std::string>& unary_ops() {
  static const std::map<std::string, std::string> m = {
      {"Neg", "Neg"},   {"Abs", "Abs"},       {"Relu", "Relu"}, {"Sigmoid", "Sigmoid"}, {"Tanh", "Tanh"},
      {"Exp", "Exp"},   {"Log", "Log"},       {"Sqrt", "Sqrt"}, {"Erf", "Erf"}, {"Reciprocal", "Reciprocal"},
      {"Floor", "Floor"}, {"Ceil", "Ceil"},   {"Round", "Round"}, {"Sign", "Sign"}, {"Not", "Not"},
      {"Sin", "Sin"},   {"Cos", "Cos"},       {"Softplus", "Softplus"}};
  return m;
}

const std::map<std::string, std::string>& binary_ops() {
  static const std::map<std::string, std::string> m = {
      {"Add", "Add"}, {"Sub", "Sub"}, {"Mul", "Mul"}, {"Div", "Div"}, {"Pow", "Pow"}, {"Max", "Max"},
      {"Min", "Min"}, {"Mod", "Mod"}, {"PRelu", "PRelu"}, {"Equal", "Equal"}, {"Less", "Less"},
      {"LessOrEqual", "LessOrEqual"}, {"Greater", "Greater"}, {"GreaterOrEqual", "GreaterOrEqual"},
      {"And", "And"}, {"Or", "Or"}, {"Xor", "Xor"}, {"Sum", "Add"}, {"Mean", "Add"}};
  return m;
}

bool is_bool_result(const std::string& op) {
  return op == "Equal" || op == "Less" || op == "LessOrEqual" || op == "Greater" ||
         op == "GreaterOrEqual" || op == "And" || op == "Or" || op == "Xor";
}

std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  std::string s = buf;
  if (s == "inf") return "std::numeric_limits<double>::infinity()";
  if (s == "-inf") return "-std::numeric_limits<double>::infinity()";
  if (s == "nan") return "std::numeric_limits<double>::quiet_NaN()";
  return s;
}

// The step that takes an int64 back into a narrow integer's range, as ONNX computes in that type.
Arg::Step wrap_step(ElementType t, int32_t read) {
  return {"Wrap", read, 0, static_cast<double>(narrow_integer_bits(t)), narrow_integer_signed(t) ? 1.0 : 0.0};
}

// Whether `op` can leave its operands' range, so a narrow integer result needs a Wrap step.
bool can_leave_range(const std::string& op) {
  return op == "Add" || op == "Sub" || op == "Mul" || op == "Div" || op == "Pow" || op == "Sum" || op == "Neg" ||
         op == "Abs";
}

// A cast of an operand argument to `to`, as a local of its own ("<tensor>@cast<n>").
Arg cast_operand(LowerContext& cx, const Arg& a, ElementType to) {
  auto it = cx.synthetic.find(a.tensor);
  TensorInfo from = it != cx.synthetic.end() ? it->second : cx.info(a.tensor);
  std::string local = a.tensor + "@cast" + std::to_string(cx.fresh_counter++);
  cx.synthetic[local] = TensorInfo{local, to, from.axes, from.dims};
  cx.call("cast", {TypeArg::of_code(cx.compute_type(to))}, {a}, {local});
  return Arg::of_tensor(local);
}

}  // namespace

bool lower_elementwise(LowerContext& cx, const Node& n) {
  const std::string& op = n.op_type;
  TensorInfo out = cx.info(n.outputs.at(0));

  auto unary = [&](const std::string& expr_op, double p, double q) {
    cx.call("unary", {}, {Arg::of_code("ExprOp::" + expr_op), Arg::of_tensor(cx.in(0)), Arg::of_code(num(p)),
                          Arg::of_code(num(q))});
  };

  const bool wraps = is_narrow_integer(out.elem) && n.domain.empty() && can_leave_range(op);
  if (auto it = unary_ops().find(op); it != unary_ops().end() && n.domain.empty()) {
    if (wraps) {
      std::vector<Arg::Step> steps = {{"Operand", 0, 0, 0, 0}, {it->second, 0, 0, 0, 0}, wrap_step(out.elem, 1)};
      cx.call("elementwise", {TypeArg::of_axes(out.axes)}, {Arg::of_expr(steps), Arg::of_tensor(cx.in(0))});
      return true;
    }
    unary(it->second, 0, 0);
    return true;
  }
  if (op == "LeakyRelu") return unary("LeakyRelu", cx.attr_float("alpha", 0.01f), 0), true;
  if (op == "Elu") return unary("Elu", cx.attr_float("alpha", 1.0f), 0), true;
  if (op == "HardSigmoid") return unary("HardSigmoid", cx.attr_float("alpha", 0.2f), cx.attr_float("beta", 0.5f)), true;
  if (op == "Clip" && ((cx.has(1) && !axes::is_folded_scalar_operand(n, 1, cx.st)) ||
                        (cx.has(2) && !axes::is_folded_scalar_operand(n, 2, cx.st)))) {
    // A bound the run supplies (a 0-d tensor): max(x, min), then min(., max), as one expression;
    // a bound the build knows stays a constant step.
    std::vector<Arg::Step> steps = {{"Operand", 0, 0, 0, 0}};
    std::vector<Arg> args = {Arg::of_expr({}), Arg::of_tensor(cx.in(0))};
    for (std::size_t i = 1; i < 3; ++i) {
      if (!cx.has(i)) continue;
      const char* what = i == 1 ? "the minimum" : "the maximum";
      int32_t acc = static_cast<int32_t>(steps.size() - 1);
      if (axes::is_folded_scalar_operand(n, i, cx.st)) {
        auto v = cx.folded_floats(i);
        if (!v || v->size() != 1) cx.error(std::string(what) + " '" + cx.in(i) + "' must be one number");
        steps.push_back({"Constant", 0, 0, (*v)[0], 0});
      } else {
        if (!cx.info(cx.in(i)).axes.empty()) cx.error(std::string(what) + " '" + cx.in(i) + "' must be a 0-d tensor");
        steps.push_back({"Operand", static_cast<int32_t>(args.size() - 1), 0, 0, 0});
        args.push_back(Arg::of_tensor(cx.in(i)));
      }
      steps.push_back({i == 1 ? "Max" : "Min", acc, static_cast<int32_t>(steps.size() - 1), 0, 0});
    }
    args[0] = Arg::of_expr(steps);
    cx.call("elementwise", {TypeArg::of_axes(out.axes)}, args);
    return true;
  }
  if (op == "Clip") {
    double lo = -std::numeric_limits<double>::infinity(), hi = std::numeric_limits<double>::infinity();
    if (cx.has(1)) {
      auto v = cx.folded_floats(1);
      if (!v || v->size() != 1) cx.error("the minimum '" + cx.in(1) + "' must be one number known at build time");
      lo = (*v)[0];
    }
    if (cx.has(2)) {
      auto v = cx.folded_floats(2);
      if (!v || v->size() != 1) cx.error("the maximum '" + cx.in(2) + "' must be one number known at build time");
      hi = (*v)[0];
    }
    return unary("Clip", lo, hi), true;
  }
  if (op == "Identity" || op == "Dropout") {
    cx.call("identity", {}, {Arg::of_tensor(cx.in(0))});
    if (op == "Dropout" && n.outputs.size() > 1 && !n.outputs[1].empty())
      cx.error("the Dropout mask output is not supported");
    return true;
  }
  if (op == "Cast") {
    TensorInfo src = cx.info(cx.in(0));
    std::string to = cx.compute_type(out.elem);
    if (is_narrow_integer(out.elem) && cx.compute_type(src.elem) == to) {
      // From a wider or differently signed integer: ONNX keeps the low bits.
      std::vector<Arg::Step> steps = {{"Operand", 0, 0, 0, 0}, wrap_step(out.elem, 0)};
      cx.call("elementwise", {TypeArg::of_axes(out.axes)}, {Arg::of_expr(steps), Arg::of_tensor(cx.in(0))});
    } else if (cx.compute_type(src.elem) == to) {
      cx.call("identity", {}, {Arg::of_tensor(cx.in(0))});
    } else {
      cx.call("cast", {TypeArg::of_code(to)}, {Arg::of_tensor(cx.in(0))});
    }
    return true;
  }
  if (op == "Where") {
    cx.call("where", {TypeArg::of_axes(out.axes)},
            {cx.broadcast_operand(cx.in(0), out.axes), cx.broadcast_operand(cx.in(1), out.axes),
             cx.broadcast_operand(cx.in(2), out.axes)});
    return true;
  }
  auto bin = binary_ops().find(op);
  if (bin == binary_ops().end() || !n.domain.empty()) return false;

  // An expression over the operands: each tensor operand is an Operand step, a one-element float
  // the build knows a Constant step; variadic Sum/Mean/Max/Min fold left.
  std::vector<Arg::Step> steps;
  std::vector<Arg> operands;
  std::vector<int32_t> leaf;
  for (std::size_t i = 0; i < n.inputs.size(); ++i) {
    if (n.inputs[i].empty()) continue;
    if (axes::is_folded_scalar_operand(n, i, cx.st)) {
      auto v = cx.folded_floats(i);
      steps.push_back({"Constant", 0, 0, (*v)[0], 0});
    } else {
      steps.push_back({"Operand", static_cast<int32_t>(operands.size()), 0, 0, 0});
      operands.push_back(cx.broadcast_operand(n.inputs[i], out.axes));
    }
    leaf.push_back(static_cast<int32_t>(steps.size() - 1));
  }
  if (leaf.empty()) cx.error("no operands");
  int32_t acc = leaf[0];
  // Pow's exponent may be of another element type than its base (ONNX's T1). A float exponent of
  // an integer base computes in float, as ONNX's reference does, and truncates back; any other
  // exponent is cast to the base's type.
  std::string result_local;
  if (op == "Pow" && operands.size() == 2) {
    ElementType base = cx.info(cx.in(0)).elem, exponent = cx.info(cx.in(1)).elem;
    if (cx.compute_type(base) != cx.compute_type(exponent)) {
      if (cx.compute_type(base) == "std::int64_t" && cx.compute_type(exponent) == "float") {
        operands[0] = cast_operand(cx, operands[0], ElementType::F32);
        result_local = out.name + "@float" + std::to_string(cx.fresh_counter++);
        cx.synthetic[result_local] = TensorInfo{result_local, ElementType::F32, out.axes, out.dims};
      } else {
        operands[1] = cast_operand(cx, operands[1], base);
      }
    }
  }
  const bool fmod = op == "Mod" && cx.attr_int("fmod", 0) != 0;
  for (std::size_t k = 1; k < leaf.size(); ++k) {
    steps.push_back({fmod ? "Fmod" : bin->second, acc, leaf[k], 0, 0});
    acc = static_cast<int32_t>(steps.size() - 1);
  }
  if (op == "Mean" && leaf.size() > 1) {
    steps.push_back({"Constant", 0, 0, 1.0 / static_cast<double>(leaf.size()), 0});
    steps.push_back({"Mul", acc, static_cast<int32_t>(steps.size() - 1), 0, 0});
  }
  if (leaf.size() == 1) steps.push_back({"Identity", acc, 0, 0, 0});
  if (wraps && result_local.empty()) steps.push_back(wrap_step(out.elem, static_cast<int32_t>(steps.size() - 1)));
  if (operands.empty()) cx.error("every operand is a constant; the build should have folded it");
  std::vector<Arg> args = {Arg::of_expr(steps)};
  args.insert(args.end(), operands.begin(), operands.end());
  if (!result_local.empty()) {
    cx.call("elementwise", {TypeArg::of_axes(out.axes)}, args, {result_local});
    if (!wraps) {
      cx.call("cast", {TypeArg::of_code(cx.compute_type(out.elem))}, {Arg::of_tensor(result_local)});
      return true;
    }
    // A narrow integer result: truncated to int64, then wrapped into its range.
    Arg truncated = cast_operand(cx, Arg::of_tensor(result_local), ElementType::I64);
    cx.call("elementwise", {TypeArg::of_axes(out.axes)},
            {Arg::of_expr({{"Operand", 0, 0, 0, 0}, wrap_step(out.elem, 0)}), truncated});
    return true;
  }
  cx.call(is_bool_result(op) ? "compare" : "elementwise", {TypeArg::of_axes(out.axes)}, args);
  return true;
}

}  // namespace loam::lower
