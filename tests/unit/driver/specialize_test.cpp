// Specialisation: a fixed value leaves the inputs for the initializers, and each If whose condition
// the build then knows becomes the nodes of the branch it takes, nested ones too, with a value the
// rest of the graph names renamed apart; the branch not taken is never analysed.
#include <gtest/gtest.h>

#include <algorithm>

#include "driver/specialize.hpp"
#include "onnx/reader.hpp"
#include "support/error.hpp"

namespace {

using namespace loam;

Model text(const std::string& body) { return read_onnx_text(body, "g.onnxtext"); }

Options fixing(const std::string& name, std::vector<int64_t> ints) {
  Options o;
  o.values[name].integers = std::move(ints);
  return o;
}

std::size_t count_op(const Graph& g, const std::string& op) {
  return static_cast<std::size_t>(std::count_if(g.nodes.begin(), g.nodes.end(), [&](const Node& n) { return n.op_type == op; }));
}

// The else branch gives a rank-2 result where the then branch gives rank 1: only one may be
// analysed. The inner If chooses on the outer branch's shape.
const char* kRates = R"(<ir_version: 8, opset_import: ["" : 17]>
g (int64 sr, float[4] x) => (float[?] y) <int64 rate = {16000}> {
  c = Equal(sr, rate)
  y = If(c) <then_branch = t () => (float[?] t_out) {
      s = Shape(x)
      one = Constant<value = int64[1] {4}>()
      k = Equal(s, one)
      k0 = Squeeze(k)
      t_out = If(k0) <then_branch = tt () => (float[?] tt_out) { tt_out = Relu(x) },
                      else_branch = te () => (float[?] te_out) { te_out = Neg(x) }>
    }, else_branch = e () => (float[?, ?] e_out) {
      e_out = Unsqueeze(x, rate)
    }>
})";

TEST(Specialize, AValueTakesItsBranchAndTheBranchInsideIt) {
  auto m = driver::specialize(text(kRates), fixing("sr", {16000}), "g.onnxtext");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->graph.inputs.size(), 1u);  // sr left forward's signature
  ASSERT_NE(m->graph.initializer("sr"), nullptr);
  EXPECT_EQ(count_op(m->graph, "If"), 0u);
  EXPECT_EQ(count_op(m->graph, "Relu"), 1u);
  EXPECT_EQ(count_op(m->graph, "Neg"), 0u);
  EXPECT_EQ(count_op(m->graph, "Unsqueeze"), 0u);
}

TEST(Specialize, AConditionTheBuildCannotKnowKeepsTheIf) {
  const Model m = text(R"(<ir_version: 8, opset_import: ["" : 17]>
g (bool c, float[4] x) => (float[4] y) {
  y = If(c) <then_branch = t () => (float[4] a) { a = Relu(x) }, else_branch = e () => (float[4] b) { b = Neg(x) }>
})");
  EXPECT_FALSE(driver::specialize(m, Options{}, "g.onnxtext"));
}

// Sibling branches may each name a value `v`; inlined side by side, the first is renamed apart.
TEST(Specialize, ABranchValueAnotherBranchNamesTooIsRenamedApart) {
  auto m = driver::specialize(text(R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[4] x) => (float[4] y, float[4] z) <bool c = {1}> {
  y = If(c) <then_branch = t1 () => (float[4] a) { v = Neg(x)  a = Abs(v) }, else_branch = e1 () => (float[4] b) { b = Neg(x) }>
  z = If(c) <then_branch = t2 () => (float[4] a2) { v = Relu(x)  a2 = Abs(v) }, else_branch = e2 () => (float[4] b2) { b2 = Neg(x) }>
})"), Options{}, "g.onnxtext");
  ASSERT_TRUE(m);
  EXPECT_EQ(count_op(m->graph, "If"), 0u);
  std::vector<std::string> made;
  for (const auto& n : m->graph.nodes) made.insert(made.end(), n.outputs.begin(), n.outputs.end());
  EXPECT_EQ(std::count(made.begin(), made.end(), "v"), 1);
  EXPECT_EQ(std::count(made.begin(), made.end(), "v@1"), 1);
  // Each Abs reads its own branch's v.
  for (const auto& n : m->graph.nodes)
    if (n.op_type == "Abs") {
      const auto source = std::find_if(m->graph.nodes.begin(), m->graph.nodes.end(), [&](const Node& d) { return d.outputs[0] == n.inputs[0]; });
      ASSERT_NE(source, m->graph.nodes.end());
      EXPECT_EQ(source->op_type, n.outputs[0] == "a" ? "Neg" : "Relu");
    }
}

TEST(Specialize, RefusesAValueThatDoesNotFitItsInput) {
  const Model m = text(kRates);
  for (const auto& [options, part] : std::vector<std::pair<Options, std::string>>{
           {fixing("rate", {1}), "the graph has no input 'rate'"},
           {fixing("sr", {1, 2}), "2 elements given, the input holds 1"}}) {
    try {
      driver::specialize(m, options, "g.onnxtext");
      ADD_FAILURE() << "accepted: " << part;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("option 'values."), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  }
  // Integers for a float input are taken as floats.
  Options both = fixing("x", {1, 2, 3, 4});
  both.values["sr"].integers = {16000};
  auto floats = driver::specialize(m, both, "g.onnxtext");
  ASSERT_TRUE(floats);
  EXPECT_EQ(floats->graph.initializer("x")->elem, ElementType::F32);
  EXPECT_EQ(floats->graph.initializer("x")->data.size(), 16u);
  EXPECT_TRUE(floats->graph.inputs.empty());
}

}  // namespace
