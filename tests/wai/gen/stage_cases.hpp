// The shared corpus of stage-operator vectors (wai-ops/1 §14.1, `stage/<operator>.jsonl`): each
// case is an operator, its `in` and its `modes`. Expectations are not here: the generator runs the
// operator (run_stage_json), and the independent checker recomputes them from `in` and `modes`.
// E1 rans64_decode has no vectors: its decode is integer-payloads §2, whose text is not at hand.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>

#include <string>
#include <vector>

namespace loam::wai::vectors {

struct StageCase {
  std::string op;
  std::string id;
  nlohmann::json in;
  nlohmann::json modes;  // {} except for bucket
};

std::vector<StageCase> stage_cases();

}  // namespace loam::wai::vectors

namespace loam::wai::vectors {

// A parameter set of the certificate corpus (§14.3): its capability, a name (its file name under
// sets/<capability>/), its bytes, and the profile a pin over it claims, when one does.
struct SetCase {
  std::string capability;
  std::string name;
  std::vector<std::uint8_t> bytes;
  std::optional<std::string> pin_claim;  // "acc32" or "acc64"
};

std::vector<SetCase> set_cases();

}  // namespace loam::wai::vectors
