// A caller counting the heap requests of a generated module's forward. With the memory plan, a
// call after the first at the same extents asks the allocator for its outputs alone (a block and
// its count); intermediates live in the thread's arena, a window's settings are built once, and
// the kernels keep their scratch. Results do not depend on what the arena held before: a call at
// other extents in between (the plan laid out again) leaves the next call's outputs bit-identical.
// Built against MNIST-12 (every extent fixed; STEADY_MNIST) or the MLP example (its batch a symbol).
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "../counting_allocator.hpp"

#ifdef STEADY_MNIST
#include "steady_mnist.hpp"
namespace m = steady_mnist;
#else
#include "steady_mlp.hpp"
namespace m = steady_mlp;
#endif

namespace {

#ifdef STEADY_MNIST
using Input = m::Tensor<float, m::Axes<m::Batch, m::Gray, m::Height, m::Width>>;
Input input(std::int64_t, float shift) {
  Input x = Input::uninitialized({1, 1, 28, 28});
  for (std::int64_t i = 0; i < x.count(); ++i) x.data()[i] = static_cast<float>((i * 37) % 255) / 255.0f + shift;
  return x;
}
m::Weights weights() { return m::Weights::embedded(); }
#else
using Input = m::Tensor<float, m::Axes<m::Batch, m::In>>;
Input input(std::int64_t rows, float shift) {
  Input x = Input::uninitialized({rows, m::In::EXTENT});
  for (std::int64_t i = 0; i < x.count(); ++i) x.data()[i] = static_cast<float>(i) / 10.0f - 2.0f + shift;
  return x;
}
m::Weights weights() {
  const std::string here = __FILE__;
  const std::string path = here.substr(0, here.rfind('/')) + "/../../../examples/mlp/mlp.safetensors";
  std::ifstream in(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto w = m::Weights::load(std::span(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()));
  if (!w) {
    std::fprintf(stderr, "%s: %s\n", path.c_str(), w.error().what().c_str());
    std::exit(1);
  }
  return *std::move(w);
}
#endif

std::vector<float> values(const auto& result) {
  if (!result) {
    std::fprintf(stderr, "forward refused: %s\n", result.error().what().c_str());
    std::exit(1);
  }
  return std::vector<float>(result->values().begin(), result->values().end());
}

}  // namespace

int main() {
  int bad = 0;
  for (const int threads : {1, 2}) {
    m::Cpu cpu(threads);
    const m::Weights w = weights();
    const Input x = input(3, 0.0f), other = input(5, 0.25f);
    const std::vector<float> first = values(m::forward(cpu, w, x));
    (void)values(m::forward(cpu, w, x));
    std::size_t steady = 0;
    {
      counting_allocator::requests = 0;
      counting_allocator::on = true;
      const auto y = m::forward(cpu, w, x);
      counting_allocator::on = false;
      steady = counting_allocator::requests;
      if (values(y) != first) {
        std::printf("%d threads: a second call at the same extents gave other outputs\n", threads);
        ++bad;
      }
    }
    // Two requests: the output's elements and their count.
    std::printf("%d threads: a steady forward asks the allocator %zu times\n", threads, steady);
    if (steady > 2) ++bad;
    (void)values(m::forward(cpu, w, other));
    if (values(m::forward(cpu, w, x)) != first) {
      std::printf("%d threads: after a call on another input, the outputs changed\n", threads);
      ++bad;
    }
  }
  return bad ? 1 : 0;
}
