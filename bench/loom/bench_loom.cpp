// Loom's emitted elementwise kernels against the machine, measured side by side in one run:
//   bandwidth  the fastest of memcpy and a hand-vectorised copy loop over the same buffers: the
//              read + write bandwidth the kernels are held to
//   axpb       y = x * scale + bias over 16 Mi f32: hand-vectorised C++ and Loom's emitted kernel
//   gelu       y = 0.5 x (1 + erf(x / sqrt 2)): hand-vectorised (the same erf) and Loom's kernel
// Each round times every variant once (best of a few repetitions), in turn, so clock drift hits
// them alike; the ratios are per round and the table gives their median and range. One thread.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "axpb.hpp"
#include "gelu.hpp"

namespace {

constexpr std::int64_t kElements = std::int64_t{16} << 20;
constexpr int kLanes = 16;
using Lanes = loom_axpb::rt::vec<float, kLanes>;

double seconds(const std::function<void()>& f, int repeats) {
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

void copy_loop(const float* __restrict x, float* __restrict y, std::int64_t n) {
  std::int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    Lanes v;
    std::memcpy(&v, x + i, sizeof v);
    std::memcpy(y + i, &v, sizeof v);
  }
  for (; i < n; ++i) y[i] = x[i];
}

void axpb_loop(const float* __restrict x, float* __restrict y, std::int64_t n, float scale, float bias) {
  const Lanes s = loom_axpb::rt::splat_lanes<Lanes>(scale), b = loom_axpb::rt::splat_lanes<Lanes>(bias);
  std::int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    Lanes v;
    std::memcpy(&v, x + i, sizeof v);
    v = loom_axpb::rt::fma_lanes(v, s, b);
    std::memcpy(y + i, &v, sizeof v);
  }
  for (; i < n; ++i) y[i] = loom_axpb::rt::fma_lanes(x[i], scale, bias);
}

void gelu_loop(const float* __restrict x, float* __restrict y, std::int64_t n) {
  namespace rt = loom_gelu::rt;
  const Lanes half = rt::splat_lanes<Lanes>(0.5f), one = rt::splat_lanes<Lanes>(1.0f), root = rt::splat_lanes<Lanes>(0.70710677f);
  std::int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    Lanes v;
    std::memcpy(&v, x + i, sizeof v);
    const Lanes r = (v * half) * (rt::math::erf(v * root) + one);
    std::memcpy(y + i, &r, sizeof r);
  }
  for (; i < n; ++i) y[i] = (x[i] * 0.5f) * (rt::math::erf(x[i] * 0.70710677f) + 1.0f);
}

struct Summary {
  double median, low, high;
};

Summary summarise(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v.front(), v.back()};
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 9;
  const int repeats = argc > 2 ? std::atoi(argv[2]) : 3;
  // The extent comes from memory, as it would from a caller: no variant is specialised to it.
  static volatile std::int64_t extent = kElements;
  const std::int64_t n = extent;
  std::vector<float> x(static_cast<std::size_t>(n)), y(x.size()), z(x.size());
  std::uint32_t state = 1;
  for (auto& v : x) {
    state = state * 1664525u + 1013904223u;
    v = static_cast<float>(state >> 8) * (8.0f / 16777216.0f) - 4.0f;
  }
  const auto bytes = static_cast<double>(kElements) * 8;  // 4 read, 4 written per element
  auto* xb = reinterpret_cast<std::byte*>(x.data());
  auto* yb = reinterpret_cast<std::byte*>(y.data());
  const std::uint64_t nb = static_cast<std::uint64_t>(n) * 4;

  // Both versions of each kernel must agree before either is timed.
  axpb_loop(x.data(), z.data(), n, 1.5f, -0.25f);
  loom_axpb::axpb(n, n, 1.5f, -0.25f, xb, nb, yb, nb);
  if (std::memcmp(y.data(), z.data(), nb) != 0) return std::fprintf(stderr, "axpb: the emitted kernel and the loop disagree\n"), 1;
  gelu_loop(x.data(), z.data(), n);
  loom_gelu::gelu(n, n, xb, nb, yb, nb);
  if (std::memcmp(y.data(), z.data(), nb) != 0) return std::fprintf(stderr, "gelu: the emitted kernel and the loop disagree\n"), 1;

  std::vector<double> bandwidth, axpb_bw, axpb_hand, gelu_bw, gelu_hand, copy_gbs, memcpy_gbs, axpb_gbs, gelu_gbs;
  for (int r = 0; r < rounds; ++r) {
    const double t_memcpy = seconds([&] { std::memcpy(y.data(), x.data(), nb); }, repeats);
    const double t_copy = seconds([&] { copy_loop(x.data(), y.data(), n); }, repeats);
    const double t_axpb_hand = seconds([&] { axpb_loop(x.data(), y.data(), n, 1.5f, -0.25f); }, repeats);
    const double t_axpb = seconds([&] { loom_axpb::axpb(n, n, 1.5f, -0.25f, xb, nb, yb, nb); }, repeats);
    const double t_gelu_hand = seconds([&] { gelu_loop(x.data(), y.data(), n); }, repeats);
    const double t_gelu = seconds([&] { loom_gelu::gelu(n, n, xb, nb, yb, nb); }, repeats);
    const double t_machine = std::min(t_memcpy, t_copy);
    memcpy_gbs.push_back(bytes / t_memcpy * 1e-9);
    copy_gbs.push_back(bytes / t_copy * 1e-9);
    axpb_gbs.push_back(bytes / t_axpb * 1e-9);
    gelu_gbs.push_back(bytes / t_gelu * 1e-9);
    axpb_bw.push_back(t_machine / t_axpb);
    axpb_hand.push_back(t_axpb_hand / t_axpb);
    gelu_bw.push_back(t_machine / t_gelu);
    gelu_hand.push_back(t_gelu_hand / t_gelu);
  }
  auto row = [](const char* what, const std::vector<double>& v) {
    const Summary s = summarise(v);
    std::printf("%-44s %8.3f  (%.3f - %.3f)\n", what, s.median, s.low, s.high);
  };
  std::printf("Loom elementwise kernels, %lld f32 elements (%.0f MiB in, %.0f MiB out), %d rounds, one thread\n",
              static_cast<long long>(kElements), kElements * 4.0 / (1 << 20), kElements * 4.0 / (1 << 20), rounds);
  std::printf("%-44s %8s  (range)\n", "", "median");
  row("memcpy, GB/s (read + write)", memcpy_gbs);
  row("hand-vectorised copy, GB/s", copy_gbs);
  row("axpb emitted, GB/s", axpb_gbs);
  row("gelu emitted, GB/s", gelu_gbs);
  row("axpb emitted / machine bandwidth", axpb_bw);
  row("axpb emitted / hand-vectorised (speed ratio)", axpb_hand);
  row("gelu emitted / machine bandwidth", gelu_bw);
  row("gelu emitted / hand-vectorised (speed ratio)", gelu_hand);
  return 0;
}
