// A caller of the generated MLP module. Its input is [Batch, In]; passing [In, Batch] (the same
// lengths when both are 16, transposed names) must not compile.
#include "mlp.hpp"

int main() {
  mlp::Cpu cpu;
  mlp::Weights w;
#ifdef LOAM_CONTROL
  mlp::Tensor<float, mlp::Axes<mlp::Batch, mlp::In>> x({16, 16});
#else
  mlp::Tensor<float, mlp::Axes<mlp::In, mlp::Batch>> x({16, 16});
#endif
  auto y = mlp::forward(cpu, w, x);
  return y ? 0 : 1;
}
