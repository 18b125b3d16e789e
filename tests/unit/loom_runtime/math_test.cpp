// Accuracy and special values of the Loom runtime's float math, measured in ulps against the
// double-precision C library (whose error is far below a float ulp).
#include "loom/loom_rt.hpp"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>

namespace {

using namespace loom_rt;

#ifdef __OPTIMIZE__
constexpr int kDense = 1 << 20;
constexpr int kRandom = 1 << 18;
#else
constexpr int kDense = 1 << 17;
constexpr int kRandom = 1 << 15;
#endif

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

std::uint32_t bits(float f) { return std::bit_cast<std::uint32_t>(f); }

// Float bit patterns mapped to integers in the order of their values.
std::uint32_t order_key(float f) {
  const std::uint32_t b = bits(f);
  return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
}
float from_key(std::uint32_t k) { return std::bit_cast<float>((k & 0x80000000u) ? (k & 0x7FFFFFFFu) : ~k); }

// Error of `got` in units of the float ulp at the exact value `ref` (subnormals: the subnormal
// spacing). A reference beyond the float range must give the correctly signed infinity.
double ulp_error(float got, double ref) {
  if (std::isnan(ref)) return std::isnan(got) ? 0.0 : INFINITY;
  if (std::isnan(got)) return INFINITY;
  if (std::fabs(ref) >= double(FLT_MAX) + 0x1p103) return (std::isinf(got) && std::signbit(got) == std::signbit(ref)) ? 0.0 : INFINITY;
  if (std::isinf(got)) return INFINITY;
  int e = ref == 0.0 ? -126 : std::ilogb(ref);
  if (e < -126) e = -126;
  return std::fabs(double(got) - ref) / std::ldexp(1.0, e - 23);
}

struct Worst {
  double ulp = 0;
  float at = 0;
  double abs_near_zero = 0;  // largest absolute error among inputs with |x| < zero_band
};

// Evenly spaced bit patterns across [lo, hi] plus random ones in it.
template <class F, class R> Worst sweep(float lo, float hi, F f, R ref, float zero_band = 0) {
  Worst w;
  const std::uint32_t a = order_key(lo), b = order_key(hi);
  const double step = double(b - a) / kDense;
  std::uint64_t s = 0x243F6A8885A308D3ull ^ a;
  auto visit = [&](float x) {
    const float got = f(x);
    const double want = ref(double(x));
    const double e = ulp_error(got, want);
    if (std::fabs(x) < zero_band) {
      w.abs_near_zero = std::fmax(w.abs_near_zero, std::fabs(double(got) - want));
      return;
    }
    if (!(e <= w.ulp)) {
      w.ulp = e;
      w.at = x;
    }
  };
  for (int i = 0; i <= kDense; ++i) visit(from_key(a + std::uint32_t(step * i)));
  for (int i = 0; i < kRandom; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    visit(from_key(a + std::uint32_t((s >> 32) % (std::uint64_t(b - a) + 1))));
  }
  return w;
}

void report(const char* name, const Worst& w) {
  std::printf("%-8s max error %.4f ulp at %a\n", name, w.ulp, double(w.at));
}

double sigmoid_ref(double x) { return x >= 0 ? 1.0 / (1.0 + std::exp(-x)) : std::exp(x) / (1.0 + std::exp(x)); }

// ---- accuracy ------------------------------------------------------------------------------------

TEST(LoomMath, ExpWithin2Ulp) {
  auto f = [](float x) { return math::exp(x); };
  auto r = [](double x) { return std::exp(x); };
  Worst w = sweep(-105.0f, 90.0f, f, r);
  report("exp", w);
  EXPECT_LE(w.ulp, 2.0) << w.at;
  // Subnormal results: within one subnormal spacing.
  Worst s = sweep(-103.98f, -87.34f, f, r);
  EXPECT_LE(s.ulp, 1.0) << s.at;
}

TEST(LoomMath, LogWithin2Ulp) {
  auto f = [](float x) { return math::log(x); };
  auto r = [](double x) { return std::log(x); };
  Worst w = sweep(0x1p-149f, FLT_MAX, f, r);
  report("log", w);
  EXPECT_LE(w.ulp, 2.0) << w.at;
  Worst n = sweep(0.5f, 2.0f, f, r);  // near 1, where the result is small
  EXPECT_LE(n.ulp, 2.0) << n.at;
}

TEST(LoomMath, TanhWithin3Ulp) {
  Worst w = sweep(-12.0f, 12.0f, [](float x) { return math::tanh(x); }, [](double x) { return std::tanh(x); });
  report("tanh", w);
  EXPECT_LE(w.ulp, 3.0) << w.at;
}

TEST(LoomMath, ErfWithin3Ulp) {
  Worst w = sweep(-5.0f, 5.0f, [](float x) { return math::erf(x); }, [](double x) { return std::erf(x); });
  report("erf", w);
  EXPECT_LE(w.ulp, 3.0) << w.at;
}

TEST(LoomMath, SigmoidWithin2Ulp) {
  Worst w = sweep(-120.0f, 120.0f, [](float x) { return math::sigmoid(x); }, sigmoid_ref);
  report("sigmoid", w);
  EXPECT_LE(w.ulp, 2.0) << w.at;
}

TEST(LoomMath, SinCosWithin2Ulp) {
  auto s = [](float x) { return math::sin(x); };
  auto c = [](float x) { return math::cos(x); };
  auto rs = [](double x) { return std::sin(x); };
  auto rc = [](double x) { return std::cos(x); };
  Worst ws = sweep(-65536.0f, 65536.0f, s, rs);
  Worst wc = sweep(-65536.0f, 65536.0f, c, rc);
  report("sin", ws);
  report("cos", wc);
  EXPECT_LE(ws.ulp, 2.0) << ws.at;
  EXPECT_LE(wc.ulp, 2.0) << wc.at;
  // The floats nearest to multiples of pi/2, where the reduced argument is tiny and any missing
  // bits of pi/2 show.
  double near = 0;
  float near_at = 0;
  for (int k = 1; k < 667544; k += kDense >= (1 << 20) ? 1 : 61) {
    const float x0 = float(k * 1.5707963267948966);
    for (float x : {x0, std::nextafter(x0, 0.0f), std::nextafter(x0, kInf)}) {
      for (double e : {ulp_error(math::sin(x), std::sin(double(x))), ulp_error(math::cos(x), std::cos(double(x)))}) {
        if (e > near) {
          near = e;
          near_at = x;
        }
      }
    }
  }
  EXPECT_LE(near, 2.0) << near_at;
  // Beyond 65536, across the switch to the per-lane double path at 2^20, up to the largest float.
  Worst bs = sweep(65536.0f, FLT_MAX, s, rs);
  Worst bc = sweep(-FLT_MAX, -65536.0f, c, rc);
  EXPECT_LE(bs.ulp, 2.0) << bs.at;
  EXPECT_LE(bc.ulp, 2.0) << bc.at;
}

TEST(LoomMath, PowAndLibraryFunctions) {
  const float xs[] = {0.0f, -0.0f, 0.5f, -0.5f, 1.0f, 2.0f, 3.0f, -3.0f, 10.0f, 1e-30f, 1e30f, kInf, -kInf, kNaN};
  for (float x : xs) {
    for (float y : {0.0f, 0.5f, -1.0f, 2.0f, 3.0f, 1e10f, -kInf}) {
      const float want = float(std::pow(double(x), double(y)));
      const float got = math::pow(x, y);
      EXPECT_TRUE((std::isnan(want) && std::isnan(got)) || bits(want) == bits(got)) << x << " " << y;
    }
    auto check = [&](float got, float want) { EXPECT_TRUE((std::isnan(want) && std::isnan(got)) || bits(want) == bits(got)) << x; };
    check(math::tan(x), std::tan(x));
    check(math::asin(x), std::asin(x));
    check(math::acos(x), std::acos(x));
    check(math::atan(x), std::atan(x));
    check(math::sinh(x), std::sinh(x));
    check(math::cosh(x), std::cosh(x));
    check(math::asinh(x), std::asinh(x));
    check(math::acosh(x), std::acosh(x));
    check(math::atanh(x), std::atanh(x));
  }
  EXPECT_EQ(math::pow(2.0f, 10.0f), 1024.0f);
  EXPECT_EQ(math::pow(2.0f, 128.0f), kInf);
  EXPECT_EQ(math::pow(-2.0f, 3.0f), -8.0f);
}

TEST(LoomMath, DoubleLanesUseTheLibrary) {
  for (double x : {-700.0, -3.5, -1.0, -0.0, 0.0, 0.25, 1.0, 2.0, 40.0, 700.0}) {
    EXPECT_EQ(math::exp(x), std::exp(x));
    EXPECT_EQ(math::tanh(x), std::tanh(x));
    EXPECT_EQ(math::erf(x), std::erf(x));
    EXPECT_EQ(math::sin(x), std::sin(x));
    EXPECT_EQ(math::cos(x), std::cos(x));
    EXPECT_EQ(math::atan(x), std::atan(x));
    if (x >= 0) {
      EXPECT_EQ(math::pow(x, 0.5), std::pow(x, 0.5)) << x;
    } else {
      EXPECT_TRUE(std::isnan(math::pow(x, 0.5)));
    }
    EXPECT_NEAR(math::sigmoid(x), sigmoid_ref(x), 1e-16);
    if (x > 0) {
      EXPECT_EQ(math::log(x), std::log(x));
    }
  }
  vec<double, 4> v = math::exp(vec<double, 4>{0.0, 1.0, -1.0, 2.0});
  EXPECT_EQ(v[1], std::exp(1.0));
  EXPECT_EQ(math::sigmoid(-1000.0), 0.0);
  EXPECT_EQ(math::sigmoid(1000.0), 1.0);
}

// ---- special values ------------------------------------------------------------------------------

bool is_nan(float x) { return std::isnan(x); }
bool is_pos_zero(float x) { return bits(x) == 0u; }
bool is_neg_zero(float x) { return bits(x) == 0x80000000u; }

TEST(LoomMath, ExpLogSpecials) {
  EXPECT_TRUE(is_nan(math::exp(kNaN)));
  EXPECT_TRUE(is_nan(math::exp(-kNaN)));
  EXPECT_EQ(math::exp(kInf), kInf);
  EXPECT_TRUE(is_pos_zero(math::exp(-kInf)));
  EXPECT_EQ(math::exp(0.0f), 1.0f);
  EXPECT_EQ(math::exp(-0.0f), 1.0f);
  EXPECT_EQ(math::exp(88.72283172607422f), float(std::exp(88.72283172607422)));  // the largest x with a finite result
  EXPECT_LT(math::exp(88.72283172607422f), kInf);
  EXPECT_EQ(math::exp(88.72283935546875f), kInf);
  EXPECT_EQ(math::exp(1000.0f), kInf);
  EXPECT_EQ(math::exp(-103.97207641601562f), 0x1p-149f);  // rounds up to the smallest subnormal
  EXPECT_TRUE(is_pos_zero(math::exp(-103.97208404541016f)));
  EXPECT_TRUE(is_pos_zero(math::exp(-1000.0f)));
  EXPECT_EQ(math::exp(1.0f), 2.71828183f);

  EXPECT_EQ(math::log(0.0f), -kInf);
  EXPECT_EQ(math::log(-0.0f), -kInf);
  EXPECT_TRUE(is_nan(math::log(-1.0f)));
  EXPECT_TRUE(is_nan(math::log(-0x1p-149f)));
  EXPECT_TRUE(is_nan(math::log(-kInf)));
  EXPECT_TRUE(is_nan(math::log(kNaN)));
  EXPECT_EQ(math::log(kInf), kInf);
  EXPECT_TRUE(is_pos_zero(math::log(1.0f)));
  EXPECT_LE(ulp_error(math::log(0x1p-149f), std::log(0x1p-149)), 1.0);
  EXPECT_LE(ulp_error(math::log(0x1.8p-140f), std::log(0x1.8p-140)), 1.0);
  EXPECT_LE(ulp_error(math::log(FLT_MAX), std::log(double(FLT_MAX))), 1.0);
}

TEST(LoomMath, TanhErfSigmoidSpecials) {
  EXPECT_TRUE(is_pos_zero(math::tanh(0.0f)));
  EXPECT_TRUE(is_neg_zero(math::tanh(-0.0f)));
  EXPECT_EQ(math::tanh(kInf), 1.0f);
  EXPECT_EQ(math::tanh(-kInf), -1.0f);
  EXPECT_EQ(math::tanh(9.1f), 1.0f);
  EXPECT_EQ(math::tanh(-20.0f), -1.0f);
  EXPECT_EQ(math::tanh(FLT_MAX), 1.0f);
  EXPECT_EQ(math::tanh(0x1p-149f), 0x1p-149f);
  EXPECT_TRUE(is_nan(math::tanh(kNaN)));

  EXPECT_TRUE(is_pos_zero(math::erf(0.0f)));
  EXPECT_TRUE(is_neg_zero(math::erf(-0.0f)));
  EXPECT_EQ(math::erf(kInf), 1.0f);
  EXPECT_EQ(math::erf(-kInf), -1.0f);
  EXPECT_EQ(math::erf(4.0f), 1.0f);
  EXPECT_EQ(math::erf(-FLT_MAX), -1.0f);
  EXPECT_TRUE(is_nan(math::erf(kNaN)));
  EXPECT_LE(ulp_error(math::erf(1e-30f), std::erf(double(1e-30f))), 1.0);

  EXPECT_TRUE(is_pos_zero(math::sigmoid(-kInf)));
  EXPECT_EQ(math::sigmoid(kInf), 1.0f);
  EXPECT_EQ(math::sigmoid(0.0f), 0.5f);
  EXPECT_EQ(math::sigmoid(-0.0f), 0.5f);
  EXPECT_EQ(math::sigmoid(100.0f), 1.0f);
  EXPECT_EQ(math::sigmoid(-100.0f), float(std::exp(-100.0)));  // no NaN, keeps the tiny value
  EXPECT_TRUE(is_pos_zero(math::sigmoid(-200.0f)));
  EXPECT_EQ(math::sigmoid(FLT_MAX), 1.0f);
  EXPECT_TRUE(is_pos_zero(math::sigmoid(-FLT_MAX)));
  EXPECT_TRUE(is_nan(math::sigmoid(kNaN)));
}

TEST(LoomMath, SinCosSpecials) {
  EXPECT_TRUE(is_nan(math::sin(kInf)));
  EXPECT_TRUE(is_nan(math::sin(-kInf)));
  EXPECT_TRUE(is_nan(math::cos(kInf)));
  EXPECT_TRUE(is_nan(math::cos(-kInf)));
  EXPECT_TRUE(is_nan(math::sin(kNaN)));
  EXPECT_TRUE(is_nan(math::cos(kNaN)));
  EXPECT_TRUE(is_pos_zero(math::sin(0.0f)));
  EXPECT_TRUE(is_neg_zero(math::sin(-0.0f)));
  EXPECT_EQ(math::cos(0.0f), 1.0f);
  EXPECT_EQ(math::cos(-0.0f), 1.0f);
  EXPECT_EQ(math::sin(0x1p-149f), 0x1p-149f);
  EXPECT_EQ(math::sin(-0x1p-30f), -0x1p-30f);
  // Large arguments, near multiples of pi/2 and past the switch to the per-lane path.
  for (float x : {0x1.921fb6p+0f, 3.14159274f, 1e5f, 1048575.9f, 1048576.0f}) {
    EXPECT_LE(ulp_error(math::sin(x), std::sin(double(x))), 1.0) << x;
    EXPECT_LE(ulp_error(math::cos(x), std::cos(double(x))), 1.0) << x;
  }
  for (float x : {1048576.1f, 1e7f, 1e20f, FLT_MAX, -FLT_MAX}) {  // these go through std::sin / std::cos
    EXPECT_EQ(math::sin(x), float(std::sin(double(x)))) << x;
    EXPECT_EQ(math::cos(x), float(std::cos(double(x)))) << x;
  }
}

}  // namespace
