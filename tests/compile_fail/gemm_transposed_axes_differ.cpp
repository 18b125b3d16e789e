// expect: gemm: the contracted axis K must be one axis on both operands
// transB reads b as [N, K]; passing it untransposed meets the wrong axes.
#include "loam/runtime.hpp"
using namespace loam_runtime;
struct M {};
struct K {};
struct N {};
int main() {
  Cpu cpu;
  Tensor<float, Axes<M, K>> a({2, 3});
  Tensor<float, Axes<N, K>> b({4, 3});
#ifdef LOAM_CONTROL
  auto y = cpu.gemm<false, true>(a, b);
#else
  auto y = cpu.gemm<false, false>(a, b);
#endif
  (void)y;
}
