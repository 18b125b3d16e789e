// Classifies the six handwritten digits shipped with MNIST-12's test data (digits/, written by
// make_digits.py) with the module loam_add_model generated from mnist-12.onnx at build time.
// Prints each digit as it looks, the class forward picks, and the label ONNX's test data records;
// exits 1 if any pick differs from its label.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "mnist.hpp"

int main(int argc, char** argv) {
  std::string dir = argc > 1 ? argv[1] : LOAM_MNIST_DIGITS;
  std::ifstream labels_file(dir + "/labels.txt");
  std::vector<int> labels;
  for (int l; labels_file >> l;) labels.push_back(l);
  if (labels.empty()) {
    std::fprintf(stderr, "no labels in %s/labels.txt\n", dir.c_str());
    return 1;
  }
  // The weights are the graph's own initializers, embedded in the generated header.
  const mnist::Weights weights = mnist::Weights::embedded();
  mnist::Cpu cpu;
  using Image = mnist::Tensor<float, mnist::Axes<mnist::Batch, mnist::Gray, mnist::Height, mnist::Width>>;
  int wrong = 0;
  for (std::size_t k = 0; k < labels.size(); ++k) {
    std::ifstream in(dir + "/digit_" + std::to_string(k) + ".f32", std::ios::binary);
    std::vector<float> pixels(mnist::Height::EXTENT * mnist::Width::EXTENT);
    if (!in.read(reinterpret_cast<char*>(pixels.data()), static_cast<std::streamsize>(pixels.size() * sizeof(float)))) {
      std::fprintf(stderr, "cannot read digit %zu\n", k);
      return 1;
    }
    Image image({mnist::Batch::EXTENT, mnist::Gray::EXTENT, mnist::Height::EXTENT, mnist::Width::EXTENT}, pixels);
    auto logits = mnist::forward(cpu, weights, image);
    if (!logits) {
      std::fprintf(stderr, "%s\n", logits.error().what().c_str());
      return 1;
    }
    auto v = logits->values();
    int pick = static_cast<int>(std::max_element(v.begin(), v.end()) - v.begin());
    for (int r = 0; r < 28; r += 2) {
      for (int c = 0; c < 28; ++c) {
        float p = std::max(pixels[static_cast<std::size_t>(r * 28 + c)], pixels[static_cast<std::size_t>((r + 1) * 28 + c)]);
        std::putchar(p > 170 ? '#' : p > 60 ? '+' : p > 10 ? '.' : ' ');
      }
      std::putchar('\n');
    }
    std::printf("digit %zu: forward picks %d, the test data's label is %d%s\n\n", k, pick, labels[k],
                pick == labels[k] ? "" : "  <-- MISMATCH");
    wrong += pick != labels[k];
  }
  std::printf("%zu digits, %d misclassified\n", labels.size(), wrong);
  return wrong ? 1 : 0;
}
