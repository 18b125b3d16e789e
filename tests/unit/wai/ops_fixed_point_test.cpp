// §2's integer functions, with expectations from the text's definitions worked by hand.
#include "wai/fixed_point.hpp"

#include <gtest/gtest.h>

using namespace loam::wai;

namespace {
i128 pow2(unsigned s) { return static_cast<i128>(1) << s; }
}  // namespace

TEST(OpsFixedPoint, RoundingAtTiesOnBothSigns) {
  // p = 5, s = 1 is +2.5; p = -5 is -2.5; p = 7 is 3.5; p = -7 is -3.5.
  EXPECT_EQ(round_shift(5, 1, Round::floor), 2);
  EXPECT_EQ(round_shift(5, 1, Round::half_up), 3);
  EXPECT_EQ(round_shift(5, 1, Round::half_even), 2);
  EXPECT_EQ(round_shift(-5, 1, Round::floor), -3);
  EXPECT_EQ(round_shift(-5, 1, Round::half_up), -2);  // a tie rounds toward +inf
  EXPECT_EQ(round_shift(-5, 1, Round::half_even), -2);
  EXPECT_EQ(round_shift(7, 1, Round::half_even), 4);
  EXPECT_EQ(round_shift(-7, 1, Round::half_even), -4);
  EXPECT_EQ(round_shift(-7, 1, Round::half_up), -3);
  // Off the tie.
  EXPECT_EQ(round_shift(-6, 2, Round::half_up), -1);   // -1.5 -> -1
  EXPECT_EQ(round_shift(-7, 2, Round::half_up), -2);   // -1.75 -> -2
  EXPECT_EQ(round_shift(-7, 2, Round::half_even), -2);
  EXPECT_EQ(round_shift(-5, 2, Round::half_even), -1);  // -1.25
  // s = 0 is the identity for every rounding.
  for (Round r : {Round::floor, Round::half_up, Round::half_even}) EXPECT_EQ(round_shift(-9, 0, r), -9);
}

TEST(OpsFixedPoint, RoundingAtTheListedShifts) {
  for (unsigned s : {1u, 31u, 32u, 62u, 63u, 64u, 126u}) {
    const i128 h = pow2(s - 1);
    // +0.5, -0.5, +1.5, -1.5 units of 2^s.
    EXPECT_EQ(round_shift(h, s, Round::floor), 0) << s;
    EXPECT_EQ(round_shift(h, s, Round::half_up), 1) << s;
    EXPECT_EQ(round_shift(h, s, Round::half_even), 0) << s;
    EXPECT_EQ(round_shift(-h, s, Round::floor), -1) << s;
    EXPECT_EQ(round_shift(-h, s, Round::half_up), 0) << s;
    EXPECT_EQ(round_shift(-h, s, Round::half_even), 0) << s;
    EXPECT_EQ(round_shift(3 * h, s, Round::floor), 1) << s;
    EXPECT_EQ(round_shift(3 * h, s, Round::half_up), 2) << s;
    EXPECT_EQ(round_shift(3 * h, s, Round::half_even), 2) << s;
    EXPECT_EQ(round_shift(-3 * h, s, Round::floor), -2) << s;
    EXPECT_EQ(round_shift(-3 * h, s, Round::half_up), -1) << s;
    EXPECT_EQ(round_shift(-3 * h, s, Round::half_even), -2) << s;
  }
  // s = 127: p + 2^126 would pass i128 for p near its top; the result is still exact.
  EXPECT_EQ(round_shift(pow2(126), 127, Round::half_up), 1);
  EXPECT_EQ(round_shift(pow2(126), 127, Round::half_even), 0);
  EXPECT_EQ(round_shift(kI128Max, 127, Round::half_up), 1);
  EXPECT_EQ(round_shift(kI128Max, 127, Round::floor), 0);
  EXPECT_EQ(round_shift(-pow2(126), 127, Round::floor), -1);
  EXPECT_EQ(round_shift(-pow2(126), 127, Round::half_up), 0);
  EXPECT_EQ(round_shift(kI128Min, 127, Round::half_even), -1);  // exactly -1
}

TEST(OpsFixedPoint, ExpNegQ16) {
  EXPECT_EQ(exp_neg_q16(0), 65553);  // §2 states it
  // x = -1: t = 88669, t² = 7862191561, q = 119967, c = 2818624665, y = 43008 + 22544.
  EXPECT_EQ(exp_neg_q16(-1), 65552);
  // x = -45426: n = 1, r = 0, y = 65553, >> 1.
  EXPECT_EQ(exp_neg_q16(-45426), 32776);
  // x = -45425: n = 0, r = -45425, t = 43245, t² = 1870130025, q = 28535, c = 670429825,
  // ⌊c / 2^16⌋ = 10229, y = 32773.
  EXPECT_EQ(exp_neg_q16(-45425), 32773);
  EXPECT_EQ(exp_neg_q16(-45426 * 62), 0);  // n = 62: 65553 >> 62
  EXPECT_EQ(exp_neg_q16(-45426 * 63), 0);  // n = 63: 0 by the rule
  EXPECT_EQ(exp_neg_q16(-pow2(64)), 0);    // a difference of two i64 values
}

TEST(OpsFixedPoint, RsqrtAndIsqrt) {
  EXPECT_EQ(rsqrt_q16(0), 0);
  EXPECT_EQ(rsqrt_q16(1), std::int64_t{1} << 32);
  EXPECT_EQ(rsqrt_q16(3), std::int64_t{1} << 32);  // isqrt(3) = 1
  EXPECT_EQ(rsqrt_q16(4), std::int64_t{1} << 31);
  EXPECT_EQ(rsqrt_q16(25), 858993459);  // ⌊2^32 / 5⌋
  EXPECT_EQ(rsqrt_q16(static_cast<u128>(1) << 64), 1);  // isqrt = 2^32
  EXPECT_EQ(isqrt_u128(static_cast<u128>(1) << 126), static_cast<u128>(1) << 63);
  EXPECT_EQ(isqrt_u128((static_cast<u128>(1) << 126) - 1), (static_cast<u128>(1) << 63) - 1);
  EXPECT_EQ(isqrt_u128(~static_cast<u128>(0)), (static_cast<u128>(1) << 64) - 1);
  EXPECT_EQ(isqrt_ceil_u128(5), 3u);
  EXPECT_EQ(isqrt_ceil_u128(4), 2u);
}

TEST(OpsFixedPoint, CheckedArithmeticRefusesToWrap) {
  i128 r;
  EXPECT_FALSE(checked_add(kI128Max, 1, r));
  EXPECT_FALSE(checked_sub(kI128Min, 1, r));
  EXPECT_FALSE(checked_mul(pow2(64), pow2(63), r));
  EXPECT_TRUE(checked_mul(-pow2(64), pow2(63), r));
  EXPECT_EQ(r, kI128Min);
  EXPECT_FALSE(checked_mul(kI128Min, -1, r));
  EXPECT_TRUE(checked_mul(-3, 5, r));
  EXPECT_EQ(r, -15);
}
