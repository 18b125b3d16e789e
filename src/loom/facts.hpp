// What is known about values: ranges of address and integer values, alignment, noalias groups of
// buffers. Facts come from definitions (a constant, a work-item id, an index.assume), flow through
// each op's transfer (its OpDef's `facts` hook), and are refined along paths: inside `scf.if %c`
// the comparison %c holds, inside `scf.for` the induction variable lies in [lb, ub), after a
// buffer.view its extents are non-negative. The verifier asks for non-negative facts where a value
// enters `offset`; the C++ emitter drops a run-time check the facts prove cannot fail.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "loom/ir.hpp"

namespace loam::loom {

using Int = __int128;

struct Range {
  Int lo = 0;
  Int hi = 0;
  friend bool operator==(const Range&, const Range&) = default;
};

struct Facts {
  std::optional<Range> range;   // address and integer values (integers by their signed payload)
  std::int64_t align = 1;       // the value is a multiple of this power of two
  const Op* noalias_group = nullptr;  // buffers one buffer.assume.noalias made never alias one another
  std::int64_t base_align = 1;  // buffers: the address is a multiple of this
  bool nonnegative() const { return range && range->lo >= 0; }
};

// The range a value's type allows: index is signed 64-bit, offset unsigned 64-bit, iN by its
// signed payload.
std::optional<Range> type_range(const Type& t);
std::int64_t align_of_constant(Int v);

// A relation a path establishes between two values: a < b (or a <= b), signed or unsigned.
struct Relation {
  const Value* a = nullptr;
  const Value* b = nullptr;
  bool strict = true;
  bool is_unsigned = false;
};

struct Target {
  // target.subgroup.size: the lanes of a subgroup. Unset: any target (1 to 1024 lanes).
  std::optional<std::int64_t> subgroup_size;
};

// The view of the analysis an op's hooks get: what is known now, and ways to add to it.
class FactScope {
 public:
  virtual ~FactScope() = default;
  virtual Facts of(const Value* v) const = 0;
  virtual void set(const Value* result, Facts f) = 0;    // a result's facts
  virtual void refine(const Value* v, Facts f) = 0;      // holds from here to the end of the block
  virtual void relate(const Relation& r) = 0;            // likewise
  virtual const Target& target() const = 0;
  // Which region of the op is being entered (its path facts), or -1: the op has run (its results).
  virtual int entering() const = 0;
  // The launch configuration's operand, for the work-item ops (null outside a launch region).
  virtual const Value* launch_config(int which) const = 0;
};

class FactAnalysis {
 public:
  FactAnalysis(const Module& m, Target target = {});
  ~FactAnalysis();
  FactAnalysis(const FactAnalysis&) = delete;
  FactAnalysis& operator=(const FactAnalysis&) = delete;

  // The facts of v as known where op runs.
  Facts at(const Op* op, const Value* v) const;
  // 0 <= i < bound (bound a value or, when null, the literal n) where op runs.
  bool proves_below(const Op* op, const Value* i, const Value* bound, std::int64_t n) const;
  const Target& target() const;

  struct Node;
  struct State;

 private:
  std::unique_ptr<State> state_;
};

}  // namespace loam::loom
