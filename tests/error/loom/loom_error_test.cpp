// Parses and verifies every case under cases/ and compares the error with NAME.error's first line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "case_names.hpp"
#include "loom/syntax.hpp"
#include "support/error.hpp"
#include "support/file.hpp"

namespace fs = std::filesystem;

namespace {

fs::path cases_dir() { return fs::path(LOAM_SOURCE_DIR) / "tests/error/loom/cases"; }

class LoomRefusal : public ::testing::TestWithParam<std::string> {};

TEST_P(LoomRefusal, StopsWithTheExactMessage) {
  const std::string name = GetParam();
  std::ifstream expected_in(cases_dir() / (name + ".error"));
  ASSERT_TRUE(expected_in) << "missing " << name << ".error";
  std::string expected;
  std::getline(expected_in, expected);
  std::string actual = "(no error)";
  try {
    loam::loom::parse_module(loam::read_whole_file(cases_dir() / (name + ".loom")), name + ".loom");
  } catch (const loam::Error& e) {
    actual = e.what();
  }
  EXPECT_EQ(actual, expected);
}

INSTANTIATE_TEST_SUITE_P(Cases, LoomRefusal, ::testing::ValuesIn(loam_test::case_names(cases_dir(), ".loom")),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

}  // namespace
