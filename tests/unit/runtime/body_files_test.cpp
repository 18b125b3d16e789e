// The runtime's body files inline into any namespace: no #include, no namespace, no #pragma once,
// no macro that outlives them (the backend seam's kernel list is #undef'd where the seam is
// built); MANIFEST lists them in runtime.hpp's order; RESERVED lists every name they declare at
// namespace scope, which a generated module must not mint for anything else.
#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string runtime_dir() { return std::string(LOAM_SOURCE_DIR) + "/runtime/loam/"; }

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream s(text);
  for (std::string line; std::getline(s, line);)
    if (!line.empty()) out.push_back(line);
  return out;
}

std::vector<std::string> manifest() { return lines_of(read(runtime_dir() + "MANIFEST")); }

// Comments and string / character literals blanked, so the scans below read only code.
std::string code_only(const std::string& src) {
  std::string out = src;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out.compare(i, 2, "//") == 0) {
      while (i < out.size() && out[i] != '\n') out[i++] = ' ';
    } else if (out.compare(i, 2, "/*") == 0) {
      const std::size_t end = out.find("*/", i + 2);
      const std::size_t stop = end == std::string::npos ? out.size() : end + 2;
      for (; i < stop; ++i)
        if (out[i] != '\n') out[i] = ' ';
      --i;
    } else if (out[i] == '"' || (out[i] == '\'' && !(i > 0 && std::isalnum(static_cast<unsigned char>(out[i - 1]))))) {
      const char q = out[i];
      for (++i; i < out.size() && out[i] != q; ++i) {
        if (out[i] == '\\') out[i++] = ' ';
        out[i] = ' ';
      }
    }
  }
  return out;
}

bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::vector<std::string> idents(const std::string& s) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < s.size();) {
    if (is_ident(s[i]) && !std::isdigit(static_cast<unsigned char>(s[i]))) {
      std::size_t j = i;
      while (j < s.size() && is_ident(s[j])) ++j;
      out.push_back(s.substr(i, j - i));
      i = j;
    } else {
      ++i;
    }
  }
  return out;
}

// Removes `template <...>` heads and `requires (...)` clauses from a namespace-scope statement.
std::string strip_heads(std::string s) {
  for (;;) {
    std::size_t p = s.find_first_not_of(" \t\n");
    if (p == std::string::npos) return "";
    s = s.substr(p);
    if (s.rfind("template", 0) == 0 && (s.size() == 8 || !is_ident(s[8]))) {
      std::size_t i = s.find('<');
      int depth = 0;
      for (; i < s.size(); ++i) {
        if (s[i] == '<') ++depth;
        if (s[i] == '>' && --depth == 0) break;
      }
      s = s.substr(i + 1);
    } else if (s.rfind("requires", 0) == 0 && (s.size() == 8 || !is_ident(s[8]))) {
      std::size_t i = s.find('(');
      int depth = 0;
      for (; i < s.size(); ++i) {
        if (s[i] == '(') ++depth;
        if (s[i] == ')' && --depth == 0) break;
      }
      s = s.substr(i + 1);
    } else {
      return s;
    }
  }
}

// The name a namespace-scope statement declares, or "" if it declares none.
std::string declared_name(const std::string& statement) {
  const std::string s = strip_heads(statement);
  const auto words = idents(s);
  if (words.empty()) return "";
  if (words[0] == "static_assert") return "";
  if (words[0] == "struct" || words[0] == "class" || words[0] == "union") return words.size() > 1 ? words[1] : "";
  if (words[0] == "enum") return words.size() > 1 && (words[1] == "class" || words[1] == "struct") ? (words.size() > 2 ? words[2] : "") : words[1];
  if (words[0] == "using") return words.size() > 1 ? words[1] : "";
  for (std::size_t i = 0; i + 1 < words.size(); ++i)
    if (words[i] == "concept") return words[i + 1];
  const std::size_t paren = s.find('('), eq = s.find('=');
  const std::size_t cut = std::min(paren, eq);
  if (cut == std::string::npos) return "";
  const auto before = idents(s.substr(0, cut));
  if (before.empty()) return "";
  const std::string& name = before.back();
  if (name == "operator") return "";
  return name;
}

// Every name declared at namespace scope of one body file.
std::set<std::string> namespace_scope_names(const std::string& src) {
  // Preprocessor lines (#if, #pragma) declare nothing: blank them.
  std::string code = code_only(src);
  for (std::size_t i = 0; i < code.size(); ++i) {
    const std::size_t line_end = std::min(code.find('\n', i), code.size());
    const std::size_t first = code.find_first_not_of(" \t", i);
    if (first < line_end && code[first] == '#')
      for (std::size_t j = first; j < line_end; ++j) code[j] = ' ';
    i = line_end;
  }
  std::set<std::string> names;
  std::string statement;
  int depth = 0, paren = 0;
  for (char c : code) {
    if (depth == 0) {
      if (c == '(') ++paren;
      if (c == ')') --paren;
      if (c == '{' && paren == 0) {
        const std::string n = declared_name(statement);
        if (!n.empty()) names.insert(n);
        statement.clear();
        ++depth;
        continue;
      }
      if (c == ';' && paren == 0) {
        const std::string n = declared_name(statement);
        if (!n.empty()) names.insert(n);
        statement.clear();
        continue;
      }
      statement += c;
    } else {
      if (c == '{') ++depth;
      if (c == '}') --depth;
    }
  }
  return names;
}

