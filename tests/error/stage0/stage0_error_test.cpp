// Runs `loam check`'s library path (read_model_file, options, stage 0) on every case under cases/ and
// compares the error with the exact message in NAME.error (its first line).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "case_names.hpp"
#include "onnx/reader.hpp"
#include "options/options.hpp"
#include "stage0/stage0.hpp"
#include "support/error.hpp"
#include "ops/operator.hpp"

namespace fs = std::filesystem;

namespace {

fs::path cases_dir() { return fs::path(LOAM_SOURCE_DIR) / "tests/error/stage0/cases"; }

class Stage0Refusal : public ::testing::TestWithParam<std::string> {};

TEST_P(Stage0Refusal, StopsWithTheExactMessage) {
  const std::string name = GetParam();
  fs::path model_file = cases_dir() / (name + ".onnxtext");
  std::ifstream expected_in(cases_dir() / (name + ".error"));
  ASSERT_TRUE(expected_in) << "missing " << name << ".error";
  std::string expected;
  std::getline(expected_in, expected);
  std::string actual = "(no error)";
  try {
    loam::Options options;
    fs::path options_file = cases_dir() / (name + ".options.json");
    if (fs::exists(options_file)) options = loam::load_options(options_file);
    loam::Model model = loam::read_model_file(model_file);
    loam::stage0::run_stage0(model, loam::stage0::Stage0Options::from(options, loam::ops::operators(), model_file.filename().string()));
  } catch (const loam::Error& e) {
    actual = e.what();
  }
  EXPECT_EQ(actual, expected);
}

INSTANTIATE_TEST_SUITE_P(Cases, Stage0Refusal, ::testing::ValuesIn(loam_test::case_names(cases_dir(), ".onnxtext")),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

}  // namespace
