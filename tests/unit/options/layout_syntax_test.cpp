#include "options/layout_syntax.hpp"

#include <fnmatch.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/error.hpp"

namespace loam {
namespace {

std::string error_of(std::string_view spec) {
  try {
    parse_axis_spec(spec);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(AxisSpec, PlainNameIsOnePart) {
  AxisSpec s = parse_axis_spec("Batch");
  EXPECT_FALSE(s.merged);
  EXPECT_EQ(s.parts, std::vector<std::string>{"Batch"});
  EXPECT_EQ(s.text(), "Batch");
}

TEST(AxisSpec, MergeKeepsItsPartsInOrder) {
  AxisSpec s = parse_axis_spec("(C H W)");
  EXPECT_TRUE(s.merged);
  EXPECT_EQ(s.parts, (std::vector<std::string>{"C", "H", "W"}));
  EXPECT_EQ(s.text(), "(C H W)");
  // Extra spaces are spelling, not meaning.
  EXPECT_EQ(parse_axis_spec("(  C H   W )"), s);
  EXPECT_EQ(parse_axis_spec("(W H C)").parts, (std::vector<std::string>{"W", "H", "C"}));
}

TEST(AxisSpec, RefusalsNameTheSpec) {
  EXPECT_EQ(error_of(""), "an axis spec is empty: write a name, or a merge such as \"(C H W)\"");
  EXPECT_EQ(error_of("2D"), "axis '2D' is not a C++ identifier");
  EXPECT_EQ(error_of("Seq Len"), "axis 'Seq Len' is not a C++ identifier");
  EXPECT_EQ(error_of("_Batch"),
            "axis '_Batch' is reserved for the C++ implementation (a leading underscore and capital, or '__')");
  EXPECT_EQ(error_of("a__b"),
            "axis 'a__b' is reserved for the C++ implementation (a leading underscore and capital, or '__')");
  EXPECT_EQ(error_of("(C H"), "axis spec '(C H': the merge has no closing ')'");
  EXPECT_EQ(error_of("C H)"), "axis spec 'C H)': a merge is written \"(A B ...)\" with its parentheses around the whole spec");
  EXPECT_EQ(error_of("((C H) W)"), "axis spec '((C H) W)': merges do not nest");
  EXPECT_EQ(error_of("()"), "axis spec '()': an empty merge names no axis");
  EXPECT_EQ(error_of("( )"), "axis spec '( )': an empty merge names no axis");
  EXPECT_EQ(error_of("(C)"), "axis spec '(C)': a merge of one axis is that axis; write 'C'");
  EXPECT_EQ(error_of("(C C)"), "axis spec '(C C)': axis 'C' appears twice in one merge");
  EXPECT_EQ(error_of("(C 1x)"), "axis spec '(C 1x)': axis '1x' is not a C++ identifier");
  EXPECT_EQ(error_of("(C\tH)"), "axis spec '(C\tH)': axis 'C\tH' is not a C++ identifier");
}

TEST(AxisIdentifier, CxxIdentifierRules) {
  for (const char* ok : {"Batch", "seq_len", "_x", "C2", "x_1_y", "_"}) EXPECT_TRUE(is_axis_identifier(ok)) << ok;
  for (const char* bad : {"", "1a", "a-b", "a.b", "_X", "a__b", "__", "é"}) EXPECT_FALSE(is_axis_identifier(bad)) << bad;
}

// fnmatch(3) with no flags is the oracle: for every well-formed pattern below our matcher must
// answer as libc does on every name.
TEST(Wildcard, AgreesWithFnmatch) {
  const std::vector<std::string> patterns = {
      "*", "?", "", "fc.weight", "*.weight", "h.*.attn.*", "h.?.mlp", "*.q_proj.weight", "h.[0-9].w",
      "h.[!0-9].w", "h.[^0-9].w", "[]]x", "[!]]x", "a*b*c", "**a", "a\\*b", "a\\?", "[a-c-]z", "*[ab]",
      "transformer/h.*", "x[.]y", "*.*.*", "a?*?b", "[\\]]", "[a\\-z]"};
  const std::vector<std::string> names = {
      "", "a", "fc.weight", "fc.bias", "h.0.attn.c_attn.weight", "h.1.mlp", "h.x.mlp", "h.10.mlp", "h.5.w",
      "h.a.w", "]x", "ax", "abc", "aXbYc", "acb", "a*b", "aXb", "a?", "ab", "-z", "bz", "dz",
      "model.layers.0.self_attn.q_proj.weight", "transformer/h.3/w", "x.y", "xzy", "a.b.c", "a..", "axxb",
      "ab", "]", "\\", "-", "b"};
  for (const auto& p : patterns)
    for (const auto& n : names) {
      bool expected = fnmatch(p.c_str(), n.c_str(), 0) == 0;
      EXPECT_EQ(wildcard_match(p, n), expected) << "pattern '" << p << "' name '" << n << "'";
    }
}

TEST(Wildcard, StarCrossesDotsAndSlashes) {
  EXPECT_TRUE(wildcard_match("*.weight", "transformer.h.0.attn.c_attn.weight"));
  EXPECT_TRUE(wildcard_match("a*", "a/b/c"));
  EXPECT_FALSE(wildcard_match("*.weight", "fc.weight.t"));
}

TEST(Wildcard, ManyStarsStayFast) {
  // Backtracking to the last star only: a pattern that would be exponential for a naive matcher.
  std::string name(5000, 'a');
  EXPECT_FALSE(wildcard_match("*a*a*a*a*a*a*a*a*a*a*b", name));
  EXPECT_TRUE(wildcard_match("*a*a*a*a*a*a*a*a*a*a*", name));
}

TEST(Wildcard, ValidationRefusesWhatWouldMisread) {
  auto error = [](std::string_view p) -> std::string {
    try {
      validate_wildcard(p);
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_EQ(error("h.*.w"), "no error");
  EXPECT_EQ(error("[]]"), "no error");
  EXPECT_EQ(error(""), "an empty pattern matches no tensor");
  EXPECT_EQ(error("h.[0-9"), "pattern 'h.[0-9': the '[' at position 2 is never closed (write '\\[' for the character itself)");
  EXPECT_EQ(error("w\\"), "pattern 'w\\' ends in a lone backslash");
  EXPECT_EQ(error("[[:digit:]]"), "pattern '[[:digit:]]': '[:' inside a bracket starts a POSIX class, which layout patterns do not support");
  EXPECT_EQ(error("[[]"), "no error");
  EXPECT_EQ(error("[z-a]"), "pattern '[z-a]': range 'z-a' is reversed and matches nothing");
}

}  // namespace
}  // namespace loam
