// Admissible ranges (§8.4), worked out by hand.
#include "bounds_graphs.hpp"
#include "wai/admissible.hpp"

#include <gtest/gtest.h>

namespace loam::wai {
namespace {

using namespace testing;

TEST(BoundsAdmissible, OneByOneConvByThree) {
  // conv 1x1, weight 3, shift 0: every value is 3·x, so X* = floor(limit / 3).
  Whg1Graph g = with_input(1, -10, 10);
  add_op(g, Opcode::conv, {0}, conv1x1(1, {3}, rq_plain(0)), 1);
  const auto b = write_whg1(g);
  const auto r32 = admissible_range(b, 0, Profile::acc32);
  ASSERT_TRUE(r32);
  EXPECT_EQ(r32->lo, -715827882);  // floor((2^31 - 1) / 3)
  EXPECT_EQ(r32->hi, 715827882);
  const auto r64 = admissible_range(b, 0, Profile::acc64);
  ASSERT_TRUE(r64);
  EXPECT_EQ(r64->lo, -3074457345618258602);  // floor((2^63 - 1) / 3)
  EXPECT_EQ(r64->hi, 3074457345618258602);
}

TEST(BoundsAdmissible, ATensorNoOperatorReadsIsUnbounded) {
  Whg1Graph g = with_input(1, -10, 10);
  add_op(g, Opcode::relu, {0}, std::monostate{}, 1);
  const auto r = admissible_range(write_whg1(g), 1, Profile::acc32);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->lo, INT64_MIN);  // -2^63
  EXPECT_EQ(r->hi, INT64_MAX);  // min(2^63, 2^63 - 1)
}

TEST(BoundsAdmissible, FixedIntervalsAboveI32GiveNoRangeForAcc32) {
  Whg1Graph g = with_input(1, -10, 10, Policy::check, 2, 2);
  add_op(g, Opcode::sigmoid, {0}, std::monostate{}, 1);
  const auto b = write_whg1(g);
  EXPECT_FALSE(admissible_range(b, 0, Profile::acc32));
  // Under acc64, sigmoid's exp.negx = |x| is its only input-dependent value: X* = 2^63 - 1 keeps
  // it in i64, and X = 2^63 does not.
  const auto r = admissible_range(b, 0, Profile::acc64);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->hi, INT64_MAX);
  EXPECT_EQ(r->lo, -INT64_MAX);
}

TEST(BoundsAdmissible, Lut16LimitsItsInput) {
  Whg1Graph g = with_input(1, -10, 10);
  Lut16Params p;
  p.table.assign(65536, 0);
  add_op(g, Opcode::lut16, {0}, p, 1);
  const auto r = admissible_range(write_whg1(g), 0, Profile::acc32);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->hi, 32767);
}

}  // namespace
}  // namespace loam::wai
