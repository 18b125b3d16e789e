// expect: loom: every operand's axes must be the result's axes
// Seq and Total are two axes even where their lengths agree: a generated kernel's call that
// pairs them does not compile.
#include "loam/runtime.hpp"
using namespace loam_runtime;
struct Seq {};
struct Total {};
struct Add {
  static void run(const std::array<std::int64_t, 1>&, std::byte*, std::uint64_t, const KernelBytes&, const KernelBytes&) {}
};
int main() {
  Cpu cpu;
  Tensor<float, Axes<Seq>> a({3});
#ifdef LOAM_CONTROL
  Tensor<float, Axes<Seq>> b({3});
#else
  Tensor<float, Axes<Total>> b({3});
#endif
  const std::array<std::int64_t, 1> extents = {3};
  auto y = cpu.loom<Axes<Seq>, float>(Add{}, extents, extents, a, b);
  (void)y;
}
