// GPT-2's byte-level BPE (OpenAI's encoder.py, as Hugging Face's ByteLevel pre-tokenizer, BPE model
// and ByteLevel decoder compute it): the text's pieces by the pre-tokenizer pattern, each piece's
// bytes spelled in the byte-level alphabet (each byte a printable code point: the printable Latin-1
// bytes themselves, the rest U+0100 onwards in byte order), then the adjacent pair of lowest merge
// rank joined everywhere it occurs, left to right, until no pair has a rank.
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <nlohmann/json.hpp>

#include <array>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>
#include <unordered_map>

#include "loam/tokenizers.hpp"
#include "tokenizers/utf8.hpp"

namespace loam::tokenizers {
namespace {

// GPT-2's pre-tokenizer: contractions, a letter run, a digit run, a run of anything else (each
// with one space before it), then whitespace not followed by a non-space, then any whitespace.
constexpr const char* kPattern = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

// The byte-level alphabet: byte b as one code point.
std::array<char32_t, 256> byte_alphabet() {
  std::array<char32_t, 256> a{};
  std::array<bool, 256> printable{};
  for (int b = '!'; b <= '~'; ++b) printable[b] = true;
  for (int b = 0xA1; b <= 0xAC; ++b) printable[b] = true;
  for (int b = 0xAE; b <= 0xFF; ++b) printable[b] = true;
  char32_t next = 0x100;
  for (int b = 0; b < 256; ++b) a[b] = printable[b] ? static_cast<char32_t>(b) : next++;
  return a;
}

struct PairHash {
  std::size_t operator()(const std::pair<TokenId, TokenId>& p) const {
    return std::hash<std::uint64_t>()((static_cast<std::uint64_t>(static_cast<std::uint32_t>(p.first)) << 32) |
                                      static_cast<std::uint32_t>(p.second));
  }
};

}  // namespace

struct BytePairEncoding::State {
  std::unordered_map<std::string, TokenId> ids;  // token (byte-level alphabet) -> id
  std::vector<std::string> tokens;               // id -> token
  std::vector<std::string> bytes;                // id -> the bytes it spells
  std::array<TokenId, 256> byte_token{};         // the token of each single byte
  // Merges as pairs of token ids: the rank and the token the pair joins into.
  std::unordered_map<std::pair<TokenId, TokenId>, std::pair<std::uint32_t, TokenId>, PairHash> merges;
  pcre2_code* pattern = nullptr;

  ~State() { pcre2_code_free(pattern); }

  // The pieces' ids: merge by rank until no adjacent pair has one.
  void merge(std::vector<TokenId>& word) const {
    while (word.size() > 1) {
      std::uint32_t best = std::numeric_limits<std::uint32_t>::max();
      std::pair<TokenId, TokenId> pair{};
      TokenId joined = 0;
      for (std::size_t i = 0; i + 1 < word.size(); ++i) {
        auto it = merges.find({word[i], word[i + 1]});
        if (it != merges.end() && it->second.first < best) {
          best = it->second.first;
          pair = it->first;
          joined = it->second.second;
        }
      }
      if (best == std::numeric_limits<std::uint32_t>::max()) return;
      std::size_t out = 0;
      for (std::size_t i = 0; i < word.size(); ++i) {
        if (i + 1 < word.size() && word[i] == pair.first && word[i + 1] == pair.second) {
          word[out++] = joined;
          ++i;
        } else {
          word[out++] = word[i];
        }
      }
      word.resize(out);
    }
  }
};

BytePairEncoding::BytePairEncoding(std::string_view encoder_json, std::string_view merges) : s_(std::make_unique<State>()) {
  nlohmann::json encoder;
  try {
    encoder = nlohmann::json::parse(encoder_json);
  } catch (const nlohmann::json::exception& e) {
    throw TokenizerError(std::string("the encoder is not JSON: ") + e.what());
  }
  if (!encoder.is_object()) throw TokenizerError("the encoder is not a JSON object of token -> id");
  for (const auto& [token, id] : encoder.items()) {
    if (!id.is_number_integer() || id.get<std::int64_t>() < 0 || id.get<std::int64_t>() > 0x7FFFFFFF)
      throw TokenizerError("the encoder gives token '" + token + "' the id " + id.dump() + ", not a non-negative integer");
    const auto n = static_cast<std::size_t>(id.get<std::int64_t>());
    if (n >= s_->tokens.size()) s_->tokens.resize(n + 1);
    if (!s_->tokens[n].empty()) throw TokenizerError("the encoder gives the id " + std::to_string(n) + " twice");
    require_utf8(token);
    s_->tokens[n] = token;
    s_->ids.emplace(token, static_cast<TokenId>(n));
  }
  // Each token's bytes, through the alphabet.
  const auto alphabet = byte_alphabet();
  std::unordered_map<char32_t, unsigned char> byte_of;
  for (int b = 0; b < 256; ++b) byte_of[alphabet[b]] = static_cast<unsigned char>(b);
  s_->bytes.resize(s_->tokens.size());
  for (std::size_t id = 0; id < s_->tokens.size(); ++id) {
    if (s_->tokens[id].empty()) throw TokenizerError("the encoder gives no token the id " + std::to_string(id));
    for (const auto& c : utf8::decode(s_->tokens[id])) {
      auto it = byte_of.find(c.value);
      if (it == byte_of.end())
        throw TokenizerError("the encoder's token '" + s_->tokens[id] + "' (id " + std::to_string(id) + ") holds a character outside the byte-level alphabet");
      s_->bytes[id] += static_cast<char>(it->second);
    }
  }
  for (int b = 0; b < 256; ++b) {
    std::string t;
    utf8::append(t, alphabet[b]);
    auto it = s_->ids.find(t);
    if (it == s_->ids.end()) throw TokenizerError("the encoder has no token for the byte " + std::to_string(b));
    s_->byte_token[b] = it->second;
  }
  // Merges: "a b" per line in rank order, after an optional "#version" line.
  std::size_t line_no = 0, start = 0;
  std::uint32_t rank = 0;
  while (start < merges.size()) {
    std::size_t end = merges.find('\n', start);
    if (end == std::string_view::npos) end = merges.size();
    std::string_view line = merges.substr(start, end - start);
    start = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || (line_no == 1 && line.rfind("#version", 0) == 0)) continue;
    const std::size_t space = line.find(' ');
    if (space == std::string_view::npos || space == 0 || space + 1 == line.size() || line.find(' ', space + 1) != std::string_view::npos)
      throw TokenizerError("merges line " + std::to_string(line_no) + ": not two tokens separated by one space");
    const std::string a(line.substr(0, space)), b(line.substr(space + 1));
    auto ia = s_->ids.find(a), ib = s_->ids.find(b), ij = s_->ids.find(a + b);
    if (ia == s_->ids.end() || ib == s_->ids.end() || ij == s_->ids.end())
      throw TokenizerError("merges line " + std::to_string(line_no) + ": '" + a + "', '" + b + "' or what they join is not in the encoder");
    s_->merges.emplace(std::pair{ia->second, ib->second}, std::pair{rank++, ij->second});  // the first rank of a pair stands
  }
  int error = 0;
  PCRE2_SIZE error_offset = 0;
  s_->pattern = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(kPattern), PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_UCP | PCRE2_NO_UTF_CHECK,
                              &error, &error_offset, nullptr);
  if (!s_->pattern) throw TokenizerError("the pre-tokenizer pattern does not compile (PCRE2 error " + std::to_string(error) + ")");
}

