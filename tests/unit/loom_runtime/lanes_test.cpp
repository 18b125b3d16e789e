// The lane helpers of the Loom runtime: traits, select, comparisons, min/max rules, rounding, fma.
#include "loom/loom_rt.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

// Emitted C++ pastes the body files inside a namespace of its own choosing, and one translation
// unit may hold two such pastes besides loom_rt's own.
namespace paste_a {
#include "loom/lanes.inc.hpp"
#include "loom/floats.inc.hpp"
#include "loom/math.inc.hpp"
}  // namespace paste_a
namespace paste_b {
#include "loom/lanes.inc.hpp"
#include "loom/floats.inc.hpp"
#include "loom/math.inc.hpp"
}  // namespace paste_b

namespace {

using namespace loom_rt;
using F4 = vec<float, 4>;
using F8 = vec<float, 8>;
using D4 = vec<double, 4>;
using I8 = vec<std::int32_t, 8>;

static_assert(lane_count_v<float> == 1 && lane_count_v<F8> == 8 && lane_count_v<D4> == 4);
static_assert(std::is_same_v<element_t<F8>, float> && std::is_same_v<element_t<double>, double>);
static_assert(std::is_same_v<with_element_t<F8, std::int32_t>, I8>);
static_assert(std::is_same_v<with_element_t<float, std::int32_t>, std::int32_t>);
static_assert(std::is_same_v<with_element_t<F4, double>, vec<double, 4>>);
static_assert(std::is_same_v<mask_t<float>, bool>);
static_assert(std::is_same_v<mask_t<F8>, I8>);
static_assert(std::is_same_v<mask_t<D4>, vec<std::int64_t, 4>>);
static_assert(std::is_same_v<mask_t<vec<std::uint8_t, 16>>, vec<std::int8_t, 16>>);
static_assert(std::is_same_v<decltype(less_lanes(D4{}, D4{})), mask_t<D4>>);
static_assert(bitcast_lanes<std::uint32_t>(1.0f) == 0x3F800000u);

std::uint32_t bits(float f) { return std::bit_cast<std::uint32_t>(f); }
std::uint64_t bits(double f) { return std::bit_cast<std::uint64_t>(f); }

// Same value and sign, or both NaN.
template <class T> bool same(T a, T b) { return (std::isnan(a) && std::isnan(b)) || bits(a) == bits(b); }

// A float from every `stride`-th bit pattern, plus the bit patterns near the edges that matter.
template <class F> void for_float_patterns(std::uint32_t stride, F f) {
  for (std::uint64_t b = 0; b < (1ull << 32); b += stride) f(std::bit_cast<float>(std::uint32_t(b)));
  for (float x : {0.0f, -0.0f, 0.5f, -0.5f, 1.5f, -1.5f, 2.5f, -2.5f, 0x1p23f, -0x1p23f, 0x1.fffffep22f,
                  -0x1.fffffep22f, 0x1.fffffcp22f, 8388607.5f, -8388607.5f, 4194303.5f, 0x1p-149f, -0x1p-149f})
    f(x);
}

#ifdef __OPTIMIZE__
constexpr std::uint32_t kStride = 1021;
#else
constexpr std::uint32_t kStride = 16381;
#endif

TEST(LoomLanes, SplatSelectCompare) {
  F8 a = splat_lanes<F8>(-0.0f);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(bits(a[i]), 0x80000000u);
  F8 x = {1, 2, 3, 4, 5, 6, 7, 8};
  F8 y = {8, 7, 6, 5, 4, 3, 2, 1};
  I8 m = lt_lanes(x, y);
  F8 s = select_lanes(m, x, y);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(m[i], x[i] < y[i] ? -1 : 0);
    EXPECT_EQ(s[i], x[i] < y[i] ? x[i] : y[i]);
  }
  EXPECT_TRUE(any_lanes(m));
  EXPECT_FALSE(all_lanes(m));
  EXPECT_TRUE(all_lanes(le_lanes(x, x)));
  EXPECT_FALSE(any_lanes(ne_lanes(x, x)));
  EXPECT_FALSE(any_lanes(not_mask(eq_lanes(x, x))));
  EXPECT_TRUE(all_lanes(or_masks(m, ge_lanes(x, y))));
  EXPECT_FALSE(any_lanes(and_masks(m, gt_lanes(x, y))));
  EXPECT_EQ(select_lanes(less_lanes(1.0f, 2.0f), 3.0f, 4.0f), 3.0f);
  EXPECT_EQ(select_lanes(not_mask(less_lanes(1.0f, 2.0f)), 3.0f, 4.0f), 4.0f);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(isnan_lanes(nan));
  EXPECT_FALSE(eq_lanes(nan, nan));
  EXPECT_TRUE(ne_lanes(nan, nan));
  EXPECT_FALSE(any_lanes(isnan_lanes(x)));
  F4 c = convert_lanes<F4>(vec<std::int32_t, 4>{-3, 0, 7, 1 << 24});
  EXPECT_EQ(c[0], -3.0f);
  EXPECT_EQ(c[3], 16777216.0f);
  vec<std::int32_t, 4> t = convert_lanes<vec<std::int32_t, 4>>(F4{-2.75f, 2.75f, -0.5f, 1e9f});
  EXPECT_EQ(t[0], -2);
  EXPECT_EQ(t[1], 2);
  EXPECT_EQ(t[2], 0);
  EXPECT_EQ(t[3], 1000000000);
  using U4 = vec<std::uint32_t, 4>;
  EXPECT_EQ(bitcast_lanes<U4>(F4{1, 2, 3, 4})[1], 0x40000000u);
  F4 sq = map_lanes(F4{1, 4, 9, 16}, [](float v) { return v + 1.0f; });
  EXPECT_EQ(sq[3], 17.0f);
  F4 mp = map_lanes(F4{1, 2, 3, 4}, F4{4, 3, 2, 1}, [](float u, float v) { return u - v; });
  EXPECT_EQ(mp[0], -3.0f);
}

