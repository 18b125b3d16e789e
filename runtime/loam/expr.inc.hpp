// An elementwise operator passed as data. An expression is a list of steps: an operand of the
// kernel, a constant folded into it, or one of ONNX's unary and binary operators reading earlier
// steps. The last step is the result. Fusion composes expressions; the CPU backend evaluates one
// a step at a time, each step a tight loop with its operator fixed before the loop starts, over
// blocks of the output small enough to stay in cache.

enum class ExprOp : std::uint8_t {
  // leaves
  Operand,   // a: which operand of the kernel
  Constant,  // p: the value (int64 constants are exact up to 2^53)
  // unary (a: the step read)
  Identity, Neg, Abs, Relu, Sigmoid, Tanh, Exp, Log, Sqrt, Erf, Reciprocal, Floor, Ceil, Round, Sign, Not,
  Sin, Cos, Softplus,
  LeakyRelu,    // p: alpha
  Clip,         // p: min, q: max
  HardSigmoid,  // p: alpha, q: beta
  Elu,          // p: alpha
  Wrap,         // p: bits, q: 1 if signed; an int64 taken back into a narrower integer's range, as a cast to it does
  // binary (a, b: the steps read)
  Add, Sub, Mul, Div, Pow, Max, Min,
  Mod,   // integers: the divisor's sign (ONNX Mod, fmod = 0); floats: as Fmod
  Fmod,  // the dividend's sign, as C's fmod (ONNX Mod, fmod = 1)
  PRelu,  // a: x, b: slope
  Equal, Less, LessOrEqual, Greater, GreaterOrEqual, And, Or, Xor,
};

struct ExprStep {
  ExprOp op = ExprOp::Operand;
  std::int32_t a = 0;
  std::int32_t b = 0;
  double p = 0;
  double q = 0;
};

constexpr bool expr_op_is_binary(ExprOp op) { return op >= ExprOp::Add; }
constexpr bool expr_op_is_comparison(ExprOp op) { return op >= ExprOp::Equal && op <= ExprOp::GreaterOrEqual; }

// A builder for hand-written expressions; generated code may equally spell a constexpr array of
// ExprStep and pass it as a span.
class Expr {
 public:
  std::int32_t operand(std::int32_t index) { return push({ExprOp::Operand, index, 0, 0, 0}); }
  std::int32_t constant(double value) { return push({ExprOp::Constant, 0, 0, value, 0}); }
  std::int32_t unary(ExprOp op, std::int32_t x, double p = 0, double q = 0) { return push({op, x, 0, p, q}); }
  std::int32_t binary(ExprOp op, std::int32_t x, std::int32_t y) { return push({op, x, y, 0, 0}); }

  std::span<const ExprStep> steps() const noexcept { return steps_; }
  operator std::span<const ExprStep>() const noexcept { return steps_; }

 private:
  std::int32_t push(ExprStep s) {
    steps_.push_back(s);
    return static_cast<std::int32_t>(steps_.size() - 1);
  }
  std::vector<ExprStep> steps_;
};