BytePairEncoding BytePairEncoding::from_files(const std::filesystem::path& encoder_json, const std::filesystem::path& merges) {
  try {
    return BytePairEncoding(utf8::read_file(encoder_json), utf8::read_file(merges));
  } catch (const TokenizerError& e) {
    throw TokenizerError(encoder_json.string() + ", " + merges.string() + ": " + e.what());
  }
}

BytePairEncoding::BytePairEncoding(BytePairEncoding&&) noexcept = default;
BytePairEncoding& BytePairEncoding::operator=(BytePairEncoding&&) noexcept = default;
BytePairEncoding::~BytePairEncoding() = default;

std::vector<TokenId> BytePairEncoding::encode(std::string_view text) const {
  require_utf8(text);  // PCRE2 is told the text is UTF-8, so it is checked here, with an offset
  std::vector<TokenId> out;
  pcre2_match_data* match = pcre2_match_data_create_from_pattern(s_->pattern, nullptr);
  if (!match) throw TokenizerError("out of memory for a match");
  std::vector<TokenId> word;
  PCRE2_SIZE at = 0;
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  while (at < text.size()) {
    const int rc = pcre2_match(s_->pattern, subject, text.size(), at, PCRE2_NO_UTF_CHECK, match, nullptr);
    if (rc < 0) {
      pcre2_match_data_free(match);
      // The pattern's last alternative matches any whitespace and the others everything else: no
      // byte of valid text is left unmatched.
      throw TokenizerError("the pre-tokenizer pattern matched nothing at byte " + std::to_string(at) + " (PCRE2 " + std::to_string(rc) + ")");
    }
    const PCRE2_SIZE* range = pcre2_get_ovector_pointer(match);
    word.clear();
    for (PCRE2_SIZE i = range[0]; i < range[1]; ++i) word.push_back(s_->byte_token[static_cast<unsigned char>(text[i])]);
    s_->merge(word);
    out.insert(out.end(), word.begin(), word.end());
    at = range[1] > at ? range[1] : at + 1;
  }
  pcre2_match_data_free(match);
  return out;
}

std::string BytePairEncoding::decode(std::span<const TokenId> ids) const {
  std::string out;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || static_cast<std::size_t>(ids[i]) >= s_->bytes.size())
      throw TokenizerError("id " + std::to_string(ids[i]) + " at position " + std::to_string(i) + " is outside the vocabulary of " +
                           std::to_string(s_->bytes.size()));
    out += s_->bytes[static_cast<std::size_t>(ids[i])];
  }
  return out;
}

const std::string& BytePairEncoding::token(TokenId id) const {
  if (id < 0 || static_cast<std::size_t>(id) >= s_->tokens.size()) throw TokenizerError("id " + std::to_string(id) + " is outside the vocabulary");
  return s_->tokens[static_cast<std::size_t>(id)];
}

std::size_t BytePairEncoding::size() const { return s_->tokens.size(); }

}  // namespace loam::tokenizers
