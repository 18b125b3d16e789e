// Scalar and vector instantiations of every Loom runtime function give bitwise-equal lanes. This
// source is built twice: with the project's flags (where wide vectors are split into narrower
// registers) and with -O2 -march=native (real AVX2 / AVX-512 code on machines that have it).
#include "loom/loom_rt.hpp"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <vector>

namespace {

using namespace loom_rt;

constexpr float kInf = std::numeric_limits<float>::infinity();

// Special values and the edges of each function's ranges, then random bit patterns and random
// values in the ranges that matter; padded to a multiple of 16 lanes.
std::vector<float> float_inputs() {
  std::vector<float> v = {0.0f, -0.0f, kInf, -kInf, std::numeric_limits<float>::quiet_NaN(),
                          -std::numeric_limits<float>::quiet_NaN(), std::bit_cast<float>(0x7FA00001u),
                          std::bit_cast<float>(0xFFC12345u), FLT_MIN, -FLT_MIN, 0x1p-149f, -0x1p-149f, FLT_MAX,
                          -FLT_MAX, 1.0f, -1.0f, 0.5f, -0.5f, 1.5f, 2.5f, -2.5f, 0.625f, 0x1.3fffffp-1f, 9.5f,
                          -9.5f, 3.95f, -3.95f, 0x1.f99998p+1f, 88.72283172607422f, 88.72283935546875f, 89.0f,
                          -103.97207641601562f, -103.97208404541016f, -104.0f, -87.3f, 0.70710677f, 1.4142135f,
                          0x1p-126f, 0x1.fffffep-127f, 65536.0f, -65536.0f, 1048576.0f, 1048576.125f, -1048576.125f,
                          1e7f, 1e30f, 0x1p23f, 8388607.5f, -8388607.5f, 3.14159274f, 1.57079637f, -1.57079637f};
  std::uint64_t s = 0x0123456789ABCDEFull;
  auto next = [&] {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return std::uint32_t(s >> 32);
  };
  for (int i = 0; i < 1500; ++i) v.push_back(std::bit_cast<float>(next()));
  for (float range : {1.0f, 5.0f, 12.0f, 110.0f, 70000.0f, 2e6f}) {
    for (int i = 0; i < 250; ++i) v.push_back(range * (float(next()) * 0x1p-31f - 1.0f));
  }
  while (v.size() % 16) v.push_back(float(v.size()));
  return v;
}

template <class V> V load(const float* p) {
  V v = {};
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Compare the scalar results of f with its results on vec<float, N>, N = 4, 8, 16.
template <class F> int compare_unary(const char* name, F f) {
  const std::vector<float> in = float_inputs();
  int bad = 0;
  auto check = [&]<int N>(std::integral_constant<int, N>) {
    using V = vec<float, N>;
    for (std::size_t i = 0; i < in.size(); i += N) {
      V r = f(load<V>(&in[i]));
      for (int k = 0; k < N; ++k) {
        const float want = f(in[i + k]);
        if (std::bit_cast<std::uint32_t>(r[k]) != std::bit_cast<std::uint32_t>(want) && ++bad <= 5)
          std::printf("%s N=%d x=%a: vector %a scalar %a\n", name, N, double(in[i + k]), double(r[k]), double(want));
      }
    }
  };
  check(std::integral_constant<int, 4>{});
  check(std::integral_constant<int, 8>{});
  check(std::integral_constant<int, 16>{});
  return bad;
}

// The same for two-argument functions, pairing each input with a shifted one.
template <class F> int compare_binary(const char* name, F f) {
  const std::vector<float> in = float_inputs();
  std::vector<float> other(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) other[i] = in[(i * 7 + 3) % in.size()];
  int bad = 0;
  auto check = [&]<int N>(std::integral_constant<int, N>) {
    using V = vec<float, N>;
    for (std::size_t i = 0; i < in.size(); i += N) {
      V r = f(load<V>(&in[i]), load<V>(&other[i]));
      for (int k = 0; k < N; ++k) {
        const float want = f(in[i + k], other[i + k]);
        if (std::bit_cast<std::uint32_t>(r[k]) != std::bit_cast<std::uint32_t>(want) && ++bad <= 5)
          std::printf("%s N=%d x=%a y=%a: vector %a scalar %a\n", name, N, double(in[i + k]), double(other[i + k]),
                      double(r[k]), double(want));
      }
    }
  };
  check(std::integral_constant<int, 4>{});
  check(std::integral_constant<int, 8>{});
  check(std::integral_constant<int, 16>{});
  return bad;
}

#define UNARY(fn) [](auto v) { return fn(v); }

TEST(LoomSimd, PolynomialMathMatchesScalar) {
  EXPECT_EQ(compare_unary("exp", UNARY(math::exp)), 0);
  EXPECT_EQ(compare_unary("log", UNARY(math::log)), 0);
  EXPECT_EQ(compare_unary("tanh", UNARY(math::tanh)), 0);
  EXPECT_EQ(compare_unary("erf", UNARY(math::erf)), 0);
  EXPECT_EQ(compare_unary("sigmoid", UNARY(math::sigmoid)), 0);
  EXPECT_EQ(compare_unary("sin", UNARY(math::sin)), 0);
  EXPECT_EQ(compare_unary("cos", UNARY(math::cos)), 0);
}

TEST(LoomSimd, LibraryMathMatchesScalar) {
  EXPECT_EQ(compare_binary("pow", [](auto x, auto y) { return math::pow(x, y); }), 0);
  EXPECT_EQ(compare_unary("tan", UNARY(math::tan)), 0);
  EXPECT_EQ(compare_unary("asin", UNARY(math::asin)), 0);
  EXPECT_EQ(compare_unary("acos", UNARY(math::acos)), 0);
  EXPECT_EQ(compare_unary("atan", UNARY(math::atan)), 0);
  EXPECT_EQ(compare_unary("sinh", UNARY(math::sinh)), 0);
  EXPECT_EQ(compare_unary("cosh", UNARY(math::cosh)), 0);
  EXPECT_EQ(compare_unary("asinh", UNARY(math::asinh)), 0);
  EXPECT_EQ(compare_unary("acosh", UNARY(math::acosh)), 0);
  EXPECT_EQ(compare_unary("atanh", UNARY(math::atanh)), 0);
}

TEST(LoomSimd, LaneHelpersMatchScalar) {
  EXPECT_EQ(compare_unary("floor", UNARY(floor_lanes)), 0);
  EXPECT_EQ(compare_unary("ceil", UNARY(ceil_lanes)), 0);
  EXPECT_EQ(compare_unary("trunc", UNARY(trunc_lanes)), 0);
  EXPECT_EQ(compare_unary("round_even", UNARY(round_even_lanes)), 0);
  EXPECT_EQ(compare_unary("sqrt", UNARY(sqrt_lanes)), 0);
  EXPECT_EQ(compare_unary("abs", UNARY(abs_lanes)), 0);
  EXPECT_EQ(compare_binary("min", [](auto x, auto y) { return min_lanes(x, y); }), 0);
  EXPECT_EQ(compare_binary("max", [](auto x, auto y) { return max_lanes(x, y); }), 0);
  EXPECT_EQ(compare_binary("fma", [](auto x, auto y) { return fma_lanes(x, y, x); }), 0);
  EXPECT_EQ(compare_binary("select", [](auto x, auto y) { return select_lanes(lt_lanes(x, y), x, y); }), 0);
}

// Double lanes go through the C library lane by lane; vec<double, 4> / <8> must agree with scalar.
TEST(LoomSimd, DoubleLanesMatchScalar) {
  const std::vector<float> in = float_inputs();
  int bad = 0;
  auto check = [&]<int N>(std::integral_constant<int, N>, auto f) {
    using V = vec<double, N>;
    for (std::size_t i = 0; i + N <= in.size(); i += N) {
      V v = {};
      for (int k = 0; k < N; ++k) v[k] = double(in[i + k]) * 1.25;
      V r = f(v);
      for (int k = 0; k < N; ++k) bad += std::bit_cast<std::uint64_t>(r[k]) != std::bit_cast<std::uint64_t>(f(v[k]));
    }
  };
  for (int n : {4, 8}) {
    auto run = [&](auto f) {
      if (n == 4) check(std::integral_constant<int, 4>{}, f);
      else check(std::integral_constant<int, 8>{}, f);
    };
    run(UNARY(math::exp));
    run(UNARY(math::log));
    run(UNARY(math::tanh));
    run(UNARY(math::erf));
    run(UNARY(math::sigmoid));
    run(UNARY(math::sin));
    run(UNARY(math::cos));
    run(UNARY(floor_lanes));
    run(UNARY(round_even_lanes));
    run(UNARY(sqrt_lanes));
  }
  EXPECT_EQ(bad, 0);
}

}  // namespace
