// BERT's WordPiece, as Hugging Face's BertNormalizer, BertPreTokenizer, WordPiece model and
// WordPiece decoder compute it. Character classes, NFD and lower case come from ICU.
#include <unicode/locid.h>
#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>

#include <fstream>
#include <iterator>
#include <optional>
#include <unordered_map>

#include "loam/tokenizers.hpp"
#include "tokenizers/utf8.hpp"

namespace loam::tokenizers {
namespace {

// Tab, newline and carriage return are whitespace here, not control characters.
bool is_whitespace(char32_t c) { return c == '\t' || c == '\n' || c == '\r' || u_isUWhiteSpace(static_cast<UChar32>(c)); }

// A character the normaliser drops: a control, format, private-use or surrogate character.
bool is_control(char32_t c) {
  if (c == '\t' || c == '\n' || c == '\r') return false;
  switch (u_charType(static_cast<UChar32>(c))) {
    case U_CONTROL_CHAR: case U_FORMAT_CHAR: case U_PRIVATE_USE_CHAR: case U_SURROGATE: return true;
    default: return false;
  }
}

// CJK ideographs (the CJK Unified Ideographs blocks and their extensions, and the compatibility
// ideographs), which BERT sets apart as words of their own.
bool is_cjk(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
         (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B820 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

// ASCII punctuation (symbols included: $ + < = > ^ ` | ~) and every Unicode punctuation category.
bool is_punctuation(char32_t c) {
  if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126)) return true;
  switch (u_charType(static_cast<UChar32>(c))) {
    case U_CONNECTOR_PUNCTUATION: case U_DASH_PUNCTUATION: case U_START_PUNCTUATION: case U_END_PUNCTUATION:
    case U_INITIAL_PUNCTUATION: case U_FINAL_PUNCTUATION: case U_OTHER_PUNCTUATION: return true;
    default: return false;
  }
}

std::u32string to_u32(const icu::UnicodeString& s) {
  std::u32string out;
  for (int32_t i = 0; i < s.length();) {
    const UChar32 c = s.char32At(i);
    out += static_cast<char32_t>(c);
    i += U16_LENGTH(c);
  }
  return out;
}

icu::UnicodeString to_icu(const std::u32string& s) {
  icu::UnicodeString out;
  for (char32_t c : s) out.append(static_cast<UChar32>(c));
  return out;
}

}  // namespace

struct WordPiece::State {
  Options options;
  std::unordered_map<std::string, TokenId> ids;
  std::vector<std::string> tokens;
  TokenId unknown = 0;
  const icu::Normalizer2* nfd = nullptr;

  // BertNormalizer: controls dropped and whitespace made a space; CJK ideographs set apart; with
  // lowercase, NFD with nonspacing marks dropped, then lower case (full case mapping).
  std::u32string normalise(std::string_view text) const {
    std::u32string s;
    for (const auto& cp : utf8::decode(text)) {
      const char32_t c = cp.value;
      if (c == 0 || c == 0xFFFD || is_control(c)) continue;
      if (is_whitespace(c)) s += U' ';
      else if (is_cjk(c)) s += std::u32string{U' ', c, U' '};
      else s += c;
    }
    if (!options.lowercase) return s;
    UErrorCode status = U_ZERO_ERROR;
    const icu::UnicodeString decomposed = nfd->normalize(to_icu(s), status);
    if (U_FAILURE(status)) throw TokenizerError(std::string("ICU could not decompose the text: ") + u_errorName(status));
    // Each character lowered alone, as the reference does (full mappings, no context: a final
    // sigma stays σ).
    std::u32string lowered;
    for (char32_t c : to_u32(decomposed)) {
      if (u_charType(static_cast<UChar32>(c)) == U_NON_SPACING_MARK) continue;
      if (c < 0x80) {
        lowered += c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
        continue;
      }
      icu::UnicodeString one(static_cast<UChar32>(c));
      lowered += to_u32(one.toLower(icu::Locale::getRoot()));
    }
    return lowered;
  }

