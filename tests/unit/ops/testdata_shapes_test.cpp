// ONNX's own backend node tests as the oracle for the shape rules: for every node model stage 0
// accepts, each output's extents must be the shape of the expected output in test_data_set_0
// (written by ONNX's reference implementation). Models stage 0 refuses are counted, not failed:
// a refusal is a loam::Error naming what it cannot read, checked elsewhere.
#include <gtest/gtest.h>

#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>

#include "onnx/reader.hpp"
#include "stage0/stage0.hpp"
#include "support/error.hpp"
#include "ops/operator.hpp"

namespace fs = std::filesystem;

namespace loam::stage0 {
namespace {

const fs::path kNodeData = "/usr/share/libonnx-testdata/data/node";

TEST(OnnxNodeTestData, OutputExtentsAreTheReferenceShapes) {
  if (!fs::exists(kNodeData)) GTEST_SKIP() << "libonnx-testdata is not installed";
  int checked = 0, refused = 0;
  std::vector<std::string> mismatches;
  for (const auto& dir : fs::directory_iterator(kNodeData)) {
    fs::path model = dir.path() / "model.onnx", data = dir.path() / "test_data_set_0";
    if (!fs::exists(model) || !fs::exists(data)) continue;
    Model m;
    Stage0Result r;
    try {
      m = read_model_file(model);
      r = run_stage0(m, {.operators = &loam::ops::operators()});
    } catch (const Error&) {
      ++refused;
      continue;
    }
    ++checked;
    for (std::size_t i = 0; i < r.outputs.size(); ++i) {
      fs::path pb = data / ("output_" + std::to_string(i) + ".pb");
      std::ifstream in(pb, std::ios::binary);
      onnx::TensorProto t;
      if (!in || !t.ParseFromIstream(&in)) continue;  // a sequence or optional output
      std::vector<Extent> want(t.dims().begin(), t.dims().end());
      const auto& got = r.value(r.outputs[i]).dims;
      if (got != want) {
        std::string g, w;
        for (const auto& e : got) g += e.to_string() + " ";
        for (const auto& e : want) w += e.to_string() + " ";
        mismatches.push_back(dir.path().filename().string() + " output " + std::to_string(i) + ": [" + g + "] vs [" + w + "]");
      }
    }
  }
  std::string all;
  for (const auto& s : mismatches) all += s + "\n";
  EXPECT_TRUE(mismatches.empty()) << mismatches.size() << " mismatches:\n" << all;
  EXPECT_GT(checked, 450) << "refused " << refused;
  std::printf("checked %d node models, refused %d\n", checked, refused);
}

}  // namespace
}  // namespace loam::stage0
