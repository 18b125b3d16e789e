// expect: (constraints not satisfied|no matching function)
// Asking a tensor for the extent of an axis it does not carry.
#include "loam/runtime.hpp"
using namespace loam_runtime;
struct Batch {};
struct Seq {};
struct Vocab {};
int main() {
  Tensor<float, Axes<Batch, Seq>> t({1, 2});
#ifdef LOAM_CONTROL
  return static_cast<int>(t.extent<Seq>());
#else
  return static_cast<int>(t.extent<Vocab>());
#endif
}
