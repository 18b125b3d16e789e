// The MLP example: loads mlp.safetensors through the generated module's Weights::load, runs forward
// on the CPU backend and prints the logits beside what onnxruntime computed for the same input
// (expected.json, written by make_mlp.py). Exits 1 if any logit differs by more than 1e-4.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <vector>

#include "mlp.hpp"

int main(int argc, char** argv) {
  const char* checkpoint = argc > 1 ? argv[1] : "mlp.safetensors";
  std::ifstream in(checkpoint, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", checkpoint);
    return 1;
  }
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto weights = mlp::Weights::load(std::span(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()));
  if (!weights) {
    std::fprintf(stderr, "%s\n", weights.error().what().c_str());
    return 1;
  }
  // The input make_mlp.py feeds onnxruntime: x[b][i] = (16 b + i) / 10 - 2, three rows.
  constexpr std::int64_t rows = 3;
  std::vector<float> x;
  for (std::int64_t b = 0; b < rows; ++b)
    for (std::int64_t i = 0; i < mlp::In::EXTENT; ++i) x.push_back(static_cast<float>(b * mlp::In::EXTENT + i) / 10.0f - 2.0f);
  mlp::Tensor<float, mlp::Axes<mlp::Batch, mlp::In>> input({rows, mlp::In::EXTENT}, x);

  mlp::Cpu cpu;
  auto logits = mlp::forward(cpu, *weights, input);
  if (!logits) {
    std::fprintf(stderr, "%s\n", logits.error().what().c_str());
    return 1;
  }
  // onnxruntime's logits for that input (expected.json).
  const float expected[rows][4] = {{-1.7000437f, -0.18523751f, 0.5763151f, -1.3289723f},
                                   {-0.14119178f, 0.64437324f, 0.02044094f, -0.36264473f},
                                   {-0.9118596f, 0.41519198f, 0.23795383f, -0.3752889f}};
  int bad = 0;
  for (std::int64_t b = 0; b < rows; ++b) {
    std::printf("row %lld:", static_cast<long long>(b));
    for (std::int64_t o = 0; o < mlp::Out::EXTENT; ++o) {
      float v = logits->values()[static_cast<std::size_t>(b * mlp::Out::EXTENT + o)];
      std::printf(" %9.5f", v);
      if (std::fabs(v - expected[b][o]) > 1e-4f) ++bad;
    }
    std::printf("\n");
  }
  std::printf(bad ? "MISMATCH against onnxruntime\n" : "matches onnxruntime\n");
  return bad ? 1 : 0;
}
