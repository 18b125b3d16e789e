// The lowering int_synth/1 (wai-ops/1 §13.1): an int_synth.json set to one WHG1 graph, `synth`,
// in the canonical form of §13.0, with its load checks. Every refusal is payload_malformed.
#pragma once

#include "wai/certificate.hpp"
#include "wai/lowering_common.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace loam::wai {

struct LoweredSet {
  std::vector<RoleGraph> graphs;  // in the lowering's role order
  Certificate certificate;        // of the lowered bytes, with the set's digest
};

// `latent_channels`: the payload's C, when known (the first layer's in_ch must equal it).
// A layer's `weight` is the nested array [in_ch][out_ch][k][k] (a flat array of that many values is
// accepted too); `bias` is [out_ch]; `out_pad`, `shift` and `relu` default to 0, 0 and false.
//
// `pin_claim`: the profile a pin over the set claims (§11 `ops_profile`), when it carries one; a
// verdict that does not meet it is refused too (§8.6), with the capability's code.
LoweredSet lower_int_synth(const std::vector<std::uint8_t>& int_synth_json,
                           std::optional<std::uint32_t> latent_channels = std::nullopt,
                           std::optional<Profile> pin_claim = std::nullopt);

// Every check of §13.1 but the profile's: the lowered graph and its certificate whatever its
// verdict (the certificates of §14.3 include sets that fail acc64).
LoweredSet lower_int_synth_graphs(const std::vector<std::uint8_t>& int_synth_json,
                                  std::optional<std::uint32_t> latent_channels = std::nullopt);

}  // namespace loam::wai
