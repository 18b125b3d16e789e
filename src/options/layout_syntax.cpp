#include "options/layout_syntax.hpp"

#include <cstddef>
#include <optional>

#include "support/error.hpp"

namespace loam {

namespace {

bool is_ident_start(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
bool is_ident_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }

// One atom of a wildcard, starting at `p`: a literal, `?`, or a bracket set. `star` is set for `*`.
struct Atom {
  std::size_t next = 0;  // position after the atom
  bool star = false;
};

// A bracket expression starting at pattern[p] == '['. Returns the position after its `]`, or
// nullopt if it is unterminated (fnmatch then reads the `[` as itself). `matches` tells whether `c`
// is in the set; `error` describes a malformed range for validate_wildcard.
std::optional<std::size_t> scan_bracket(std::string_view pat, std::size_t p, unsigned char c,
                                        bool* matches, std::string* error) {
  std::size_t i = p + 1;
  bool negate = false;
  if (i < pat.size() && (pat[i] == '!' || pat[i] == '^')) {
    negate = true;
    ++i;
  }
  bool found = false;
  bool first = true;
  while (i < pat.size()) {
    char ch = pat[i];
    if (ch == ']' && !first) {
      if (matches) *matches = found != negate;
      return i + 1;
    }
    first = false;
    if (ch == '[' && i + 1 < pat.size() && (pat[i + 1] == ':' || pat[i + 1] == '=' || pat[i + 1] == '.') &&
        error && error->empty())
      *error = std::string("'[") + pat[i + 1] + "' inside a bracket starts a POSIX class, which layout patterns do not support";
    unsigned char lo;
    if (ch == '\\') {
      if (i + 1 >= pat.size()) return std::nullopt;
      lo = static_cast<unsigned char>(pat[i + 1]);
      i += 2;
    } else {
      lo = static_cast<unsigned char>(ch);
      i += 1;
    }
    unsigned char hi = lo;
    if (i + 1 < pat.size() && pat[i] == '-' && pat[i + 1] != ']') {
      std::size_t j = i + 1;
      if (pat[j] == '\\') {
        if (j + 1 >= pat.size()) return std::nullopt;
        hi = static_cast<unsigned char>(pat[j + 1]);
        i = j + 2;
      } else {
        hi = static_cast<unsigned char>(pat[j]);
        i = j + 1;
      }
      if (hi < lo && error && error->empty())
        *error = std::string("range '") + static_cast<char>(lo) + "-" + static_cast<char>(hi) +
                 "' is reversed and matches nothing";
    }
    if (c >= lo && c <= hi) found = true;
  }
  return std::nullopt;
}

Atom scan_atom(std::string_view pat, std::size_t p) {
  char ch = pat[p];
  if (ch == '*') return {p + 1, true};
  if (ch == '[') {
    if (auto end = scan_bracket(pat, p, 0, nullptr, nullptr)) return {*end, false};
    return {p + 1, false};
  }
  if (ch == '\\' && p + 1 < pat.size()) return {p + 2, false};
  return {p + 1, false};
}

bool atom_matches(std::string_view pat, std::size_t p, unsigned char c) {
  char ch = pat[p];
  if (ch == '?') return true;
  if (ch == '[') {
    bool m = false;
    if (scan_bracket(pat, p, c, &m, nullptr)) return m;
    return c == '[';
  }
  if (ch == '\\' && p + 1 < pat.size()) return c == static_cast<unsigned char>(pat[p + 1]);
  return c == static_cast<unsigned char>(ch);
}

}  // namespace

std::string AxisSpec::text() const {
  if (!merged) return parts.empty() ? std::string() : parts.front();
  std::string s = "(";
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i) s += ' ';
    s += parts[i];
  }
  return s + ")";
}

bool is_axis_identifier(std::string_view name) {
  if (name.empty() || !is_ident_start(name[0])) return false;
  for (char c : name)
    if (!is_ident_char(c)) return false;
  if (name.size() >= 2 && name[0] == '_' && name[1] >= 'A' && name[1] <= 'Z') return false;
  if (name.find("__") != std::string_view::npos) return false;
  return true;
}

