#include "tokenizers/utf8.hpp"

#include <fstream>
#include <iterator>

#include "loam/tokenizers.hpp"

namespace loam::tokenizers {
namespace utf8 {
namespace {

[[noreturn]] void refuse(std::size_t offset, const char* why) {
  throw TokenizerError("the text is not UTF-8: byte " + std::to_string(offset) + " " + why);
}

}  // namespace

std::vector<CodePoint> decode(std::string_view text) {
  std::vector<CodePoint> out;
  out.reserve(text.size());
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  for (std::size_t i = 0; i < n;) {
    const unsigned char b = p[i];
    std::size_t length;
    char32_t c;
    if (b < 0x80) {
      out.push_back({b, i, 1});
      ++i;
      continue;
    } else if (b >= 0xC2 && b <= 0xDF) {
      length = 2;
      c = b & 0x1F;
    } else if (b >= 0xE0 && b <= 0xEF) {
      length = 3;
      c = b & 0x0F;
    } else if (b >= 0xF0 && b <= 0xF4) {
      length = 4;
      c = b & 0x07;
    } else if (b >= 0x80 && b <= 0xBF) {
      refuse(i, "continues a sequence that did not start");
    } else {
      refuse(i, "starts no sequence (an overlong form or past U+10FFFF)");
    }
    if (i + length > n) refuse(i, "starts a sequence the text cuts short");
    for (std::size_t k = 1; k < length; ++k) {
      const unsigned char x = p[i + k];
      if ((x & 0xC0) != 0x80) refuse(i, "starts a sequence whose next byte does not continue it");
      c = (c << 6) | (x & 0x3F);
    }
    // The shortest form only, no surrogate, nothing past U+10FFFF.
    if ((length == 3 && c < 0x800) || (length == 4 && c < 0x10000)) refuse(i, "starts an overlong form");
    if (c >= 0xD800 && c <= 0xDFFF) refuse(i, "starts a surrogate, which UTF-8 does not carry");
    if (c > 0x10FFFF) refuse(i, "starts a code point past U+10FFFF");
    out.push_back({c, i, length});
    i += length;
  }
  return out;
}

void append(std::string& out, char32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw TokenizerError(path.string() + ": cannot open");
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace utf8

void require_utf8(std::string_view text) { (void)utf8::decode(text); }

}  // namespace loam::tokenizers
