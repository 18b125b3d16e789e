// Axis naming of If (WEP, "A Branch Is a Block of `forward`"): each block is named in a copy of the
// scope around it, a rule naming a branch's graph reaches only that graph, a tensor of the scope a
// block reads under other axes is relabelled, and the node's output takes the axes both branches
// give it or, where they name one apart, its layout rule's. Model: tests/fixtures/branch/branch_owes.
#include <gtest/gtest.h>

#include <filesystem>

#include "axes/naming.hpp"
#include "onnx/reader.hpp"
#include "support/error.hpp"
#include "ops/operator.hpp"

namespace fs = std::filesystem;
using loam::axes::AxisName;

namespace {

const fs::path kFixture = fs::path(LOAM_SOURCE_DIR) / "tests/fixtures/branch";

std::vector<AxisName> plain(std::initializer_list<const char*> names) {
  std::vector<AxisName> out;
  for (const char* n : names) out.push_back(AxisName{{n}});
  return out;
}

TEST(BranchNaming, EachBlockIsNamedApartAndRelabelsWhatItReadsUnderOtherAxes) {
  loam::Model model = loam::read_model_file(kFixture / "branch_owes/model.onnx");
  loam::Options options = loam::load_options(kFixture / "branch_owes.options.json");
  auto st = loam::stage0::run_stage0(model, loam::stage0::Stage0Options{.operators = &loam::ops::operators()});
  auto naming = loam::axes::name_axes(model, st, options.layout, "model.onnx");
  EXPECT_EQ(naming.values.at("x"), plain({"Seq"}));
  EXPECT_EQ(naming.values.at("y"), plain({"Rows", "Cols"}));
  EXPECT_EQ(naming.values.count("then_out"), 0u);  // a branch's value belongs to its block
  ASSERT_EQ(naming.branches.size(), 1u);
  const auto& blocks = naming.branches.begin()->second;
  ASSERT_EQ(blocks.size(), 2u);
  // then: x as the graph names it; its Reshape creates the axes its graph's rule names.
  EXPECT_TRUE(blocks[0].relabels.empty());
  EXPECT_EQ(blocks[0].values.at("x"), plain({"Seq"}));
  EXPECT_EQ(blocks[0].values.at("then_out"), plain({"Two", "Halves"}));
  // else: the rule naming else_body reaches x first, so the block reads it as Len.
  ASSERT_EQ(blocks[1].relabels.size(), 1u);
  EXPECT_EQ(blocks[1].relabels[0].tensor, "x");
  EXPECT_EQ(blocks[1].relabels[0].from, plain({"Seq"}));
  EXPECT_EQ(blocks[1].relabels[0].to, plain({"Len"}));
  EXPECT_EQ(blocks[1].values.at("else_out"), plain({"One", "Len"}));
}

TEST(BranchNaming, AnAxisTheBranchesNameApartNeedsTheOutputsRule) {
  loam::Model model = loam::read_model_file(kFixture / "branch_owes/model.onnx");
  loam::Options options = loam::load_options(kFixture / "branch_owes.options.json");
  options.layout.pop_back();  // the rule for y
  auto st = loam::stage0::run_stage0(model, loam::stage0::Stage0Options{.operators = &loam::ops::operators()});
  try {
    loam::axes::name_axes(model, st, options.layout, "model.onnx");
    FAIL() << "naming did not stop";
  } catch (const loam::Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "model.onnx: node If -> 'y': tensor 'y', axis 0: the then_branch names it 'Two' and the else_branch "
              "'One', and no layout rule reaching the tensor names the output's axis");
  }
}

TEST(BranchNaming, TheProposalNamesWhatABranchCreatesByARuleNamingItsGraph) {
  loam::Model model = loam::read_model_file(kFixture / "branch_owes/model.onnx");
  auto st = loam::stage0::run_stage0(model, loam::stage0::Stage0Options{.operators = &loam::ops::operators()});
  auto rules = loam::axes::propose_layout(model, st, "model.onnx");
  bool then_rule = false, else_rule = false;
  for (const auto& r : rules) {
    if (r.pattern == "then_out") then_rule = r.graph && *r.graph == "then_body";
    if (r.pattern == "else_out") else_rule = r.graph && *r.graph == "else_body";
  }
  EXPECT_TRUE(then_rule);
  EXPECT_TRUE(else_rule);
  // The proposal is a layout the build accepts.
  loam::axes::name_axes(model, st, rules, "model.onnx");
}

}  // namespace
