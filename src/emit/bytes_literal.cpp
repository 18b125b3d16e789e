#include "emit/bytes_literal.hpp"

namespace loam::emit {

void write_bytes_literal(std::ostream& out, std::span<const std::byte> bytes, const char* indent) {
  static const char hex[] = "0123456789abcdef";
  if (bytes.empty()) {
    out << indent << "\"\"";
    return;
  }
  std::string line;
  for (std::size_t i = 0; i < bytes.size(); i += 64) {
    line.assign(indent);
    line += '"';
    std::size_t end = i + 64 < bytes.size() ? i + 64 : bytes.size();
    for (std::size_t j = i; j < end; ++j) {
      auto b = static_cast<unsigned>(bytes[j]);
      line += '\\';
      line += 'x';
      line += hex[b >> 4];
      line += hex[b & 15];
    }
    line += '"';
    if (end < bytes.size()) line += '\n';
    out << line;
  }
}

}  // namespace loam::emit
