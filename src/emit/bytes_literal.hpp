// Embedding bytes in generated C++ without a literal per element.
//
// Measured with g++ 12 -O2 on 4 MiB of random bytes (see docs/modules.md): a brace list of hex
// bytes took 9.4 s and 546 MB (2.3 s per MiB, over the WEP's bar of 1 s per MiB), a decimal list
// 8.9 s; a string literal of `\xHH` escapes 0.40 s and 93 MB (0.1 s per MiB); `.incbin` 0.02 s but
// needs a second file beside the header and an assembler directive. The string literal keeps the
// module one self-contained header, so it is the form used.
#pragma once

#include <cstddef>
#include <ostream>
#include <span>

namespace loam::emit {

// Writes `bytes` as adjacent string literals of `\xHH` escapes, 64 bytes to a line, each line
// prefixed by `indent`. Every byte is escaped, so no escape can run into the next character. The
// literal's array has one trailing NUL beyond `bytes.size()`.
void write_bytes_literal(std::ostream& out, std::span<const std::byte> bytes, const char* indent);

}  // namespace loam::emit
