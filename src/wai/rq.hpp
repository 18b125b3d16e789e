// The requantisation epilogue `rq` of wai-ops/1 §5.1, shared by conv, conv_transpose, rescale,
// mul, gram and apply, and (without bias) chscale. Formed in 128 bits: t = v + pre bias,
// p = t·mult, q = R_round(p, shift), y = q + post bias. §5.1 forbids narrowing q before the post
// bias; nothing here narrows at all, and the caller narrows y to its tensor's storage.
#pragma once

#include "wai/fixed_point.hpp"
#include "wai/whg1.hpp"

namespace loam::wai {

// rq with explicit operands. Returns false when a value passes 128 bits, which no graph meeting
// acc64 forms (rq.p is class product: it fits i128).
inline bool rq_core(i128 v, std::int64_t pre_bias, std::int64_t mult, unsigned shift, Round round,
                    std::int64_t post_bias, i128& y) {
  i128 t, p;
  if (!checked_add(v, pre_bias, t)) return false;   // rq.t
  if (fits_i64(t)) {
    p = static_cast<i128>(static_cast<std::int64_t>(t)) * mult;  // two i64 factors fit i128
  } else if (!checked_mul(t, mult, p)) {
    return false;                                                 // rq.p
  }
  const i128 q = round_shift(p, shift, round);      // rq.q
  return checked_add(q, post_bias, y);              // rq.y
}

// rq_o(v) for output channel o of an RQ block.
inline bool rq_apply(const RqBlock& rq, std::size_t o, i128 v, i128& y) {
  return rq_core(v, rq.pre_bias_of(o), rq.mult_of(o), rq.shift_of(o), rq.round,
                 rq.post_bias_of(o), y);
}

}  // namespace loam::wai