// IEEE 754-2019 minimum / maximum: NaN if either is NaN, -0 < +0.
TEST(LoomLanes, MinMaxNanAndSignedZero) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = INFINITY;
  EXPECT_EQ(bits(min_lanes(-0.0f, 0.0f)), 0x80000000u);
  EXPECT_EQ(bits(min_lanes(0.0f, -0.0f)), 0x80000000u);
  EXPECT_EQ(bits(max_lanes(-0.0f, 0.0f)), 0u);
  EXPECT_EQ(bits(max_lanes(0.0f, -0.0f)), 0u);
  EXPECT_TRUE(std::isnan(min_lanes(nan, 1.0f)));
  EXPECT_TRUE(std::isnan(min_lanes(1.0f, nan)));
  EXPECT_TRUE(std::isnan(max_lanes(nan, -inf)));
  EXPECT_TRUE(std::isnan(max_lanes(inf, nan)));
  EXPECT_EQ(min_lanes(-inf, 3.0f), -inf);
  EXPECT_EQ(max_lanes(-inf, 3.0f), 3.0f);
  EXPECT_EQ(min_lanes(2.0f, 1.0f), 1.0f);
  EXPECT_EQ(max_lanes(2.0, 1.0), 2.0);
  EXPECT_EQ(bits(min_lanes(0.0, -0.0)), 0x8000000000000000ull);
  EXPECT_EQ(min_lanes(3, -4), -4);
  EXPECT_EQ(max_lanes(3, -4), 3);
  F8 a = {-0.0f, 0.0f, nan, 1.0f, -inf, 5.0f, -1.0f, 0.0f};
  F8 b = {0.0f, -0.0f, 1.0f, nan, 2.0f, 5.0f, -2.0f, 0.0f};
  F8 mn = min_lanes(a, b), mx = max_lanes(a, b);
  for (int i = 0; i < 8; ++i) {
    EXPECT_TRUE(same(mn[i], min_lanes(a[i], b[i]))) << i;
    EXPECT_TRUE(same(mx[i], max_lanes(a[i], b[i]))) << i;
  }
  EXPECT_EQ(bits(mn[0]), 0x80000000u);
  EXPECT_EQ(bits(mx[1]), 0u);
  EXPECT_TRUE(std::isnan(mn[2]) && std::isnan(mn[3]) && std::isnan(mx[2]) && std::isnan(mx[3]));
  EXPECT_EQ(mn[6], -2.0f);
  EXPECT_EQ(mx[6], -1.0f);
}

