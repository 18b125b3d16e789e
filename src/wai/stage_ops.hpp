// The stage operators of wai-ops/1 §5E that the text defines in full: E2 dequantize, E3 bucket,
// E4 coded, E5 scale_index, E6 block_stat, E7 band_lookup, E8 mans_decode, E9 residual_step,
// E10 mc_predict, E11 up2_predict, E12 rate_predict, E13 coding_order. (E1 rans64_decode needs
// integer-payloads §2, which this implementation does not have.)
//
// A refusal is a StageRefusal value: the code and the index `at` of §14.1 (-1 for an operand,
// mode or table that breaks its operator's conditions). The functions throw StageRefusalError,
// which carries it; run_stage_json (stage_ops_json.cpp) turns it into the vector form.
#pragma once

#include "wai/ops.hpp"
#include "wai/whg1.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace loam::wai {

struct StageRefusal {
  Refusal refusal;
  std::int64_t at = -1;
};

class StageRefusalError : public RefusalError {
 public:
  StageRefusalError(RefusalCode code, std::int64_t at, const std::string& message)
      : RefusalError(Refusal{code, message}), at_(at) {}
  std::int64_t at() const { return at_; }
  StageRefusal value() const { return StageRefusal{refusal(), at_}; }

 private:
  std::int64_t at_;
};

// E2: sym·2^f + base; f > 62 (or negative) and a value past i64 are field_range (at 0).
std::int64_t dequantize(std::int64_t sym, std::int64_t f, std::int64_t base);

// E3. `ceil` takes N >= 1 edges e_0..e_{N-1}; `floor` takes N-1 >= 1 non-decreasing edges.
enum class BucketRule { ceil, floor };
std::int64_t bucket(std::int64_t sigma, const std::vector<std::int64_t>& edges, BucketRule rule);

// E4.
inline bool coded(std::int64_t v, std::int64_t thr) { return v > thr; }

// E5: clamp(R_half_up(v, s), 0, n - 1), s in 0..=127, n >= 1.
std::int64_t scale_index(std::int64_t v, std::int64_t s, std::int64_t n);

// E6: each b×b block (the last ones partial) takes clamp(R_half_up(S, s), lo, hi).
Tensor block_stat(const Tensor& x, std::int64_t b, std::int64_t s, std::int64_t lo, std::int64_t hi);

// E7: table[row][#{k : v >= e_k}].
std::int64_t band_lookup(std::int64_t v, const std::vector<std::int64_t>& edges,
                         const std::vector<std::vector<std::int64_t>>& table, std::int64_t row);

// E8, mode sgm: rows P[σ] (pmf), bounds B_y[σ], and spans of (mask, σ per position).
struct MansSpan {
  std::vector<bool> mask;
  std::vector<std::int64_t> sigma;
};
std::vector<std::vector<std::int64_t>> mans_decode_sgm(const std::vector<std::uint8_t>& memory,
                                                       const std::vector<std::vector<std::int64_t>>& pmf,
                                                       const std::vector<std::int64_t>& bounds,
                                                       const std::vector<MansSpan>& spans);
// E8, mode fac: rows of 63 cumulative counts, and the symbols of each row.
std::vector<std::vector<std::int64_t>> mans_decode_fac(const std::vector<std::uint8_t>& memory,
                                                       const std::vector<std::vector<std::int64_t>>& rows,
                                                       const std::vector<std::int64_t>& lengths);

// E9: clamp(pred + r·q, lo, hi), with lo < hi, pred in [lo, hi], q in [1, 65535], r fits i32.
std::int64_t residual_step(std::int64_t pred, std::int64_t r, std::int64_t q, std::int64_t lo, std::int64_t hi);

// E10: the prediction of pixel (y, x), channel c, of a frame [3, h, w].
std::int64_t mc_predict(const Tensor& frame, std::int64_t y, std::int64_t x, std::int64_t c, std::int64_t dy,
                        std::int64_t dx, std::int64_t precision);

// E11: prev [c, ⌈d0/2⌉, ⌈d1/2⌉] -> [c, d0, d1].
Tensor up2_predict(const Tensor& prev, std::int64_t d0, std::int64_t d1);

// E12: prev [c, 1, n'] -> [c, 1, d0].
Tensor rate_predict(const Tensor& prev, std::int64_t rate_num, std::int64_t rate_den, std::int64_t d0);

// E13: each element's CHW position in coding order.
std::vector<std::int64_t> coding_order(Shape shape, bool checkerboard, bool anchor);

}  // namespace loam::wai
