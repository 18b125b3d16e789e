// Opset normalisation: each case is a node written in an old opset, restated as the current opset
// defines it. Expected forms come from ONNX's operator changelog, written out by hand.
#include <gtest/gtest.h>

#include <cstring>

#include "graph/verify.hpp"
#include "onnx/normalize.hpp"
#include "onnx/reader.hpp"
#include "support/error.hpp"

using namespace loam;

namespace {

Model normalized(int opset, const std::string& graph) {
  Model m = read_onnx_text("<ir_version: 3, opset_import: [\"\" : " + std::to_string(opset) + "]>\n" + graph, "n.onnxtext");
  verify_graph(m, "n.onnxtext");
  normalize_opsets(m);
  verify_graph(m, "n.onnxtext");  // still a well-formed graph
  return m;
}

std::vector<int64_t> ints_of(const Model& m, const std::string& name) {
  const TensorData* t = m.graph.initializer(name);
  if (!t) ADD_FAILURE() << "no initializer " << name;
  if (!t || t->elem != ElementType::I64) return {};
  std::vector<int64_t> v(t->data.size() / 8);
  std::memcpy(v.data(), t->data.data(), t->data.size());
  return v;
}

float float_of(const Model& m, const std::string& name) {
  const TensorData* t = m.graph.initializer(name);
  if (!t || t->elem != ElementType::F32 || t->data.size() != 4) {
    ADD_FAILURE() << "no float scalar " << name;
    return 0;
  }
  float f;
  std::memcpy(&f, t->data.data(), 4);
  return f;
}

const Node& only_node(const Model& m) { return m.graph.nodes.at(0); }

}  // namespace

TEST(Normalize, ConcatBeforeOpset4DefaultsAxisToOne) {
  Model m = normalized(3, "g (float[2,3] a, float[2,3] b) => (float[2,6] y) { y = Concat(a, b) }");
  ASSERT_NE(only_node(m).attr("axis"), nullptr);
  EXPECT_EQ(only_node(m).attr("axis")->i, 1);
  EXPECT_EQ(m.opset(""), kCurrentOpset);
  Model kept = normalized(3, "g (float[2,3] a, float[2,3] b) => (float[4,3] y) { y = Concat <axis = 0> (a, b) }");
  EXPECT_EQ(only_node(kept).attr("axis")->i, 0);
}

TEST(Normalize, ReshapeShapeAttributeBecomesOperand) {
  for (int v : {1, 4}) {
    Model m = normalized(v, "g (float[2,3] x) => (float[6] y) { y = Reshape <shape = [6]> (x) }");
    const Node& n = only_node(m);
    EXPECT_EQ(n.attr("shape"), nullptr);
    ASSERT_EQ(n.inputs.size(), 2u);
    EXPECT_EQ(n.inputs[1], "y__shape");
    EXPECT_EQ(ints_of(m, "y__shape"), std::vector<int64_t>{6});
  }
  Model v5 = normalized(5, "g (float[2,3] x, int64[1] s) => (float[6] y) { y = Reshape (x, s) }");
  EXPECT_EQ(only_node(v5).inputs, (std::vector<std::string>{"x", "s"}));
}

TEST(Normalize, ConstantNamesAvoidCollisions) {
  Model m = normalized(4, "g (float[2,3] x, int64[1] y__shape) => (float[6] y) { y = Reshape <shape = [6]> (x) }");
  EXPECT_EQ(only_node(m).inputs[1], "y__shape_1");
  EXPECT_EQ(ints_of(m, "y__shape_1"), std::vector<int64_t>{6});
}

TEST(Normalize, SqueezeUnsqueezeAxesBefore13) {
  Model m = normalized(11, "g (float[1,3] x) => (float[3,1] y) { s = Squeeze <axes = [0]> (x)\n y = Unsqueeze <axes = [1]> (s) }");
  EXPECT_EQ(m.graph.nodes[0].inputs, (std::vector<std::string>{"x", "s__axes"}));
  EXPECT_EQ(ints_of(m, "s__axes"), std::vector<int64_t>{0});
  EXPECT_EQ(m.graph.nodes[1].inputs, (std::vector<std::string>{"s", "y__axes"}));
  EXPECT_EQ(ints_of(m, "y__axes"), std::vector<int64_t>{1});
  Model all = normalized(11, "g (float[1,3] x) => (float[3] y) { y = Squeeze (x) }");
  EXPECT_EQ(only_node(all).inputs, std::vector<std::string>{"x"});  // no axes: every axis of 1, then and now
}

TEST(Normalize, SliceBefore10) {
  Model m = normalized(9, "g (float[4,5] x) => (float[2,5] y) { y = Slice <starts = [1], ends = [3], axes = [0]> (x) }");
  EXPECT_EQ(only_node(m).inputs, (std::vector<std::string>{"x", "y__starts", "y__ends", "y__axes"}));
  EXPECT_EQ(ints_of(m, "y__starts"), std::vector<int64_t>{1});
  EXPECT_EQ(ints_of(m, "y__ends"), std::vector<int64_t>{3});
  EXPECT_EQ(ints_of(m, "y__axes"), std::vector<int64_t>{0});
  EXPECT_TRUE(only_node(m).attributes.empty());
}

