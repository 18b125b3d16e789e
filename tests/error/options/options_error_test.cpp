// Runs every case under cases/: NAME.json is read as an options file named NAME.json, and the
// message must be exactly NAME.expected.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "case_names.hpp"
#include "options/options.hpp"
#include "support/error.hpp"

namespace loam {
namespace {

const std::filesystem::path kCases = std::filesystem::path(LOAM_SOURCE_DIR) / "tests/error/options/cases";

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class OptionsRefusal : public ::testing::TestWithParam<std::string> {};

TEST_P(OptionsRefusal, StopsWithTheExactMessage) {
  std::string expected = read_text(kCases / (GetParam() + ".expected"));
  while (!expected.empty() && expected.back() == '\n') expected.pop_back();
  std::string got = "no error";
  try {
    parse_options(read_text(kCases / (GetParam() + ".json")), GetParam() + ".json");
  } catch (const Error& e) {
    got = e.what();
  }
  EXPECT_EQ(got, expected);
}

INSTANTIATE_TEST_SUITE_P(Cases, OptionsRefusal, ::testing::ValuesIn(loam_test::case_names(kCases, ".json")),
                         [](const auto& info) { return info.param; });

TEST(OptionsRefusalCases, AreAllThere) { EXPECT_GE(loam_test::case_names(kCases, ".json").size(), 20u); }

}  // namespace
}  // namespace loam
