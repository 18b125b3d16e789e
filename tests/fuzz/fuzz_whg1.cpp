// libFuzzer target: the WHG1 reader (§10.5 steps 1-7). A graph that loads must write back to the
// same bytes (the writer is canonical and the reader accepts only canonical bytes); anything but a
// loam::Error escaping, or a round trip that differs, is a bug.
#include "wai/whg1.hpp"

#include <cstdint>
#include <cstdlib>
#include <span>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> bytes(data, size);
  try {
    auto r = loam::wai::try_read_whg1(bytes);
    if (auto* g = std::get_if<loam::wai::Whg1Graph>(&r)) {
      const auto again = loam::wai::write_whg1(*g);
      if (again.size() != size || !std::equal(again.begin(), again.end(), data)) std::abort();
    }
  } catch (const loam::Error&) {
  }
  return 0;
}
