// expect: conv: the result's channel axis must be the weight's output-channel axis
#include "loam/runtime.hpp"
using namespace loam_runtime;
struct N {};
struct Cin {};
struct Cout {};
struct H {};
struct KH {};
int main() {
  Cpu cpu;
  Tensor<float, Axes<N, Cin, H>> x({1, 2, 5});
  Tensor<float, Axes<Cout, Cin, KH>> w({3, 2, 3});
#ifdef LOAM_CONTROL
  auto y = cpu.conv<Axes<N, Cout, H>>(x, w, WindowParams{});
#else
  auto y = cpu.conv<Axes<N, Cin, H>>(x, w, WindowParams{});
#endif
  (void)y;
}
