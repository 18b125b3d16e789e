// Runs every case under cases/ (written by make_cases.py): reads the checkpoint the case holds as
// the build does, checks it against graph.txt when there is one, and asserts the exact message.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "case_names.hpp"
#include "checkpoint/checkpoint.hpp"
#include "support/error.hpp"

namespace loam {
namespace {

const std::filesystem::path kCases = std::filesystem::path(LOAM_SOURCE_DIR) / "tests/error/checkpoint/cases";

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

ElementType element_named(const std::string& name) {
  for (int32_t i = 0; i <= 16; ++i)
    if (is_known_element_type(i) && name == element_type_name(static_cast<ElementType>(i)))
      return static_cast<ElementType>(i);
  ADD_FAILURE() << "graph.txt: unknown element type " << name;
  return ElementType::Undefined;
}

// graph.txt: `name element_type dim...` per line, each an initializer whose data the checkpoint holds.
Graph read_graph_txt(const std::filesystem::path& p) {
  Graph g;
  std::istringstream in(read_text(p));
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    TensorData t;
    std::string elem;
    if (!(words >> t.name >> elem)) continue;
    t.elem = element_named(elem);
    int64_t d;
    while (words >> d) t.dims.push_back(d);
    t.has_data = false;
    g.initializers.push_back(t);
  }
  return g;
}

// Runs the case in its own directory so messages carry the plain file names.
std::string run_case(const std::filesystem::path& dir) {
  struct Cwd {
    std::filesystem::path saved = std::filesystem::current_path();
    ~Cwd() { std::filesystem::current_path(saved); }
  } restore;
  std::filesystem::current_path(dir);
  std::vector<std::filesystem::path> files;
  if (std::filesystem::exists("model.safetensors.index.json")) {
    files.push_back("model.safetensors.index.json");
  } else {
    for (const auto& e : std::filesystem::directory_iterator("."))
      if (e.path().extension() == ".safetensors") files.push_back(e.path().filename());
    std::sort(files.begin(), files.end());
  }
  try {
    Checkpoint c = load_checkpoint(files);
    if (std::filesystem::exists("graph.txt")) check_checkpoint_against_graph(c, read_graph_txt("graph.txt"), "graph.txt");
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

class CheckpointRefusal : public ::testing::TestWithParam<std::string> {};

TEST_P(CheckpointRefusal, StopsWithTheExactMessage) {
  std::filesystem::path dir = kCases / GetParam();
  std::string expected = read_text(dir / "expected.txt");
  while (!expected.empty() && expected.back() == '\n') expected.pop_back();
  EXPECT_EQ(run_case(dir), expected);
}

INSTANTIATE_TEST_SUITE_P(Cases, CheckpointRefusal, ::testing::ValuesIn(loam_test::case_names(kCases)),
                         [](const auto& info) { return info.param; });

TEST(CheckpointRefusalCases, AreAllThere) { EXPECT_GE(loam_test::case_names(kCases).size(), 30u); }

}  // namespace
}  // namespace loam
