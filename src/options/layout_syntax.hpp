// The grammar of a `layout` rule, which the options reader checks: its pattern and its axis specs.
// A pattern is a shell wildcard over a tensor's name (`*`, `?`, `[...]`, as fnmatch(3) reads them
// without flags, so `*` also crosses `.` and `/`).
//
// An axis spec is a plain name ("Batch") or a merge written as einops writes one ("(C H W)"): one
// axis whose identity is the ordered list of its parts. Names are C++ identifiers, since each
// becomes a marker type in the generated module.
//
// It lives with the options (not in src/axes/) so that reading an options file depends on nothing
// but JSON; axes/layout.hpp adds the matching of rules to tensors.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace loam {

struct AxisSpec {
  std::vector<std::string> parts;  // one name for a plain axis; two or more for a merge
  bool merged = false;

  // The canonical spelling: "Batch" or "(C H W)" with single spaces, so two spellings of one spec
  // compare equal.
  std::string text() const;
  bool operator==(const AxisSpec&) const = default;
};

// Parses "Name" or "(A B C)". Throws loam::Error with a message that names the spec and what is
// wrong with it, without a location: the caller knows the file and key and prefixes them.
AxisSpec parse_axis_spec(std::string_view text);

// Whether `name` is a C++ identifier an axis may take: [A-Za-z_][A-Za-z0-9_]*, and not one the C++
// standard reserves for the implementation (a leading underscore followed by a capital, or a double
// underscore anywhere). Keywords are the name minter's business, not the spec's.
bool is_axis_identifier(std::string_view name);

// fnmatch(3) semantics with no flags: `*` any run, `?` one character, `[abc]`, `[a-z]`, `[!a]` or
// `[^a]` one character of a set, `\x` the character x. Matching is bytewise.
bool wildcard_match(std::string_view pattern, std::string_view name);

// Refuses a pattern the matcher would read other than its writer meant: an unterminated `[`, a
// reversed range, a POSIX class (`[[:alpha:]]`), a trailing backslash, an empty pattern. The message
// carries no location; the caller prefixes the file and key.
void validate_wildcard(std::string_view pattern);

}  // namespace loam
