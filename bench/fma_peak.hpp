// One core's FMA peak, measured rather than taken from the clock the kernel reports: a virtual
// machine's /proc/cpuinfo gives the base clock while the core boosts, and whether a 16-lane FMA
// costs one slot or two (AMD's Zen 4 splits it in halves) is the hardware's to say. Twenty-four
// independent chains of fused multiply-adds on the widest float vectors the machine has cover the
// FMA units' latency; the best of several timed blocks is the peak.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

namespace loam_bench {

namespace fma_detail {

constexpr int CHAINS = 24;

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("avx512f"))) inline float chains_avx512(std::int64_t steps) {
  __m512 acc[CHAINS];
  for (int c = 0; c < CHAINS; ++c) acc[c] = _mm512_set1_ps(static_cast<float>(c));
  __m512 a = _mm512_set1_ps(0.999f), b = _mm512_set1_ps(1e-7f);
  for (std::int64_t s = 0; s < steps; ++s) {
#pragma GCC unroll 24
    for (int c = 0; c < CHAINS; ++c) acc[c] = _mm512_fmadd_ps(acc[c], a, b);
    asm volatile("" : "+v"(a));  // keeps the loop from being folded
  }
  __m512 sum = acc[0];
  for (int c = 1; c < CHAINS; ++c) sum = _mm512_add_ps(sum, acc[c]);
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, sum);
  float r = 0;
  for (float v : lanes) r += v;
  return r;
}

__attribute__((target("avx2,fma"))) inline float chains_avx2(std::int64_t steps) {
  __m256 acc[CHAINS];
  for (int c = 0; c < CHAINS; ++c) acc[c] = _mm256_set1_ps(static_cast<float>(c));
  __m256 a = _mm256_set1_ps(0.999f), b = _mm256_set1_ps(1e-7f);
  for (std::int64_t s = 0; s < steps; ++s) {
#pragma GCC unroll 24
    for (int c = 0; c < CHAINS; ++c) acc[c] = _mm256_fmadd_ps(acc[c], a, b);
    asm volatile("" : "+x"(a));
  }
  __m256 sum = acc[0];
  for (int c = 1; c < CHAINS; ++c) sum = _mm256_add_ps(sum, acc[c]);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, sum);
  float r = 0;
  for (float v : lanes) r += v;
  return r;
}
#endif

}  // namespace fma_detail

struct FmaPeak {
  double gflops = 0;  // float operations per second / 1e9, an FMA counted as two
  int lanes = 0;      // the float lanes of the vectors measured (0: no FMA instructions here)
};

// The best of `blocks` timed blocks of `steps` steps each.
inline FmaPeak measure_fma_peak(int blocks = 9, std::int64_t steps = 4'000'000) {
  FmaPeak peak;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  const bool wide = __builtin_cpu_supports("avx512f");
  if (!wide && !(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))) return peak;
  peak.lanes = wide ? 16 : 8;
  volatile float sink = 0;
  double best = 0;
  for (int i = 0; i < blocks; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    sink = sink + (wide ? fma_detail::chains_avx512(steps) : fma_detail::chains_avx2(steps));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::max(best, 2.0 * peak.lanes * fma_detail::CHAINS * static_cast<double>(steps) / seconds / 1e9);
  }
  peak.gflops = best;
#else
  (void)blocks;
  (void)steps;
#endif
  return peak;
}

}  // namespace loam_bench
