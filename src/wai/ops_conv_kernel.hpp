// The accumulation loops of conv (§5.2): acc[o][y][x] = Σ Wt[o][ci][i][j]·X̃[...], before rq, at
// three widths. The caller picks the width from a bound on every partial sum (ops_linear.cpp).
#pragma once

#include <cstdint>

namespace loam::wai {

struct ConvGeometry {
  std::int64_t cin, H, W, cout, kh, kw, sh, sw, ph, pw, groups, Ho, Wo;
};

// Every partial sum fits i32 (the caller has proved it): sums in i32, widened on store.
void conv_acc_i32(const ConvGeometry& g, const std::int64_t* x, const std::int64_t* wt, std::int64_t* acc);
// Every input value and weight fits i16 and every partial sum fits i32 (proved by the caller):
// pairs of input channels are multiplied and added by one 16-bit multiply-add instruction
// (x86 AVX2 pmaddwd, fully defined: the exact sum of two products, which fits i32 here). Stride 1,
// groups 1 only. Returns false, computing nothing, where it does not apply (another geometry, or a
// processor without AVX2).
bool conv_acc_i16_pairs(const ConvGeometry& g, const std::int64_t* x, const std::int64_t* wt, std::int64_t* acc);
// Every partial sum fits i64 (proved by the caller).
void conv_acc_i64(const ConvGeometry& g, const std::int64_t* x, const std::int64_t* wt, std::int64_t* acc);
// Any values: each product and each addition checked. False when one leaves i64.
bool conv_acc_checked(const ConvGeometry& g, const std::int64_t* x, const std::int64_t* wt, std::int64_t* acc);

}  // namespace loam::wai
