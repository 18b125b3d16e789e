// Owed conditions: the one exception to "an extent condition stage 0 cannot discharge stops the
// build". An inequality `slack >= 0` over the input symbols (and the derived symbols forward computes
// from them) is owed by the inputs: forward checks it before any kernel runs and refuses the inputs
// naming the node that relies on it. Stage 0 first tries to prove it: one that holds for every input
// is dropped, one false for every input is a build error, the rest are owed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stage0/extent.hpp"

namespace loam::stage0 {

enum class OwedKind : uint8_t {
  ReshapeTargetNonzero,   // a Reshape target extent that is not 0
  ReshapeDivides,         // the other extents divide the count a -1 takes
  ReshapeNonzeroProduct,  // the other extents of a -1 target do not multiply to 0
  RangeStepNonzero,       // a Range step is not 0
  WindowReach,            // a padded input holds a window's reach
  SplitParts,             // each Split part lies within the axis, and the parts sum to it
  DeclaredOutput,         // an output length the graph declares, against the polynomial produced
  AxisEqual,              // two symbolic lengths of one axis
  DerivedReading,         // a derived symbol read as the operand it takes unchanged
  ElementCount,           // two element counts a regrouping must keep equal
  FitsI64,                // an extent the module computes stays within int64 for the lengths given
};
const char* owed_kind_name(OwedKind k);

struct OwedCondition {
  Extent slack;         // the condition is slack >= 0 (FitsI64: that computing it does not overflow)
  OwedKind kind{};
  // Computing the slack could pass 2^63 for some lengths: forward computes it with overflow
  // checks, and an overflow refuses the inputs as the condition failing does.
  bool checked = false;
  std::string node;     // label of the node that relies on it (or "output 'y'")
  std::string message;  // what it means, in the graph's words
  std::string to_string() const;  // "N - 1 >= 0 [reshape_target_nonzero] node 'r' (Reshape): ..."
};

// Collects owed conditions: proves, drops, refuses or records each one; deduplicates by slack (the
// first node to rely on a condition is the one named).
class OwedConditions {
 public:
  // `slack >= 0` must hold. Holds for every input: dropped. Fails for every input: throws
  // loam::Error with `node` and `message`. Otherwise recorded, checked where computing the slack
  // could pass 2^63.
  void require(const Extent& slack, OwedKind kind, const std::string& node, const std::string& message);
  // Computing `e` in forward must not pass 2^63: owed, and checked, where some lengths would make it.
  void require_fits(const Extent& e, const std::string& node, const std::string& message);
  const std::vector<OwedCondition>& list() const { return list_; }
  std::vector<OwedCondition> take() { return std::move(list_); }

 private:
  std::vector<OwedCondition> list_;
  std::vector<Extent> seen_;  // sorted slacks already recorded
};

// How two extents that must be one length may differ.
enum class EqualityRule : uint8_t {
  // Two axes an operation meets as one: equal forms pass; a number meeting a symbol is an error; two
  // symbolic lengths read derived symbols in their difference, then owe the rest as two
  // inequalities unless shown unequal.
  Axis,
  // A length the graph declares against what the nodes produced: a number meeting a polynomial is
  // owed rather than refused, since only the run can say.
  Declared,
  // Element counts of a regrouping: like Axis, but a number meeting a symbol is also owed
  // when the symbol side is not a bare number (e.g. 6 against 2 * min(N, 3)).
  Count,
};

// Requires a == b for every input, by `rule`. `what` names the axes/tensors for messages (e.g.
// "axis 2 of 'a' (min(S, 1024)) and axis 3 of 'b' (S)"). Throws loam::Error where the build must
// stop, records owed conditions otherwise.
void require_equal(const Extent& a, const Extent& b, EqualityRule rule, OwedKind kind,
                   OwedConditions& owed, const std::string& node, const std::string& what);

// Whether `e == 1` once derived symbols are read (recording the readings' conditions): the broadcast
// rule's "a 1 meets a derived symbol that reads as 1". Returns false (owing nothing) otherwise.
bool reads_as_one(const Extent& e, OwedConditions& owed, const std::string& node, const std::string& what);

}  // namespace loam::stage0
