// expect: has no member named [^a-z]*data
// Generated code reaching past the seam: a backend tensor has no data to read.
#include "loam/runtime.hpp"
using namespace loam_runtime;
struct Batch {};
struct In {};
template <Backend B>
float peek(B& backend, const Tensor<float, Axes<Batch, In>>& x) {
  auto t = backend.upload(x);
#ifdef LOAM_CONTROL
  return backend.download(t).data()[0];
#else
  return t.data()[0];
#endif
}
int main() {
  OpaqueBackend backend;
  return static_cast<int>(peek(backend, Tensor<float, Axes<Batch, In>>({1, 1})));
}
