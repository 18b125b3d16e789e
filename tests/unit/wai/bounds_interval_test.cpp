// §2 bits(), §8.1 saturation, and §2's roundings on the bounds pass's 512-bit integers. Every
// expected value is worked out by hand from the text.
#include "wai/interval.hpp"

#include <gtest/gtest.h>

namespace loam::wai {
namespace {

TEST(BoundsInterval, BitsIsTheSmallestSignedWidthHoldingBothEnds) {
  EXPECT_EQ(bits(Interval{0, 0}), 1u);
  EXPECT_EQ(bits(Interval{-1, 0}), 1u);
  EXPECT_EQ(bits(Interval{-128, 127}), 8u);
  EXPECT_EQ(bits(Interval{0, 128}), 9u);
  EXPECT_EQ(bits(Interval{-129, 0}), 9u);
  EXPECT_EQ(bits(Interval{-pow2(31), pow2(31) - 1}), 32u);
  EXPECT_EQ(bits(Interval{0, pow2(31)}), 33u);
  // ±2^255, the saturation bound: 2^255 needs 257 signed bits.
  EXPECT_EQ(bits(Interval{-pow2(255), pow2(255)}), 257u);
  EXPECT_EQ(bits(Interval{-pow2(255), 0}), 256u);
}

TEST(BoundsInterval, SatClampsToPlusMinus2To255AndRecordsIt) {
  SatArith s;
  EXPECT_EQ(s.add(pow2(254), pow2(254)), pow2(255));  // exactly the bound: not a change
  EXPECT_FALSE(s.saturated());
  EXPECT_EQ(s.add(pow2(255), 1), pow2(255));
  EXPECT_TRUE(s.saturated());
  SatArith t;
  EXPECT_EQ(t.mul(-pow2(255), pow2(255)), -pow2(255));  // 2^510 is formed exactly, then saturated
  EXPECT_TRUE(t.saturated());
  SatArith u;
  EXPECT_EQ(u.neg(-pow2(255)), pow2(255));
  EXPECT_FALSE(u.saturated());
}

TEST(BoundsInterval, FloorDivisionRoundsTowardMinusInfinity) {
  SatArith s;
  EXPECT_EQ(s.floor_div(-7, 2), -4);
  EXPECT_EQ(s.floor_div(7, 2), 3);
  EXPECT_EQ(s.floor_shift(-1, 100), -1);
  EXPECT_EQ(s.ceil_div(7, 2), 4);
  EXPECT_EQ(s.ceil_div(-7, 2), -3);
}

TEST(BoundsInterval, RoundingsOfSection2) {
  SatArith s;
  // R_half_up: ties toward +inf whatever the sign.
  EXPECT_EQ(s.round_shift(-3, 1, Round::half_up), -1);  // -1.5 -> -1
  EXPECT_EQ(s.round_shift(3, 1, Round::half_up), 2);    // 1.5 -> 2
  // R_half_even: ties to the even q.
  EXPECT_EQ(s.round_shift(5, 1, Round::half_even), 2);   // 2.5 -> 2
  EXPECT_EQ(s.round_shift(7, 1, Round::half_even), 4);   // 3.5 -> 4
  EXPECT_EQ(s.round_shift(-3, 1, Round::half_even), -2); // -1.5 -> -2
  EXPECT_EQ(s.round_shift(-5, 1, Round::half_even), -2); // -2.5 -> -2
  EXPECT_EQ(s.round_shift(-7, 2, Round::half_even), -2); // -1.75 -> -2
  EXPECT_EQ(s.round_shift(-7, 2, Round::floor), -2);
  EXPECT_EQ(s.round_shift(9, 0, Round::half_even), 9);
  // half_up forms p + 2^(s-1): at p = 2^255 that saturates (§8.1 evaluates R as §2 writes it).
  SatArith t;
  EXPECT_EQ(t.round_shift(pow2(255), 1, Round::half_up), pow2(254));
  EXPECT_TRUE(t.saturated());
}

TEST(BoundsInterval, IntegerSquareRoots) {
  SatArith s;
  EXPECT_EQ(s.isqrt(15), 3);
  EXPECT_EQ(s.isqrt(16), 4);
  EXPECT_EQ(s.isqrt_ceil(15), 4);
  EXPECT_EQ(s.isqrt_ceil(16), 4);
  EXPECT_EQ(s.isqrt_ceil(17), 5);
  EXPECT_EQ(s.isqrt(pow2(254)), pow2(127));
}

TEST(BoundsInterval, TermAndCornerHulls) {
  SatArith s;
  EXPECT_EQ(s.term(-3, Interval{-2, 5}), (Interval{-15, 6}));
  EXPECT_EQ(s.corner(Interval{-2, 3}, Interval{-5, 4}), (Interval{-15, 12}));
}

}  // namespace
}  // namespace loam::wai
