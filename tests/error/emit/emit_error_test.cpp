// Runs every case under cases/: builds model.onnxtext with options.json (when present) as
// `loam build` does, and asserts the build stops with exactly the message in expected.txt.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "case_names.hpp"
#include "driver/pipeline.hpp"
#include "support/error.hpp"

namespace loam::emit {
namespace {

using driver::BuildRequest;
using driver::build_module;

const std::filesystem::path kCases = std::filesystem::path(LOAM_SOURCE_DIR) / "tests/error/emit/cases";

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  std::string t = s.str();
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r')) t.pop_back();
  return t;
}

class EmitErrorCase : public ::testing::TestWithParam<std::string> {};

TEST_P(EmitErrorCase, StopsWithTheExactMessage) {
  std::filesystem::path dir = kCases / GetParam();
  struct Cwd {
    std::filesystem::path saved = std::filesystem::current_path();
    ~Cwd() { std::filesystem::current_path(saved); }
  } restore;
  std::filesystem::current_path(dir);  // messages carry the plain file names
  BuildRequest r;
  r.graph = "model.onnxtext";
  if (std::filesystem::exists("options.json")) r.options_file = "options.json";
  r.name = "m";
  std::string expected = read_text("expected.txt");
  try {
    build_module(r);
    FAIL() << "the build did not stop; expected: " << expected;
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), expected);
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, EmitErrorCase, ::testing::ValuesIn(loam_test::case_names(kCases)),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace loam::emit
