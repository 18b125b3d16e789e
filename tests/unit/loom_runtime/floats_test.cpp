// The narrow float formats of the Loom runtime against numpy / ml_dtypes expectations (the committed
// fixture float_cases.inc, written by make_float_cases.py) and exhaustive round trips.
#include "loom/loom_rt.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <utility>

namespace {

struct FloatCase16 {
  std::uint64_t in;
  std::uint16_t out;
};
struct FloatCase8 {
  std::uint64_t in;
  std::uint8_t out;
  std::uint8_t sat;
};

#include "float_cases.inc"

using namespace loom_rt;

double as_double(std::uint64_t b) { return std::bit_cast<double>(b); }
std::uint32_t f32_bits(float f) { return std::bit_cast<std::uint32_t>(f); }

// f32 bits with NaNs made the quiet NaN of their sign, as the fixture records them.
std::uint32_t canonical(std::uint32_t b) {
  if ((b & 0x7F800000u) == 0x7F800000u && (b & 0x7FFFFFu)) return (b & 0x80000000u) | 0x7FC00000u;
  return b;
}

std::uint64_t fnv1a_add(std::uint64_t h, std::uint32_t w) {
  for (int k = 0; k < 4; ++k) {
    h ^= (w >> (8 * k)) & 0xFFu;
    h *= 0x100000001B3ull;
  }
  return h;
}

template <class Case, class F> int count_mismatches(const Case* cases, std::size_t n, const char* what, F expect_and_got) {
  int bad = 0;
  for (std::size_t i = 0; i < n; ++i) {
    auto [want, got] = expect_and_got(cases[i]);
    if (want != got) {
      if (++bad <= 10)
        std::printf("%s: input %a (0x%016llx): want 0x%x got 0x%x\n", what, as_double(cases[i].in),
                    (unsigned long long)cases[i].in, unsigned(want), unsigned(got));
    }
  }
  return bad;
}

// ---- compile-time checks ------------------------------------------------------------------------

static_assert(f16_from_f64(1.0) == 0x3C00);
static_assert(f16_from_f64(65504.0) == 0x7BFF);
static_assert(f16_from_f64(65520.0) == 0x7C00);  // the tie above the largest finite rounds to even: inf
static_assert(f16_to_f32(0x0001) == 0x1p-24f);
static_assert(bf16_from_f64(1.0) == 0x3F80);
static_assert(bf16_to_f32(0xC040) == -3.0f);
static_assert(f8e4m3_from_f64(464.0, false) == 0x7E);  // tie rounds to even, to 448
static_assert(f8e4m3_from_f64(465.0, false) == 0x7F);
static_assert(f8e4m3_from_f64(465.0, true) == 0x7E);
static_assert(f8e4m3_to_f32(0x7E) == 448.0f);
static_assert(f8e4m3_to_f32(0x01) == 0x1p-9f);
static_assert(f8e5m2_from_f64(-1e9, false) == 0xFC);
static_assert(f8e5m2_from_f64(-1e9, true) == 0xFB);
static_assert(f8e5m2_to_f32(0x7B) == 57344.0f);
static_assert(f8e5m2_to_f32(0x01) == 0x1p-16f);

// ---- narrowing against the fixture ------------------------------------------------------------------

TEST(LoomFloats, F16FromF64MatchesNumpy) {
  ASSERT_GT(std::size(f16_cases), 1000u);
  EXPECT_EQ(0, count_mismatches(f16_cases, std::size(f16_cases), "f16", [](const FloatCase16& c) {
              return std::pair{unsigned(c.out), unsigned(f16_from_f64(as_double(c.in)))};
            }));
}

TEST(LoomFloats, Bf16FromF64MatchesMlDtypes) {
  ASSERT_GT(std::size(bf16_cases), 1000u);
  EXPECT_EQ(0, count_mismatches(bf16_cases, std::size(bf16_cases), "bf16", [](const FloatCase16& c) {
              return std::pair{unsigned(c.out), unsigned(bf16_from_f64(as_double(c.in)))};
            }));
}

TEST(LoomFloats, E4m3FromF64MatchesMlDtypes) {
  ASSERT_GT(std::size(e4m3_cases), 500u);
  EXPECT_EQ(0, count_mismatches(e4m3_cases, std::size(e4m3_cases), "e4m3", [](const FloatCase8& c) {
              return std::pair{unsigned(c.out), unsigned(f8e4m3_from_f64(as_double(c.in), false))};
            }));
  EXPECT_EQ(0, count_mismatches(e4m3_cases, std::size(e4m3_cases), "e4m3 saturate", [](const FloatCase8& c) {
              return std::pair{unsigned(c.sat), unsigned(f8e4m3_from_f64(as_double(c.in), true))};
            }));
}

TEST(LoomFloats, E5m2FromF64MatchesMlDtypes) {
  ASSERT_GT(std::size(e5m2_cases), 500u);
  EXPECT_EQ(0, count_mismatches(e5m2_cases, std::size(e5m2_cases), "e5m2", [](const FloatCase8& c) {
              return std::pair{unsigned(c.out), unsigned(f8e5m2_from_f64(as_double(c.in), false))};
            }));
  EXPECT_EQ(0, count_mismatches(e5m2_cases, std::size(e5m2_cases), "e5m2 saturate", [](const FloatCase8& c) {
              return std::pair{unsigned(c.sat), unsigned(f8e5m2_from_f64(as_double(c.in), true))};
            }));
}

// ---- widening, every pattern ---------------------------------------------------------------------

TEST(LoomFloats, F16ToF32MatchesNumpyForEveryPattern) {
  std::uint64_t h = 0xCBF29CE484222325ull;
  for (std::uint32_t p = 0; p < 65536; ++p) h = fnv1a_add(h, canonical(f32_bits(f16_to_f32(std::uint16_t(p)))));
  EXPECT_EQ(h, f16_to_f32_hash);
  // And against the definition, independently of the fixture.
  for (std::uint32_t p = 0; p < 65536; ++p) {
    const int e = (p >> 10) & 31, m = p & 1023;
    const float got = f16_to_f32(std::uint16_t(p));
    if (e == 31) {
      ASSERT_EQ(std::isnan(got), m != 0) << p;
      continue;
    }
    double want = e == 0 ? std::ldexp(double(m), -24) : std::ldexp(double(1024 + m), e - 25);
    if (p & 0x8000) want = -want;
    ASSERT_EQ(f32_bits(got), f32_bits(float(want))) << p;
  }
}

TEST(LoomFloats, Bf16ToF32MatchesMlDtypesForEveryPattern) {
  std::uint64_t h = 0xCBF29CE484222325ull;
  for (std::uint32_t p = 0; p < 65536; ++p) h = fnv1a_add(h, canonical(f32_bits(bf16_to_f32(std::uint16_t(p)))));
  EXPECT_EQ(h, bf16_to_f32_hash);
}

TEST(LoomFloats, F8ToF32MatchesMlDtypesForEveryPattern) {
  for (int p = 0; p < 256; ++p) {
    EXPECT_EQ(canonical(f32_bits(f8e4m3_to_f32(std::uint8_t(p)))), e4m3_to_f32_table[p]) << "e4m3 " << p;
    EXPECT_EQ(canonical(f32_bits(f8e5m2_to_f32(std::uint8_t(p)))), e5m2_to_f32_table[p]) << "e5m2 " << p;
  }
}

// ---- round trips -------------------------------------------------------------------------------------

// A NaN keeps its sign and payload and gets its quiet bit; everything else comes back unchanged.
TEST(LoomFloats, F16RoundTripsEveryPattern) {
  for (std::uint32_t p = 0; p < 65536; ++p) {
    const bool nan = (p & 0x7C00) == 0x7C00 && (p & 0x3FF);
    const unsigned want = nan ? (p | 0x200) : p;
    const float f = f16_to_f32(std::uint16_t(p));
    ASSERT_EQ(unsigned(f16_from_f64(double(f))), want) << p;
    if (nan) {
      ASSERT_TRUE(std::isnan(f));
    }
  }
}

TEST(LoomFloats, Bf16RoundTripsEveryPattern) {
  for (std::uint32_t p = 0; p < 65536; ++p) {
    const bool nan = (p & 0x7F80) == 0x7F80 && (p & 0x7F);
    const unsigned want = nan ? (p | 0x40) : p;
    ASSERT_EQ(unsigned(bf16_from_f64(double(bf16_to_f32(std::uint16_t(p))))), want) << p;
  }
}

TEST(LoomFloats, F8RoundTripsEveryPattern) {
  for (int p = 0; p < 256; ++p) {
    for (bool sat : {false, true}) {
      // E4M3: the only NaNs are 0x7F and 0xFF.
      EXPECT_EQ(unsigned(f8e4m3_from_f64(double(f8e4m3_to_f32(std::uint8_t(p))), sat)), unsigned(p)) << p;
      const bool nan = (p & 0x7C) == 0x7C && (p & 0x3);
      const bool inf = (p & 0x7F) == 0x7C;
      unsigned want = nan ? unsigned(p | 0x2) : unsigned(p);
      if (inf && sat) want = (p & 0x80) | 0x7B;
      EXPECT_EQ(unsigned(f8e5m2_from_f64(double(f8e5m2_to_f32(std::uint8_t(p))), sat)), want) << p;
    }
  }
}

// ---- special values ----------------------------------------------------------------------------------

TEST(LoomFloats, SpecialValues) {
  const double inf = INFINITY, nan = NAN;
  EXPECT_EQ(f16_from_f64(inf), 0x7C00);
  EXPECT_EQ(f16_from_f64(-inf), 0xFC00);
  EXPECT_EQ(f16_from_f64(nan), 0x7E00);
  EXPECT_EQ(f16_from_f64(-nan), 0xFE00);
  EXPECT_EQ(f16_from_f64(-0.0), 0x8000);
  EXPECT_EQ(f16_from_f64(1e300), 0x7C00);
  EXPECT_EQ(f16_from_f64(0x1p-25), 0x0000);                         // a tie with 0 goes to 0
  EXPECT_EQ(f16_from_f64(std::nextafter(0x1p-25, 1.0)), 0x0001);  // just above it does not
  EXPECT_EQ(f16_from_f64(std::bit_cast<double>(0x7FF0000000000001ull)), 0x7E00);  // signalling NaN: quieted
  EXPECT_EQ(f16_from_f64(std::bit_cast<double>(0xFFFA000000000000ull)), 0xFE80);  // sign and top payload kept
  EXPECT_EQ(bf16_from_f64(-inf), 0xFF80);
  EXPECT_EQ(bf16_from_f64(nan), 0x7FC0);
  EXPECT_EQ(bf16_from_f64(3.4e38), 0x7F80);
  // Rounding straight from double: 1 + 2^-8 + 2^-40 is above the bf16 midpoint, although as a float
  // it would be the midpoint itself and round down to even.
  EXPECT_EQ(bf16_from_f64(1.0 + 0x1p-8 + 0x1p-40), 0x3F81);
  EXPECT_EQ(f16_from_f64(1.0 + 0x1p-11 + 0x1p-40), 0x3C01);
  for (bool sat : {false, true}) {
    EXPECT_EQ(f8e4m3_from_f64(nan, sat), 0x7F);
    EXPECT_EQ(f8e4m3_from_f64(-nan, sat), 0xFF);
    EXPECT_EQ(f8e5m2_from_f64(nan, sat), 0x7E);
    EXPECT_EQ(f8e5m2_from_f64(-nan, sat), 0xFE);
  }
  EXPECT_EQ(f8e4m3_from_f64(inf, false), 0x7F);
  EXPECT_EQ(f8e4m3_from_f64(-inf, false), 0xFF);
  EXPECT_EQ(f8e4m3_from_f64(inf, true), 0x7E);
  EXPECT_EQ(f8e4m3_from_f64(-inf, true), 0xFE);
  EXPECT_EQ(f8e4m3_from_f64(-448.0, false), 0xFE);
  EXPECT_EQ(f8e5m2_from_f64(inf, false), 0x7C);
  EXPECT_EQ(f8e5m2_from_f64(-inf, true), 0xFB);
  EXPECT_EQ(f8e5m2_from_f64(61440.0, false), 0x7C);  // tie above the largest finite: to even, inf
  EXPECT_EQ(f8e5m2_from_f64(61440.0, true), 0x7B);
  EXPECT_EQ(f8e5m2_from_f64(61439.0, false), 0x7B);
  EXPECT_TRUE(std::isnan(f8e4m3_to_f32(0xFF)) && std::signbit(f8e4m3_to_f32(0xFF)));
  EXPECT_TRUE(std::isinf(f8e5m2_to_f32(0xFC)) && std::signbit(f8e5m2_to_f32(0xFC)));
  EXPECT_EQ(f32_bits(f16_to_f32(0x7C01)), 0x7FC02000u);  // quiet bit set, payload kept
}

}  // namespace
