// The GPT-2-style decoder (tests/fixtures/stage0/make_gpt2_style.py): 12 layers, symbolic batch and
// sequence, the causal mask sliced from a 1024 x 1024 buffer, weights absent.
#include <gtest/gtest.h>

#include "onnx/reader.hpp"
#include "stage0/stage0.hpp"
#include "support/error.hpp"
#include "ops/operator.hpp"

namespace loam::stage0 {
namespace {

Extent S(const char* name) { return Extent::symbol(input_symbol(name)); }

const Model& gpt2() {
  static const Model m = read_model_file(std::string(LOAM_SOURCE_DIR) + "/tests/fixtures/stage0/gpt2_style.onnx");
  return m;
}

const NodeState& node_named(const Model& m, const Stage0Result& r, const std::string& name) {
  for (const auto& n : r.nodes)
    if (m.graph.nodes[n.index].name == name) return n;
  throw Error("no node " + name);
}

TEST(Gpt2Style, ChecksWithExactlyOneOwedConditionOfTheMaskKind) {
  Stage0Result r = run_stage0(gpt2(), {.operators = &loam::ops::operators()});
  EXPECT_EQ(r.nodes.size(), 2384u);
  EXPECT_EQ(r.value("logits").dims, (std::vector<Extent>{S("batch_size"), S("sequence_length"), Extent(50257)}));
  std::vector<OwedCondition> mask;
  for (const auto& c : r.owed)
    if (c.kind == OwedKind::DerivedReading) mask.push_back(c);
  ASSERT_EQ(mask.size(), 1u);
  EXPECT_EQ(mask[0].slack, Extent(1024) - S("sequence_length"));  // sequence_length <= context
  EXPECT_EQ(mask[0].node, "node '/transformer.h.0/attn/Where_114' (Where)");
  // The other two are what ONNX's Reshape needs of the lengths: input_ids.view(-1, S) finds no
  // extent for -1 at S = 0, and Conv1D's view(size_out) reads a target 0 as the input's extent.
  ASSERT_EQ(r.owed.size(), 3u);
  EXPECT_EQ(r.owed[0].kind, OwedKind::ReshapeNonzeroProduct);
  EXPECT_EQ(r.owed[0].slack, S("sequence_length") - Extent(1));
  EXPECT_EQ(r.owed[1].kind, OwedKind::ReshapeTargetNonzero);
  EXPECT_EQ(r.owed[1].slack, S("batch_size") - Extent(1));
}

TEST(Gpt2Style, TheViewPatternFoldsToARegrouping) {
  const Model& m = gpt2();
  Stage0Result r = run_stage0(m, {.operators = &loam::ops::operators()});
  for (const char* n : {"/transformer/Shape_1", "/transformer/Gather_3", "/transformer/Unsqueeze_6", "/transformer/Concat_7"}) {
    EXPECT_TRUE(node_named(m, r, n).folded) << n;
  }
  const NodeState& reshape = node_named(m, r, "/transformer/Reshape_8");
  EXPECT_FALSE(reshape.folded);
  EXPECT_TRUE(reshape.regrouping);
  EXPECT_EQ(r.value("/transformer/Concat_7_output_0").value->ints, (std::vector<Extent>{Extent(-1), S("sequence_length")}));
  EXPECT_EQ(r.value("/transformer/Reshape_8_output_0").dims, (std::vector<Extent>{S("batch_size"), S("sequence_length")}));
  EXPECT_EQ(r.value("/transformer/Reshape_8_output_0").elem, ElementType::I64);
  // The attention scale: Cast and Pow of the head extent fold to sqrt(64).
  const ValueState* scale = nullptr;
  for (const auto& n : r.nodes)
    if (m.graph.nodes[n.index].op_type == "Pow" && !scale) scale = &r.value(m.graph.nodes[n.index].outputs[0]);
  ASSERT_TRUE(scale && scale->value);
  EXPECT_EQ(scale->value->floats, std::vector<float>{8.0f});
  // The mask slice carries the clamp; the scores it masks carry the length itself.
  EXPECT_EQ(r.value("/transformer.h.0/attn/Slice_112_output_0").dims[3].to_string(), "min(sequence_length, 1024)");
  EXPECT_EQ(r.value("/transformer.h.0/attn/Where_114_output_0").dims,
            (std::vector<Extent>{S("batch_size"), Extent(12), S("sequence_length"), S("sequence_length")}));
}

TEST(Gpt2Style, DimsDecideTheClamp) {
  Stage0Options fits{.operators = &loam::ops::operators()};
  fits.dims = {{"sequence_length", 8}, {"batch_size", 1}};
  Stage0Result r = run_stage0(gpt2(), fits);
  EXPECT_TRUE(r.owed.empty());
  EXPECT_EQ(r.value("logits").dims, (std::vector<Extent>{Extent(1), Extent(8), Extent(50257)}));
  Stage0Options too_long{.operators = &loam::ops::operators()};
  too_long.dims = {{"sequence_length", 2000}};
  too_long.origin = "gpt2_style.onnx";
  try {
    run_stage0(gpt2(), too_long);
    FAIL() << "a sequence past the context must stop the build";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "gpt2_style.onnx: node '/transformer.h.0/attn/Where_114' (Where): cannot broadcast axis 2 of input 1 "
              "'/transformer.h.0/attn/Div_95_output_0' (2000) and axis 2 of input 0 '/transformer.h.0/attn/Slice_112_output_0' "
              "(1024)");
  }
}

}  // namespace
}  // namespace loam::stage0