TEST(LoomLanes, AbsCopysign) {
  EXPECT_EQ(bits(abs_lanes(-0.0f)), 0u);
  EXPECT_EQ(abs_lanes(-INFINITY), INFINITY);
  EXPECT_EQ(abs_lanes(-2.5), 2.5);
  EXPECT_EQ(abs_lanes(-7), 7);
  EXPECT_EQ(abs_lanes(std::int8_t(-128)), std::int8_t(-128));  // wraps, as two's complement does
  EXPECT_FALSE(std::signbit(abs_lanes(-std::numeric_limits<float>::quiet_NaN())));
  EXPECT_EQ(copysign_lanes(3.0f, -0.0f), -3.0f);
  EXPECT_EQ(copysign_lanes(-3.0, 1.0), 3.0);
  vec<std::int32_t, 4> ai = abs_lanes(vec<std::int32_t, 4>{-1, 2, -3, 0});
  EXPECT_EQ(ai[0], 1);
  EXPECT_EQ(ai[2], 3);
}

TEST(LoomLanes, RoundingTiesAndSigns) {
  EXPECT_EQ(round_even_lanes(0.5f), 0.0f);
  EXPECT_EQ(round_even_lanes(1.5f), 2.0f);
  EXPECT_EQ(round_even_lanes(2.5f), 2.0f);
  EXPECT_EQ(round_even_lanes(-2.5f), -2.0f);
  EXPECT_EQ(round_even_lanes(-3.5f), -4.0f);
  EXPECT_EQ(bits(round_even_lanes(-0.5f)), 0x80000000u);
  EXPECT_EQ(bits(round_even_lanes(-0.25f)), 0x80000000u);
  EXPECT_EQ(round_even_lanes(0x1.fffffep-2f), 0.0f);  // just below 0.5
  EXPECT_EQ(round_even_lanes(8388607.5f), 8388608.0f);
  EXPECT_EQ(round_even_lanes(4194302.5f), 4194302.0f);
  EXPECT_EQ(round_even_lanes(2.5), 2.0);
  EXPECT_EQ(round_even_lanes(4503599627370495.5), 4503599627370496.0);
  EXPECT_EQ(floor_lanes(-0.5f), -1.0f);
  EXPECT_EQ(floor_lanes(-1.0f), -1.0f);
  EXPECT_EQ(floor_lanes(-1.25f), -2.0f);
  EXPECT_EQ(bits(floor_lanes(-0.0f)), 0x80000000u);
  EXPECT_EQ(floor_lanes(0x1p-149f), 0.0f);
  EXPECT_EQ(floor_lanes(-0x1p-149f), -1.0f);
  EXPECT_EQ(bits(ceil_lanes(-0.7f)), 0x80000000u);
  EXPECT_EQ(ceil_lanes(-1.5f), -1.0f);
  EXPECT_EQ(ceil_lanes(0x1p-149f), 1.0f);
  EXPECT_EQ(bits(trunc_lanes(-0.7f)), 0x80000000u);
  EXPECT_EQ(trunc_lanes(-1.7f), -1.0f);
  EXPECT_EQ(trunc_lanes(1.7), 1.0);
  for (float big : {0x1p23f, 0x1.000002p23f, 1e30f, std::numeric_limits<float>::max(), -0x1.000002p23f}) {
    EXPECT_EQ(floor_lanes(big), big);
    EXPECT_EQ(ceil_lanes(big), big);
    EXPECT_EQ(trunc_lanes(big), big);
    EXPECT_EQ(round_even_lanes(big), big);
  }
  EXPECT_EQ(floor_lanes(-INFINITY), -INFINITY);
  EXPECT_TRUE(std::isnan(ceil_lanes(std::numeric_limits<float>::quiet_NaN())));
}

// Bitwise equal to the C library over a sweep of all float bit patterns.
TEST(LoomLanes, RoundingMatchesStdForFloats) {
  int bad = 0;
  for_float_patterns(kStride, [&](float x) {
    bad += !same(round_even_lanes(x), std::nearbyint(x));
    bad += !same(floor_lanes(x), std::floor(x));
    bad += !same(ceil_lanes(x), std::ceil(x));
    bad += !same(trunc_lanes(x), std::trunc(x));
    bad += !same(sqrt_lanes(x), std::sqrt(x));
  });
  EXPECT_EQ(bad, 0);
}

