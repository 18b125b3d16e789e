// libFuzzer target: Loom's text form. Text that parses and verifies must print to text that parses
// again and prints the same (the printer is canonical); then the C++ emitter runs on it. A
// loam::Error is a refusal; anything else escaping, a crash, a sanitizer report or a round trip
// that differs is a bug. The interpreter is not run: a verified kernel may loop for a long time.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "loom/emit_cpp.hpp"
#include "loom/ir.hpp"
#include "loom/syntax.hpp"
#include "support/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  loam::loom::Module m;
  try {
    m = loam::loom::parse_module(text, "fuzz.loom");
  } catch (const loam::Error&) {
    return 0;
  }
  const std::string printed = loam::loom::print_module(m);
  std::string again;
  try {
    again = loam::loom::print_module(loam::loom::parse_module(printed, "printed.loom"));
  } catch (const loam::Error&) {
    __builtin_trap();  // the printer wrote text its own parser refuses
  }
  if (again != printed) __builtin_trap();  // printing is not a fixed point
  try {
    (void)loam::loom::emit_cpp(m, loam::loom::CppOptions{});
  } catch (const loam::Error&) {
  }
  return 0;
}
