// expect: (invalid initialization of reference|cannot convert|could not convert|no matching function)
// A caller passing the wrong tensor to a typed boundary: axis lists are types, so Tensor<f32, [In,
// Batch]> is not Tensor<f32, [Batch, In]>, whatever the lengths.
#include "loam/runtime.hpp"
using namespace loam_runtime;
struct Batch {};
struct In {};
float first(const Tensor<float, Axes<Batch, In>>& x) { return x.data()[0]; }
int main() {
#ifdef LOAM_CONTROL
  Tensor<float, Axes<Batch, In>> x({2, 2});
#else
  Tensor<float, Axes<In, Batch>> x({2, 2});
#endif
  return static_cast<int>(first(x));
}
