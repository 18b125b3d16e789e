// Sentences in, embeddings out: BERT's uncased WordPiece spells each sentence between [CLS] and
// [SEP], the generated module (a BERT encoder as optimum exports it: symbolic batch and sequence)
// runs them as one padded batch, and each sentence's embedding is the mean of its tokens' last
// hidden states (the padding masked out), L2-normalised, as sentence-transformers pools them. It
// prints each embedding's first values and the cosine similarity of every pair. With --expect FILE
// (expected.json: onnxruntime's similarities, written by make_model.py) it embeds the file's
// sentences and exits 1 if a similarity differs by more than 1e-4.
//
//   embed_example CHECKPOINT VOCAB [--expect FILE] [SENTENCE...]
//
// Nothing here names the module's axes: the input and output types are read off `forward`, so the
// same program serves any layout (the tiny model's, or one `loam layout` proposed for another).
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "embed_model.hpp"
#include "loam/tokenizers.hpp"

namespace m = embed_model;

namespace {

// forward(backend, weights, input_ids, attention_mask, token_type_ids): the ids' tensor type.
template <class F>
struct IdsOf;
template <class R, class B, class W, class I, class... More>
struct IdsOf<R (*)(B, W, I, More...)> {
  using type = std::remove_cvref_t<I>;
};
using Ids = IdsOf<decltype(&m::forward<m::Cpu>)>::type;

std::string read_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path);
    std::exit(1);
  }
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: embed_example CHECKPOINT VOCAB [--expect FILE] [SENTENCE...]\n");
    return 2;
  }
  std::vector<std::string> sentences;
  std::vector<std::vector<double>> expected;
  for (int i = 3; i < argc; ++i) {
    if (std::string(argv[i]) == "--expect" && i + 1 < argc) {
      const auto j = nlohmann::json::parse(read_file(argv[++i]));
      sentences = j.at("sentences").get<std::vector<std::string>>();
      expected = j.at("similarities").get<std::vector<std::vector<double>>>();
    } else {
      sentences.push_back(argv[i]);
    }
  }
  if (sentences.empty()) sentences = {"A man is eating food.", "A man is riding a horse."};

  const std::string checkpoint = read_file(argv[1]);
  auto weights = m::Weights::load(std::span(reinterpret_cast<const std::byte*>(checkpoint.data()), checkpoint.size()));
  if (!weights) {
    std::fprintf(stderr, "%s\n", weights.error().what().c_str());
    return 1;
  }
  const auto wordpiece = loam::tokenizers::WordPiece::from_file(argv[2], {.lowercase = true});
  const std::int32_t cls = 101, sep = 102;  // BERT's [CLS] and [SEP]

  // One batch, each sentence padded to the longest with [PAD] (0) and masked out.
  std::vector<std::vector<std::int32_t>> tokens;
  std::size_t length = 0;
  for (const auto& s : sentences) {
    std::vector<std::int32_t> t = {cls};
    for (auto id : wordpiece.encode(s)) t.push_back(id);
    t.push_back(sep);
    length = std::max(length, t.size());
    tokens.push_back(std::move(t));
  }
  const auto batch = static_cast<std::int64_t>(sentences.size()), seq = static_cast<std::int64_t>(length);
  std::vector<std::int64_t> ids(static_cast<std::size_t>(batch * seq), 0), mask(ids.size(), 0);
  for (std::size_t b = 0; b < tokens.size(); ++b)
    for (std::size_t t = 0; t < tokens[b].size(); ++t) {
      ids[b * length + t] = tokens[b][t];
      mask[b * length + t] = 1;
    }
  m::Cpu cpu;
  auto hidden = m::forward(cpu, *weights, Ids({batch, seq}, ids), Ids({batch, seq}, mask),
                           Ids({batch, seq}, std::vector<std::int64_t>(ids.size(), 0)));
  if (!hidden) {
    std::fprintf(stderr, "%s\n", hidden.error().what().c_str());
    return 1;
  }

  // Mean pooling over each sentence's tokens, then L2 normalisation.
  const auto width = static_cast<std::size_t>(hidden->extents()[2]);
  const auto values = hidden->values();
  std::vector<std::vector<double>> embedding(sentences.size(), std::vector<double>(width, 0.0));
  for (std::size_t b = 0; b < sentences.size(); ++b) {
    for (std::size_t t = 0; t < tokens[b].size(); ++t)
      for (std::size_t h = 0; h < width; ++h) embedding[b][h] += values[(b * length + t) * width + h];
    double norm = 0;
    for (auto& v : embedding[b]) {
      v /= static_cast<double>(tokens[b].size());
      norm += v * v;
    }
    for (auto& v : embedding[b]) v /= std::sqrt(norm);
    std::printf("%zu: %s [", b, sentences[b].c_str());
    for (std::size_t h = 0; h < std::min<std::size_t>(width, 4); ++h) std::printf("%s%.4f", h ? ", " : "", embedding[b][h]);
    std::printf(", ...] (%zu values)\n", width);
  }
  double worst = 0;
  for (std::size_t a = 0; a < sentences.size(); ++a)
    for (std::size_t b = a + 1; b < sentences.size(); ++b) {
      double cosine = 0;
      for (std::size_t h = 0; h < width; ++h) cosine += embedding[a][h] * embedding[b][h];
      std::printf("cosine(%zu, %zu) = %.4f\n", a, b, cosine);
      if (!expected.empty()) worst = std::max(worst, std::abs(cosine - expected.at(a).at(b)));
    }
  if (!expected.empty()) {
    std::printf("largest difference from onnxruntime's similarities: %.2e\n", worst);
    if (!(worst <= 1e-4)) return 1;
  }
  return 0;
}
