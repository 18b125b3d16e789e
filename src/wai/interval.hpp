// Saturating interval arithmetic of wai-ops/1 §8.1.
//
// Every value the bounds pass forms lies in [−2^255, 2^255] (`sat`); a product of two such values
// needs 511 bits, so each primitive operation is computed exactly in a fixed 512-bit integer and
// then saturated. `SatArith` performs the primitives and remembers whether `sat` changed any
// result: one SatArith per node gives the node's `saturated` flag.
#pragma once

#include "wai/whg1.hpp"

#include <boost/multiprecision/cpp_int.hpp>

#include <cstdint>
#include <string>

namespace loam::wai {

using Big = boost::multiprecision::int512_t;

// 2^255, the saturation bound.
const Big& sat_limit();
// 2^n for 0 <= n <= 511.
Big pow2(unsigned n);

struct Interval {
  Big lo = 0;
  Big hi = 0;
  friend bool operator==(const Interval&, const Interval&) = default;
};

Interval point(const Big& v);
// The smallest interval containing both.
Interval hull(const Interval& a, const Interval& b);

// bits([lo, hi]) of §2: the smallest N >= 1 such that both ends fit iN.
unsigned bits(const Interval& iv);
// Both ends fit iN.
bool fits_bits(const Interval& iv, unsigned n);

std::string to_decimal(const Big& v);

// The primitive operations of §8.1, each followed by sat.
class SatArith {
 public:
  bool saturated() const { return saturated_; }

  Big sat(Big v);
  Big add(const Big& a, const Big& b) { return sat(a + b); }
  Big sub(const Big& a, const Big& b) { return sat(a - b); }
  Big mul(const Big& a, const Big& b) { return sat(a * b); }
  Big neg(const Big& a) { return sat(-a); }
  // ⌊a / b⌋ for b > 0.
  Big floor_div(const Big& a, const Big& b);
  // ⌊a / 2^s⌋.
  Big floor_shift(const Big& a, unsigned s) { return floor_div(a, pow2(s)); }
  // −⌊−a / b⌋ for b > 0, as §2 writes ⌈a / b⌉.
  Big ceil_div(const Big& a, const Big& b) { return neg(floor_div(neg(a), b)); }
  Big isqrt(const Big& n);       // n >= 0
  Big isqrt_ceil(const Big& n);  // n >= 0
  // R_round(p, s) of §2, evaluated as §2 writes it.
  Big round_shift(const Big& p, unsigned s, Round round);

  // The term interval of a weight over an input interval (§8.2).
  Interval term(const Big& w, const Interval& x);
  // The corner hull of two intervals (§8.2).
  Interval corner(const Interval& a, const Interval& b);

  // Marks the node saturated (a primitive result the caller saturated itself).
  void mark_saturated() { saturated_ = true; }

 private:
  bool saturated_ = false;
};

}  // namespace loam::wai
