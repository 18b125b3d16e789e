// int_synth/1 (§13.1) and the jpegai-int/1 scale graph (§13.6.1): the lowered graph's canonical
// form (§13.0), its certificate worked out by hand, and the load checks.
#include "wai/lowering_int_synth.hpp"
#include "wai/lowering_jpegai.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace loam::wai {
namespace {

using nlohmann::json;

std::vector<std::uint8_t> bytes(const json& j) {
  const std::string s = j.dump();
  return {s.begin(), s.end()};
}

json one_layer() {
  return json{{"layers",
               {{{"in_ch", 1}, {"out_ch", 1}, {"k", 2}, {"stride", 2}, {"pad", 0}, {"shift", 1}, {"relu", true},
                 {"weight", {{{{1, 2}, {3, 4}}}}}, {"bias", {5}}}}}};
}

std::string refusal_code(const json& doc) {
  try {
    lower_int_synth(bytes(doc));
  } catch (const LoweringError& e) {
    return e.code();
  }
  return "ok";
}

TEST(LoweringIntSynth, CanonicalGraphAndItsCertificate) {
  const LoweredSet set = lower_int_synth(bytes(one_layer()), 1);
  ASSERT_EQ(set.graphs.size(), 1u);
  EXPECT_EQ(set.graphs[0].role, "synth");
  const Whg1Graph g = read_whg1(set.graphs[0].bytes);
  // Input 0 is tensor 0, check [-128, 127], sizes per decode; then conv_transpose, relu, clamp.
  ASSERT_EQ(g.tensors.size(), 4u);
  EXPECT_EQ(g.max_elems, 1u << 26);
  EXPECT_EQ(g.inputs[0].tensor, 0u);
  EXPECT_EQ(g.inputs[0].max_h, 0u);
  EXPECT_EQ(g.tensors[0].policy, Policy::check);
  EXPECT_EQ(g.tensors[0].lo, -128);
  EXPECT_EQ(g.tensors[0].hi, 127);
  for (int t = 1; t < 4; ++t) {
    EXPECT_EQ(g.tensors[t].policy, Policy::derived);
    EXPECT_EQ(g.tensors[t].exponent, kNoExponent);
  }
  ASSERT_EQ(g.ops.size(), 3u);
  EXPECT_EQ(g.ops[0].opcode, Opcode::conv_transpose);
  const auto& p = std::get<ConvTransposeParams>(g.ops[0].params);
  EXPECT_EQ(p.w_bytes, 4);
  EXPECT_EQ(p.rq.b_bytes, 4);
  EXPECT_EQ(p.rq.bias, BiasPlacement::pre);
  EXPECT_EQ(p.rq.m_kind, 0);
  EXPECT_EQ(p.rq.s_kind, 1);
  EXPECT_EQ(g.ops[1].opcode, Opcode::relu);
  EXPECT_EQ(g.ops[2].opcode, Opcode::clamp);
  EXPECT_EQ(g.outputs, std::vector<std::uint32_t>{3});

  const json c = json::parse(set.certificate.json);
  EXPECT_EQ(c["capability"], "wai.neural.int_synth");
  EXPECT_EQ(c["lowering"], "int_synth/1");
  EXPECT_EQ(c["set_sha256"], to_hex(sha256(bytes(one_layer()))));
  // Stride 2 over a 2x2 kernel: each residue holds one tap, weight w; A = [min(0, 5) - 128·w, 5 + 127·w].
  // w = 4 gives the hull [-512, 513]; floor shift 1: [-256, 256].
  const json& n0 = c["graphs"][0]["nodes"][0];
  EXPECT_EQ(n0["intermediates"]["convT.acc"]["lo"], "-512");
  EXPECT_EQ(n0["intermediates"]["convT.acc"]["hi"], "513");
  EXPECT_EQ(n0["intermediates"]["rq.q"]["lo"], "-256");
  EXPECT_EQ(n0["intermediates"]["rq.q"]["hi"], "256");
  EXPECT_EQ(c["graphs"][0]["nodes"][2]["out"][0]["hi"], "255");
  EXPECT_TRUE(c["verdict"]["acc32"]);
}

TEST(LoweringIntSynth, LoadChecksRefuseWithPayloadMalformed) {
  EXPECT_EQ(refusal_code(json{{"layers", json::array()}}), "payload_malformed");
  json shift = one_layer();
  shift["layers"][0]["shift"] = 128;
  EXPECT_EQ(refusal_code(shift), "payload_malformed");
  json k0 = one_layer();
  k0["layers"][0]["k"] = 0;
  EXPECT_EQ(refusal_code(k0), "payload_malformed");
  json big = one_layer();
  big["layers"][0]["pad"] = 4294967296LL;  // 2^32: past the u32 field
  EXPECT_EQ(refusal_code(big), "payload_malformed");
  json chain = one_layer();
  json second = chain["layers"][0];
  second["in_ch"] = 2;
  chain["layers"].push_back(second);
  EXPECT_EQ(refusal_code(chain), "payload_malformed");
  json len = one_layer();
  len["layers"][0]["bias"] = {5, 6};
  EXPECT_EQ(refusal_code(len), "payload_malformed");
  json w = one_layer();
  w["layers"][0]["weight"][0][0][0][0] = 2147483648LL;  // not a 32-bit integer
  EXPECT_EQ(refusal_code(w), "payload_malformed");
  EXPECT_EQ(refusal_code(one_layer()), "ok");
}

// §14.3's near misses through the lowering, each worked by hand. Over the latents' [-128, 127] a
// 1x1 weight w gives convT.acc = [-128·w, 127·w]: w = 2^24 reaches -2^31 and meets acc32; w = 2^24 + 1
// passes it. A pin claiming acc32 over the second is refused with int_synth's one code (§4, §8.6).
TEST(LoweringIntSynth, PinClaimingAcc32FailsByOneWeight) {
  auto set = [](std::int64_t w) {
    return json{{"layers", {{{"in_ch", 1}, {"out_ch", 1}, {"k", 1}, {"stride", 1}, {"pad", 0}, {"weight", {{{{w}}}}}, {"bias", {0}}}}}};
  };
  const LoweredSet edge = lower_int_synth(bytes(set(std::int64_t{1} << 24)), 1, Profile::acc32);
  EXPECT_TRUE(edge.certificate.verdict.acc32);
  const json c = json::parse(edge.certificate.json);
  EXPECT_EQ(c["graphs"][0]["nodes"][0]["intermediates"]["convT.acc"]["lo"], "-2147483648");
  const auto past = bytes(set((std::int64_t{1} << 24) + 1));
  EXPECT_FALSE(lower_int_synth(past).certificate.verdict.acc32);  // no claim: the set meets acc64
  try {
    lower_int_synth(past, 1, Profile::acc32);
    FAIL() << "a pin claiming acc32 was not refused";
  } catch (const LoweringError& e) {
    EXPECT_EQ(e.code(), "payload_malformed");
    EXPECT_EQ(std::string(e.what()),
              "payload_malformed: int_synth.json: the pin claims acc32, which the certificate does not meet: node 0, "
              "convT.acc");
  }
}

// Layer 0 (weight 67637280, bias 31, relu) gives [0, 127·67637280 + 31] = [0, 2^33 - 1]; layer 1
// (weight 2^30, bias b) gives convT.acc = [0, (2^33 - 1)·2^30 + b]: b = 2^30 - 1 reaches 2^63 - 1,
// b = 2^30 passes i64 by one unit, and §13.1 refuses the set.
TEST(LoweringIntSynth, Acc64FailsByOneUnit) {
  auto set = [](std::int64_t b) {
    return json{{"layers",
                 {{{"in_ch", 1}, {"out_ch", 1}, {"k", 1}, {"stride", 1}, {"pad", 0}, {"relu", true}, {"weight", {{{{67637280}}}}}, {"bias", {31}}},
                  {{"in_ch", 1}, {"out_ch", 1}, {"k", 1}, {"stride", 1}, {"pad", 0}, {"weight", {{{{std::int64_t{1} << 30}}}}}, {"bias", {b}}}}}};
  };
  const LoweredSet edge = lower_int_synth(bytes(set((std::int64_t{1} << 30) - 1)));
  EXPECT_EQ(json::parse(edge.certificate.json)["graphs"][0]["nodes"][2]["intermediates"]["convT.acc"]["hi"],
            "9223372036854775807");
  const LoweredSet past = lower_int_synth_graphs(bytes(set(std::int64_t{1} << 30)));
  EXPECT_FALSE(past.certificate.verdict.acc64);
  EXPECT_EQ(past.certificate.verdict.acc64_first_failure->key, "convT.acc");
  EXPECT_EQ(*past.certificate.verdict.acc64_first_failure->bits, 65u);
  EXPECT_EQ(refusal_code(set(std::int64_t{1} << 30)), "payload_malformed");
}

json norm_json() {
  json pmf = json::array();
  for (int i = 0; i < 32; ++i) pmf.push_back({128, 128});
  return json{{"pmf", pmf},
              {"bounds", std::vector<int>(32, 0)},
              {"per_channel", 16},
              {"cdfs_y", std::vector<int>(160 * 63, 0)},
              {"cdfs_uv", std::vector<int>(96 * 63, 0)},
              {"gain_y", std::vector<int>(160, 7)},
              {"gain_uv", std::vector<int>(96, 7)}};
}

json hs_json(int cz) {
  auto t = [](std::vector<int> dims, int value) {
    int n = 1;
    for (int d : dims) n *= d;
    return json{{"dims", dims}, {"v", std::vector<int>(n, value)}};
  };
  return json{{"conv1.weight", t({1, cz, 1, 1}, 1)},     {"conv1.bias", t({1}, 0)},
              {"onnx::Pow_85", t({1, 1, 1, 1}, 0)},      {"depthwise.weight", t({1, 1, 3, 3}, 1)},
              {"depthwise.bias", t({1}, 0)},             {"onnx::Pow_91", t({1, 1, 1, 1}, 2)},
              {"pointwise.weight", t({16 * cz, 1, 1, 1}, -1)}, {"pointwise.bias", t({16 * cz}, 0)},
              {"onnx::Pow_97", t({1, 16 * cz, 1, 1}, 0)}};
}

TEST(LoweringJpegaiScale, ScaleGraphsAndTheirIntervals) {
  const LoweredSet set = lower_jpegai_scale_pair(bytes(hs_json(160)), bytes(hs_json(96)), bytes(norm_json()));
  ASSERT_EQ(set.graphs.size(), 2u);
  const json c = json::parse(set.certificate.json);
  EXPECT_EQ(c["lowering"], "jpegai-int/1");
  const json& nodes = c["graphs"][0]["nodes"];
  ASSERT_EQ(nodes.size(), 12u);
  // z in [-31, 32]; conv1 sums 160 taps of weight 1: [-4960, 5120]; relu, clamp: [0, 127];
  // 3x3 of weight 1, shift 2: [0, floor(1143 / 4)] = [0, 285]; relu, clamp [0, 127]; pointwise
  // weight -1: [-127, 0]; abs, clamp: [0, 127]; gain 7: [7, 134].
  EXPECT_EQ(nodes[1]["intermediates"]["conv.acc"]["lo"], "-4960");
  EXPECT_EQ(nodes[1]["intermediates"]["conv.acc"]["hi"], "5120");
  EXPECT_EQ(nodes[4]["intermediates"]["rq.q"]["hi"], "285");
  EXPECT_EQ(nodes[11]["out"][0]["lo"], "7");
  EXPECT_EQ(nodes[11]["out"][0]["hi"], "134");
  EXPECT_EQ(nodes[8]["op"], "pixel_shuffle");
  EXPECT_TRUE(c["verdict"]["acc32"]);
  const Whg1Graph g = read_whg1(set.graphs[0].bytes);
  EXPECT_EQ(g.inputs[0].max_h, 4u);
  EXPECT_EQ(std::get<ConvParams>(g.ops[1].params).w_bytes, 1);      // smallest width holding 1
  EXPECT_EQ(std::get<ConvParams>(g.ops[1].params).rq.s_kind, 2);    // per channel in the source
  EXPECT_EQ(std::get<RqParams>(g.ops[11].params).rq.b_bytes, 4);
}

TEST(LoweringJpegaiScale, LoadChecks) {
  auto code = [](const json& hs_y, const json& norm) {
    try {
      lower_jpegai_scale_pair(bytes(hs_y), bytes(hs_json(96)), bytes(norm));
    } catch (const LoweringError& e) {
      return e.code();
    }
    return std::string("ok");
  };
  json n = norm_json();
  n["bounds"][0] = 256;
  EXPECT_EQ(code(hs_json(160), n), "model_mismatch");
  n = norm_json();
  n["cdfs_y"][1] = 0;
  n["cdfs_y"][0] = 5;  // row 0 decreases
  EXPECT_EQ(code(hs_json(160), n), "model_mismatch");
  json h = hs_json(160);
  h["onnx::Pow_91"]["v"][0] = 128;
  EXPECT_EQ(code(h, norm_json()), "model_mismatch");
  h = hs_json(160);
  h["onnx::Pow_91"]["v"][0] = 64;  // a shift past 63 fails the acc32 the scale graphs are held to
  EXPECT_EQ(code(h, norm_json()), "model_mismatch");
  EXPECT_EQ(code(hs_json(96), norm_json()), "model_mismatch");  // hs_y with Cz = 96
  EXPECT_EQ(code(hs_json(160), norm_json()), "ok");
}

}  // namespace
}  // namespace loam::wai
