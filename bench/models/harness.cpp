// One generated module behind a C ABI, so that a Python driver can alternate it with onnxruntime's
// session.run in one process. Compiled once per module with
//   -DLOAM_BENCH_HEADER='"mnist_b1.hpp"' -DLOAM_BENCH_NS=mnist_b1 [-DLOAM_BENCH_OUTPUT=scores]
// LOAM_BENCH_OUTPUT names the output the driver compares when forward returns several. The inputs
// come either as one tensor of `batch` rows (loam_bench_init: its type, float or int64 token ids,
// and every extent but the first come from the module, each of those axes having an EXTENT), or as
// every input of forward in order with its extents (loam_bench_init_inputs: a decoder's ids, mask,
// positions, past and branch flag). The inputs and the weights are built once (Weights::embedded()
// where the module embeds them, else Weights::load of the checkpoint); loam_bench_run times only
// forward calls (upload, kernels, download -- everything forward does).
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <tuple>
#include <type_traits>
#include <vector>

#include LOAM_BENCH_HEADER

namespace m = LOAM_BENCH_NS;

namespace {

// forward(backend, weights, inputs...): the inputs' tensor types; the first is the one a batch
// sizes.
template <class F>
struct InputsOf;
template <class R, class B, class W, class... X>
struct InputsOf<R (*)(B, W, X...)> {
  using type = std::tuple<std::remove_cvref_t<X>...>;
};
using Inputs = InputsOf<decltype(&m::forward<m::Cpu>)>::type;
using Input = std::tuple_element_t<0, Inputs>;

template <class T>
struct ExtentsOf;
template <class E, class... A>
struct ExtentsOf<m::Tensor<E, m::Axes<A...>>> {
  // The batch, then each later axis's EXTENT.
  static typename Input::Extents with_batch(std::int64_t batch) {
    typename Input::Extents e{};
    std::size_t i = 0;
    ((e[i] = i == 0 ? batch : fixed<A>(), ++i), ...);
    return e;
  }
  template <class Axis>
  static constexpr std::int64_t fixed() {
    if constexpr (requires { Axis::EXTENT; }) return Axis::EXTENT;
    else return -1;
  }
};

std::int64_t row_elements() {
  const auto e = ExtentsOf<Input>::with_batch(1);
  std::int64_t n = 1;
  for (auto d : e) n *= d;
  return n;
}

template <class Result>
const auto& compared(const Result& y) {
#ifdef LOAM_BENCH_OUTPUT
  return y.LOAM_BENCH_OUTPUT;
#else
  return y;
#endif
}

// Weights::embedded(), where the module embeds its weights (a template, so that the test of
// whether it does is made in the instantiation).
template <class W>
std::optional<W> embedded_weights() {
  if constexpr (requires { W::embedded(); }) return W::embedded();
  else return std::nullopt;
}

std::optional<m::Weights> weights;
std::optional<Inputs> inputs;
m::Cpu cpu;  // one thread unless loam_bench_threads says otherwise

// Loads the weights: embedded, or from the checkpoint. Returns 0, or 1 after printing why.
int load_weights(const char* checkpoint) {
  if (!checkpoint) {
    auto embedded = embedded_weights<m::Weights>();
    if (!embedded) {
      std::fprintf(stderr, "the module embeds no weights: give a checkpoint\n");
      return 1;
    }
    weights.emplace(std::move(*embedded));
    return 0;
  }
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
  return 0;
}

// A tensor of type T holding the elements at `data` under `extents`.
template <class T>
T tensor_from(const void* data, const typename T::Extents& extents) {
  using E = typename T::ElementType;
  std::int64_t n = 1;
  for (auto d : extents) n *= d;
  const E* first = static_cast<const E*>(data);
  return T(extents, std::vector<E>(first, first + n));
}

// loam_bench_init's work: a template, so that a module of several inputs compiles it to a refusal.
template <class T>
int init_batch(const void* x, std::int64_t batch, const char* checkpoint) {
  if constexpr (std::tuple_size_v<T> != 1) {
    std::fprintf(stderr, "forward takes %zu inputs: give them with loam_bench_init_inputs\n", std::tuple_size_v<T>);
    return 1;
  } else {
    using X = std::tuple_element_t<0, T>;
    const auto extents = ExtentsOf<X>::with_batch(batch);
    for (auto d : extents)
      if (d < 0) {
        std::fprintf(stderr, "the input has an axis past the batch that no EXTENT fixes\n");
        return 1;
      }
    if (load_weights(checkpoint) != 0) return 1;
    inputs.emplace(tensor_from<X>(x, extents));
    return 0;
  }
}

}  // namespace