  // One word's pieces: the longest vocabulary entry from its start, then from where that ends
  // (continuations spelled with the prefix); a word no pieces spell is the unknown token.
  void pieces(const std::u32string& word, std::vector<TokenId>& out) const {
    if (word.size() > options.max_word_chars) {
      out.push_back(unknown);
      return;
    }
    std::vector<TokenId> found;
    std::size_t start = 0;
    while (start < word.size()) {
      std::size_t end = word.size();
      std::optional<TokenId> piece;
      for (; end > start; --end) {
        std::string candidate = start > 0 ? options.continuation : std::string();
        for (std::size_t k = start; k < end; ++k) utf8::append(candidate, word[k]);
        if (auto it = ids.find(candidate); it != ids.end()) {
          piece = it->second;
          break;
        }
      }
      if (!piece) {
        out.push_back(unknown);
        return;
      }
      found.push_back(*piece);
      start = end;
    }
    out.insert(out.end(), found.begin(), found.end());
  }
};

WordPiece::WordPiece(std::string_view vocab, Options options) : s_(std::make_unique<State>()) {
  s_->options = std::move(options);
  std::size_t start = 0, line_no = 0;
  while (start < vocab.size()) {
    std::size_t end = vocab.find('\n', start);
    if (end == std::string_view::npos) end = vocab.size();
    std::string_view line = vocab.substr(start, end - start);
    start = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    try {
      require_utf8(line);
    } catch (const TokenizerError& e) {
      throw TokenizerError("vocabulary line " + std::to_string(line_no) + ": " + e.what());
    }
    const auto id = static_cast<TokenId>(s_->tokens.size());
    s_->tokens.emplace_back(line);
    s_->ids.emplace(std::string(line), id);  // a token listed twice keeps its first id
  }
  auto unk = s_->ids.find(s_->options.unknown);
  if (unk == s_->ids.end()) throw TokenizerError("the vocabulary has no unknown token '" + s_->options.unknown + "'");
  s_->unknown = unk->second;
  UErrorCode status = U_ZERO_ERROR;
  s_->nfd = icu::Normalizer2::getNFDInstance(status);
  if (U_FAILURE(status)) throw TokenizerError(std::string("ICU has no NFD normaliser: ") + u_errorName(status));
}

WordPiece WordPiece::from_file(const std::filesystem::path& vocab, Options options) {
  try {
    return WordPiece(utf8::read_file(vocab), std::move(options));
  } catch (const TokenizerError& e) {
    throw TokenizerError(vocab.string() + ": " + e.what());
  }
}

WordPiece::WordPiece(WordPiece&&) noexcept = default;
WordPiece& WordPiece::operator=(WordPiece&&) noexcept = default;
WordPiece::~WordPiece() = default;

std::vector<TokenId> WordPiece::encode(std::string_view text) const {
  const std::u32string s = s_->normalise(text);
  // BertPreTokenizer: words between whitespace, each punctuation character a word of its own.
  std::vector<TokenId> out;
  std::u32string word;
  auto flush = [&] {
    if (!word.empty()) s_->pieces(word, out);
    word.clear();
  };
  for (char32_t c : s) {
    if (is_whitespace(c)) {
      flush();
    } else if (is_punctuation(c)) {
      flush();
      word = c;
      flush();
    } else {
      word += c;
    }
  }
  flush();
  return out;
}

std::string WordPiece::decode(std::span<const TokenId> ids) const {
  // A space before each token but the first, none before a continuation (its prefix dropped);
  // then each token cleaned up as BERT's decoder does.
  static const std::pair<const char*, const char*> kCleanup[] = {
      {" .", "."}, {" ?", "?"}, {" !", "!"}, {" ,", ","}, {" ' ", "'"}, {" n't", "n't"},
      {" 'm", "'m"}, {" do not", " don't"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
  std::string out;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    std::string t = token(ids[i]);
    if (i > 0) {
      if (t.rfind(s_->options.continuation, 0) == 0) t.erase(0, s_->options.continuation.size());
      else t.insert(0, " ");
    }
    for (const auto& [from, to] : kCleanup) {
      const std::string f(from), r(to);
      for (std::size_t at = t.find(f); at != std::string::npos; at = t.find(f, at + r.size())) t.replace(at, f.size(), r);
    }
    out += t;
  }
  return out;
}

const std::string& WordPiece::token(TokenId id) const {
  if (id < 0 || static_cast<std::size_t>(id) >= s_->tokens.size()) throw TokenizerError("id " + std::to_string(id) + " is outside the vocabulary of " + std::to_string(s_->tokens.size()));
  return s_->tokens[static_cast<std::size_t>(id)];
}

std::size_t WordPiece::size() const { return s_->tokens.size(); }

}  // namespace loam::tokenizers