// The name a `#define NAME...` or `#undef NAME` line names.
std::string macro_name(const std::string& directive) {
  std::size_t at = directive.find_first_of(" \t");
  at = directive.find_first_not_of(" \t", at);
  std::size_t end = at;
  while (end < directive.size() && (std::isalnum(static_cast<unsigned char>(directive[end])) || directive[end] == '_')) ++end;
  return directive.substr(at, end - at);
}

TEST(RuntimeBodyFiles, CarryNoIncludeNamespaceOrLastingMacro) {
  std::set<std::string> defined;  // macros defined so far and not yet undefined
  for (const auto& file : manifest()) {
    const std::string code = code_only(read(runtime_dir() + file));
    for (const auto& line : lines_of(code)) {
      const auto first = line.find_first_not_of(" \t");
      if (first == std::string::npos) continue;
      const std::string t = line.substr(first);
      EXPECT_NE(t.rfind("#include", 0), 0u) << file << ": " << line;
      EXPECT_NE(t.rfind("#pragma once", 0), 0u) << file << ": " << line;
      if (t.rfind("#define", 0) == 0) EXPECT_TRUE(defined.insert(macro_name(t)).second) << file << ": defined twice: " << line;
      if (t.rfind("#undef", 0) == 0) EXPECT_EQ(defined.erase(macro_name(t)), 1u) << file << ": not defined: " << line;
    }
    for (const auto& w : idents(code)) EXPECT_NE(w, "namespace") << file;
  }
  for (const auto& m : defined) ADD_FAILURE() << "the body files leave " << m << " defined";
}

TEST(RuntimeBodyFiles, RuntimeHeaderIncludesTheManifestInOrder) {
  const std::string header = read(runtime_dir() + "runtime.hpp");
  std::vector<std::string> included;
  for (const auto& line : lines_of(header)) {
    const auto at = line.find("#include \"");
    if (at == std::string::npos) continue;
    const auto start = at + 10, end = line.find('"', start);
    const std::string name = line.substr(start, end - start);
    if (name != "prelude.hpp") included.push_back(name);
  }
  EXPECT_EQ(included, manifest());
}

TEST(RuntimeBodyFiles, TwoModulesTestPastesTheManifest) {
  // Each of its two namespaces includes every body file in MANIFEST order.
  const std::string text = read(std::string(LOAM_SOURCE_DIR) + "/tests/unit/runtime/two_modules_test.cpp");
  std::vector<std::string> included;
  for (const auto& line : lines_of(text)) {
    const auto at = line.find("#include \"loam/");
    if (at == std::string::npos) continue;
    const auto start = at + 15, end = line.find('"', start);
    const std::string name = line.substr(start, end - start);
    if (name != "prelude.hpp") included.push_back(name);
  }
  std::vector<std::string> twice = manifest();
  const auto once = manifest();
  twice.insert(twice.end(), once.begin(), once.end());
  EXPECT_EQ(included, twice);
}

TEST(RuntimeBodyFiles, PreludeHoldsOnlyIncludes) {
  for (const auto& line : lines_of(code_only(read(runtime_dir() + "prelude.hpp")))) {
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    EXPECT_EQ(line[first], '#') << line;
    EXPECT_EQ(line.find("#define"), std::string::npos) << line;
  }
}

TEST(RuntimeBodyFiles, ReservedListsEveryNamespaceScopeName) {
  std::set<std::string> scanned;
  for (const auto& file : manifest()) {
    const auto names = namespace_scope_names(read(runtime_dir() + file));
    scanned.insert(names.begin(), names.end());
  }
  const auto listed_lines = lines_of(read(runtime_dir() + "RESERVED"));
  const std::set<std::string> listed(listed_lines.begin(), listed_lines.end());
  std::string expected;
  for (const auto& n : scanned) expected += n + "\n";
  EXPECT_EQ(listed, scanned) << "runtime/loam/RESERVED should read:\n" << expected;
  EXPECT_TRUE(std::is_sorted(listed_lines.begin(), listed_lines.end())) << "RESERVED is kept sorted";
}

TEST(RuntimeBodyFiles, ScannerFindsEachKindOfDeclaration) {
  const std::string sample =
      "// struct Commented {};\n"
      "struct Plain { int member; void method() {} };\n"
      "template <class T> requires(sizeof(T) > 1) struct Special<T> {};\n"
      "enum class Kind : int { A, B };\n"
      "template <class T> concept Fits = requires(T t) { t.x; };\n"
      "template <class T> using Alias = T;\n"
      "inline constexpr bool Flag = [] { return true; }();\n"
      "constexpr int free_function(int x) { return x; }\n"
      "static_assert(true, \"struct NotThis\");\n"
      "#pragma GCC optimize(\"O3\")\n"
      "struct AfterPragma {};\n";
  const std::set<std::string> want = {"Plain", "Special", "Kind", "Fits", "Alias", "Flag", "free_function", "AfterPragma"};
  EXPECT_EQ(namespace_scope_names(sample), want);
}

}  // namespace
