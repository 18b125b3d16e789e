// If in stage 0 (WEP, "A Branch Is a Block of `forward`"): each branch keeps its nodes, values and
// the conditions it owes; an output whose branches give two lengths takes a symbol of its own. The
// models are tests/fixtures/branch/ (written by make_branch_cases.py; onnxruntime's shapes there
// agree with what is asserted here at the lengths they were run with).
#include <gtest/gtest.h>

#include <filesystem>

#include "onnx/reader.hpp"
#include "stage0/stage0.hpp"
#include "support/error.hpp"
#include "ops/operator.hpp"

namespace fs = std::filesystem;
using namespace loam::stage0;

namespace {

struct Analysed {
  loam::Model model;
  Stage0Result st;
};

Analysed analyse(const std::string& name) {
  fs::path file = fs::path(LOAM_SOURCE_DIR) / "tests/fixtures/branch" / name / "model.onnx";
  Analysed a{loam::read_model_file(file), {}};
  a.st = run_stage0(a.model, Stage0Options{.operators = &loam::ops::operators()});
  return a;
}

const NodeState& the_if(const Analysed& a) {
  for (const auto& ns : a.st.nodes)
    if (ns.branches) return ns;
  throw loam::Error("no If");
}

Extent sym(const char* n) { return Extent::symbol(input_symbol(n)); }

TEST(Branch, AConditionOneBranchOwesIsItsOwnAndNotForwards) {
  Analysed a = analyse("branch_owes");
  EXPECT_TRUE(a.st.owed.empty());
  const IfBranches& br = *the_if(a).branches;
  ASSERT_EQ(br.then_branch.owed.size(), 1u);
  EXPECT_EQ(br.then_branch.owed[0].kind, OwedKind::ReshapeDivides);
  EXPECT_NE(br.then_branch.owed[0].node.find("Reshape"), std::string::npos);
  // The condition is 2 * floor(N / 2) - N >= 0: false at N = 5, true at N = 6.
  EXPECT_EQ(evaluate(br.then_branch.owed[0].slack, {{"N", 5}}), -1);
  EXPECT_EQ(evaluate(br.then_branch.owed[0].slack, {{"N", 6}}), 0);
  EXPECT_TRUE(br.else_branch.owed.empty());
}

TEST(Branch, EachBranchKeepsItsNodesAndValues) {
  Analysed a = analyse("branch_owes");
  const IfBranches& br = *the_if(a).branches;
  EXPECT_EQ(br.then_branch.attribute, "then_branch");
  EXPECT_EQ(br.then_branch.graph->name, "then_body");
  EXPECT_EQ(br.then_branch.outputs, std::vector<std::string>{"then_out"});
  ASSERT_TRUE(br.then_branch.values.count("then_out"));
  EXPECT_EQ(br.then_branch.values.at("then_out").dims, (std::vector<Extent>{Extent(2), floor_div(sym("N"), Extent(2))}));
  ASSERT_TRUE(br.else_branch.values.count("else_out"));
  EXPECT_EQ(br.else_branch.values.at("else_out").dims, (std::vector<Extent>{Extent(1), sym("N")}));
  // The branches' values are theirs, not the graph's.
  EXPECT_EQ(a.st.find("then_out"), nullptr);
  EXPECT_EQ(a.st.find("else_out"), nullptr);
  // The Reshape is a regrouping; the Constant target folded.
  std::size_t regroupings = 0, folded = 0;
  for (const auto& ns : br.then_branch.nodes) regroupings += ns.regrouping, folded += ns.folded;
  EXPECT_EQ(regroupings, 1u);
  EXPECT_EQ(folded, 1u);
}

TEST(Branch, LengthsTheBranchesGiveApartAreASymbolOnlyTheRunKnows) {
  Analysed a = analyse("branch_owes");
  const auto& y = a.st.value("y").dims;
  ASSERT_EQ(y.size(), 2u);
  for (std::size_t k = 0; k < 2; ++k) {
    auto s = y[k].as_symbol();
    ASSERT_TRUE(s) << y[k].to_string();
    EXPECT_EQ(symbol_info(*s).kind, SymbolKind::Branch);
    EXPECT_EQ(evaluate(y[k], {{"N", 6}}), std::nullopt);  // the condition decides it
  }
  EXPECT_EQ(symbol_info(*y[0].as_symbol()).operands, (std::vector<Extent>{Extent(2), Extent(1)}));
  EXPECT_EQ(symbol_info(*y[1].as_symbol()).operands, (std::vector<Extent>{floor_div(sym("N"), Extent(2)), sym("N")}));
  EXPECT_EQ(bound(y[0]).lo, 1);
  EXPECT_EQ(bound(y[0]).hi, 2);
}

TEST(Branch, AnOutputAfterTheIfCarriesTheBranchLength) {
  Analysed a = analyse("length_differs");
  const auto& picked = a.st.value("picked").dims;
  ASSERT_EQ(picked.size(), 1u);
  ASSERT_TRUE(picked[0].as_symbol());
  EXPECT_EQ(symbol_info(*picked[0].as_symbol()).kind, SymbolKind::Branch);
  EXPECT_EQ(a.st.value("y").dims, (std::vector<Extent>{picked[0], Extent(1)}));
}

TEST(Branch, EqualLengthsStayOneAndTwoBranchesMayNameATensorAlike) {
  Analysed a = analyse("outer_initializer");
  EXPECT_EQ(a.st.value("y").dims, (std::vector<Extent>{sym("N"), Extent(4)}));
  const IfBranches& br = *the_if(a).branches;
  ASSERT_TRUE(br.then_branch.values.count("h"));
  ASSERT_TRUE(br.else_branch.values.count("h"));
  EXPECT_EQ(a.st.find("h"), nullptr);
  // A branch's scope sees the graph around it and its own values.
  Stage0Result scope = branch_scope(a.st, br.else_branch);
  EXPECT_NE(scope.find("w"), nullptr);
  EXPECT_NE(scope.find("h"), nullptr);
  EXPECT_EQ(scope.find("h2"), nullptr);  // the then branch's
}

TEST(Branch, TheOutputsCutKeepsWhatAnIfInsideABranchReads) {
  // x is read only two scopes in; the cut to y must keep it.
  loam::Model model = loam::read_onnx_text(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (bool c, bool d, float[N] x, float[N] unused) => (float[N] y, float[N] z) {
  y = If (c) <then_branch = then_body () => (float[N] t) {
      t = If (d) <then_branch = inner_then () => (float[N] it) { it = Neg(x) },
                  else_branch = inner_else () => (float[N] ie) { ie = Relu(x) }>
    }, else_branch = else_body () => (float[N] e) { e = Abs(x) }>
  z = Neg(unused)
}
)", "cut.onnxtext");
  Stage0Options options{.operators = &loam::ops::operators()};
  options.outputs = std::vector<std::string>{"y"};
  Stage0Result st = run_stage0(model, options);
  EXPECT_EQ(st.inputs, (std::vector<std::string>{"c", "d", "x"}));
  EXPECT_EQ(st.value("y").dims, (std::vector<Extent>{sym("N")}));
  const IfBranches& br = *the_if(Analysed{std::move(model), st}).branches;
  ASSERT_EQ(br.then_branch.nodes.size(), 1u);
  ASSERT_TRUE(br.then_branch.nodes[0].branches);
  EXPECT_EQ(br.then_branch.nodes[0].branches->else_branch.values.at("ie").dims, (std::vector<Extent>{sym("N")}));
}

}  // namespace
