// The tokenizers against Hugging Face's `tokenizers` (oracle.json, written by make_oracle.py): on
// every string of the corpus, GPT-2's BPE ids and the exact bytes back, BERT's WordPiece ids (uncased
// and cased) and its decoder's text; GPT-2's ids on encode_examples.json (gpt-3-encoder's); text that
// is not UTF-8 refused at the byte where it stops being UTF-8.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "loam/tokenizers.hpp"

namespace {

using loam::tokenizers::BytePairEncoding;
using loam::tokenizers::TokenId;
using loam::tokenizers::TokenizerError;
using loam::tokenizers::WordPiece;

std::string source(const std::string& path) { return std::string(LOAM_SOURCE_DIR) + "/" + path; }

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  return nlohmann::json::parse(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()));
}

const BytePairEncoding& gpt2() {
  static const BytePairEncoding t =
      BytePairEncoding::from_files(source("data/tokenizers/gpt2/encoder.json"), source("data/tokenizers/gpt2/vocab.bpe"));
  return t;
}

const WordPiece& bert(bool lowercase) {
  static const WordPiece uncased = WordPiece::from_file(source("data/tokenizers/bert-base-uncased/vocab.txt"), {.lowercase = true});
  static const WordPiece cased = WordPiece::from_file(source("data/tokenizers/bert-base-uncased/vocab.txt"), {.lowercase = false});
  return lowercase ? uncased : cased;
}

const nlohmann::json& oracle() {
  static const nlohmann::json o = read_json(source("tests/unit/tokenizers/oracle.json"));
  return o;
}

// A string for a failure message: printable ASCII as is, anything else escaped.
std::string shown(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (c >= 0x20 && c < 0x7F) out += static_cast<char>(c);
    else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
    }
  }
  return out;
}

TEST(Tokenizers, TheCorpusIsLargeAndVaried) {
  const auto& cases = oracle().at("cases");
  EXPECT_GE(cases.size(), 2000u);
  std::size_t non_ascii = 0, whitespace_runs = 0;
  for (const auto& c : cases) {
    const std::string text = c.at("text");
    for (unsigned char b : text) non_ascii += b >= 0x80;
    whitespace_runs += text.find("  ") != std::string::npos;
  }
  EXPECT_GT(non_ascii, 1000u);
  EXPECT_GT(whitespace_runs, 100u);
}

TEST(Tokenizers, Gpt2MatchesTheOracleAndDecodesToTheSameBytes) {
  std::size_t wrong = 0;
  for (const auto& c : oracle().at("cases")) {
    const std::string text = c.at("text");
    const std::vector<TokenId> want = c.at("gpt2");
    const std::vector<TokenId> got = gpt2().encode(text);
    if (got != want && ++wrong <= 10) ADD_FAILURE() << "'" << shown(text) << "': ids differ from Hugging Face's";
    EXPECT_EQ(gpt2().decode(got), text) << shown(text);
  }
  EXPECT_EQ(wrong, 0u);
}

TEST(Tokenizers, WordPieceMatchesTheOracleUncasedAndCased) {
  for (const bool lowercase : {true, false}) {
    const std::string key = lowercase ? "bert_uncased" : "bert_cased";
    std::size_t wrong = 0;
    for (const auto& c : oracle().at("cases")) {
      const std::string text = c.at("text");
      const std::vector<TokenId> want = c.at(key);
      const std::vector<TokenId> got = bert(lowercase).encode(text);
      if (got != want && ++wrong <= 10) ADD_FAILURE() << key << " '" << shown(text) << "': ids differ from Hugging Face's";
      const std::string decoded = c.at(key + "_decoded");
      if (got == want) EXPECT_EQ(bert(lowercase).decode(got), decoded) << key << " '" << shown(text) << "'";
    }
    EXPECT_EQ(wrong, 0u) << key;
  }
}

TEST(Tokenizers, Gpt2MatchesGpt3EncoderOnItsExamples) {
  const auto examples = read_json(source("data/tokenizers/gpt2/encode_examples.json"));
  ASSERT_EQ(examples.at("examples").size(), 5u);
  for (const auto& e : examples.at("examples")) {
    const std::string text = e.at("text");
    const std::vector<TokenId> want = e.at("ids");
    EXPECT_EQ(gpt2().encode(text), want) << shown(text);
    for (std::size_t i = 0; i < want.size(); ++i) EXPECT_EQ(gpt2().token(want[i]), e.at("tokens").at(i).get<std::string>());
  }
}

TEST(Tokenizers, TextThatIsNotUtf8IsRefusedAtItsOffset) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {std::string("ab\xC3", 3), "byte 2 starts a sequence the text cuts short"},
      {std::string("ok \xC0\xAF", 5), "byte 3 starts no sequence"},                  // overlong '/'
      {std::string("\xE0\x80\xAF", 3), "byte 0 starts an overlong form"},
      {std::string("x\xED\xA0\x80", 4), "byte 1 starts a surrogate"},
      {std::string("xy\xF4\x90\x80\x80", 6), "byte 2 starts a code point past U+10FFFF"},
      {std::string("abc\x80", 4), "byte 3 continues a sequence that did not start"},
      {std::string("\xE2\x82x", 3), "byte 0 starts a sequence whose next byte does not continue it"},
  };
  for (const auto& [text, why] : cases) {
    for (int kind = 0; kind < 2; ++kind) {
      try {
        if (kind == 0) (void)gpt2().encode(text);
        else (void)bert(true).encode(text);
        ADD_FAILURE() << shown(text) << " was taken";
      } catch (const TokenizerError& e) {
        EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
      }
    }
  }
  EXPECT_NO_THROW(loam::tokenizers::require_utf8("\xF0\x9F\x98\x80 \xE2\x82\xAC"));
}

TEST(Tokenizers, DecodingRefusesAnIdOutsideTheVocabulary) {
  const std::vector<TokenId> ids = {15496, 50257};
  EXPECT_THROW(gpt2().decode(ids), TokenizerError);
  const std::vector<TokenId> negative = {-1};
  EXPECT_THROW(bert(true).decode(negative), TokenizerError);
  EXPECT_EQ(gpt2().size(), 50257u);
  EXPECT_EQ(bert(true).size(), 30522u);
}

TEST(Tokenizers, MalformedFilesAreRefusedNamingThePlace) {
  EXPECT_THROW(BytePairEncoding("{\"a\": 0}", ""), TokenizerError);  // no token for most bytes
  try {
    WordPiece("a\nb\n", {});
    ADD_FAILURE() << "a vocabulary without [UNK] was taken";
  } catch (const TokenizerError& e) {
    EXPECT_NE(std::string(e.what()).find("[UNK]"), std::string::npos);
  }
  try {
    (void)BytePairEncoding::from_files(source("data/tokenizers/gpt2/encoder.json"), source("data/tokenizers/gpt2/PROVENANCE.md"));
    ADD_FAILURE() << "a merges file of prose was taken";
  } catch (const TokenizerError& e) {
    EXPECT_NE(std::string(e.what()).find("merges line"), std::string::npos) << e.what();
  }
}

}  // namespace
