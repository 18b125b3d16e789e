#include "wai/ops_conv_kernel.hpp"

#include <algorithm>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace loam::wai {

namespace {

// The input with its zero padding made explicit: X̃ of §5.2 on [-ph, H+ph) × [-pw, W+pw).
template <typename T>
std::vector<T> pad(const ConvGeometry& g, const std::int64_t* x, std::int64_t& hp, std::int64_t& wp) {
  hp = g.H + 2 * g.ph;
  wp = g.W + 2 * g.pw;
  std::vector<T> out(static_cast<std::size_t>(g.cin * hp * wp), T{0});
  for (std::int64_t c = 0; c < g.cin; ++c)
    for (std::int64_t y = 0; y < g.H; ++y)
      for (std::int64_t xx = 0; xx < g.W; ++xx)
        out[static_cast<std::size_t>((c * hp + y + g.ph) * wp + xx + g.pw)] = static_cast<T>(x[(c * g.H + y) * g.W + xx]);
  return out;
}

// Tap-outer direct convolution into one accumulator plane per output channel. With sw = 1 the
// innermost loop is a contiguous multiply-add that compilers vectorise.
template <typename T>
void direct(const ConvGeometry& g, const std::int64_t* x, const std::int64_t* wt, std::int64_t* acc) {
  std::int64_t hp, wp;
  const std::vector<T> xp = pad<T>(g, x, hp, wp);
  const std::int64_t cg = g.cin / g.groups, og = g.cout / g.groups;
  std::vector<T> plane(static_cast<std::size_t>(g.Ho * g.Wo));
  for (std::int64_t o = 0; o < g.cout; ++o) {
    std::fill(plane.begin(), plane.end(), T{0});
    const std::int64_t c0 = (o / og) * cg;
    for (std::int64_t ci = 0; ci < cg; ++ci) {
      const T* src_c = xp.data() + (c0 + ci) * hp * wp;
      for (std::int64_t i = 0; i < g.kh; ++i) {
        for (std::int64_t j = 0; j < g.kw; ++j) {
          const T w = static_cast<T>(wt[((o * cg + ci) * g.kh + i) * g.kw + j]);
          if (w == 0) continue;
          for (std::int64_t y = 0; y < g.Ho; ++y) {
            const T* src = src_c + (y * g.sh + i) * wp + j;
            T* dst = plane.data() + y * g.Wo;
            if (g.sw == 1) {
              for (std::int64_t xx = 0; xx < g.Wo; ++xx) dst[xx] += w * src[xx];
            } else {
              for (std::int64_t xx = 0; xx < g.Wo; ++xx) dst[xx] += w * src[xx * g.sw];
            }
          }
        }
      }
    }
    std::copy(plane.begin(), plane.end(), acc + o * g.Ho * g.Wo);
  }
}

}  // namespace

#if defined(__x86_64__)
namespace {

std::uint32_t pair16(std::int64_t lo, std::int64_t hi) {
  return static_cast<std::uint32_t>(static_cast<std::uint16_t>(lo)) |
         (static_cast<std::uint32_t>(static_cast<std::uint16_t>(hi)) << 16);
}

// Output channels o0..o0+NO-1 over NX blocks of 8 columns from column xb of row y; the
// accumulators stay in registers over every (channel pair, i, j) tap, and each weight broadcast
// serves NX column blocks.
template <int NO, int NX>
__attribute__((target("avx2"))) inline void pairs_tile(const ConvGeometry& g, const std::uint32_t* xp, std::int64_t hp,
                                                       std::int64_t wpp, const std::uint32_t* wp, std::int64_t cp,
                                                       std::int64_t o0, std::int64_t y, std::int64_t xb, std::int64_t* acc) {
  const std::int64_t taps = cp * g.kh * g.kw;
  __m256i a[NO][NX];
  for (int m = 0; m < NO; ++m)
    for (int n = 0; n < NX; ++n) a[m][n] = _mm256_setzero_si256();
  const std::uint32_t* w0 = wp + o0 * taps;
  for (std::int64_t k = 0; k < cp; ++k) {
    for (std::int64_t i = 0; i < g.kh; ++i) {
      const std::uint32_t* row = xp + (k * hp + y + i) * wpp + xb;
      for (std::int64_t j = 0; j < g.kw; ++j) {
        __m256i xv[NX];
        for (int n = 0; n < NX; ++n) xv[n] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + j + 8 * n));
        const std::int64_t t = (k * g.kh + i) * g.kw + j;
        for (int m = 0; m < NO; ++m) {
          const __m256i wv = _mm256_set1_epi32(static_cast<int>(w0[m * taps + t]));
          for (int n = 0; n < NX; ++n) a[m][n] = _mm256_add_epi32(a[m][n], _mm256_madd_epi16(xv[n], wv));
        }
      }
    }
  }
  for (int m = 0; m < NO; ++m)
    for (int n = 0; n < NX; ++n) {
      alignas(32) std::int32_t lanes[8];
      _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), a[m][n]);
      const std::int64_t x0 = xb + 8 * n, cnt = std::min<std::int64_t>(8, g.Wo - x0);
      std::int64_t* dst = acc + ((o0 + m) * g.Ho + y) * g.Wo + x0;
      for (std::int64_t l = 0; l < cnt; ++l) dst[l] = lanes[l];
    }
}

