// The shared corpus of conformance vectors (wai-ops/1 §14.1, §14.2): each case is a graph (built
// in memory, or raw bytes for a load refusal) and the inputs of its decodes. Expectations are not
// here: the generator computes them with the interpreter and the certifier, and the independent
// checker recomputes them from the bytes.
#pragma once

#include "wai/ops.hpp"
#include "wai/whg1.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace loam::wai::vectors {

struct DecodeInput {
  std::vector<Tensor> inputs;  // data inputs, in input-table order
  std::vector<std::int64_t> scalars;
};

struct Case {
  std::string file;  // "vectors/conv.jsonl", "graphs/state.jsonl", ...
  std::string id;
  std::vector<std::uint8_t> bytes;
  std::vector<DecodeInput> decodes;
};

std::vector<Case> all_cases();

}  // namespace loam::wai::vectors
