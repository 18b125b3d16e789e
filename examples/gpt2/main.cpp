// Text in, text out: GPT-2's BPE spells the prompt, the generated module (optimum's merged decoder:
// one If on use_cache_branch) runs it in one pass through the branch without a past, then one token
// a step through the branch with one, each feeding back the presents as the next past; the tokens
// are printed as they come. Greedy by default; --temperature T (> 0) samples, from the --top-k K
// likeliest tokens if given, with --seed S. With --expect FILE (expected.json, onnxruntime's greedy
// continuation, written by make_model.py) it checks the greedy picks and exits 1 on a difference.
//
//   gpt2_example CHECKPOINT ENCODER_JSON MERGES [--prompt TEXT] [--tokens N] [--temperature T]
//                [--top-k K] [--seed S] [--expect FILE]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpt2_tiny.hpp"
#include "loam/tokenizers.hpp"

namespace m = gpt2_tiny;

namespace {

using Past = m::Tensor<float, m::Axes<m::Batch, m::Heads, m::Past, m::HeadDim>>;
using Ids = m::Tensor<std::int64_t, m::Axes<m::Batch, m::Seq>>;

std::string read_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path);
    std::exit(1);
  }
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The next token from the last position's logits: the largest, or a draw from the softmax of
// logits / temperature over the top-k.
std::int32_t pick(std::span<const float> logits, double temperature, std::size_t top_k, std::mt19937_64& rng) {
  std::vector<std::int32_t> order(logits.size());
  std::iota(order.begin(), order.end(), 0);
  if (temperature <= 0) return *std::max_element(order.begin(), order.end(), [&](auto a, auto b) { return logits[a] < logits[b]; });
  const std::size_t k = top_k == 0 ? order.size() : std::min(top_k, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                    [&](auto a, auto b) { return logits[a] > logits[b]; });
  std::vector<double> weights(k);
  for (std::size_t i = 0; i < k; ++i) weights[i] = std::exp((logits[order[i]] - logits[order[0]]) / temperature);
  std::discrete_distribution<std::size_t> draw(weights.begin(), weights.end());
  return order[draw(rng)];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: gpt2_example CHECKPOINT ENCODER_JSON MERGES [--prompt TEXT] [--tokens N] [--temperature T] "
                         "[--top-k K] [--seed S] [--expect FILE]\n");
    return 2;
  }
  std::string prompt = "The quick brown fox";
  int tokens = 12;
  double temperature = 0;
  std::size_t top_k = 0;
  std::uint64_t seed = 0;
  const char* expect = nullptr;
  for (int i = 4; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--prompt") prompt = argv[i + 1];
    else if (flag == "--tokens") tokens = std::atoi(argv[i + 1]);
    else if (flag == "--temperature") temperature = std::atof(argv[i + 1]);
    else if (flag == "--top-k") top_k = static_cast<std::size_t>(std::atoll(argv[i + 1]));
    else if (flag == "--seed") seed = std::strtoull(argv[i + 1], nullptr, 10);
    else if (flag == "--expect") expect = argv[i + 1];
    else {
      std::fprintf(stderr, "unknown option %s\n", flag.c_str());
      return 2;
    }
  }
  std::vector<std::int32_t> expected;
  if (expect) {
    const auto j = nlohmann::json::parse(read_file(expect));
    prompt = j.at("prompt").get<std::string>();
    expected = j.at("greedy").get<std::vector<std::int32_t>>();
    tokens = static_cast<int>(expected.size());
    temperature = 0;
  }

  const std::string checkpoint = read_file(argv[1]);
  auto weights = m::Weights::load(std::span(reinterpret_cast<const std::byte*>(checkpoint.data()), checkpoint.size()));
  if (!weights) {
    std::fprintf(stderr, "%s\n", weights.error().what().c_str());
    return 1;
  }
  const auto bpe = loam::tokenizers::BytePairEncoding::from_files(argv[2], argv[3]);
  std::vector<std::int32_t> step = bpe.encode(prompt);
  std::printf("%s", prompt.c_str());
  std::fflush(stdout);

  m::Cpu cpu;
  std::mt19937_64 rng(seed);
  std::int64_t seen = 0;
  const std::int64_t heads = m::Heads::EXTENT, head_dim = m::HeadDim::EXTENT;
  // The prompt's past is empty (its branch does not read it).
  Past past[4] = {Past({1, heads, 0, head_dim}), Past({1, heads, 0, head_dim}), Past({1, heads, 0, head_dim}), Past({1, heads, 0, head_dim})};
  std::vector<std::int32_t> generated;
  for (int t = 0; t < tokens; ++t) {
    const auto n = static_cast<std::int64_t>(step.size());
    Ids ids({1, n}, std::vector<std::int64_t>(step.begin(), step.end()));
    std::vector<std::int64_t> at(static_cast<std::size_t>(n));
    std::iota(at.begin(), at.end(), seen);
    Ids positions({1, n}, at);
    m::Tensor<std::int64_t, m::Axes<m::Batch, m::Total>> mask({1, seen + n}, std::vector<std::int64_t>(static_cast<std::size_t>(seen + n), 1));
    const m::Tensor<bool, m::Axes<m::One>> use_cache_branch({1}, {seen > 0});
    auto out = m::forward(cpu, *weights, ids, mask, positions, past[0], past[1], past[2], past[3], use_cache_branch);
    if (!out) {
      std::fprintf(stderr, "\n%s\n", out.error().what().c_str());
      return 1;
    }
    const std::span<const float> logits = out->logits.values().subspan(static_cast<std::size_t>((n - 1) * m::Vocab::EXTENT),
                                                                        static_cast<std::size_t>(m::Vocab::EXTENT));
    const std::int32_t next = pick(logits, temperature, top_k, rng);
    generated.push_back(next);
    const std::string text = bpe.decode(std::span(&next, 1));
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    // The presents are the next step's past: the same elements under the past's axes.
    const decltype(out->present_0_key)* presents[4] = {&out->present_0_key, &out->present_0_value, &out->present_1_key, &out->present_1_value};
    for (int k = 0; k < 4; ++k) past[k] = presents[k]->template regrouped<m::Axes<m::Batch, m::Heads, m::Past, m::HeadDim>>(presents[k]->extents());
    seen += n;
    step = {next};
  }
  std::printf("\n");
  if (expect && generated != expected) {
    std::fprintf(stderr, "the greedy picks differ from onnxruntime's (%s)\n", expect);
    return 1;
  }
  return 0;
}
