// Runs the 64 MiB MatMul of make_model.py on a fixed x and prints y's values: with the weights the
// module embeds (Weights::embedded(), assembled from the file beside its header), or loaded from the
// checkpoint given as the argument. Compiled with -DMODULE_HEADER='"name.hpp"' -DMODULE_NS=name.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include MODULE_HEADER

namespace m = MODULE_NS;

template <class W>
std::optional<W> embedded() {
  if constexpr (requires { W::embedded(); }) return W::embedded();
  else return std::nullopt;
}

int main(int argc, char** argv) {
  std::optional<m::Weights> weights;
  if (argc > 1) {
    std::ifstream in(argv[1], std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto loaded = m::Weights::load(std::span(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()));
    if (!loaded) {
      std::fprintf(stderr, "%s\n", loaded.error().what().c_str());
      return 1;
    }
    weights.emplace(std::move(*loaded));
  } else {
    weights = embedded<m::Weights>();
    if (!weights) {
      std::fprintf(stderr, "the module embeds no weights\n");
      return 1;
    }
  }
  std::vector<float> x(2048);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 7) * 0.25f - 0.75f;
  m::Cpu cpu;
  auto y = m::forward(cpu, *weights, m::Tensor<float, m::Axes<m::One, m::K>>({1, 2048}, x));
  if (!y) {
    std::fprintf(stderr, "%s\n", y.error().what().c_str());
    return 1;
  }
  for (float v : y->values()) std::printf("%a\n", static_cast<double>(v));
  return 0;
}
