// The scale graphs of jpegai-int/1 (wai-ops/1 §13.6.1): hs_y from weights/hs_y.json with
// norm.json's gain_y, and hs_uv from weights/hs_uv.json with gain_uv, each in the canonical form
// of §13.0, with §13.6.1's load checks (every refusal is model_mismatch). The other four graphs of
// the lowering (rec_*, syn_*) are not built here.
#pragma once

#include "wai/lowering_common.hpp"
#include "wai/lowering_int_synth.hpp"

#include <cstdint>
#include <vector>

namespace loam::wai {

enum class JpegaiPlane : std::uint8_t { y, uv };

// The checks of §13.6.1 on norm.json's members that the scale path reads (pmf, bounds,
// per_channel, cdfs_y, cdfs_uv, gain_y, gain_uv). Throws LoweringError(model_mismatch).
void check_jpegai_norm(const nlohmann::json& norm);

// One plane's scale graph: WHG1 bytes. `hs_json` is weights/hs_y.json or weights/hs_uv.json.
std::vector<std::uint8_t> lower_jpegai_scale(const std::vector<std::uint8_t>& hs_json,
                                             const std::vector<std::uint8_t>& norm_json,
                                             JpegaiPlane plane);

// Both scale graphs, certified as the graphs hs_y and hs_uv on their own (lowering "jpegai-int/1",
// capability "wai.image.jpegai", no set digest since the other four graphs are not lowered).
// §11's role_profiles hold them to acc32: a pair that does not meet it is refused.
LoweredSet lower_jpegai_scale_pair(const std::vector<std::uint8_t>& hs_y_json,
                                   const std::vector<std::uint8_t>& hs_uv_json,
                                   const std::vector<std::uint8_t>& norm_json);

}  // namespace loam::wai
