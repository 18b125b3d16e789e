// The bounds pass of wai-ops/1 §8.1-§8.3: every tensor's interval, and every node's named
// intermediates and producer results, from the graph's bytes alone (declared ranges, declared
// sizes, parameters, policies). Intervals saturate at ±2^255 (interval.hpp); a node during whose
// computation any primitive result saturated is marked `saturated`.
#pragma once

#include "wai/interval.hpp"
#include "wai/ops.hpp"
#include "wai/whg1.hpp"

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace loam::wai {

// §7.1 width classes.
enum class WidthClass : std::uint8_t { tensor, acc, wide, product };

// The class of a named intermediate ("conv.acc" -> acc, ...).
WidthClass class_of(std::string_view key);

struct NamedInterval {
  const char* key;  // Table 8.5-A's key
  Interval iv;
};

struct NodeBounds {
  std::vector<NamedInterval> intermediates;  // exactly Table 8.5-A's keys, in definition order
  std::vector<Interval> results;             // producer result of each output
  std::vector<Interval> outputs;             // each output tensor's interval after its policy
  bool saturated = false;
};

struct GraphBounds {
  std::vector<NodeBounds> nodes;   // in graph order
  std::vector<Interval> tensors;   // every tensor's interval
};

// The pass over a graph that read_whg1 accepted. `shapes` are the tensors' shapes planned on the
// declared sizes (plan_at_load), or nullopt when the inputs declare none. Throws RefusalError
// (model_mismatch) for a `check` interval that is empty, and for a lut16 input range outside
// [−32767, 32767] (§5.6): both are load refusals (§10.5 step 8).
GraphBounds bounds_pass(const Whg1Graph& g, const std::optional<std::vector<Shape>>& shapes,
                        const std::string& source = "<whg1>");

// One operator's rule (§8.3) reading the tensor intervals `tensors`: its intermediates and
// producer results (no policy applied; `outputs` left empty). Used by the pass and by §8.4.
NodeBounds node_bounds(const Whg1Graph& g, std::size_t index,
                       const std::optional<std::vector<Shape>>& shapes,
                       std::span<const Interval> tensors, const std::string& source = "<whg1>");

// The policy of a tensor record applied to a producer result (§8.1). `empty` is set when a
// `check` interval holds no value.
Interval apply_policy(const TensorRecord& t, const Interval& result, bool& empty);

}  // namespace loam::wai
