// Parameter conditions of acc32 (§7.2), npu flags and reasons (§9.2, §8.5).
#include "bounds_graphs.hpp"
#include "wai/profile.hpp"

#include <gtest/gtest.h>

namespace loam::wai {
namespace {

using namespace testing;
using nlohmann::json;

TEST(ProfileNpu, Acc32ParameterConditionsInTableOrder) {
  // Over [0, 0] every interval is 0, so only the parameter conditions can fail.
  Whg1Graph g = with_input(1, 0, 0);
  RqBlock rq = rq_mult(std::int64_t{1} << 31, 64);
  rq.bias = BiasPlacement::post;
  rq.b_bytes = 8;
  rq.bias_values = {-(std::int64_t{1} << 31) - 1};
  add_op(g, Opcode::conv, {0}, conv1x1(1, {std::int64_t{1} << 31}, rq), 1);
  const json c = certify_json(g);
  const json& node = c["graphs"][0]["nodes"][0];
  EXPECT_EQ(node["acc32_params"], (json{"rq.mult", "rq.shift", "rq.post_bias", "weights"}));
  EXPECT_EQ(node["fits"], json{"acc64"});
  // The post bias lies in rq.y and out.0 ([-2^31 - 1, -2^31 - 1], 33 bits), and an interval
  // key comes before a parameter key; out.0 < rq.y.
  EXPECT_EQ(c["verdict"]["acc32_first_failure"],
            (json{{"bits", "33"}, {"graph", "g"}, {"index", "0"}, {"key", "out.0"}, {"where", "node"}}));
  // floor with a multiplier, a post bias, a shift past 31.
  EXPECT_EQ(node["npu_flags"], (json{"rq_floor_mult", "rq_post_bias", "rq_shift_range"}));
}

TEST(ProfileNpu, AParameterConditionIsTheFailureWhenEveryIntervalFits) {
  Whg1Graph g = with_input(1, 0, 0);
  add_op(g, Opcode::rescale, {0}, RqParams{rq_mult(std::int64_t{1} << 31, 0)}, 1);
  const json c = certify_json(g);
  EXPECT_EQ(c["verdict"]["acc32_first_failure"],
            (json{{"graph", "g"}, {"index", "0"}, {"key", "rq.mult"}, {"where", "node"}}));
  EXPECT_TRUE(c["verdict"]["acc64"]);
}

TEST(ProfileNpu, ConvGroupsAndExcludedOperators) {
  // groups 2 over 4 channels: neither 1 nor cin.
  Whg1Graph g = with_input(4, -1, 1);
  ConvParams p = conv1x1(2, {1, 1, 1, 1}, rq_plain(0));
  p.groups = 2;
  std::uint32_t t = add_op(g, Opcode::conv, {0}, p, 2);
  // depthwise over 2 channels with cout 4 != cin.
  ConvParams d = conv1x1(4, {1, 1, 1, 1}, rq_plain(0));
  d.groups = 2;
  t = add_op(g, Opcode::conv, {t}, d, 4);
  IgdnParams ig;
  ig.gamma.assign(16, 1);
  ig.beta.assign(4, 1);
  add_op(g, Opcode::igdn, {t}, ig, 4);
  const json v = certify_json(g)["verdict"];
  EXPECT_TRUE(v["acc32"]);
  EXPECT_FALSE(v["npu"]);
  EXPECT_EQ(v["npu_reasons"], (json{"conv_groups", "op:igdn"}));
}

TEST(ProfileNpu, RqFlags) {
  Whg1Graph g = with_input(1, -3, 3);
  add_op(g, Opcode::rescale, {0}, RqParams{rq_mult(-5, 40, Round::half_even)}, 1);
  const json c = certify_json(g);
  EXPECT_EQ(c["graphs"][0]["nodes"][0]["npu_flags"], (json{"rq_half_even", "rq_neg_mult", "rq_shift_range"}));
  EXPECT_EQ(c["verdict"]["npu_flags"], (json{"rq_half_even", "rq_neg_mult", "rq_shift_range"}));
  EXPECT_TRUE(c["verdict"]["npu"]);  // flags do not change membership
}

TEST(ProfileNpu, ClassWidths) {
  EXPECT_EQ(class_width(Profile::acc32, WidthClass::product), 64u);
  EXPECT_EQ(class_width(Profile::acc32, WidthClass::wide), 32u);
  EXPECT_EQ(class_width(Profile::acc64, WidthClass::wide), 128u);
  EXPECT_EQ(class_width(Profile::acc64, WidthClass::tensor), 64u);
  EXPECT_EQ(class_of("igdn.gx2"), WidthClass::product);
  EXPECT_EQ(class_of("ln.dk"), WidthClass::wide);
  EXPECT_EQ(class_of("ln.n"), WidthClass::acc);
}

}  // namespace
}  // namespace loam::wai
