#include "emit/reserved.hpp"

#include <regex>

#include "emit/runtime_text.hpp"

namespace loam::emit {

const std::vector<std::string>& module_fixed_names() {
  // Kept in step with module_writer.cpp: every name it declares that the graph does not bring.
  static const std::vector<std::string> names = {
      "forward", "Weights", "Outputs", "LoadError", "weights", "backend", "load", "load_from", "embedded", "header", "shards", "index", "Checkpoint",
      "bytes", "std", "checkpoint", "loam_tensor_from_bytes", "loam_floor_div", "loam_ceil_div", "loam_checked_add_term", "loam_value", "loam_embedded_bytes",
      "loam_prepare_weights",
      "InputError", "main", "LoamBackend", "loam_input_error", "loom_kernels"};
  return names;
}

const std::vector<std::string>& cpp_reserved_words() {
  static const std::vector<std::string> words = {
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break",
      "case", "catch", "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept",
      "const", "consteval", "constexpr", "constinit", "const_cast", "continue", "co_await",
      "co_return", "co_yield", "decltype", "default", "delete", "do", "double", "dynamic_cast",
      "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto",
      "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
      "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register",
      "reinterpret_cast", "requires", "return", "short", "signed", "sizeof", "static",
      "static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local",
      "throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using",
      "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq",
      // Identifiers with special meaning, and macros the C and C++ headers may define.
      "final", "override", "import", "module", "assert", "errno", "NULL", "EOF", "INFINITY", "NAN",
      "offsetof", "stdin", "stdout", "stderr", "linux", "unix", "major", "minor", "int8_t",
      "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "size_t",
      "ptrdiff_t", "byte"};
  return words;
}

std::vector<std::string> runtime_declared_names(std::string_view reserved_list,
                                                std::string_view body) {
  std::vector<std::string> out;
  std::string line;
  for (char c : std::string(reserved_list) + "\n") {
    if (c == '\n' || c == '\r') {
      auto b = line.find_first_not_of(" \t");
      auto e = line.find_last_not_of(" \t");
      if (b != std::string::npos && line[b] != '#') out.push_back(line.substr(b, e - b + 1));
      line.clear();
    } else {
      line += c;
    }
  }
  // Declarations the runtime makes at namespace scope (unindented lines, as the runtime is laid
  // out), whatever its RESERVED list says: a type, a concept, an alias, an enumeration, a variable
  // template, or a function.
  std::string text(body);
  static const std::regex decl(
      R"((?:^|\n)(?:template\s*<[^\n]*>\s*)?(?:struct|class|concept|using|enum(?:\s+class)?|union)\s+([A-Za-z_][A-Za-z0-9_]*))");
  for (std::sregex_iterator it(text.begin(), text.end(), decl), end; it != end; ++it)
    out.push_back((*it)[1].str());
  static const std::regex fn(
      R"((?:^|\n)(?:inline\s+|constexpr\s+|static\s+)*[A-Za-z_][A-Za-z0-9_:<>,*&]*(?:<[^\n(]*>)?\s+[*&]*([A-Za-z_][A-Za-z0-9_]*)\s*[(=])");
  for (std::sregex_iterator it(text.begin(), text.end(), fn), end; it != end; ++it) {
    std::string n = (*it)[1].str();
    if (n != "operator") out.push_back(n);
  }
  return out;
}

ReservedSet make_standard() {
  ReservedSet s;
  for (const auto& w : cpp_reserved_words()) { s.keywords_.insert(w); s.names_.insert(w); }
  const RuntimeText& rt = runtime_text();
  for (auto& n : runtime_declared_names(rt.reserved_list, rt.body)) {
    s.runtime_.insert(n);
    s.names_.insert(n);
  }
  for (const auto& w : module_fixed_names()) { s.fixed_.insert(w); s.names_.insert(w); }
  return s;
}

const ReservedSet& ReservedSet::standard() {
  static const ReservedSet s = make_standard();
  return s;
}

std::string ReservedSet::why(std::string_view name) const {
  std::string n(name);
  if (keywords_.count(n)) return "a C++ keyword or standard name";
  if (runtime_.count(n)) return "a name the inlined runtime declares";
  if (fixed_.count(n)) return "a name the generated module declares";
  if (names_.count(n)) return "a name already taken in this module";
  return "free";
}

bool is_plain_identifier(std::string_view s) {
  if (s.empty() || s[0] == '_') return false;
  if (!((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z'))) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
    if (c == '_' && i + 1 < s.size() && s[i + 1] == '_') return false;
  }
  return true;
}

}  // namespace loam::emit