extern "C" {

// x holds `batch` rows of the input in row-major order, of the input's element type; checkpoint is
// the safetensors file, or null when the module embeds its weights. Returns 0, or 1 after printing
// why.
int loam_bench_init(const void* x, std::int64_t batch, const char* checkpoint) { return init_batch<Inputs>(x, batch, checkpoint); }

// data[i] holds forward's i-th input, row-major, of its element type (bool as one byte); extents
// holds every input's extents one after another. checkpoint as for loam_bench_init.
int loam_bench_init_inputs(const void* const* data, const std::int64_t* extents, const char* checkpoint) {
  if (load_weights(checkpoint) != 0) return 1;
  std::size_t at = 0;
  auto make = [&]<std::size_t... I>(std::index_sequence<I...>) {
    auto one = [&]<std::size_t K>(std::integral_constant<std::size_t, K>) {
      using T = std::tuple_element_t<K, Inputs>;
      typename T::Extents e{};
      for (auto& d : e) d = extents[at++];
      return tensor_from<T>(data[K], e);
    };
    // Braced initialisation evaluates in order, so the extents are read input by input.
    return Inputs{one(std::integral_constant<std::size_t, I>{})...};
  };
  inputs.emplace(make(std::make_index_sequence<std::tuple_size_v<Inputs>>{}));
  return 0;
}

// The backend forward runs on from now on: Cpu with `threads` threads (the caller's among them).
void loam_bench_threads(int threads) { cpu = m::Cpu(threads); }

// Runs forward n times; copies the last result's compared output (out_len elements at most) to
// out and returns the wall time of the n calls in nanoseconds, or -1 after printing the error.
double loam_bench_run(std::int64_t n, float* out, std::int64_t out_len) {
  auto t0 = std::chrono::steady_clock::now();
  for (std::int64_t i = 0; i < n; ++i) {
    auto y = std::apply([](const auto&... x) { return m::forward(cpu, *weights, x...); }, *inputs);
    if (!y) {
      std::fprintf(stderr, "%s\n", y.error().what().c_str());
      return -1;
    }
    if (i + 1 == n) {
      auto t1 = std::chrono::steady_clock::now();
      auto v = compared(*y).values();
      std::memcpy(out, v.data(), sizeof(float) * std::min<std::size_t>(v.size(), static_cast<std::size_t>(out_len)));
      return static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
    }
  }
  return 0;
}

}  // extern "C"

#ifdef LOAM_BENCH_MAIN
// A standalone driver for profilers (callgrind, perf): `harness_exe BATCH N [CHECKPOINT]` runs one
// warm-up forward and then N forwards on a fixed input of BATCH rows, and prints the time per call;
// on LOAM_BENCH_THREADS threads where that is set.
#include <cstdlib>
#include <string>
int main(int argc, char** argv) {
  const std::int64_t batch = argc > 1 ? std::atoll(argv[1]) : 1;
  const std::int64_t n = argc > 2 ? std::atoll(argv[2]) : 1;
  const char* checkpoint = argc > 3 ? argv[3] : nullptr;
  if (const char* threads = std::getenv("LOAM_BENCH_THREADS")) loam_bench_threads(std::atoi(threads));
  using E = typename Input::ElementType;
  std::vector<E> x(static_cast<std::size_t>(batch * row_elements()));
  for (std::size_t i = 0; i < x.size(); ++i)
    x[i] = std::is_floating_point_v<E> ? static_cast<E>(static_cast<float>((i * 37) % 256) / 128.0f - 1.0f) : static_cast<E>(i * 37 % 64);
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
