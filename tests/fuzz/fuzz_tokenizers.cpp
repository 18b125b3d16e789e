// libFuzzer target: the tokenizers. The first byte picks what the rest is: text for GPT-2's BPE
// (whose decode must give the text back), text for BERT's WordPiece (uncased or cased, whose ids
// must lie in the vocabulary), ids as bytes for decoding, a WordPiece vocabulary or a merges file
// read beside GPT-2's encoder. A TokenizerError is a refusal and fine; anything else escaping, a
// crash, a sanitizer report or a broken property is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "loam/tokenizers.hpp"

namespace {

using namespace loam::tokenizers;

std::string data_file(const char* name) { return std::string(LOAM_SOURCE_DIR) + "/data/tokenizers/" + name; }

const BytePairEncoding& gpt2() {
  static const BytePairEncoding t = BytePairEncoding::from_files(data_file("gpt2/encoder.json"), data_file("gpt2/vocab.bpe"));
  return t;
}

const WordPiece& bert(bool lowercase) {
  static const WordPiece uncased = WordPiece::from_file(data_file("bert-base-uncased/vocab.txt"), {.lowercase = true});
  static const WordPiece cased = WordPiece::from_file(data_file("bert-base-uncased/vocab.txt"), {.lowercase = false});
  return lowercase ? uncased : cased;
}

// GPT-2's first 1000 tokens (its 256 bytes first) as an encoder: small enough to read per input.
const std::string& encoder_json() {
  static const std::string text = [] {
    std::string json = "{";
    for (TokenId id = 0; id < 1000; ++id) {
      std::string token;
      for (unsigned char c : gpt2().token(id)) {
        if (c == '"' || c == '\\') token += '\\';
        token += static_cast<char>(c);
      }
      json += (id ? ",\"" : "\"") + token + "\":" + std::to_string(id);
    }
    return json + "}";
  }();
  return text;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    switch (data[0] % 5) {
      case 0: {
        const auto ids = gpt2().encode(rest);
        if (gpt2().decode(ids) != rest) std::abort();
        break;
      }
      case 1:
      case 2: {
        const auto& t = bert(data[0] % 5 == 1);
        for (TokenId id : t.encode(rest))
          if (id < 0 || static_cast<std::size_t>(id) >= t.size()) std::abort();
        break;
      }
      case 3: {
        std::vector<TokenId> ids(rest.size() / 4);
        if (!ids.empty()) std::memcpy(ids.data(), rest.data(), ids.size() * 4);
        (void)gpt2().decode(ids);
        (void)bert(true).decode(ids);
        break;
      }
      default: {
        const WordPiece w(rest, {});
        (void)w.encode("a b");
        const BytePairEncoding b(encoder_json(), rest);
        (void)b.encode("hello there");
        break;
      }
    }
  } catch (const TokenizerError&) {
  }
  return 0;
}
