// loam tokenize (--bpe ENCODER_JSON MERGES | --wordpiece VOCAB [--lowercase]) [--decode]
// Reads UTF-8 text on standard input and prints its token ids separated by spaces (no special
// tokens added); with --decode, reads ids separated by whitespace and writes the text they spell:
// BPE's exact bytes, WordPiece's words joined as BERT's decoder joins them.
#include <cstdio>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <sstream>
#include <variant>

#include "loam/tokenizers.hpp"
#include "subcommand.hpp"
#include "support/error.hpp"

namespace {

struct TokenizeArgs {
  std::vector<std::string> bpe;
  std::string wordpiece;
  bool lowercase = false;
  bool decode = false;
};

std::vector<loam::tokenizers::TokenId> read_ids(const std::string& text) {
  std::vector<loam::tokenizers::TokenId> ids;
  std::istringstream in(text);
  std::string word;
  for (std::size_t position = 0; in >> word; ++position) {
    std::size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(word, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != word.size() || v < 0 || v > 0x7FFFFFFF)
      loam::fail("standard input: id " + std::to_string(position) + " '" + word + "' is not a token id");
    ids.push_back(static_cast<loam::tokenizers::TokenId>(v));
  }
  return ids;
}

const loam::cli::SubcommandRegistration tokenize_registration([](CLI::App& app) -> loam::cli::Run {
  auto args = std::make_shared<TokenizeArgs>();
  CLI::App* sub = app.add_subcommand("tokenize", "Text on standard input to token ids (or ids to text with --decode)");
  auto* bpe = sub->add_option("--bpe", args->bpe, "GPT-2's byte-level BPE: the encoder JSON and the merges file")->expected(2);
  auto* wp = sub->add_option("--wordpiece", args->wordpiece, "BERT's WordPiece: the vocabulary file, one token per line");
  bpe->excludes(wp);
  sub->add_flag("--lowercase", args->lowercase, "BERT's uncased normaliser: accents stripped, lower case")->needs(wp);
  sub->add_flag("--decode", args->decode, "read ids, write the text they spell");
  sub->require_option(1, 3);
  return [args, bpe, wp]() -> int {
    if (!*bpe && !*wp) loam::fail("give --bpe ENCODER_JSON MERGES or --wordpiece VOCAB");
    const std::string input((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    try {
      std::variant<loam::tokenizers::BytePairEncoding, loam::tokenizers::WordPiece> tokenizer =
          *bpe ? std::variant<loam::tokenizers::BytePairEncoding, loam::tokenizers::WordPiece>(
                     loam::tokenizers::BytePairEncoding::from_files(args->bpe.at(0), args->bpe.at(1)))
               : loam::tokenizers::WordPiece::from_file(args->wordpiece, {.lowercase = args->lowercase});
      if (args->decode) {
        const auto ids = read_ids(input);
        const std::string text = std::visit([&](const auto& t) { return t.decode(ids); }, tokenizer);
        std::fwrite(text.data(), 1, text.size(), stdout);
        return 0;
      }
      const auto ids = std::visit([&](const auto& t) { return t.encode(input); }, tokenizer);
      std::string line;
      for (std::size_t i = 0; i < ids.size(); ++i) line += (i ? " " : "") + std::to_string(ids[i]);
      std::printf("%s\n", line.c_str());
    } catch (const loam::tokenizers::TokenizerError& e) {
      loam::fail(std::string(args->decode ? "" : "standard input: ") + e.what());
    }
    return 0;
  };
});

}  // namespace
