// Runs read_model_file on every case under cases/ (NAME.onnxtext and NAME.onnx) and compares the
// error with the exact message in NAME.error (its first line).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "case_names.hpp"
#include "onnx/reader.hpp"
#include "support/error.hpp"

namespace fs = std::filesystem;

namespace {

fs::path cases_dir() { return fs::path(LOAM_SOURCE_DIR) / "tests/error/model/cases"; }

std::vector<std::string> cases() {
  std::vector<std::string> all;
  for (const char* ext : {".onnxtext", ".onnx"})
    for (const auto& n : loam_test::case_names(cases_dir(), ext)) all.push_back(n + ext);
  return all;
}

class ModelRefusal : public ::testing::TestWithParam<std::string> {};

TEST_P(ModelRefusal, StopsWithTheExactMessage) {
  const fs::path file = cases_dir() / GetParam();
  std::ifstream expected_in(cases_dir() / (file.stem().string() + ".error"));
  ASSERT_TRUE(expected_in) << "missing " << file.stem().string() << ".error";
  std::string expected;
  std::getline(expected_in, expected);
  std::string actual = "(no error)";
  try {
    loam::read_model_file(file);
  } catch (const loam::Error& e) {
    actual = e.what();
  }
  // Messages start with the path as given; the case compares from the file's name on.
  const std::string prefix = cases_dir().string() + "/";
  if (actual.rfind(prefix, 0) == 0) actual = actual.substr(prefix.size());
  EXPECT_EQ(actual, expected);
}

INSTANTIATE_TEST_SUITE_P(Cases, ModelRefusal, ::testing::ValuesIn(cases()), [](const ::testing::TestParamInfo<std::string>& i) {
  std::string n = i.param;
  for (char& c : n)
    if (c == '.') c = '_';
  return n;
});

}  // namespace