template <int NO>
__attribute__((target("avx2"))) void pairs_block(const ConvGeometry& g, const std::uint32_t* xp, std::int64_t hp,
                                                 std::int64_t wpp, const std::uint32_t* wp, std::int64_t cp,
                                                 std::int64_t o0, std::int64_t* acc) {
  for (std::int64_t y = 0; y < g.Ho; ++y) {
    std::int64_t xb = 0;
    for (; xb + 16 <= g.Wo; xb += 16) pairs_tile<NO, 2>(g, xp, hp, wpp, wp, cp, o0, y, xb, acc);
    for (; xb < g.Wo; xb += 8) pairs_tile<NO, 1>(g, xp, hp, wpp, wp, cp, o0, y, xb, acc);
  }
}

}  // namespace

bool conv_acc_i16_pairs(const ConvGeometry& g, const std::int64_t* x, const std::int64_t* wt, std::int64_t* acc) {
  if (g.sh != 1 || g.sw != 1 || g.groups != 1 || !__builtin_cpu_supports("avx2")) return false;
  const std::int64_t hp = g.H + 2 * g.ph, wpad = g.W + 2 * g.pw, wpp = wpad + 8;  // 8 columns of slack
  const std::int64_t cp = (g.cin + 1) / 2;
  // Channel pairs (2k, 2k+1) interleaved as 16-bit halves; an odd last channel pairs with zeros.
  std::vector<std::uint32_t> xp(static_cast<std::size_t>(cp * hp * wpp), 0);
  for (std::int64_t k = 0; k < cp; ++k)
    for (std::int64_t y = 0; y < g.H; ++y)
      for (std::int64_t xx = 0; xx < g.W; ++xx) {
        const std::int64_t lo = x[((2 * k) * g.H + y) * g.W + xx];
        const std::int64_t hi = 2 * k + 1 < g.cin ? x[((2 * k + 1) * g.H + y) * g.W + xx] : 0;
        xp[static_cast<std::size_t>((k * hp + y + g.ph) * wpp + xx + g.pw)] = pair16(lo, hi);
      }
  const std::int64_t taps = cp * g.kh * g.kw;
  std::vector<std::uint32_t> wp(static_cast<std::size_t>(g.cout * taps));
  for (std::int64_t o = 0; o < g.cout; ++o)
    for (std::int64_t k = 0; k < cp; ++k)
      for (std::int64_t i = 0; i < g.kh; ++i)
        for (std::int64_t j = 0; j < g.kw; ++j) {
          const std::int64_t lo = wt[((o * g.cin + 2 * k) * g.kh + i) * g.kw + j];
          const std::int64_t hi = 2 * k + 1 < g.cin ? wt[((o * g.cin + 2 * k + 1) * g.kh + i) * g.kw + j] : 0;
          wp[static_cast<std::size_t>(o * taps + (k * g.kh + i) * g.kw + j)] = pair16(lo, hi);
        }
  std::int64_t o = 0;
  for (; o + 4 <= g.cout; o += 4) pairs_block<4>(g, xp.data(), hp, wpp, wp.data(), cp, o, acc);
  for (; o < g.cout; ++o) pairs_block<1>(g, xp.data(), hp, wpp, wp.data(), cp, o, acc);
  return true;
}
#else
bool conv_acc_i16_pairs(const ConvGeometry&, const std::int64_t*, const std::int64_t*, std::int64_t*) { return false; }
#endif

void conv_acc_i32(const ConvGeometry& g, const std::int64_t* x, const std::int64_t* wt, std::int64_t* acc) {
  direct<std::int32_t>(g, x, wt, acc);
}

void conv_acc_i64(const ConvGeometry& g, const std::int64_t* x, const std::int64_t* wt, std::int64_t* acc) {
  direct<std::int64_t>(g, x, wt, acc);
}

bool conv_acc_checked(const ConvGeometry& g, const std::int64_t* x, const std::int64_t* wt, std::int64_t* acc) {
  const std::int64_t cg = g.cin / g.groups, og = g.cout / g.groups;
  for (std::int64_t o = 0; o < g.cout; ++o) {
    const std::int64_t c0 = (o / og) * cg;
    for (std::int64_t y = 0; y < g.Ho; ++y) {
      for (std::int64_t xx = 0; xx < g.Wo; ++xx) {
        std::int64_t s = 0;
        for (std::int64_t ci = 0; ci < cg; ++ci)
          for (std::int64_t i = 0; i < g.kh; ++i) {
            const std::int64_t u = y * g.sh + i - g.ph;
            if (u < 0 || u >= g.H) continue;
            for (std::int64_t j = 0; j < g.kw; ++j) {
              const std::int64_t v = xx * g.sw + j - g.pw;
              if (v < 0 || v >= g.W) continue;
              std::int64_t t;
              if (__builtin_mul_overflow(wt[((o * cg + ci) * g.kh + i) * g.kw + j], x[((c0 + ci) * g.H + u) * g.W + v], &t) ||
                  __builtin_add_overflow(s, t, &s)) {
                return false;
              }
            }
          }
        acc[(o * g.Ho + y) * g.Wo + xx] = s;
      }
    }
  }
  return true;
}

}  // namespace loam::wai