TEST(Normalize, SplitAttributeBefore13) {
  Model m = normalized(11, "g (float[6] x) => (float[2] a, float[4] b) { a, b = Split <axis = 0, split = [2, 4]> (x) }");
  EXPECT_EQ(only_node(m).inputs, (std::vector<std::string>{"x", "a__split"}));
  EXPECT_EQ(ints_of(m, "a__split"), (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(only_node(m).attr("axis")->i, 0);
}

TEST(Normalize, ReduceSumAxesBefore13) {
  Model m = normalized(12, "g (float[2,3] x) => (float[2] y) { y = ReduceSum <axes = [1], keepdims = 0> (x) }");
  EXPECT_EQ(only_node(m).inputs, (std::vector<std::string>{"x", "y__axes"}));
  EXPECT_EQ(ints_of(m, "y__axes"), std::vector<int64_t>{1});
  EXPECT_EQ(only_node(m).attr("keepdims")->i, 0);
  // ReduceMean moved its axes only in opset 18, after the opset Loam restates in.
  Model mean = normalized(12, "g (float[2,3] x) => (float[2] y) { y = ReduceMean <axes = [1]> (x) }");
  EXPECT_EQ(only_node(mean).attr("axes")->ints, std::vector<int64_t>{1});
}

TEST(Normalize, PadBefore11) {
  Model m = normalized(2, "g (float[2,3] x) => (float[2,5] y) { y = Pad <pads = [0, 1, 0, 1], value = 1.5> (x) }");
  EXPECT_EQ(only_node(m).inputs, (std::vector<std::string>{"x", "y__pads", "y__value"}));
  EXPECT_EQ(ints_of(m, "y__pads"), (std::vector<int64_t>{0, 1, 0, 1}));
  EXPECT_EQ(float_of(m, "y__value"), 1.5f);
  Model zero = normalized(2, "g (float[2,3] x) => (float[2,5] y) { y = Pad <pads = [0, 1, 0, 1], mode = \"reflect\"> (x) }");
  EXPECT_EQ(only_node(zero).inputs.size(), 2u);  // value 0 is today's default
  EXPECT_EQ(only_node(zero).attr("mode")->s, "reflect");
}

TEST(Normalize, ClipBefore11) {
  Model m = normalized(6, "g (float[3] x) => (float[3] y) { y = Clip <min = 0.0, max = 6.0> (x) }");
  EXPECT_EQ(only_node(m).inputs, (std::vector<std::string>{"x", "y__min", "y__max"}));
  EXPECT_EQ(float_of(m, "y__min"), 0.0f);
  EXPECT_EQ(float_of(m, "y__max"), 6.0f);
  Model only_max = normalized(6, "g (float[3] x) => (float[3] y) { y = Clip <max = 6.0> (x) }");
  EXPECT_EQ(only_node(only_max).inputs, (std::vector<std::string>{"x", "", "y__max"}));
}

TEST(Normalize, SoftmaxBefore13IsFlattened) {
  Model m = normalized(11, "g (float[2,3,4] x) => (float[2,3,4] y, float[2,3,4] z) { y = Softmax (x)\n z = LogSoftmax <axis = 2> (x) }");
  EXPECT_EQ(m.graph.nodes[0].domain, "loam");
  EXPECT_EQ(m.graph.nodes[0].op_type, "SoftmaxFlattened");
  EXPECT_EQ(m.graph.nodes[0].attr("axis")->i, 1);  // the old default
  EXPECT_EQ(m.graph.nodes[1].op_type, "LogSoftmaxFlattened");
  EXPECT_EQ(m.graph.nodes[1].attr("axis")->i, 2);
  EXPECT_EQ(m.opset("loam"), 1);
  Model v13 = normalized(13, "g (float[2,3,4] x) => (float[2,3,4] y) { y = Softmax (x) }");
  EXPECT_EQ(only_node(v13).op_type, "Softmax");
  EXPECT_EQ(only_node(v13).domain, "");
}

TEST(Normalize, ArithmeticBefore7WithAxisIsZipAt) {
  Model m = normalized(6, "g (float[2,3,4] a, float[3] b) => (float[2,3,4] y) { y = Add <broadcast = 1, axis = 1> (a, b) }");
  const Node& n = only_node(m);
  EXPECT_EQ(n.domain, "loam");
  EXPECT_EQ(n.op_type, "ZipAt");
  EXPECT_EQ(n.attr("op")->s, "Add");
  EXPECT_EQ(n.attr("axis")->i, 1);
  EXPECT_EQ(n.inputs, (std::vector<std::string>{"a", "b"}));
  // Without axis the old rule aligned B at A's end, which is numpy broadcasting.
  Model suffix = normalized(6, "g (float[2,3,4] a, float[4] b) => (float[2,3,4] y) { y = Sub <broadcast = 1> (a, b) }");
  EXPECT_EQ(only_node(suffix).op_type, "Sub");
  EXPECT_EQ(only_node(suffix).domain, "");
  EXPECT_TRUE(only_node(suffix).attributes.empty());
  Model v7 = normalized(7, "g (float[2,3,4] a, float[4] b) => (float[2,3,4] y) { y = Mul (a, b) }");
  EXPECT_EQ(only_node(v7).op_type, "Mul");
}

TEST(Normalize, LaterOpsetsKeepTheirFormsAndPastTheLastAreRefused) {
  // Opset 18's ReduceMean takes its axes as an operand: the node stays as written, the import too.
  Model m = normalized(18, "g (float[2,3] x, int64[1] axes) => (float[2] y) { y = ReduceMean <keepdims = 0> (x, axes) }");
  EXPECT_EQ(only_node(m).inputs, (std::vector<std::string>{"x", "axes"}));
  EXPECT_EQ(m.opset(""), 18);
  EXPECT_EQ(normalized(kLastOpset, "g (float[3] x) => (float[3] y) { y = Relu (x) }").opset(""), kLastOpset);
  try {
    normalized(kLastOpset + 1, "g (float[3] x) => (float[3] y) { y = Relu (x) }");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "the model imports opset " + std::to_string(kLastOpset + 1) +
                                         " of the default ONNX domain; Loam reads opsets up to " + std::to_string(kLastOpset));
  }
}

TEST(Normalize, ReshapeWithoutShapeIsRefusedNamingTheNode) {
  try {
    normalized(4, "g (float[3] x) => (float[3] y) { [r] y = Reshape (x) }");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "node 'r' (Reshape): Reshape of opset 4 has no 'shape' attribute");
  }
}

