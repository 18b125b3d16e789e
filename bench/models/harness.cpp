// One generated module behind a C ABI, so that a Python driver can alternate it with onnxruntime's
// session.run in one process. Compiled once per module with
//   -DLOAM_BENCH_HEADER='"mnist_b1.hpp"' -DLOAM_BENCH_NS=mnist_b1 -DLOAM_BENCH_KIND=1   (MNIST-12 shape)
//   -DLOAM_BENCH_HEADER='"mlp.hpp"'      -DLOAM_BENCH_NS=mlp      -DLOAM_BENCH_KIND=2   (the MLP)
// The input tensor and the weights are built once in loam_bench_init; loam_bench_run times only
// forward calls (upload, kernels, download -- everything forward does).
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <vector>

#include LOAM_BENCH_HEADER

namespace m = LOAM_BENCH_NS;

namespace {

#if LOAM_BENCH_KIND == 1
using Input = m::Tensor<float, m::Axes<m::Batch, m::Gray, m::Height, m::Width>>;
#elif LOAM_BENCH_KIND == 2
using Input = m::Tensor<float, m::Axes<m::Batch, m::In>>;
#else
#error "LOAM_BENCH_KIND must be 1 (MNIST) or 2 (MLP)"
#endif

std::optional<m::Weights> weights;
std::optional<Input> input;
m::Cpu cpu;

}  // namespace

extern "C" {

// x holds `batch` rows of the input in row-major order; checkpoint is the safetensors file, or
// null when the module embeds its weights. Returns 0, or 1 after printing why.
int loam_bench_init(const float* x, std::int64_t batch, const char* checkpoint) {
#if LOAM_BENCH_KIND == 1
  (void)checkpoint;
  weights.emplace(m::Weights::embedded());
  const std::int64_t row = m::Gray::EXTENT * m::Height::EXTENT * m::Width::EXTENT;
  input.emplace(Input({batch, m::Gray::EXTENT, m::Height::EXTENT, m::Width::EXTENT},
                      std::vector<float>(x, x + batch * row)));
#else
  std::ifstream in(checkpoint, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", checkpoint);
    return 1;
  }
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto loaded = m::Weights::load(std::span(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()));
  if (!loaded) {
    std::fprintf(stderr, "%s\n", loaded.error().what().c_str());
    return 1;
  }
  weights.emplace(std::move(*loaded));
  input.emplace(Input({batch, m::In::EXTENT}, std::vector<float>(x, x + batch * m::In::EXTENT)));
#endif
  return 0;
}

// Runs forward n times; copies the last result's elements to out (out_len of them at most) and
// returns the wall time of the n calls in nanoseconds, or -1 after printing the error.
double loam_bench_run(std::int64_t n, float* out, std::int64_t out_len) {
  auto t0 = std::chrono::steady_clock::now();
  for (std::int64_t i = 0; i < n; ++i) {
    auto y = m::forward(cpu, *weights, *input);
    if (!y) {
      std::fprintf(stderr, "%s\n", y.error().what().c_str());
      return -1;
    }
    if (i + 1 == n) {
      auto t1 = std::chrono::steady_clock::now();
      auto v = y->values();
      std::memcpy(out, v.data(), sizeof(float) * std::min<std::size_t>(v.size(), static_cast<std::size_t>(out_len)));
      return static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
    }
  }
  return 0;
}

}  // extern "C"

#ifdef LOAM_BENCH_MAIN
// A standalone driver for profilers (callgrind, perf): `harness_exe BATCH N [CHECKPOINT]` runs one
// warm-up forward and then N forwards on a fixed input of BATCH rows, and prints the time per call.
#include <cstdlib>
#include <string>
int main(int argc, char** argv) {
  const std::int64_t batch = argc > 1 ? std::atoll(argv[1]) : 1;
  const std::int64_t n = argc > 2 ? std::atoll(argv[2]) : 1;
  const char* checkpoint = argc > 3 ? argv[3] : nullptr;
#if LOAM_BENCH_KIND == 1
  const std::int64_t row = m::Gray::EXTENT * m::Height::EXTENT * m::Width::EXTENT;
#else
  const std::int64_t row = m::In::EXTENT;
#endif
  std::vector<float> x(static_cast<std::size_t>(batch * row));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 37) % 256) / 128.0f - 1.0f;
  if (loam_bench_init(x.data(), batch, checkpoint) != 0) return 1;
  std::vector<float> out(static_cast<std::size_t>(batch) * 16);
  if (loam_bench_run(1, out.data(), static_cast<std::int64_t>(out.size())) < 0) return 1;
  const double ns = loam_bench_run(n, out.data(), static_cast<std::int64_t>(out.size()));
  if (ns < 0) return 1;
  std::printf("%.2f us per forward (batch %lld, %lld calls)\n", ns / 1e3 / static_cast<double>(n),
              static_cast<long long>(batch), static_cast<long long>(n));
  return 0;
}
#endif
