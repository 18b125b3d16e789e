// The fusion report's reasons are a closed list the docs spell out: docs/fusion.md's table holds
// each reason's name and meaning exactly as the report gives them, and nothing else.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "lower/decision.hpp"

namespace loam::lower {
namespace {

TEST(FusionReasons, TheDocsTableIsTheList) {
  std::ifstream in(std::string(LOAM_SOURCE_DIR) + "/docs/fusion.md");
  ASSERT_TRUE(in);
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  std::vector<std::pair<std::string, std::string>> rows;
  const std::regex row(R"(\n\| `([a-z-]+)` \| ([^\n]*) \|)");
  for (auto it = std::sregex_iterator(doc.begin(), doc.end(), row); it != std::sregex_iterator(); ++it)
    rows.emplace_back((*it)[1], (*it)[2]);
  std::vector<std::pair<std::string, std::string>> want;
  for (int r = 0; r <= static_cast<int>(FusionReason::Disabled); ++r) {
    const auto reason = static_cast<FusionReason>(r);
    ASSERT_NE(std::string(fusion_reason_name(reason)), "") << r;
    want.emplace_back(fusion_reason_name(reason), fusion_reason_meaning(reason));
  }
  EXPECT_EQ(rows, want);
}

}  // namespace
}  // namespace loam::lower