TEST(Normalize, PReluBefore7AppliesASlopeOfSeveralPerChannel) {
  // PRelu-6 read a [C] slope along X's axis 1; opset 7 aligns it at the end. The restated slope is
  // a [C, 1, 1] copy holding the same elements, and the original initializer is left as it was.
  Model m = normalized(6, "g (float[2,3,4,5] x) => (float[2,3,4,5] y) <float[3] s = {0.25, 0.5, 0.75}> { y = PRelu (x, s) }");
  const Node& n = only_node(m);
  EXPECT_EQ(n.op_type, "PRelu");
  ASSERT_EQ(n.inputs.size(), 2u);
  EXPECT_EQ(n.inputs[1], "y__slope");
  const TensorData* slope = m.graph.initializer("y__slope");
  ASSERT_NE(slope, nullptr);
  EXPECT_EQ(slope->dims, (std::vector<int64_t>{3, 1, 1}));
  EXPECT_EQ(slope->data, m.graph.initializer("s")->data);
  EXPECT_EQ(m.graph.initializer("s")->dims, (std::vector<int64_t>{3}));
  // One element means the same under both rules; from opset 7 on the slope is read as written.
  Model shared = normalized(6, "g (float[2,3,4] x) => (float[2,3,4] y) <float[1] s = {0.25}> { y = PRelu (x, s) }");
  EXPECT_EQ(only_node(shared).inputs[1], "s");
  Model v7 = normalized(7, "g (float[2,3,4] x) => (float[2,3,4] y) <float[4] s = {1, 2, 3, 4}> { y = PRelu (x, s) }");
  EXPECT_EQ(only_node(v7).inputs[1], "s");
}

TEST(Normalize, AFloatConstantPastTheLimitIsAWeight) {
  // paddle2onnx writes every weight as a Constant node: past kConstantWeightElements it becomes an
  // initializer of the Constant's output name, holding the same bytes; at the limit it stays.
  auto graph_of = [](int64_t count) {
    std::string values;
    for (int64_t i = 0; i < count; ++i) values += (i ? ", " : "") + std::to_string(i) + ".5";
    const std::string n = std::to_string(count);
    return "g (float[" + n + "] x) => (float[" + n + "] y) { w = Constant <value = float[" + n + "] {" + values +
           "}> () \n y = Add (x, w) }";
  };
  Model big = normalized(17, graph_of(kConstantWeightElements + 1));
  EXPECT_EQ(only_node(big).op_type, "Add");
  const TensorData* w = big.graph.initializer("w");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->dims, (std::vector<int64_t>{kConstantWeightElements + 1}));
  float last;
  std::memcpy(&last, w->data.data() + 4 * kConstantWeightElements, 4);
  EXPECT_EQ(last, static_cast<float>(kConstantWeightElements) + 0.5f);
  Model small = normalized(17, graph_of(kConstantWeightElements));
  EXPECT_EQ(small.graph.nodes.size(), 2u);
  EXPECT_EQ(small.graph.initializer("w"), nullptr);
}
