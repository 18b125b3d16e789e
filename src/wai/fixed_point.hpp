// The integer functions of wai-ops/1 §2, exactly as the text writes them, on 128-bit values:
// floor division, the three roundings of a scaled product, isqrt, exp_neg_q16 and rsqrt_q16.
// No floating point, and no value wraps: every helper either proves its intermediates fit (the
// comments say why) or checks them (`checked_*`, which report overflow instead of wrapping).
#pragma once

#include "wai/whg1.hpp"

#include <cstdint>
#include <limits>
#include <string>

namespace loam::wai {

using i128 = __int128;
using u128 = unsigned __int128;

inline constexpr i128 kI128Max = static_cast<i128>(~static_cast<u128>(0) >> 1);
inline constexpr i128 kI128Min = -kI128Max - 1;

inline bool fits_i64(i128 v) {
  return v >= std::numeric_limits<std::int64_t>::min() && v <= std::numeric_limits<std::int64_t>::max();
}

// Decimal text of a 128-bit value (for messages and JSON).
std::string to_string_i128(i128 v);

// Checked 128-bit arithmetic without compiler-rt helpers (clang's __builtin_mul_overflow on
// __int128 needs __muloti4, which libgcc lacks). Returns false on overflow.
inline bool checked_add(i128 a, i128 b, i128& out) {
  if ((b > 0 && a > kI128Max - b) || (b < 0 && a < kI128Min - b)) return false;
  out = a + b;
  return true;
}
inline bool checked_sub(i128 a, i128 b, i128& out) {
  if ((b < 0 && a > kI128Max + b) || (b > 0 && a < kI128Min + b)) return false;
  out = a - b;
  return true;
}
inline bool checked_mul(i128 a, i128 b, i128& out) {
  if (a == 0 || b == 0) {
    out = 0;
    return true;
  }
  const bool negative = (a < 0) != (b < 0);
  const u128 ua = a < 0 ? static_cast<u128>(0) - static_cast<u128>(a) : static_cast<u128>(a);
  const u128 ub = b < 0 ? static_cast<u128>(0) - static_cast<u128>(b) : static_cast<u128>(b);
  const u128 limit = negative ? static_cast<u128>(kI128Max) + 1 : static_cast<u128>(kI128Max);
  if (ua > limit / ub) return false;
  const u128 m = ua * ub;
  if (m > limit) return false;
  out = negative ? static_cast<i128>(static_cast<u128>(0) - m) : static_cast<i128>(m);
  return true;
}

// ⌊a / 2^s⌋ for 0 <= s <= 127: C++20 defines >> on a negative value as the arithmetic shift,
// which is the floor.
inline i128 floor_shift(i128 a, unsigned s) { return a >> s; }

// ⌊a / b⌋ for b > 0.
inline i128 floor_div(i128 a, i128 b) {
  i128 q = a / b;
  if ((a % b != 0) && (a < 0)) --q;
  return q;
}

// R_floor, R_half_up and R_half_even of §2, for 0 <= s <= 127. Written through q and the
// remainder r = p - q·2^s, so that p + 2^(s-1) is never formed (it can pass 2^127 at s = 127):
// ⌊(p + h) / 2^s⌋ = q + [r >= h].
inline i128 round_shift(i128 p, unsigned s, Round round) {
  if (s == 0) return p;
  const i128 q = p >> s;
  if (round == Round::floor) return q;
  const u128 mask = (static_cast<u128>(1) << s) - 1;
  const u128 r = static_cast<u128>(p) & mask;  // p - q·2^s, in [0, 2^s)
  const u128 h = static_cast<u128>(1) << (s - 1);
  if (round == Round::half_up) return r >= h ? q + 1 : q;
  if (r > h || (r == h && (q & 1) != 0)) return q + 1;
  return q;
}

// isqrt(n): the largest r >= 0 with r² <= n.
inline u128 isqrt_u128(u128 n) {
  if (n < 2) return n;
  int bits = 0;
  for (u128 t = n; t != 0; t >>= 1) ++bits;
  u128 x = static_cast<u128>(1) << ((bits + 1) / 2);  // x >= sqrt(n), and x <= 2^64
  while (true) {
    const u128 y = (x + n / x) >> 1;
    if (y >= x) return x;
    x = y;
  }
}

// isqrt_ceil(n): the smallest r >= 0 with r² >= n.
inline u128 isqrt_ceil_u128(u128 n) {
  const u128 r = isqrt_u128(n);
  return r * r == n ? r : r + 1;
}

// exp_neg_q16(x) of §2 for x <= 0. Every intermediate after n is below 2^34 (t <= 88670), and
// u = -x fits because x >= -2^127 + 1 for every caller (x is a difference of two i64 values, or
// minus the magnitude of one).
inline std::int64_t exp_neg_q16(i128 x) {
  const i128 u = -x;                    // exp.negx
  const i128 n = u / 45426;             // u >= 0, so truncation is the floor
  if (n >= 63) return 0;
  const i128 g = 45426 * n;             // exp.nl
  const std::int64_t r = static_cast<std::int64_t>(x + g);  // (-45426, 0]
  const std::int64_t t = r + 88670;     // [43245, 88670]
  const std::int64_t t2 = t * t;        // exp.t2, < 2^33
  const std::int64_t q = t2 >> 16;
  const std::int64_t c = 23495 * q;     // exp.c, < 2^32
  const std::int64_t y = (c >> 16) + 22544;
  return y >> static_cast<int>(n);
}

// rsqrt_q16(v) of §2 for v >= 0: 0 if isqrt(v) = 0, else ⌊2^32 / isqrt(v)⌋.
inline std::int64_t rsqrt_q16(u128 v) {
  const u128 r = isqrt_u128(v);
  if (r == 0) return 0;
  return static_cast<std::int64_t>((static_cast<u128>(1) << 32) / r);  // rsq.num = 2^32
}

}  // namespace loam::wai
