// The lowered module's check: every call names a kernel of the backend seam, the list the runtime
// itself forwards through OpaqueBackend (runtime/loam/kernels.inc.hpp), so a kernel the generator
// calls cannot be missing from a backend.
#include <set>
#include <string_view>

#include "lower/module.hpp"
#include "support/error.hpp"

#include "loam/kernels.inc.hpp"

namespace loam::lower {
namespace {

const std::set<std::string_view>& backend_kernels() {
#define LOAM_KERNEL_NAME(k) #k,
  static const std::set<std::string_view> names = {
      LOAM_BACKEND_KERNELS(LOAM_KERNEL_NAME, LOAM_KERNEL_NAME, LOAM_KERNEL_NAME, LOAM_KERNEL_NAME)};
#undef LOAM_KERNEL_NAME
  return names;
}

void verify_calls(const std::vector<KernelCall>& calls, const std::string& where) {
  for (const auto& c : calls) {
    if (c.branch) {
      verify_calls(c.branch->then_block.calls, where);
      verify_calls(c.branch->else_block.calls, where);
      continue;
    }
    if (!backend_kernels().count(c.kernel))
      fail(where + ": the lowering of " + (c.node.empty() ? "a node" : c.node) + " calls the kernel '" + c.kernel +
           "', which the backend seam does not list (runtime/loam/kernels.inc.hpp)");
  }
}

}  // namespace

void verify_lowered(const LoweredModule& m, const std::string& where) { verify_calls(m.calls, where); }

}  // namespace loam::lower
#undef LOAM_BACKEND_KERNELS
