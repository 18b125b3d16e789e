// expect: transpose: the result's axes must be the input's axes, reordered
#include "loam/runtime.hpp"
using namespace loam_runtime;
struct A {};
struct B {};
struct C {};
int main() {
  Cpu cpu;
  Tensor<float, Axes<A, B>> t({2, 3});
#ifdef LOAM_CONTROL
  auto y = cpu.transpose<Axes<B, A>>(t);
#else
  auto y = cpu.transpose<Axes<B, C>>(t);
#endif
  (void)y;
}
