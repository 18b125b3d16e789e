// expect: use of deleted function
// A host tensor handed to a backend kernel without upload.
#include "loam/runtime.hpp"
using namespace loam_runtime;
struct Batch {};
struct In {};
struct Out {};
int main() {
  OpaqueBackend backend;
  Tensor<float, Axes<Batch, In>> x({1, 2});
  Tensor<float, Axes<In, Out>> w({2, 3});
#ifdef LOAM_CONTROL
  auto y = backend.matmul(backend.upload(x), backend.upload(w));
#else
  auto y = backend.matmul(backend.upload(x), w);
#endif
  (void)y;
}
