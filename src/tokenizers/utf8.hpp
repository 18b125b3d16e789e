// UTF-8 within the tokenizers: checked decoding of code points with their byte offsets, encoding,
// and the files the tokenizers read. Internal to the tokenizers library.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace loam::tokenizers::utf8 {

// One code point of a text and where its bytes lie.
struct CodePoint {
  char32_t value;
  std::size_t offset;  // of its first byte
  std::size_t length;  // its bytes, 1 to 4
};

// The code points of `text`, which must be UTF-8 (refused otherwise, naming the byte offset).
std::vector<CodePoint> decode(std::string_view text);

void append(std::string& out, char32_t c);

// A file's bytes (refused, naming the file, where it cannot be opened).
std::string read_file(const std::filesystem::path& path);

}  // namespace loam::tokenizers::utf8
