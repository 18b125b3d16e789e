// A caller of the module built from tests/fixtures/branch/branch_owes (then: x reshaped to [2, -1],
// which owes that 2 divides N; else: x unsqueezed to [1, N]). The condition the then branch owes is
// checked at the top of its block: a run taking the else branch with an odd N is not refused, and
// a run taking the then branch with it is, naming the Reshape. Values as ONNX defines them.
#include <cstdio>
#include <string>

#include "branch_owes.hpp"

namespace m = branch_owes;

template <class B>
int check(const char* backend_name) {
  B backend;
  m::Weights w;
  using Condition = m::Tensor<bool, m::Axes<>>;
  Condition yes(Condition::Extents{}), no(Condition::Extents{});
  yes.data()[0] = true;
  no.data()[0] = false;
  m::Tensor<float, m::Axes<m::Seq>> x(m::Tensor<float, m::Axes<m::Seq>>::Extents{5});
  for (int i = 0; i < 5; ++i) x.data()[i] = static_cast<float>(i + 1);
  int bad = 0;
  auto taken_else = m::forward(backend, w, no, x);
  if (!taken_else) {
    std::printf("%s: the else branch with N = 5 was refused: %s\n", backend_name, taken_else.error().what().c_str());
    ++bad;
  } else if (taken_else->extent(0) != 1 || taken_else->extent(1) != 5 || taken_else->data()[4] != 5.0f) {
    std::printf("%s: the else branch gave the wrong tensor\n", backend_name);
    ++bad;
  }
  auto taken_then = m::forward(backend, w, yes, x);
  if (taken_then) {
    std::printf("%s: the then branch with N = 5 was not refused\n", backend_name);
    ++bad;
  } else if (taken_then.error().node.find("Reshape") == std::string::npos || taken_then.error().input != "x") {
    std::printf("%s: the refusal names the wrong node or input: %s\n", backend_name, taken_then.error().what().c_str());
    ++bad;
  }
  m::Tensor<float, m::Axes<m::Seq>> x6(m::Tensor<float, m::Axes<m::Seq>>::Extents{6});
  for (int i = 0; i < 6; ++i) x6.data()[i] = static_cast<float>(i);
  auto even = m::forward(backend, w, yes, x6);
  if (!even || even->extent(0) != 2 || even->extent(1) != 3 || even->data()[3] != 3.0f) {
    std::printf("%s: the then branch with N = 6 did not give [[0 1 2] [3 4 5]]\n", backend_name);
    ++bad;
  }
  return bad;
}

int main() {
  int bad = check<m::Cpu>("Cpu") + check<m::OpaqueBackend>("OpaqueBackend");
  if (bad == 0) std::printf("ok\n");
  return bad == 0 ? 0 : 1;
}
