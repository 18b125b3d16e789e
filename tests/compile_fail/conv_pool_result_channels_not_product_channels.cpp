// expect: pool: the result keeps the input's batch and channel axes
#include "loam/runtime.hpp"
using namespace loam_runtime;
struct N {};
struct Cin {};
struct Cout {};
struct H {};
struct W {};
struct PH {};
struct PW {};
struct KH {};
struct KW {};
int main() {
  Cpu cpu;
  Tensor<float, Axes<N, Cin, H, W>> x({1, 2, 4, 4});
  PackedConv<Axes<Cout, Cin, KH, KW>> w(Tensor<float, Axes<Cout, Cin, KH, KW>>({3, 2, 3, 3}), 1);
  WindowParams pool{{2, 2}, {2, 2}, {}, {}, 1, AutoPad::NotSet, false, false};
  // A Conv + MaxPool whose pooled result names another channel axis than the product between.
#ifdef LOAM_CONTROL
  auto y = cpu.conv_max_pool<Axes<N, Cout, PH, PW>, Axes<N, Cout, H, W>>(x, w, WindowParams{}, false, pool);
#else
  auto y = cpu.conv_max_pool<Axes<N, Cin, PH, PW>, Axes<N, Cout, H, W>>(x, w, WindowParams{}, false, pool);
#endif
  (void)y;
}
