// expect: the contracted axis K must be one axis
// A product whose contracted axes carry different names, though their lengths may agree.
#include "loam/runtime.hpp"
using namespace loam_runtime;
struct Batch {};
struct In {};
struct Hidden {};
struct Out {};
int main() {
  Cpu cpu;
  Tensor<float, Axes<Batch, In>> x({1, 4});
#ifdef LOAM_CONTROL
  Tensor<float, Axes<In, Out>> w({4, 2});
#else
  Tensor<float, Axes<Hidden, Out>> w({4, 2});
#endif
  auto y = cpu.matmul(x, w);
  (void)y;
}
