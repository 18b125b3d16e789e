// The verifier: what every Loom module must satisfy before anything runs or emits it. It checks,
// in order: where each op may stand (top level, launch region, terminators last), operand and
// result counts and their type constraints, the format's type groups (no implicit numeric cast),
// SSA dominance, that every dynamic dimension is an `index` in scope and every type is well
// formed (encodings on tensors and tiles only, layouts on views only, no address domain in
// memory); then, with the facts known, each op's own rules (an `offset` entered from a value
// with no non-negative fact is refused). The first violation stops it with an Error naming the
// place, the op and the value.
#pragma once

#include <string>
#include <string_view>

#include "loom/facts.hpp"
#include "loom/ir.hpp"

namespace loam::loom {

void verify_module(const Module& m);

class OpVerifier {
 public:
  OpVerifier(const Module& m, const FactAnalysis& facts) : module_(m), facts_(facts) {}
  const Module& module() const { return module_; }
  const FactAnalysis& facts() const { return facts_; }
  [[noreturn]] void fail(const Op& op, const std::string& message) const;
  // Entering `offset` (a cast to it, a coordinate scaled to bytes) needs a value proven >= 0.
  void require_nonnegative(const Op& op, const Value* v, std::string_view entering) const;

 private:
  const Module& module_;
  const FactAnalysis& facts_;
};

// The nearest op around `op` named `name`, and which of its regions holds `op`; null if none.
const Op* enclosing(const Op& op, std::string_view name, std::size_t* region = nullptr);
// The region of `owner` that directly holds `op`, or -1.
int region_holding(const Op& op);

}  // namespace loam::loom
