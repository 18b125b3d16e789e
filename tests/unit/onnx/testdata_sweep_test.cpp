// Every model of ONNX's backend test data (Debian's libonnx-testdata) is read into a Graph or
// refused with a loam::Error naming the file, and none crashes. Each model read survives
// .onnx -> Graph -> text -> Graph unchanged. Prints the counts.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "onnx/printer.hpp"
#include "onnx/reader.hpp"
#include "support/error.hpp"

using namespace loam;
namespace fs = std::filesystem;

namespace {

const char* kTestData = "/usr/share/libonnx-testdata/data";

std::vector<fs::path> testdata_models() {
  std::vector<fs::path> out;
  for (const char* suite : {"node", "pytorch-operator", "pytorch-converted", "simple"}) {
    fs::path dir = fs::path(kTestData) / suite;
    if (!fs::is_directory(dir)) continue;
    for (const auto& e : fs::directory_iterator(dir))
      if (fs::exists(e.path() / "model.onnx")) out.push_back(e.path() / "model.onnx");
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST(TestDataSweep, EveryModelIsReadOrRefusedByName) {
  auto models = testdata_models();
  if (models.empty()) GTEST_SKIP() << "libonnx-testdata is not installed";
  int read = 0, refused = 0;
  std::map<std::string, int> reasons;
  for (const auto& p : models) {
    try {
      read_model_file(p);
      ++read;
    } catch (const Error& e) {
      ++refused;
      std::string msg = e.what();
      EXPECT_EQ(msg.rfind(p.string() + ": ", 0), 0u) << msg;
      EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
      // Group refusals by their reason (the text after the last quoted name).
      auto colon = msg.rfind(": ");
      reasons[msg.substr(colon + 2)]++;
    }
  }
  std::printf("testdata models: %zu, read: %d, refused: %d\n", models.size(), read, refused);
  for (const auto& [why, n] : reasons) std::printf("  %4d refused: %s\n", n, why.c_str());
  EXPECT_EQ(read + refused, static_cast<int>(models.size()));
  // The refusals are sequence/optional types and the training domain; everything else reads.
  EXPECT_GT(read, static_cast<int>(models.size()) * 9 / 10);
}

TEST(TestDataSweep, ProtoToTextToGraphIsUnchanged) {
  auto models = testdata_models();
  if (models.empty()) GTEST_SKIP() << "libonnx-testdata is not installed";
  int same = 0, not_representable = 0;
  for (const auto& p : models) {
    Model m;
    try {
      m = read_onnx_proto(slurp(p), p.string());
    } catch (const Error&) {
      ++not_representable;  // refused by the reader (counted in the sweep above)
      continue;
    }
    std::string text = print_onnxtext(m);
    Model back;
    try {
      back = read_onnx_text(text, p.string() + " (printed)");
    } catch (const Error& e) {
      ADD_FAILURE() << e.what() << "\n" << text.substr(0, 2000);
      continue;
    }
    if (m == back) ++same;
    else ADD_FAILURE() << p << ": differs after a text round trip\n" << text.substr(0, 2000);
  }
  std::printf("round trip: %d unchanged, %d not read\n", same, not_representable);
  EXPECT_GT(same, 1000);
}

TEST(TestDataSweep, BundledModelsSurviveTheTextRoundTrip) {
  for (const char* name : {"mnist-12", "ultraface-rfb-320"}) {
    fs::path p = fs::path(LOAM_SOURCE_DIR) / "models" / name / "model.onnx";
    Model m = read_onnx_proto(slurp(p), p.string());
    Model back = read_onnx_text(print_onnxtext(m), "printed");
    EXPECT_TRUE(m == back) << name;
    Model normalized = read_model_file(p);
    EXPECT_TRUE(normalized == read_onnx_text(print_onnxtext(normalized), "printed")) << name << " (normalised)";
  }
}
