// The bounds certificate of wai-ops/1 §8.5: a canonical JSON record of the bounds pass over a
// parameter set's graphs, with each node's fits, k_c, mac widths and npu flags, and the set's
// verdict (acc32, acc64, first failures, and the accelerator subset of §9.2).
#pragma once

#include "wai/bounds.hpp"
#include "wai/certificate_json.hpp"
#include "wai/profile.hpp"
#include "wai/whg1.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace loam::wai {

struct Verdict {
  bool acc32 = false;
  bool acc64 = false;
  std::optional<Failure> acc32_first_failure;
  std::optional<Failure> acc64_first_failure;
  bool npu = false;
  std::vector<std::string> npu_flags;    // ascending
  std::vector<std::string> npu_reasons;  // ascending
  bool meets(Profile p) const { return p == Profile::acc32 ? acc32 : acc64; }
};

// One graph of a set: its role and its WHG1 bytes (as lowered, for a lowering).
struct RoleGraph {
  std::string role;
  std::vector<std::uint8_t> bytes;
};

struct CertifyOptions {
  std::optional<std::string> capability;   // null when certified on their own
  std::string lowering = "whg1";           // the §13 identifier, or "whg1"
  std::optional<std::string> set_sha256;   // 64 lowercase hex digits, or null
};

struct Certificate {
  Verdict verdict;
  std::string json;  // the canonical bytes (no final newline)
};

// Reads each graph (§10.5 steps 1-7), runs the bounds pass (step 8's refusals: an empty check
// interval, lut16's range) and writes the certificate. Throws RefusalError for a graph that does
// not load; `source` names the graphs in messages.
Certificate certify(std::span<const RoleGraph> graphs, const CertifyOptions& options = {});

// The same for one graph certified on its own (lowering "whg1").
Certificate certify_graph(std::string role, std::span<const std::uint8_t> bytes);

// §10.5 step 8 with the profile: loads the graph and refuses it (model_mismatch) when its
// verdict does not meet `profile`. Returns the graph.
Whg1Graph load_with_profile(std::span<const std::uint8_t> bytes, Profile profile,
                            const std::string& source = "<whg1>");

// §11's subset `npu`: loads the graph and refuses it (model_mismatch) when it is outside
// wai-ops/1-npu (§9.2), naming the verdict's npu_reasons. Returns the graph.
Whg1Graph load_in_npu_subset(std::span<const std::uint8_t> bytes, const std::string& source = "<whg1>");

// The verdict's JSON object alone (npu.jsonl uses its npu members).
CanonJson verdict_json(const Verdict& v);

}  // namespace loam::wai
