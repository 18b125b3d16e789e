// libFuzzer target: the JSON readers of wai-ops/1 outside WHG1. The first byte picks one:
//   even: a §14.1 stage vector ({"op", "in", "modes"}) run through run_stage_json (E2-E13);
//   odd:  an int_synth.json set lowered by int_synth/1 (§13.1), with its certificate.
// A refusal (RefusalError, a stage refusal value, LoweringError) or loam::Error is an answer;
// anything else escaping is a bug.
#include "support/error.hpp"
#include "wai/decode_json.hpp"
#include "wai/lowering_int_synth.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const bool synth = (data[0] & 1) != 0;
  const std::vector<std::uint8_t> rest(data + 1, data + size);
  try {
    if (synth) {
      loam::wai::lower_int_synth(rest);
      return 0;
    }
    const nlohmann::json doc = nlohmann::json::parse(rest.begin(), rest.end(), nullptr, false);
    if (doc.is_discarded() || !doc.is_object() || !doc.contains("op") || !doc["op"].is_string() || !doc.contains("in"))
      return 0;
    loam::wai::run_stage_json(doc["op"].get<std::string>(), doc["in"],
                              doc.contains("modes") ? doc["modes"] : nlohmann::json::object());
  } catch (const loam::Error&) {
  }
  return 0;
}
