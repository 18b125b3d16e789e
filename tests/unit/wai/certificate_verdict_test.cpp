// The certificate and the verdict (§8.5) on graphs whose every interval is worked out by hand,
// and the spec's stated facts: §7.3's five operators never meet acc32; §14.3's near misses.
#include "bounds_graphs.hpp"
#include "wai/certificate.hpp"

#include <gtest/gtest.h>

namespace loam::wai {
namespace {

using namespace testing;
using nlohmann::json;

std::vector<std::uint8_t> bytes_of(const Whg1Graph& g) { return write_whg1(g); }

TEST(CertificateVerdict, HandComputedConvCertificate) {
  // Input [2, H, W] check [-128, 127]; 1x1 conv to 2 channels, weights o0 = (1, -2), o1 = (5, -7);
  // pre bias (10, -10); shift 3; half_up.
  Whg1Graph g = with_input(2, -128, 127);
  RqBlock rq = rq_plain(3);
  rq.round = Round::half_up;
  rq.bias = BiasPlacement::pre;
  rq.b_bytes = 8;
  rq.bias_values = {10, -10};
  add_op(g, Opcode::conv, {0}, conv1x1(2, {1, -2, 5, -7}, rq), 2);
  const json c = certify_json(g, "synth");
  const json& node = c["graphs"][0]["nodes"][0];
  // o0: S+ = 1, S- = -2: lo = 0 - 128*1 + 127*(-2) = -382; hi = 10 + 127 + 256 = 393.
  // o1: S+ = 5, S- = -7: lo = -10 - 640 - 889 = -1539; hi = 0 + 635 + 896 = 1531.
  EXPECT_EQ(node["intermediates"]["conv.acc"], (json{{"bits", "12"}, {"hi", "1531"}, {"lo", "-1539"}}));
  // Terms: corner hull of [-7, 5] and [-128, 127]: [-889, 896].
  EXPECT_EQ(node["intermediates"]["conv.term"], (json{{"bits", "11"}, {"hi", "896"}, {"lo", "-889"}}));
  // rq.p adds 2^(3-1) = 4 to the top: 1535. rq.q: floor((-1539 + 4) / 8) = -192 (-191.875),
  // floor((1531 + 4) / 8) = 191.
  EXPECT_EQ(node["intermediates"]["rq.p"]["hi"], "1535");
  EXPECT_EQ(node["intermediates"]["rq.q"], (json{{"bits", "9"}, {"hi", "191"}, {"lo", "-192"}}));
  EXPECT_EQ(node["k_c"], "2396745");  // floor(2147483647 / 896)
  EXPECT_EQ(node["mac"], (json{{"a_bits", {"8"}}, {"w_bits", "4"}}));  // weights [-7, 5]
  EXPECT_EQ(node["fits"], (json{"acc32", "acc64"}));
  EXPECT_EQ(node["out"][0]["policy"], "derived");
  EXPECT_EQ(c["lowering"], "whg1");
  EXPECT_TRUE(c["capability"].is_null());
  EXPECT_TRUE(c["set_sha256"].is_null());
  EXPECT_EQ(c["graphs"][0]["name"], "synth");
  EXPECT_EQ(c["verdict"], (json{{"acc32", true}, {"acc64", true}, {"npu", true}, {"npu_flags", json::array()},
                                {"npu_reasons", json::array()}}));
}

TEST(CertificateVerdict, CanonicalBytes) {
  Whg1Graph g = with_input(1, -3, 4);
  add_op(g, Opcode::relu, {0}, std::monostate{}, 1);
  const std::vector<std::uint8_t> b = bytes_of(g);
  const std::string text = certify_graph("g", b).json;
  const std::string sha = to_hex(sha256(b));
  EXPECT_EQ(text,
            "{\"capability\":null,\"certificate\":\"wai-ops/1 bounds\",\"graphs\":[{\"graph_sha256\":\"" + sha +
                "\",\"inputs\":[{\"hi\":\"4\",\"kind\":\"data\",\"lo\":\"-3\",\"max_h\":\"0\",\"max_w\":\"0\","
                "\"policy\":\"check\",\"tensor\":\"0\"}],\"name\":\"g\",\"nodes\":[{\"acc32_params\":[],"
                "\"fits\":[\"acc32\",\"acc64\"],\"index\":\"0\",\"intermediates\":{},\"npu_flags\":[],\"op\":"
                "\"relu\",\"out\":[{\"bits\":\"4\",\"hi\":\"4\",\"lo\":\"0\",\"policy\":\"derived\",\"result\":"
                "{\"bits\":\"4\",\"hi\":\"4\",\"lo\":\"0\"},\"tensor\":\"1\"}],\"saturated\":false}],"
                "\"scalars\":[]}],\"lowering\":\"whg1\",\"set_sha256\":null,\"verdict\":{\"acc32\":true,"
                "\"acc64\":true,\"npu\":true,\"npu_flags\":[],\"npu_reasons\":[]}}");
}

// §7.3: softmax, sigmoid and elu through exp.t2 (88670^2 = 7862368900, 34 bits), sigmoid through
// sig.num, layernorm_c and l2norm through rsq.num (2^32, 34 bits): none meets acc32, whatever
// the input, while each meets acc64 on a small input.
TEST(CertificateVerdict, TheFiveOperatorsNeverMeetAcc32) {
  struct Case {
    Opcode op;
    OpParams params;
  };
  LayernormParams ln;
  ln.gamma = {1};
  ln.beta = {0};
  const Case cases[] = {
      {Opcode::softmax, std::monostate{}},   {Opcode::sigmoid, std::monostate{}},
      {Opcode::elu, EluParams{1}},           {Opcode::layernorm_c, ln},
      {Opcode::l2norm, L2normParams{1}},
  };
  const std::pair<std::int64_t, std::int64_t> ranges[] = {{0, 0}, {-1, 1}, {-100, 3}};
  for (const Case& k : cases)
    for (const auto& [lo, hi] : ranges) {
      Whg1Graph g = with_input(1, lo, hi, Policy::check, 2, 2);
      add_op(g, k.op, {0}, k.params, 1);
      const json v = certify_json(g)["verdict"];
      SCOPED_TRACE(op_name(k.op) + " on [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
      EXPECT_FALSE(v["acc32"]);
      EXPECT_TRUE(v["acc64"]);
      if (lo != 0 || hi != 0) continue;  // wider inputs can fail first elsewhere (ln.dk, ...)
      EXPECT_EQ(v["acc32_first_failure"]["bits"], "34");
      // The most bits, ties to the smallest key: exp.t2 (34) beats sig.num and sm.num (34);
      // ln.k = floor(2^32 / isqrt(1)) = 2^32 (34) beats rsq.num; l2.k likewise beats l2.vk.
      const std::string expect = k.op == Opcode::layernorm_c ? "ln.k" : k.op == Opcode::l2norm ? "l2.k" : "exp.t2";
      EXPECT_EQ(v["acc32_first_failure"]["key"], expect);
    }
}

// §14.3: a set that fails acc64 by one unit. A 1x1 conv, weight 1, over [0, 2^63 - 1]: with a
// pre bias of 1, conv.acc = [0, 2^63], one past i64; without it, [0, 2^63 - 1].
TEST(CertificateVerdict, FailsAcc64ByOneUnit) {
  for (int bias : {0, 1}) {
    Whg1Graph g = with_input(1, 0, INT64_MAX);
    RqBlock rq = rq_plain(0);
    rq.bias = BiasPlacement::pre;
    rq.b_bytes = 4;
    rq.bias_values = {bias};
    add_op(g, Opcode::conv, {0}, conv1x1(1, {1}, rq), 1);
    const json v = certify_json(g)["verdict"];
    EXPECT_EQ(v["acc64"], bias == 0);
    if (bias == 1) {
      // conv.acc, rq.t, rq.q, rq.y and out.0 are each [0, 2^63] (65 bits); the smallest key wins.
      EXPECT_EQ(v["acc64_first_failure"],
                (json{{"bits", "65"}, {"graph", "g"}, {"index", "0"}, {"key", "conv.acc"}, {"where", "node"}}));
      EXPECT_THROW(load_with_profile(bytes_of(g), Profile::acc64), RefusalError);
    } else {
      EXPECT_NO_THROW(load_with_profile(bytes_of(g), Profile::acc64));
    }
  }
}

// §14.3: a set whose pin claims acc32 and that fails it by one weight. Over [0, 1], positive
// weights summing to 2^31 - 1 keep conv.acc = [0, 2^31 - 1]; one weight one larger gives 2^31.
TEST(CertificateVerdict, FailsAcc32ByOneWeight) {
  for (std::int64_t extra : {0, 1}) {
    Whg1Graph g = with_input(2, 0, 1);
    add_op(g, Opcode::conv, {0}, conv1x1(1, {1073741824, 1073741823 + extra}, rq_plain(0)), 1);
    const json v = certify_json(g)["verdict"];
    EXPECT_EQ(v["acc32"], extra == 0);
    EXPECT_TRUE(v["acc64"]);
    if (extra) {
      EXPECT_EQ(v["acc32_first_failure"],
                (json{{"bits", "33"}, {"graph", "g"}, {"index", "0"}, {"key", "conv.acc"}, {"where", "node"}}));
      EXPECT_EQ(v["npu_reasons"], json{"acc32"});
      EXPECT_THROW(load_with_profile(bytes_of(g), Profile::acc32), RefusalError);
      EXPECT_NO_THROW(load_with_profile(bytes_of(g), Profile::acc64));
    }
  }
}

// §14.1 item 6: an rq whose q passes 64 bits while y fits is refused at load under acc64.
// rescale of [2^62, 2^62] by 2, shift 0, post bias -2^62: q = 2^63 (65 bits), y = 2^62.
TEST(CertificateVerdict, RqQPastI64WhileYFits) {
  Whg1Graph g = with_input(1, std::int64_t{1} << 62, std::int64_t{1} << 62);
  RqBlock rq = rq_mult(2, 0);
  rq.bias = BiasPlacement::post;
  rq.b_bytes = 8;
  rq.bias_values = {-(std::int64_t{1} << 62)};
  add_op(g, Opcode::rescale, {0}, RqParams{rq}, 1);
  const json c = certify_json(g);
  EXPECT_EQ(c["graphs"][0]["nodes"][0]["out"][0]["result"]["hi"], pow2s(62));
  EXPECT_EQ(c["verdict"]["acc64_first_failure"]["key"], "rq.q");
  EXPECT_EQ(c["verdict"]["acc64_first_failure"]["bits"], "65");
}

// §8.1: a node that saturates fits no profile, and records "saturated".
TEST(CertificateVerdict, SaturatedNode) {
  // Each rescale multiplies by 2^62: 2^63 -> 2^125 -> 2^187 -> 2^249 -> 2^311, saturated.
  Whg1Graph g = with_input(1, INT64_MIN, INT64_MAX);
  std::uint32_t t = 0;
  for (int i = 0; i < 4; ++i) t = add_op(g, Opcode::rescale, {t}, RqParams{rq_mult(std::int64_t{1} << 62, 0)}, 1);
  const json c = certify_json(g);
  const json& nodes = c["graphs"][0]["nodes"];
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(nodes[i]["saturated"]);
  EXPECT_TRUE(nodes[3]["saturated"]);
  EXPECT_EQ(nodes[3]["intermediates"]["rq.p"]["lo"], "-" + pow2s(255));
  EXPECT_EQ(nodes[3]["intermediates"]["rq.p"]["bits"], "257");
  EXPECT_EQ(nodes[3]["fits"], json::array());
  // Node 0 fails first: rq.q, rq.y and out.0 are [-2^125, (2^63 - 1)·2^62] (126 bits); rq.p is a
  // product and fits i128. The smallest key is out.0.
  EXPECT_EQ(c["verdict"]["acc64_first_failure"],
            (json{{"bits", "126"}, {"graph", "g"}, {"index", "0"}, {"key", "out.0"}, {"where", "node"}}));
}

TEST(CertificateVerdict, EmptyCheckIntervalRefusesAtLoad) {
  // relu of [-5, -1] gives [0, 0]; a check [1, 3] on it holds no value.
  Whg1Graph g = with_input(1, -5, -1);
  add_op(g, Opcode::relu, {0}, std::monostate{}, 1, Policy::check, 1, 3);
  try {
    certify_graph("g", bytes_of(g));
    FAIL() << "expected a refusal";
  } catch (const RefusalError& e) {
    EXPECT_EQ(e.refusal().code, RefusalCode::model_mismatch);
  }
}

TEST(CertificateVerdict, Lut16InputPastItsRangeRefusesAtLoad) {
  for (std::int64_t hi : {32767, 32768}) {
    Whg1Graph g = with_input(1, -32767, hi);
    Lut16Params p;
    p.table.assign(65536, 0);
    p.table[65535] = 9;
    add_op(g, Opcode::lut16, {0}, p, 1);
    if (hi == 32767) {
      const json c = certify_json(g);
      EXPECT_EQ(c["graphs"][0]["nodes"][0]["out"][0]["hi"], "9");
      EXPECT_EQ(c["verdict"]["npu_flags"], json{"lut16"});
    } else {
      EXPECT_THROW(certify_graph("g", bytes_of(g)), RefusalError);
    }
  }
}

TEST(CertificateVerdict, CheckPolicyInsideTheGraphFailsAcc32Only) {
  Whg1Graph g = with_input(1, -5, 5);
  add_op(g, Opcode::relu, {0}, std::monostate{}, 1, Policy::check, 0, 3);
  const json c = certify_json(g);
  EXPECT_EQ(c["graphs"][0]["nodes"][0]["out"][0]["hi"], "3");
  EXPECT_EQ(c["graphs"][0]["nodes"][0]["out"][0]["result"]["hi"], "5");
  EXPECT_EQ(c["verdict"]["acc32_first_failure"],
            (json{{"graph", "g"}, {"index", "0"}, {"key", "policy.check"}, {"where", "node"}}));
  EXPECT_TRUE(c["verdict"]["acc64"]);
}

TEST(CertificateVerdict, InputRangeFailsAcc32First) {
  Whg1Graph g = with_input(1, 0, std::int64_t{1} << 31);
  add_op(g, Opcode::relu, {0}, std::monostate{}, 1);
  const json v = certify_json(g)["verdict"];
  EXPECT_EQ(v["acc32_first_failure"],
            (json{{"bits", "33"}, {"graph", "g"}, {"index", "0"}, {"key", "range"}, {"where", "input"}}));
}

}  // namespace
}  // namespace loam::wai
