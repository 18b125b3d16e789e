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
// Every partial sum fits i64 (proved by the caller).
void conv_acc_i64(const ConvGeometry& g, const std::int64_t* x, const std::int64_t* wt, std::int64_t* acc);
// Any values: each product and each addition checked. False when one leaves i64.
bool conv_acc_checked(const ConvGeometry& g, const std::int64_t* x, const std::int64_t* wt, std::int64_t* acc);

}  // namespace loam::wai
