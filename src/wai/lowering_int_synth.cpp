#include "wai/lowering_int_synth.hpp"

#include <functional>

namespace loam::wai {

namespace {

constexpr const char* kCode = "payload_malformed";

[[noreturn]] void bad(const std::string& msg) { throw LoweringError(kCode, "int_synth.json: " + msg); }

// Flattens a nested array of exactly `dims` (or a flat array of their product) into i32 values.
std::vector<std::int64_t> flatten(const nlohmann::json& v, const std::vector<std::uint64_t>& dims,
                                  const std::string& where) {
  std::uint64_t total = 1;
  for (std::uint64_t d : dims) {
    if (d != 0 && total > (std::uint64_t{1} << 40) / d) bad(where + ": too many values");
    total *= d;
  }
  std::vector<std::int64_t> out;
  auto leaf = [&](const nlohmann::json& x) {
    const std::int64_t w = json_i64(x, kCode, "int_synth.json: " + where);
    if (w < INT32_MIN || w > INT32_MAX) bad(where + ": " + std::to_string(w) + " is not a 32-bit integer");
    out.push_back(w);
  };
  if (v.is_array() && v.size() == total && (total == 0 || !v[0].is_array())) {
    for (const auto& x : v) leaf(x);
    return out;
  }
  std::function<void(const nlohmann::json&, std::size_t)> walk = [&](const nlohmann::json& x, std::size_t depth) {
    if (depth == dims.size()) return leaf(x);
    if (!x.is_array() || x.size() != dims[depth])
      bad(where + ": expected " + std::to_string(dims[depth]) + " entries at depth " + std::to_string(depth));
    for (const auto& y : x) walk(y, depth + 1);
  };
  walk(v, 0);
  return out;
}

std::uint32_t field(const nlohmann::json& layer, const char* name, std::size_t index, bool required,
                    std::uint32_t fallback = 0) {
  const std::string where = "int_synth.json: layer " + std::to_string(index) + " " + name;
  if (!layer.contains(name)) {
    if (required) bad("layer " + std::to_string(index) + " has no " + name);
    return fallback;
  }
  return json_u32(layer[name], kCode, where);
}

}  // namespace

LoweredSet lower_int_synth_graphs(const std::vector<std::uint8_t>& bytes, std::optional<std::uint32_t> latent_channels) {
  const nlohmann::json doc = parse_json(bytes, kCode, "int_synth.json");
  if (!doc.is_object() || !doc.contains("layers") || !doc["layers"].is_array()) bad("no layers list");
  const nlohmann::json& layers = doc["layers"];
  if (layers.empty()) bad("there is no layer");

  Whg1Graph g;
  g.max_elems = kMaxElemsCap;
  std::uint32_t channels = 0;
  for (std::size_t li = 0; li < layers.size(); ++li) {
    const nlohmann::json& L = layers[li];
    if (!L.is_object()) bad("layer " + std::to_string(li) + " is not an object");
    const std::uint32_t in_ch = field(L, "in_ch", li, true), out_ch = field(L, "out_ch", li, true);
    const std::uint32_t k = field(L, "k", li, true), stride = field(L, "stride", li, true);
    const std::uint32_t pad = field(L, "pad", li, true), out_pad = field(L, "out_pad", li, false, 0);
    const std::uint32_t shift = field(L, "shift", li, false, 0);
    bool relu = false;
    if (L.contains("relu")) {
      if (!L["relu"].is_boolean()) bad("layer " + std::to_string(li) + " relu is not a boolean");
      relu = L["relu"].get<bool>();
    }
    const std::string at = "layer " + std::to_string(li);
    if (out_ch < 1 || k < 1 || stride < 1) bad(at + ": out_ch, k and stride must each be at least 1");
    if (shift > 127) bad(at + ": shift " + std::to_string(shift) + " is above 127");
    if (li == 0) {
      if (latent_channels && in_ch != *latent_channels)
        bad("the first layer's in_ch " + std::to_string(in_ch) + " is not the payload's C " +
            std::to_string(*latent_channels));
      if (in_ch < 1) bad("the first layer's in_ch is 0");
      // Input 0: the latents, check [-128, 127], sizes per decode (§13.0 driver contract).
      g.tensors.push_back(lowered_tensor(in_ch, Policy::check, -128, 127));
      g.inputs.push_back(InputRecord{});
      channels = in_ch;
    } else if (in_ch != channels) {
      bad(at + ": in_ch " + std::to_string(in_ch) + " does not chain from the previous out_ch " +
          std::to_string(channels));
    }
    if (!L.contains("weight") || !L.contains("bias")) bad(at + " lacks weight or bias");
    ConvTransposeParams p;
    p.cout = out_ch;
    p.kh = p.kw = k;
    p.sh = p.sw = stride;
    p.ph = p.pw = pad;
    p.oph = p.opw = out_pad;
    p.w_bytes = 4;
    p.weights = flatten(L["weight"], {in_ch, out_ch, k, k}, at + " weight");
    p.rq.round = Round::floor;
    p.rq.bias = BiasPlacement::pre;
    p.rq.b_bytes = 4;
    p.rq.bias_values = flatten(L["bias"], {out_ch}, at + " bias");
    p.rq.m_kind = 0;
    p.rq.m_bytes = 0;
    p.rq.s_kind = 1;
    p.rq.shift = {static_cast<std::uint8_t>(shift)};
    std::uint32_t t = append_op(g, Opcode::conv_transpose, {g.ops.empty() ? 0u : g.ops.back().outputs[0]}, p, out_ch);
    if (relu) t = append_op(g, Opcode::relu, {t}, std::monostate{}, out_ch);
    channels = out_ch;
  }
  append_op(g, Opcode::clamp, {g.ops.back().outputs[0]}, ClampParams{0, 255}, channels);
  g.outputs = {g.ops.back().outputs[0]};

  LoweredSet set;
  std::vector<std::uint8_t> whg;
  try {
    whg = write_whg1(g);
  } catch (const loam::Error& e) {
    bad(std::string("the lowered graph cannot be written: ") + e.what());
  }
  set.graphs.push_back(RoleGraph{"synth", std::move(whg)});
  CertifyOptions co;
  co.capability = "wai.neural.int_synth";
  co.lowering = "int_synth/1";
  co.set_sha256 = to_hex(sha256(bytes));
  try {
    set.certificate = certify(set.graphs, co);
  } catch (const RefusalError& e) {
    bad(std::string("the lowered graph does not load: ") + e.what());
  }
  return set;
}

LoweredSet lower_int_synth(const std::vector<std::uint8_t>& bytes, std::optional<std::uint32_t> latent_channels,
                           std::optional<Profile> pin_claim) {
  LoweredSet set = lower_int_synth_graphs(bytes, latent_channels);
  const Verdict& v = set.certificate.verdict;
  if (!v.acc64)
    bad("the certificate does not meet acc64: " + v.acc64_first_failure->where + " " +
        std::to_string(v.acc64_first_failure->index) + ", " + v.acc64_first_failure->key);
  if (pin_claim && !v.meets(*pin_claim)) {
    const Failure& f = *v.acc32_first_failure;  // acc64 is met, so only an acc32 claim can fail
    bad("the pin claims " + std::string(profile_name(*pin_claim)) + ", which the certificate does not meet: " +
        f.where + " " + std::to_string(f.index) + ", " + f.key);
  }
  return set;
}

}  // namespace loam::wai
