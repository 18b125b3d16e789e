// A caller of the module built from tests/unit/emit/checked_lengths (y = Flatten(x [N, M, 8, K],
// axis 3), whose first length 8 * M * N some inputs would carry past 2^63). forward computes that
// length with overflow checks before any kernel runs: small lengths run; N = M = 2^31 - 1 with K = 0
// (no element, so such a tensor exists) is refused naming the Flatten and the input, not wrapped;
// N = 2^31, past the range the build took lengths to have, is refused naming x's axis N.
#include <cstdio>
#include <string>

#include "checked_lengths.hpp"

namespace m = checked_lengths;

template <class B>
int check(const char* backend_name) {
  B backend;
  m::Weights w;
  using X = m::Tensor<float, m::Axes<m::N, m::M, m::D8, m::K>>;
  int bad = 0;
  X small(X::Extents{2, 2, 8, 3});
  for (std::int64_t i = 0; i < small.count(); ++i) small.data()[i] = static_cast<float>(i);
  auto y = m::forward(backend, w, small);
  if (!y || y->extent(0) != 32 || y->extent(1) != 3 || y->data()[95] != 95.0f) {
    std::printf("%s: x [2, 2, 8, 3] did not flatten to [32, 3]\n", backend_name);
    ++bad;
  }
  const std::int64_t most = 2147483647;
  X huge(X::Extents{most, most, 8, 0});
  auto refused = m::forward(backend, w, huge);
  if (refused) {
    std::printf("%s: x [2^31 - 1, 2^31 - 1, 8, 0] was taken (8 * M * N wraps)\n", backend_name);
    ++bad;
  } else if (refused.error().input != "x" || refused.error().node.find("Flatten") == std::string::npos ||
             refused.error().message.find("2^63") == std::string::npos) {
    std::printf("%s: the refusal names the wrong place: %s\n", backend_name, refused.error().what().c_str());
    ++bad;
  }
  X past(X::Extents{most + 1, 1, 8, 0});
  auto outside = m::forward(backend, w, past);
  if (outside) {
    std::printf("%s: N = 2^31 was taken\n", backend_name);
    ++bad;
  } else if (outside.error().input != "x" || outside.error().axis != "N") {
    std::printf("%s: the refusal names the wrong axis: %s\n", backend_name, outside.error().what().c_str());
    ++bad;
  }
  return bad;
}

int main() {
  int bad = check<m::Cpu>("Cpu") + check<m::OpaqueBackend>("OpaqueBackend");
  if (bad == 0) std::printf("ok\n");
  return bad == 0 ? 0 : 1;
}
