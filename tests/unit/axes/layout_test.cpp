#include "axes/layout.hpp"

#include <gtest/gtest.h>

namespace loam {
namespace {

TEST(MatchLayout, FirstMatchWinsAndGraphRestricts) {
  std::vector<LayoutRule> rules = {
      {std::string("then_branch"), "mask", {"Seq", "Total"}},
      {std::nullopt, "*.q_proj.weight", {"Hidden", "Hidden"}},
      {std::nullopt, "*.weight", {"Out", "In"}},
      {std::nullopt, "mask", {"Seq", "Seq"}},
  };
  EXPECT_EQ(match_layout(rules, "l.0.q_proj.weight", "main"), &rules[1]);
  EXPECT_EQ(match_layout(rules, "l.0.k_proj.weight", "main"), &rules[2]);
  EXPECT_EQ(match_layout(rules, "mask", "then_branch"), &rules[0]);
  EXPECT_EQ(match_layout(rules, "mask", "else_branch"), &rules[3]);
  EXPECT_EQ(match_layout(rules, "l.0.bias", "main"), nullptr);
}

}  // namespace
}  // namespace loam
