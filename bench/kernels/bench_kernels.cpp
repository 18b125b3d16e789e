// Kernel microbenchmarks: the SGEMM at the shapes the example models reach, the Conv and pool
// layers of MNIST-12, UltraFace's depthwise and dense Conv layers, and whole forward passes of MNIST-12 and an MLP written against the runtime
// as a generated module would call it (weights packed once, conv + bias + relu fused). Reports
// GFLOP/s and the fraction of one core's FMA peak, measured as the benchmark starts.
#include <benchmark/benchmark.h>

#include <random>

#include "fma_peak.hpp"
#include "loam/runtime.hpp"

namespace {

using namespace loam_runtime;

// One core's FMA peak, measured when the benchmark starts (bench/fma_peak.hpp).
const double PEAK_FLOPS = loam_bench::measure_fma_peak().gflops * 1e9;

void report_flops(benchmark::State& state, double flops_per_iteration) {
  state.counters["GFLOP/s"] = benchmark::Counter(flops_per_iteration * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["peak"] = benchmark::Counter(PEAK_FLOPS > 0 ? flops_per_iteration / PEAK_FLOPS : 0, benchmark::Counter::kIsIterationInvariantRate);
}

std::vector<float> random_values(std::int64_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = u(gen);
  return v;
}

template <class L>
Tensor<float, L> random_tensor(const typename Tensor<float, L>::Extents& e, unsigned seed) {
  return Tensor<float, L>(e, random_values(element_count(e), seed));
}

// C[M, N] = A[M, K] B[K, N] by the tile the machine chooses, B packed as a weight is, or (`packed`
// false) read row-major where it lies, as attention's products read an activation.
void sgemm(benchmark::State& state, bool packed = true) {
  const std::int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  const auto a = random_values(m * k, 1), b = random_values(k * n, 2);
  std::vector<float> panels(static_cast<std::size_t>(Sgemm::packed_b_size(k, n))), c(static_cast<std::size_t>(m * n));
  Sgemm::pack_b(b.data(), n, 1, k, n, panels.data());
  const auto bo = packed ? Sgemm::packed_b(panels.data(), k) : Sgemm::BOperand::row_major(b.data(), n);
  for (auto _ : state) {
    Sgemm::run(m, n, k, Sgemm::AOperand::row_major(a.data(), k), bo, c.data(), n, {});
    benchmark::DoNotOptimize(c.data());
  }
  report_flops(state, 2.0 * m * n * k);
}
void BM_Sgemm(benchmark::State& state) { sgemm(state); }
void BM_SgemmRowMajorB(benchmark::State& state) { sgemm(state, false); }
// The same with the AVX2 tile where AVX-512 is present too, to measure what the wide tile gains.
void BM_SgemmAvx2Tile(benchmark::State& state) {
  Sgemm::narrow_only = true;
  sgemm(state);
  Sgemm::narrow_only = false;
}
void BM_SgemmRowMajorBAvx2Tile(benchmark::State& state) {
  Sgemm::narrow_only = true;
  sgemm(state, false);
  Sgemm::narrow_only = false;
}
BENCHMARK(BM_Sgemm)
    ->Args({8, 784, 25})     // MNIST conv 1: Cout x H*W x Cin*k*k
    ->Args({16, 196, 200})   // MNIST conv 2
    ->Args({1, 10, 256})     // MNIST dense, batch 1
    ->Args({64, 512, 784})   // MLP layer, batch 64
    ->Args({128, 1536, 384}) // all-MiniLM-L6-v2's feed-forward at sequence 128
    ->Args({128, 128, 128})
    ->Args({256, 256, 256})
    ->Args({512, 512, 512});
BENCHMARK(BM_SgemmAvx2Tile)->Args({64, 512, 784})->Args({128, 1536, 384})->Args({256, 256, 256});
// all-MiniLM-L6-v2's attention at sequence 128, one head: scores Q K^T (128 x 128 x 32) and their
// product with V (128 x 32 x 128); 32 and 128 columns end in a partial strip of 8.
BENCHMARK(BM_SgemmRowMajorB)->Args({128, 128, 32})->Args({128, 32, 128});
BENCHMARK(BM_SgemmRowMajorBAvx2Tile)->Args({128, 128, 32})->Args({128, 32, 128});

struct N {};
struct C {};
struct H {};
struct W {};
struct Cout {};
struct KH {};
struct KW {};

// One conv layer of MNIST-12: 5x5, SAME_UPPER, with bias and Relu fused.
void BM_MnistConv(benchmark::State& state) {
  const std::int64_t batch = state.range(0), cin = state.range(1), cout = state.range(2), hw = state.range(3);
  const Cpu cpu;
  auto x = random_tensor<Axes<N, C, H, W>>({batch, cin, hw, hw}, 3);
  PackedConv<Axes<Cout, C, KH, KW>> w(random_tensor<Axes<Cout, C, KH, KW>>({cout, cin, 5, 5}, 4), 1);
  auto bias = random_tensor<Axes<Cout>>({cout}, 5);
  WindowParams p;
  p.auto_pad = AutoPad::SameUpper;
  for (auto _ : state) {
    auto y = cpu.conv<Axes<N, Cout, H, W>>(x, w, bias, p, true);
    benchmark::DoNotOptimize(y.data());
  }
  report_flops(state, 2.0 * batch * cout * hw * hw * cin * 25);
}
BENCHMARK(BM_MnistConv)->Args({1, 1, 8, 28})->Args({1, 8, 16, 14})->Args({64, 1, 8, 28})->Args({64, 8, 16, 14});

// A depthwise layer of UltraFace RFB-320 (3x3, pad 1, one input channel a group), bias and Relu
// fused: channels, height, width, stride.
void BM_DepthwiseConv(benchmark::State& state) {
  const std::int64_t c = state.range(0), h = state.range(1), w = state.range(2), stride = state.range(3);
  const Cpu cpu;
  auto x = random_tensor<Axes<N, C, H, W>>({1, c, h, w}, 7);
  PackedConv<Axes<Cout, C, KH, KW>> weight(random_tensor<Axes<Cout, C, KH, KW>>({c, 1, 3, 3}, 8), c);
  auto bias = random_tensor<Axes<Cout>>({c}, 9);
  WindowParams p;
  p.strides = {stride, stride};
  p.pads = {1, 1, 1, 1};
  p.group = c;
  std::int64_t out = 0;
  for (auto _ : state) {
    auto y = cpu.conv<Axes<N, Cout, H, W>>(x, weight, bias, p, true);
    out = y.extents()[2] * y.extents()[3];
    benchmark::DoNotOptimize(y.data());
  }
  report_flops(state, 2.0 * c * out * 9);
}
BENCHMARK(BM_DepthwiseConv)->Args({16, 120, 160, 1})->Args({32, 120, 160, 2})->Args({64, 30, 40, 1})->Args({128, 15, 20, 2})->Args({256, 8, 10, 1});
// The same with AVX2's rows where AVX-512 is present too, to measure what the wide kernel gains.
void BM_DepthwiseConvAvx2(benchmark::State& state) {
  Sgemm::narrow_only = true;
  BM_DepthwiseConv(state);
  Sgemm::narrow_only = false;
}
BENCHMARK(BM_DepthwiseConvAvx2)->Args({16, 120, 160, 1})->Args({32, 120, 160, 2})->Args({64, 30, 40, 1})->Args({128, 15, 20, 2})->Args({256, 8, 10, 1});

// UltraFace RFB-320's dense Conv layers (group 1, pad k / 2, bias and Relu fused): input channels,
// output channels, height, width, kernel, stride. The first layer (3 channels, 3x3 at stride 2),
// its 1x1 layers at each resolution, and two of its 3x3 heads.
void BM_UltraFaceConv(benchmark::State& state) {
  const std::int64_t cin = state.range(0), cout = state.range(1), h = state.range(2), w = state.range(3), k = state.range(4),
                     stride = state.range(5);
  const Cpu cpu;
  auto x = random_tensor<Axes<N, C, H, W>>({1, cin, h, w}, 10);
  PackedConv<Axes<Cout, C, KH, KW>> weight(random_tensor<Axes<Cout, C, KH, KW>>({cout, cin, k, k}, 11), 1);
  auto bias = random_tensor<Axes<Cout>>({cout}, 12);
  WindowParams p;
  p.strides = {stride, stride};
  p.pads = {k / 2, k / 2, k / 2, k / 2};
  std::int64_t out = 0;
  for (auto _ : state) {
    auto y = cpu.conv<Axes<N, Cout, H, W>>(x, weight, bias, p, true);
    out = y.extents()[2] * y.extents()[3];
    benchmark::DoNotOptimize(y.data());
  }
  report_flops(state, 2.0 * cout * out * cin * k * k);
}
BENCHMARK(BM_UltraFaceConv)
    ->Args({3, 16, 240, 320, 3, 2})
    ->Args({16, 32, 120, 160, 1, 1})
    ->Args({32, 32, 60, 80, 1, 1})
    ->Args({64, 64, 30, 40, 1, 1})
    ->Args({128, 128, 15, 20, 1, 1})
    ->Args({256, 256, 8, 10, 1, 1})
    ->Args({8, 16, 30, 40, 3, 1})
    ->Args({16, 16, 30, 40, 3, 1});

void BM_MaxPool(benchmark::State& state) {
  const std::int64_t batch = state.range(0);
  const Cpu cpu;
  auto x = random_tensor<Axes<N, C, H, W>>({batch, 8, 28, 28}, 6);
  WindowParams p;
  p.kernel_shape = {2, 2};
  p.strides = {2, 2};
  for (auto _ : state) {
    auto y = cpu.max_pool<Axes<N, C, H, W>>(x, p);
    benchmark::DoNotOptimize(y.data());
  }
}
BENCHMARK(BM_MaxPool)->Arg(1)->Arg(64);

// MNIST-12 as a module calls it: Conv+Add+Relu fused, MaxPool, Conv+Add+Relu, MaxPool, Reshape,
// MatMul (weight packed) + Add.
struct Flat {};
struct Classes {};
struct Mnist {
  PackedConv<Axes<Cout, C, KH, KW>> w1{random_tensor<Axes<Cout, C, KH, KW>>({8, 1, 5, 5}, 10), 1};
  Tensor<float, Axes<Cout>> b1 = random_tensor<Axes<Cout>>({8}, 11);
  PackedConv<Axes<Cout, C, KH, KW>> w2{random_tensor<Axes<Cout, C, KH, KW>>({16, 8, 5, 5}, 12), 1};
  Tensor<float, Axes<Cout>> b2 = random_tensor<Axes<Cout>>({16}, 13);
  PackedMatrix<Flat, Classes> w3{random_tensor<Axes<Flat, Classes>>({256, 10}, 14)};
  Tensor<float, Axes<Classes>> b3 = random_tensor<Axes<Classes>>({10}, 15);

  Tensor<float, Axes<N, Classes>> forward(const Cpu& cpu, const Tensor<float, Axes<N, C, H, W>>& x) const {
    WindowParams same;
    same.auto_pad = AutoPad::SameUpper;
    WindowParams pool2, pool3;
    pool2.kernel_shape = {2, 2};
    pool2.strides = {2, 2};
    pool3.kernel_shape = {3, 3};
    pool3.strides = {3, 3};
    auto c1 = cpu.conv<Axes<N, Cout, H, W>>(x, w1, b1, same, true);
    auto p1 = cpu.max_pool<Axes<N, Cout, H, W>>(c1, pool2);
    auto p1c = p1.regrouped<Axes<N, C, H, W>>(p1.extents());
    auto c2 = cpu.conv<Axes<N, Cout, H, W>>(p1c, w2, b2, same, true);
    auto p2 = cpu.max_pool<Axes<N, Cout, H, W>>(c2, pool3);
    auto flat = cpu.reshape<Axes<N, Flat>>(p2, {x.extents()[0], 256});
    return cpu.matmul_bias(flat, w3, b3);
  }
};

void BM_MnistForward(benchmark::State& state) {
  const Cpu cpu;
  const Mnist model;
  auto x = random_tensor<Axes<N, C, H, W>>({state.range(0), 1, 28, 28}, 16);
  for (auto _ : state) {
    auto y = model.forward(cpu, x);
    benchmark::DoNotOptimize(y.data());
  }
  state.counters["us/sample"] = benchmark::Counter(1e-6 * static_cast<double>(state.range(0)), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_MnistForward)->Arg(1)->Arg(64)->Unit(benchmark::kMicrosecond);

// An MLP 784 -> 512 -> 512 -> 10 (Gemm + Relu fused), as a module calls it.
struct In {};
struct Hid {};
struct Hid2 {};
struct Mlp {
  PackedMatrix<In, Hid> w1{random_tensor<Axes<In, Hid>>({784, 512}, 20)};
  Tensor<float, Axes<Hid>> b1 = random_tensor<Axes<Hid>>({512}, 21);
  PackedMatrix<Hid, Hid2> w2{random_tensor<Axes<Hid, Hid2>>({512, 512}, 22)};
  Tensor<float, Axes<Hid2>> b2 = random_tensor<Axes<Hid2>>({512}, 23);
  PackedMatrix<Hid2, Classes> w3{random_tensor<Axes<Hid2, Classes>>({512, 10}, 24)};
  Tensor<float, Axes<Classes>> b3 = random_tensor<Axes<Classes>>({10}, 25);

  Tensor<float, Axes<N, Classes>> forward(const Cpu& cpu, const Tensor<float, Axes<N, In>>& x) const {
    auto h1 = cpu.matmul_bias(x, w1, b1, true);
    auto h2 = cpu.matmul_bias(h1, w2, b2, true);
    return cpu.matmul_bias(h2, w3, b3);
  }
};

void BM_MlpForward(benchmark::State& state) {
  const Cpu cpu;
  const Mlp model;
  auto x = random_tensor<Axes<N, In>>({state.range(0), 784}, 26);
  for (auto _ : state) {
    auto y = model.forward(cpu, x);
    benchmark::DoNotOptimize(y.data());
  }
  report_flops(state, 2.0 * state.range(0) * (784 * 512 + 512 * 512 + 512 * 10));
}
BENCHMARK(BM_MlpForward)->Arg(1)->Arg(64)->Unit(benchmark::kMicrosecond);

}  // namespace
