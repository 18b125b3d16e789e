// Admissible ranges (wai-ops/1 §8.4): the widest symmetric range [−X*, min(X*, 2^63 − 1)] of a
// tensor for which every operator that reads it directly forms only values that meet a profile's
// widths, unsaturated. Found by binary search on X in [0, 2^63].
#pragma once

#include "wai/bounds.hpp"
#include "wai/profile.hpp"
#include "wai/whg1.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <utility>

namespace loam::wai {

struct AdmissibleRange {
  std::int64_t lo = 0;
  std::int64_t hi = 0;
};

// `gb` is the bounds pass over `g` (the other tensors' intervals). nullopt when C(0) fails: no
// value of the tensor lets its consumers meet the profile. A consumer whose rule has no value for
// the replaced interval (lut16 past [−32767, 32767]) fails C.
std::optional<AdmissibleRange> admissible_range(const Whg1Graph& g,
                                                const std::optional<std::vector<Shape>>& shapes,
                                                const GraphBounds& gb, std::uint32_t tensor,
                                                Profile profile);

// Reads, plans and bounds the graph, then the above. Throws RefusalError for a graph that does not
// load, loam::Error for a tensor index out of range.
std::optional<AdmissibleRange> admissible_range(std::span<const std::uint8_t> bytes,
                                                std::uint32_t tensor, Profile profile,
                                                const std::string& source = "<whg1>");

}  // namespace loam::wai
