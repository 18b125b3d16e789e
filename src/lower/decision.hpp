// What fusion decided for one node of the graph, and why: the closed list of reasons the build's
// report spells (`loam build --report`; docs/fusion.md lists them).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

namespace loam::lower {

// Why a node's value is materialised (or that it is not): the closed list the report spells.
enum class FusionReason : std::uint8_t {
  Fused,              // computed inside another node's call
  Folded,             // the build computed it; no kernel runs
  PreparedAtLoad,     // a regrouping of a constant weight, done when the weights load
  GraphOutput,        // the graph returns the value
  SeveralReaders,     // nodes of more than one kernel read the value (or a node in a branch)
  NoReader,           // no node reads the value
  ReaderNotFusable,   // its reader's kernel cannot compute it (not an elementwise kernel, or,
                      // after a contraction, one whose rows are not the product's)
  ReaderBroadcasts,   // its reader's result has more elements (it would be computed again per copy)
  NotElementwise,     // it is not elementwise, and no rule computes it with its reader
  Disabled,           // fusion is off (--no-fuse)
};

// The name the report spells, and a sentence saying what it means (docs/fusion.md lists both).
const char* fusion_reason_name(FusionReason r);
const char* fusion_reason_meaning(FusionReason r);

struct NodeDecision {
  FusionReason reason = FusionReason::NoReader;
  std::optional<std::size_t> into;  // Fused: the node whose call computes it
};

struct FusionOptions {
  bool fuse = true;  // false: one kernel per node (weights are still packed at load)
};

}  // namespace loam::lower
