#include "wai/interval.hpp"

#include <algorithm>

namespace loam::wai {

const Big& sat_limit() {
  static const Big limit = pow2(255);
  return limit;
}

Big pow2(unsigned n) {
  Big v = 1;
  v <<= n;
  return v;
}

Interval point(const Big& v) { return Interval{v, v}; }

Interval hull(const Interval& a, const Interval& b) {
  return Interval{std::min(a.lo, b.lo), std::max(a.hi, b.hi)};
}

bool fits_bits(const Interval& iv, unsigned n) {
  const Big top = pow2(n - 1);
  return iv.lo >= -top && iv.hi <= top - 1;
}

unsigned bits(const Interval& iv) {
  // A value v needs msb(v) + 2 bits when v > 0, and msb(−v − 1) + 2 when v < −1; 0 and −1 need 1.
  auto need = [](const Big& v) -> unsigned {
    const Big m = v < 0 ? Big(-v - 1) : v;
    if (m == 0) return 1;
    return static_cast<unsigned>(boost::multiprecision::msb(m)) + 2;
  };
  return std::max(need(iv.lo), need(iv.hi));
}

std::string to_decimal(const Big& v) { return v.str(); }

Big SatArith::sat(Big v) {
  const Big& limit = sat_limit();
  if (v > limit) {
    saturated_ = true;
    return limit;
  }
  if (v < -limit) {
    saturated_ = true;
    return -limit;
  }
  return v;
}

Big SatArith::floor_div(const Big& a, const Big& b) {
  Big q = a / b;  // truncates toward zero
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return sat(q);
}

Big SatArith::isqrt(const Big& n) {
  if (n <= 0) return 0;
  return sat(boost::multiprecision::sqrt(n));
}

Big SatArith::isqrt_ceil(const Big& n) {
  if (n <= 0) return 0;
  Big r = boost::multiprecision::sqrt(n);
  if (r * r < n) ++r;
  return sat(r);
}

Big SatArith::round_shift(const Big& p, unsigned s, Round round) {
  if (s == 0) return p;
  const Big two_s = pow2(s);
  switch (round) {
    case Round::floor:
      return floor_div(p, two_s);
    case Round::half_up:
      return floor_div(add(p, pow2(s - 1)), two_s);
    case Round::half_even: {
      const Big q = floor_div(p, two_s);
      const Big r = sub(p, mul(q, two_s));
      const Big h = pow2(s - 1);
      if (r > h || (r == h && q % 2 != 0)) return add(q, 1);
      return q;
    }
  }
  return p;
}

Interval SatArith::term(const Big& w, const Interval& x) {
  const Big a = mul(w, x.lo), b = mul(w, x.hi);
  return Interval{std::min(a, b), std::max(a, b)};
}

Interval SatArith::corner(const Interval& a, const Interval& b) {
  const Big c0 = mul(a.lo, b.lo), c1 = mul(a.lo, b.hi), c2 = mul(a.hi, b.lo), c3 = mul(a.hi, b.hi);
  return Interval{std::min({c0, c1, c2, c3}), std::max({c0, c1, c2, c3})};
}

}  // namespace loam::wai
