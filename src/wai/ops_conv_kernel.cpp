#include "wai/ops_conv_kernel.hpp"

#include <algorithm>
#include <vector>

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
