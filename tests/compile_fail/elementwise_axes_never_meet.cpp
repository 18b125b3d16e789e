// expect: elementwise: every operand's axes must be the result's axes
// Seq and Total are two axes even where their lengths agree.
#include "loam/runtime.hpp"
using namespace loam_runtime;
struct Seq {};
struct Total {};
int main() {
  Cpu cpu;
  Tensor<float, Axes<Seq>> a({3});
#ifdef LOAM_CONTROL
  Tensor<float, Axes<Seq>> b({3});
#else
  Tensor<float, Axes<Total>> b({3});
#endif
  const ExprStep add[] = {{ExprOp::Operand, 0}, {ExprOp::Operand, 1}, {ExprOp::Add, 0, 1}};
  auto y = cpu.elementwise<Axes<Seq>>(add, a, b);
  (void)y;
}
