// libFuzzer target: decoding through a WHG1 graph (§4). The data is a little-endian u32 graph
// length, the graph's bytes, then bytes that choose each data input's H and W (1..8) and values,
// and the scalars. Two decodes run as one sequence, so state is carried. Graphs with max_elems
// above 2^14 are skipped to bound memory. Anything but a loam::Error escaping is a bug.
#include "wai/decode.hpp"
#include "wai/whg1.hpp"

#include <cstdint>
#include <cstring>
#include <span>

namespace {
struct Bytes {
  const std::uint8_t* p;
  std::size_t n;
  std::uint8_t u8() {
    if (n == 0) return 0;
    --n;
    return *p++;
  }
  std::int64_t value() {
    // Mostly small values, sometimes extreme ones: the interesting ends of every range.
    const std::uint8_t k = u8();
    switch (k % 8) {
      case 0: return INT64_MIN;
      case 1: return INT64_MAX;
      case 2: {
        std::uint64_t v = 0;
        for (int i = 0; i < 8; ++i) v = (v << 8) | u8();
        return static_cast<std::int64_t>(v);
      }
      default: return static_cast<std::int8_t>(u8());
    }
  }
};
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 4) return 0;
  std::uint32_t glen;
  std::memcpy(&glen, data, 4);
  if (glen > size - 4) return 0;
  try {
    auto r = loam::wai::try_read_whg1(std::span<const std::uint8_t>(data + 4, glen));
    auto* g = std::get_if<loam::wai::Whg1Graph>(&r);
    if (!g || g->max_elems > (1u << 14)) return 0;
    Bytes rest{data + 4 + glen, size - 4 - glen};
    loam::wai::Decoder decoder(*g);
    for (int round = 0; round < 2; ++round) {
      std::vector<loam::wai::Tensor> inputs;
      for (const auto& in : g->inputs) {
        if (in.kind != loam::wai::InputKind::data) continue;
        loam::wai::Shape s{g->tensors[in.tensor].channels, 1 + rest.u8() % 8, 1 + rest.u8() % 8};
        if (s.c * s.h * s.w > (1 << 14)) return 0;
        loam::wai::Tensor t(s);
        for (auto& v : t.data) v = rest.value();
        inputs.push_back(std::move(t));
      }
      std::vector<std::int64_t> scalars;
      for (std::size_t k = 0; k < g->scalars.size(); ++k) scalars.push_back(rest.value());
      (void)decoder.decode(inputs, scalars);
    }
  } catch (const loam::Error&) {
  }
  return 0;
}
