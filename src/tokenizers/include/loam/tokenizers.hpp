// Loam's tokenizers: text to token ids and back, as the models a generated module runs were trained
// with. Two kinds, each equal to Hugging Face's `tokenizers` on the same files:
//
// - BytePairEncoding: GPT-2's byte-level BPE (OpenAI's encoder.json and vocab.bpe, which are
//   Hugging Face's vocab.json and merges.txt). The text is split by GPT-2's pre-tokenizer pattern
//   (matched by PCRE2 with Unicode properties), each piece's bytes are spelled in the byte-level
//   alphabet, and merged pair by pair in the merges' rank order. Every byte has a token, so every
//   text encodes, and decoding gives back its exact bytes.
// - WordPiece: BERT's. The text is normalised as BertNormalizer does (control characters dropped,
//   whitespace made a space, CJK ideographs set apart; with `lowercase`, BERT's uncased form: NFD,
//   nonspacing marks stripped, lower case, through ICU), split at whitespace and punctuation, and
//   each word cut into the longest vocabulary pieces from its start ("##" marks a piece that
//   continues a word); a word no pieces spell is [UNK].
//
// No special tokens are added. Text must be UTF-8: anything else is refused, naming the byte offset
// of the first byte that is not. Not thread-hostile: a tokenizer is immutable once made and may be
// shared.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace loam::tokenizers {

class TokenizerError : public std::runtime_error {
 public:
  explicit TokenizerError(const std::string& message) : std::runtime_error(message) {}
};

// Refuses text that is not UTF-8 (an overlong form, a surrogate, a code point past U+10FFFF, a
// sequence cut short), naming the offset of the first byte of the bad sequence.
void require_utf8(std::string_view text);

using TokenId = std::int32_t;

class BytePairEncoding {
 public:
  // From the two files' contents: the JSON object of token -> id, and the merges (an optional
  // "#version" line, then "a b" per line, rank 0 first).
  BytePairEncoding(std::string_view encoder_json, std::string_view merges);
  static BytePairEncoding from_files(const std::filesystem::path& encoder_json, const std::filesystem::path& merges);
  BytePairEncoding(BytePairEncoding&&) noexcept;
  BytePairEncoding& operator=(BytePairEncoding&&) noexcept;
  ~BytePairEncoding();

  std::vector<TokenId> encode(std::string_view text) const;
  // The bytes the ids spell; an id outside the vocabulary is refused, naming its position.
  std::string decode(std::span<const TokenId> ids) const;
  // The token an id stands for, in the byte-level alphabet (as the encoder file spells it).
  const std::string& token(TokenId id) const;
  std::size_t size() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

class WordPiece {
 public:
  struct Options {
    bool lowercase = false;  // BERT's uncased normaliser: accents stripped, lower case
    std::string unknown = "[UNK]";
    std::string continuation = "##";
    std::size_t max_word_chars = 100;  // a longer word is [UNK]
  };
  // From vocab.txt's contents: one token per line, its id the line's number from 0.
  WordPiece(std::string_view vocab, Options options);
  static WordPiece from_file(const std::filesystem::path& vocab, Options options);
  WordPiece(WordPiece&&) noexcept;
  WordPiece& operator=(WordPiece&&) noexcept;
  ~WordPiece();

  std::vector<TokenId> encode(std::string_view text) const;
  // The tokens joined as BERT's decoder joins them: a space between words, a continuation glued to
  // the piece before it, and the spaces before punctuation and in contractions cleaned up.
  std::string decode(std::span<const TokenId> ids) const;
  const std::string& token(TokenId id) const;
  std::size_t size() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace loam::tokenizers