TEST(LoomLanes, RoundingMatchesStdForDoubles) {
  std::uint64_t s = 0x9E3779B97F4A7C15ull;
  int bad = 0;
  for (int i = 0; i < 200000; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    // Random bits, and random values of moderate size (where the rounding matters).
    const double x = (i & 1) ? std::bit_cast<double>(s) : std::ldexp(double(std::int64_t(s) >> 11), int(s % 64) - 60);
    bad += !same(round_even_lanes(x), std::nearbyint(x));
    bad += !same(floor_lanes(x), std::floor(x));
    bad += !same(ceil_lanes(x), std::ceil(x));
    bad += !same(trunc_lanes(x), std::trunc(x));
    bad += !same(sqrt_lanes(x), std::sqrt(x));
  }
  EXPECT_EQ(bad, 0);
}

TEST(LoomLanes, FmaIsFused) {
  // (1 + 2^-13)(1 - 2^-13) = 1 - 2^-26 rounds to 1 as a float product: only a fused a*b+c keeps it.
  const float a = 1.0f + 0x1p-13f, b = 1.0f - 0x1p-13f;
  EXPECT_EQ(fma_lanes(a, b, -1.0f), -0x1p-26f);
  F8 r = fma_lanes(splat_lanes<F8>(a), splat_lanes<F8>(b), splat_lanes<F8>(-1.0f));
  for (int i = 0; i < 8; ++i) EXPECT_EQ(r[i], -0x1p-26f);
  const double c = 1.0 + 0x1p-30, d = 1.0 - 0x1p-30;
  EXPECT_EQ(fma_lanes(c, d, -1.0), -0x1p-60);
  D4 rd = fma_lanes(splat_lanes<D4>(c), splat_lanes<D4>(d), splat_lanes<D4>(-1.0));
  EXPECT_EQ(rd[3], -0x1p-60);
}

TEST(LoomLanes, VectorHelpersMatchScalar) {
  std::uint32_t s = 12345;
  int bad = 0;
  for (int it = 0; it < 4000; ++it) {
    F8 x, y, z;
    for (int i = 0; i < 8; ++i) {
      s = s * 1664525u + 1013904223u;
      x[i] = std::bit_cast<float>(s);
      s = s * 1664525u + 1013904223u;
      y[i] = (it & 1) ? std::bit_cast<float>(s) : float(std::int32_t(s) >> 8) * 0.25f;
      z[i] = x[i] * 0.5f;
    }
    F8 r[] = {round_even_lanes(y), floor_lanes(y), ceil_lanes(y), trunc_lanes(y), sqrt_lanes(x), abs_lanes(x),
              min_lanes(x, y), max_lanes(x, y), fma_lanes(x, y, z), copysign_lanes(x, y)};
    for (int i = 0; i < 8; ++i) {
      float w[] = {round_even_lanes(y[i]), floor_lanes(y[i]), ceil_lanes(y[i]), trunc_lanes(y[i]), sqrt_lanes(x[i]),
                   abs_lanes(x[i]), min_lanes(x[i], y[i]), max_lanes(x[i], y[i]), fma_lanes(x[i], y[i], z[i]),
                   copysign_lanes(x[i], y[i])};
      for (int k = 0; k < 10; ++k) bad += bits(r[k][i]) != bits(w[k]);
    }
  }
  EXPECT_EQ(bad, 0);
}

TEST(LoomLanes, BodyFilesPasteTwice) {
  using A8 = paste_a::vec<float, 8>;
  using B8 = paste_b::vec<float, 8>;
  const A8 a = paste_a::math::erf(paste_a::splat_lanes<A8>(0.75f));
  const B8 b = paste_b::math::erf(paste_b::splat_lanes<B8>(0.75f));
  EXPECT_EQ(bits(a[3]), bits(b[3]));
  EXPECT_EQ(bits(paste_a::math::exp(1.5f)), bits(math::exp(1.5f)));
  EXPECT_EQ(paste_b::f16_from_f64(0.1), f16_from_f64(0.1));
}

}  // namespace
