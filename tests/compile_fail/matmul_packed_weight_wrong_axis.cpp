// expect: a's last axis is not the weight's first
#include "loam/runtime.hpp"
using namespace loam_runtime;
struct Batch {};
struct In {};
struct Other {};
struct Out {};
int main() {
  Cpu cpu;
  PackedMatrix<In, Out> w(Tensor<float, Axes<In, Out>>({3, 2}));
#ifdef LOAM_CONTROL
  Tensor<float, Axes<Batch, In>> x({1, 3});
#else
  Tensor<float, Axes<Batch, Other>> x({1, 3});
#endif
  auto y = cpu.matmul(x, w);
  (void)y;
}
