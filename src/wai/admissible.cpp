#include "wai/admissible.hpp"

#include "wai/whg1_plan.hpp"

#include <algorithm>

namespace loam::wai {

std::optional<AdmissibleRange> admissible_range(const Whg1Graph& g,
                                                const std::optional<std::vector<Shape>>& shapes,
                                                const GraphBounds& gb, std::uint32_t tensor,
                                                Profile profile) {
  std::vector<std::size_t> consumers;
  for (std::size_t i = 0; i < g.ops.size(); ++i) {
    const auto& in = g.ops[i].inputs;
    if (std::find(in.begin(), in.end(), tensor) != in.end()) consumers.push_back(i);
  }
  std::vector<Interval> tv = gb.tensors;
  auto holds = [&](const Big& X) {
    tv[tensor] = Interval{-X, X};
    for (std::size_t i : consumers) {
      NodeBounds nb;
      try {
        nb = node_bounds(g, i, shapes, tv);
      } catch (const RefusalError&) {
        return false;
      }
      if (nb.saturated) return false;
      for (const NamedInterval& ni : nb.intermediates)
        if (!fits_bits(ni.iv, class_width(profile, class_of(ni.key)))) return false;
      for (const Interval& r : nb.results)
        if (!fits_bits(r, class_width(profile, WidthClass::tensor))) return false;
    }
    return true;
  };
  if (!holds(Big(0))) return std::nullopt;
  Big lo = 0, hi = pow2(63);
  if (holds(hi)) lo = hi;
  while (lo < hi) {
    const Big mid = (lo + hi + 1) / 2;
    if (holds(mid)) lo = mid;
    else hi = mid - 1;
  }
  const Big i64max = pow2(63) - 1;
  AdmissibleRange r;
  r.lo = static_cast<std::int64_t>(-(lo - 1)) - 1;  // −X*, which may be −2^63
  r.hi = static_cast<std::int64_t>(std::min(lo, i64max));
  return r;
}

std::optional<AdmissibleRange> admissible_range(std::span<const std::uint8_t> bytes,
                                                std::uint32_t tensor, Profile profile,
                                                const std::string& source) {
  ReadOptions ro;
  ro.source = source;
  const Whg1Graph g = read_whg1(bytes, ro);
  if (tensor >= g.tensors.size())
    throw loam::Error(source + ": tensor " + std::to_string(tensor) + " is out of range (" +
                      std::to_string(g.tensors.size()) + " tensors)");
  const std::optional<std::vector<Shape>> shapes = plan_at_load(g, source);
  const GraphBounds gb = bounds_pass(g, shapes, source);
  return admissible_range(g, shapes, gb, tensor, profile);
}

}  // namespace loam::wai
