// Parses and verifies every case under cases/ and compares the error with NAME.error's first line.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "loom/syntax.hpp"
#include "support/error.hpp"
#include "support/file.hpp"

namespace fs = std::filesystem;

namespace {

fs::path cases_dir() { return fs::path(LOAM_SOURCE_DIR) / "tests/error/loom/cases"; }

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(cases_dir()))
    if (e.path().extension() == ".loom") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

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

INSTANTIATE_TEST_SUITE_P(Cases, LoomRefusal, ::testing::ValuesIn(case_names()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

}  // namespace
