// The model summary `loam inspect` prints, checked against the bundled models' provenance files,
// which report what ONNX 1.12's own tools say about them.
#include <gtest/gtest.h>

#include "onnx/reader.hpp"
#include "onnx/summary.hpp"

using namespace loam;

namespace {
std::string model_path(const char* name) { return std::string(LOAM_SOURCE_DIR) + "/models/" + name + "/model.onnx"; }
}  // namespace

TEST(Summary, Mnist12MatchesItsProvenance) {
  ModelSummary s = summarize(read_model_file_as_written(model_path("mnist-12")));
  EXPECT_EQ(s.ir_version, 7);
  EXPECT_EQ(s.producer, "CNTK 2.5.1");
  ASSERT_EQ(s.opsets.size(), 1u);
  EXPECT_EQ(s.opsets[0].version, 12);
  ASSERT_EQ(s.inputs.size(), 1u);
  EXPECT_EQ(s.inputs[0].name, "Input3");
  EXPECT_EQ(type_text(s.inputs[0].type), "float[1,1,28,28]");
  ASSERT_EQ(s.outputs.size(), 1u);
  EXPECT_EQ(type_text(s.outputs[0].type), "float[1,10]");
  EXPECT_EQ(s.node_count, 12);
  EXPECT_EQ(s.operators, (std::map<std::string, int64_t>{
                             {"Add", 3}, {"Conv", 2}, {"MatMul", 1}, {"MaxPool", 2}, {"Relu", 2}, {"Reshape", 2}}));
  EXPECT_EQ(s.initializer_count, 8);
  // Conv weights 8x1x5x5 and 16x8x5x5, biases 8 and 16, the dense weights 16x4x4x10 and bias 10:
  // 5994 floats = 23976 bytes, plus two int64[2] Reshape shapes = 32 bytes.
  EXPECT_EQ(s.initializer_bytes, 24008);
}

TEST(Summary, UltrafaceListsInitializersAsInputsButNotInInputs) {
  ModelSummary s = summarize(read_model_file_as_written(model_path("ultraface-rfb-320")));
  EXPECT_EQ(s.opsets.at(0).version, 9);
  EXPECT_EQ(s.node_count, 242);
  EXPECT_EQ(s.initializer_count, 244);
  ASSERT_EQ(s.inputs.size(), 1u);  // 245 graph inputs, 244 of them initializers
  EXPECT_EQ(type_text(s.inputs[0].type), "float[1,3,240,320]");
  EXPECT_EQ(s.operators, (std::map<std::string, int64_t>{
                             {"Conv", 52}, {"BatchNormalization", 35}, {"Relu", 37}, {"Concat", 13}, {"Add", 3},
                             {"Transpose", 8}, {"Constant", 31}, {"Shape", 8}, {"Gather", 8}, {"Unsqueeze", 24},
                             {"Reshape", 8}, {"Softmax", 1}, {"Slice", 6}, {"Mul", 4}, {"Exp", 1}, {"Div", 2}, {"Sub", 1}}));
  std::string json = summary_json(s);
  EXPECT_NE(json.find("\"nodes\": 242"), std::string::npos);
  EXPECT_NE(json.find("\"shape\": [\n        1,\n        3,\n        240,\n        320\n      ]"), std::string::npos) << json;
}

TEST(Summary, UltrafaceNormalisedHasItsOpset9SoftmaxFlattened) {
  Model m = read_model_file(model_path("ultraface-rfb-320"));
  ModelSummary s = summarize(m);
  EXPECT_EQ(s.operators.count("Softmax"), 0u);
  EXPECT_EQ(s.operators.at("loam.SoftmaxFlattened"), 1);
  // Unsqueeze before 13 carried `axes` as an attribute; all 24 now read it as an operand.
  // + Unsqueeze axes, + Slice starts/ends/axes, + the three float Constants of [1, 4420, 2] (the
  // anchors' centres and sizes), weights now.
  EXPECT_EQ(s.initializer_count, 244 + 24 + 6 * 3 + 3);
  EXPECT_EQ(s.operators.at("Constant"), 31 - 3);
  for (const auto& n : m.graph.nodes)
    if (n.op_type == "SoftmaxFlattened") EXPECT_EQ(n.attr("axis")->i, 2);  // softmax over the last axis of [1,4420,2]
}