namespace {
void check_axis_name(std::string_view spec, std::string_view name) {
  if (is_axis_identifier(name)) return;
  std::string why = "is not a C++ identifier";
  bool ident = !name.empty() && is_ident_start(name[0]);
  for (char c : name) ident = ident && is_ident_char(c);
  if (ident) why = "is reserved for the C++ implementation (a leading underscore and capital, or '__')";
  if (spec == name) fail("axis '" + std::string(name) + "' " + why);
  fail("axis spec '" + std::string(spec) + "': axis '" + std::string(name) + "' " + why);
}
}  // namespace

AxisSpec parse_axis_spec(std::string_view text) {
  AxisSpec spec;
  if (text.empty()) fail("an axis spec is empty: write a name, or a merge such as \"(C H W)\"");
  if (text.front() != '(') {
    if (text.find_first_of("()") != std::string_view::npos)
      fail("axis spec '" + std::string(text) + "': a merge is written \"(A B ...)\" with its parentheses around the whole spec");
    check_axis_name(text, text);
    spec.parts.emplace_back(text);
    return spec;
  }
  if (text.back() != ')')
    fail("axis spec '" + std::string(text) + "': the merge has no closing ')'");
  std::string_view inner = text.substr(1, text.size() - 2);
  if (inner.find_first_of("()") != std::string_view::npos)
    fail("axis spec '" + std::string(text) + "': merges do not nest");
  std::size_t i = 0;
  while (i < inner.size()) {
    if (inner[i] == ' ') {
      ++i;
      continue;
    }
    std::size_t j = inner.find(' ', i);
    if (j == std::string_view::npos) j = inner.size();
    std::string_view part = inner.substr(i, j - i);
    check_axis_name(text, part);
    for (const auto& seen : spec.parts)
      if (seen == part)
        fail("axis spec '" + std::string(text) + "': axis '" + std::string(part) +
             "' appears twice in one merge");
    spec.parts.emplace_back(part);
    i = j;
  }
  if (spec.parts.empty())
    fail("axis spec '" + std::string(text) + "': an empty merge names no axis");
  if (spec.parts.size() == 1)
    fail("axis spec '" + std::string(text) + "': a merge of one axis is that axis; write '" +
         spec.parts.front() + "'");
  spec.merged = true;
  return spec;
}

bool wildcard_match(std::string_view pat, std::string_view name) {
  // Two pointers with one backtrack point at the last `*`: every other atom consumes exactly one
  // character, so retrying from the last star with one more character consumed is complete.
  std::size_t p = 0, n = 0;
  std::size_t star_p = std::string_view::npos, star_n = 0;
  while (n < name.size()) {
    if (p < pat.size()) {
      Atom a = scan_atom(pat, p);
      if (a.star) {
        star_p = a.next;
        star_n = n;
        p = a.next;
        continue;
      }
      if (atom_matches(pat, p, static_cast<unsigned char>(name[n]))) {
        p = a.next;
        ++n;
        continue;
      }
    }
    if (star_p == std::string_view::npos) return false;
    p = star_p;
    n = ++star_n;
  }
  while (p < pat.size() && pat[p] == '*') ++p;
  return p == pat.size();
}

void validate_wildcard(std::string_view pat) {
  if (pat.empty()) fail("an empty pattern matches no tensor");
  std::size_t p = 0;
  while (p < pat.size()) {
    char ch = pat[p];
    if (ch == '\\') {
      if (p + 1 >= pat.size()) fail("pattern '" + std::string(pat) + "' ends in a lone backslash");
      p += 2;
      continue;
    }
    if (ch == '[') {
      std::string error;
      auto end = scan_bracket(pat, p, 0, nullptr, &error);
      if (!end)
        fail("pattern '" + std::string(pat) + "': the '[' at position " + std::to_string(p) +
             " is never closed (write '\\[' for the character itself)");
      if (!error.empty()) fail("pattern '" + std::string(pat) + "': " + error);
      p = *end;
      continue;
    }
    ++p;
  }
}

}  // namespace loam
