// The pipeline's stages as `loam build --emit=STAGE` prints them, on MNIST-12: each names what that
// stage decided, and the last is the module a build writes.
#include <gtest/gtest.h>

#include "driver/pipeline.hpp"
#include "support/error.hpp"

namespace {

using namespace loam::driver;

BuildRequest mnist() {
  BuildRequest r;
  r.graph = std::filesystem::path(LOAM_SOURCE_DIR) / "models/mnist-12/model.onnx";
  r.options_file = std::filesystem::path(LOAM_SOURCE_DIR) / "examples/mnist/layout.json";
  r.name = "mnist";
  return r;
}

TEST(Pipeline, EachStagePrintsWhatItDecided) {
  const BuildRequest r = mnist();
  const std::string graph = emit_stage(r, Stage::Graph);
  EXPECT_NE(graph.find("CNTKGraph (float[1,1,28,28] Input3) => (float[1,10] Plus214_Output_0)"), std::string::npos);
  const std::string st = emit_stage(r, Stage::Stage0);
  EXPECT_NE(st.find("Pooling66_Output_0: float [1, 8, 14, 14]"), std::string::npos);
  const std::string axes = emit_stage(r, Stage::Axes);
  EXPECT_NE(axes.find("Input3: [Batch, Gray, Height, Width]"), std::string::npos);
  EXPECT_NE(axes.find("Pooling160_Output_0_reshape0: [Batch, (Conv2 Pool2H Pool2W)]"), std::string::npos);
  const std::string lowered = emit_stage(r, Stage::Lowered);
  EXPECT_NE(lowered.find("= conv_max_pool<[Batch, Conv1, Pool1H, Pool1W], [Batch, Conv1, Height, Width]>"), std::string::npos);
  EXPECT_NE(lowered.find("= matmul_bias(Pooling160_Output_0_reshape0, Parameter193@packed"), std::string::npos);
  EXPECT_EQ(emit_stage(r, Stage::Cpp), build_module(r).text);
}

TEST(Pipeline, RefusesAnUnknownStage) {
  EXPECT_THROW(stage_from_name("loom2"), loam::Error);
  EXPECT_EQ(stage_from_name("lowered"), Stage::Lowered);
  EXPECT_EQ(stage_from_name("memory"), Stage::Memory);
}

}  // namespace
