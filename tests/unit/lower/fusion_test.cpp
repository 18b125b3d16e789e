// The fusion plan as the emitted module shows it: which Conv / MatMul / Gemm calls compute the
// Add of a channel bias and the Relu after them, which read their weight packed at load, and the
// forms that must keep the node-by-node calls (a bias that is not per channel, a value the graph
// also returns or reads twice, a bias the run computes). The numbers these calls compute are
// checked against onnxruntime by the conformance cases in tests/conformance/fusion/.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "driver/pipeline.hpp"
#include "onnx/reader.hpp"
#include "options/options.hpp"

namespace loam {
namespace {

std::string build_text(const std::string& name, const std::string& graph, const std::string& layout_json) {
  auto dir = std::filesystem::temp_directory_path() / ("loam_fusion_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto file = dir / (name + ".onnxtext");
  std::ofstream(file) << graph;
  Model model = read_model_file(file);
  Options options = parse_options(layout_json, name + ".json");
  std::string text = driver::build_module(model, options, {}, name + ".onnxtext", name).text;
  std::filesystem::remove_all(dir);
  return text;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// forward's body only (the inlined runtime also spells kernel names).
std::string forward_of(const std::string& text) {
  auto at = text.find("// ---- forward");
  return at == std::string::npos ? "" : text.substr(at);
}

const char* kConvLayout = R"({"layout": [
  {"pattern": "x", "axes": ["N", "Cin", "H", "W"]},
  {"pattern": "w", "axes": ["Cout", "Cin", "KH", "KW"]},
  {"pattern": "b", "axes": ["Cout", "One1", "One2"]},
  {"pattern": "bw", "axes": ["One1", "One2", "W"]},
  {"pattern": "bx", "axes": ["Cout", "One1", "One2"]},
  {"pattern": "c", "axes": ["N", "Cout", "H", "W"]}
]})";

std::string conv_graph(const std::string& outputs, const std::string& extra_inputs, const std::string& weights,
                       const std::string& body) {
  return "<ir_version: 8, opset_import: [\"\" : 17]>\n"
         "g (float[1, 2, 5, 5] x" + extra_inputs + ") => (" + outputs + ")\n"
         "<float[3, 2, 3, 3] w = {}" + weights + ">\n{\n"
         "  c = Conv <pads = [1, 1, 1, 1]> (x, w)\n" + body + "}\n";
}

TEST(Fusion, ConvAddOfAChannelBiasAndReluBecomeOneConvCall) {
  std::string text = build_text("conv_fused",
                                conv_graph("float[1, 3, 5, 5] y", "", ", float[3, 1, 1] b = {}",
                                           "  s = Add(c, b)\n  y = Relu(s)\n"),
                                kConvLayout);
  std::string f = forward_of(text);
  // One call: the packed weight, the bias regrouped to one value per channel, Relu in the store.
  EXPECT_EQ(count(f, "backend.template conv<"), 1u);
  EXPECT_NE(f.find("// node Conv -> 'c' (Conv + Add + Relu)"), std::string::npos) << f;
  EXPECT_NE(f.find(" y = backend.template conv<Axes<N, Cout, H, W>>(x_dev, weights.w_packed, b_channels_dev, WindowParams{"),
            std::string::npos) << f;
  EXPECT_NE(f.find(", AutoPad::NotSet, false, false}, true);"), std::string::npos);
  EXPECT_EQ(f.find("elementwise<"), std::string::npos);
  EXPECT_EQ(f.find("backend.unary("), std::string::npos);
  // The packed weight is a host object built at load; the raw weight is not uploaded.
  EXPECT_EQ(f.find("backend.upload(weights.w)"), std::string::npos);
  EXPECT_NE(f.find("backend.upload(weights.b_channels)"), std::string::npos);
  EXPECT_NE(text.find("  PackedConv<Axes<Cout, Cin, KH, KW>> w_packed;"), std::string::npos);
  EXPECT_NE(text.find("  Tensor<float, Axes<Cout>> b_channels;"), std::string::npos);
  // Built in load (the checkpoint supplies the weights, so there is no embedded()).
  EXPECT_NE(text.find("  w.w_packed = PackedConv<Axes<Cout, Cin, KH, KW>>(w.w, 1);\n"), std::string::npos);
  EXPECT_NE(text.find("  w.b_channels = w.b.regrouped<Axes<Cout>>({3});\n"), std::string::npos);
}

TEST(Fusion, ABiasAlongAnotherAxisIsNotFused) {
  // bw [1, 1, 5] varies along W: an elementwise Add after the Conv, and the Relu after it stays.
  std::string f = forward_of(build_text("conv_bias_w",
                                        conv_graph("float[1, 3, 5, 5] y", "", ", float[1, 1, 5] bw = {}",
                                                   "  s = Add(c, bw)\n  y = Relu(s)\n"),
                                        kConvLayout));
  EXPECT_NE(f.find(" c = backend.template conv<Axes<N, Cout, H, W>>(x_dev, weights.w_packed, WindowParams{"), std::string::npos) << f;
  EXPECT_NE(f.find(", AutoPad::NotSet, false, false});"), std::string::npos);
  EXPECT_NE(f.find(" s = backend.template elementwise<Axes<N, Cout, H, W>>("), std::string::npos);
  EXPECT_NE(f.find(" y = backend.unary(ExprOp::Relu, s, 0, 0);"), std::string::npos);
  EXPECT_EQ(f.find("(Conv + "), std::string::npos);
}

TEST(Fusion, AConvResultTheGraphReturnsIsNotFused) {
  std::string f = forward_of(build_text("conv_returned",
                                        conv_graph("float[1, 3, 5, 5] y, float[1, 3, 5, 5] c", "",
                                                   ", float[3, 1, 1] b = {}", "  s = Add(c, b)\n  y = Relu(s)\n"),
                                        kConvLayout));
  EXPECT_NE(f.find(" c = backend.template conv<"), std::string::npos) << f;
  EXPECT_NE(f.find(" s = backend.template elementwise<"), std::string::npos);
  EXPECT_NE(f.find(" y = backend.unary(ExprOp::Relu, s, 0, 0);"), std::string::npos);
  EXPECT_NE(f.find("loam_outputs.c = backend.download(c);"), std::string::npos);
}

TEST(Fusion, ABiasTheRunComputesIsNotFused) {
  std::string f = forward_of(build_text("conv_input_bias",
                                        conv_graph("float[1, 3, 5, 5] y", ", float[3, 1, 1] bx", "",
                                                   "  s = Add(c, bx)\n  y = Relu(s)\n"),
                                        kConvLayout));
  EXPECT_NE(f.find(" s = backend.template elementwise<"), std::string::npos) << f;
  EXPECT_NE(f.find(" y = backend.unary(ExprOp::Relu, s, 0, 0);"), std::string::npos);
}

TEST(Fusion, AnAddReadTwiceFusesButTheReluAfterItDoesNot) {
  std::string f = forward_of(build_text("conv_add_twice",
                                        conv_graph("float[1, 3, 5, 5] y, float[1, 3, 5, 5] z", "",
                                                   ", float[3, 1, 1] b = {}",
                                                   "  s = Add(b, c)\n  y = Relu(s)\n  z = Neg(s)\n"),
                                        kConvLayout));
  EXPECT_NE(f.find("(Conv + Add)"), std::string::npos) << f;
  EXPECT_NE(f.find(" s = backend.template conv<Axes<N, Cout, H, W>>(x_dev, weights.w_packed, b_channels_dev, WindowParams{"),
            std::string::npos);
  EXPECT_NE(f.find(" y = backend.unary(ExprOp::Relu, s, 0, 0);"), std::string::npos);
}

const char* kPoolLayout = R"({"layout": [
  {"pattern": "x", "axes": ["N", "Cin", "H", "W"]},
  {"pattern": "w", "axes": ["Cout", "Cin", "KH", "KW"]},
  {"pattern": "b", "axes": ["Cout", "One1", "One2"]},
  {"pattern": "c", "axes": ["N", "Cout", "H", "W"]},
  {"pattern": "y", "axes": ["N", "Cout", "PH", "PW"]},
  {"pattern": "yi", "axes": ["N", "Cout", "PH", "PW"]}
]})";

TEST(Fusion, AConvReadOnlyByAPoolPoolsInItsKernel) {
  // Conv + Add + Relu + MaxPool: one call, typed by the pooled result and the product between.
  std::string f = forward_of(build_text("conv_pool",
                                        conv_graph("float[1, 3, 2, 2] y", "", ", float[3, 1, 1] b = {}",
                                                   "  s = Add(c, b)\n  r = Relu(s)\n  y = MaxPool <kernel_shape = [2, 2], strides = [2, 2]> (r)\n"),
                                        kPoolLayout));
  EXPECT_NE(f.find("// node Conv -> 'c' (Conv + Add + Relu + MaxPool)"), std::string::npos) << f;
  EXPECT_NE(f.find(" y = backend.template conv_max_pool<Axes<N, Cout, PH, PW>, Axes<N, Cout, H, W>>(x_dev, weights.w_packed, "
                   "b_channels_dev, WindowParams{{}, {}, {1, 1, 1, 1}, {}, 1, AutoPad::NotSet, false, false}, true, "
                   "WindowParams{{2, 2}, {2, 2}, {}, {}, 1, AutoPad::NotSet, false, false});"),
            std::string::npos)
      << f;
  EXPECT_EQ(count(f, "backend.template "), 1u);
  // AveragePool straight after the Conv: no bias, no Relu.
  f = forward_of(build_text("conv_avg",
                            conv_graph("float[1, 3, 2, 2] y", "", "", "  y = AveragePool <kernel_shape = [2, 2], strides = [2, 2]> (c)\n"),
                            kPoolLayout));
  EXPECT_NE(f.find(" y = backend.template conv_average_pool<Axes<N, Cout, PH, PW>, Axes<N, Cout, H, W>>(x_dev, weights.w_packed, "
                   "WindowParams{{}, {}, {1, 1, 1, 1}, {}, 1, AutoPad::NotSet, false, false}, false, WindowParams{"),
            std::string::npos)
      << f;
}

TEST(Fusion, APoolWhoseIndicesTheGraphReadsOrAProductReadTwiceIsNotFused) {
  std::string f = forward_of(build_text("conv_pool_indices",
                                        conv_graph("float[1, 3, 2, 2] y, int64[1, 3, 2, 2] yi", "", "",
                                                   "  y, yi = MaxPool <kernel_shape = [2, 2], strides = [2, 2]> (c)\n"),
                                        kPoolLayout));
  EXPECT_NE(f.find(" c = backend.template conv<Axes<N, Cout, H, W>>(x_dev, weights.w_packed, WindowParams{"), std::string::npos) << f;
  EXPECT_NE(f.find(" y = backend.template max_pool<Axes<N, Cout, PH, PW>>(c, WindowParams{"), std::string::npos);
  EXPECT_EQ(f.find("conv_max_pool"), std::string::npos);
  f = forward_of(build_text("conv_pool_twice",
                            conv_graph("float[1, 3, 2, 2] y, float[1, 3, 5, 5] z", "", "",
                                       "  y = MaxPool <kernel_shape = [2, 2], strides = [2, 2]> (c)\n  z = Neg(c)\n"),
                            kPoolLayout));
  EXPECT_NE(f.find(" y = backend.template max_pool<Axes<N, Cout, PH, PW>>(c, WindowParams{"), std::string::npos) << f;
  EXPECT_EQ(f.find("conv_max_pool"), std::string::npos);
}

TEST(Fusion, ABatchNormalizationOfConstantsFoldsIntoTheConvAtLoad) {
  const char* layout = R"({"layout": [
    {"pattern": "x", "axes": ["N", "Cin", "H", "W"]},
    {"pattern": "w", "axes": ["Cout", "Cin", "KH", "KW"]},
    {"pattern": "[sbmv]", "axes": ["Cout"]},
    {"pattern": "mx", "axes": ["Cout"]},
    {"pattern": "c", "axes": ["N", "Cout", "H", "W"]}
  ]})";
  std::string text = build_text("conv_bn",
                                conv_graph("float[1, 3, 5, 5] y", "", ", float[3] s = {}, float[3] b = {}, float[3] m = {}, float[3] v = {}",
                                           "  n = BatchNormalization <epsilon = 0.001> (c, s, b, m, v)\n  y = Relu(n)\n"),
                                layout);
  std::string f = forward_of(text);
  EXPECT_NE(f.find("// node Conv -> 'c' (Conv + BatchNormalization + Relu)"), std::string::npos) << f;
  EXPECT_NE(f.find(" y = backend.template conv<Axes<N, Cout, H, W>>(x_dev, weights.w_folded_packed, s_folded_bias_dev, WindowParams{"),
            std::string::npos);
  EXPECT_EQ(f.find("backend.batch_normalization("), std::string::npos);
  // Folded when the weights load, from the stored weight and the four per-channel tensors.
  EXPECT_NE(text.find("  w.w_folded_packed = PackedConv<Axes<Cout, Cin, KH, KW>>(batch_norm_folded_weight(w.w, w.s, w.v, "
                      "static_cast<float>(0.00100000005)), 1);\n"),
            std::string::npos);
  EXPECT_NE(text.find("  w.s_folded_bias = batch_norm_folded_bias(w.s, w.b, w.m, w.v, static_cast<float>(0.00100000005));\n"),
            std::string::npos);
  // A mean the run supplies: the normalisation stays a node of its own.
  f = forward_of(build_text("conv_bn_input",
                            conv_graph("float[1, 3, 5, 5] y", ", float[3] mx", ", float[3] s = {}, float[3] b = {}, float[3] v = {}",
                                       "  y = BatchNormalization (c, s, b, mx, v)\n"),
                            layout));
  EXPECT_NE(f.find(" c = backend.template conv<Axes<N, Cout, H, W>>(x_dev, weights.w_packed, WindowParams{"), std::string::npos) << f;
  EXPECT_NE(f.find("backend.batch_normalization("), std::string::npos);
}

const char* kProductGraph = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[B, 12] x) => (float[B, 3] y, float[B, 7] q)
<float[3, 4, 8] w1 = {}, int64[2] shape1 = {12, 8}, float[1, 8] b1 = {}, float[6, 8] w2 = {}, float[6] c2 = {},
 float[6, 3] w3 = {}, float[7] b4 = {}>
{
  w1r = Reshape(w1, shape1)
  m1 = MatMul(x, w1r)
  s1 = Add(m1, b1)
  r1 = Relu(s1)
  g2 = Gemm <transB = 1> (r1, w2, c2)
  r2 = Relu(g2)
  y = Gemm <alpha = 0.5> (r2, w3)
  m4 = MatMul(r1, x4)
  q = Add(m4, b4)
}
)";

TEST(Fusion, ProductsReadPackedWeightsAndFuseBiasAndRelu) {
  // x4, the second MatMul's B, is a graph input: that product keeps matmul and its Add.
  std::string graph = kProductGraph;
  graph.replace(graph.find("(float[B, 12] x)"), 16, "(float[B, 12] x, float[8, 7] x4)");
  std::string text = build_text("products", graph, R"json({"layout": [
    {"pattern": "x", "axes": ["B", "(P Q)"]},
    {"pattern": "x4", "axes": ["Hid", "Out4"]},
    {"pattern": "w1", "axes": ["P", "Q", "Hid"]},
    {"pattern": "b1", "axes": ["One", "Hid"]},
    {"pattern": "w2", "axes": ["Mid", "Hid"]},
    {"pattern": "c2", "axes": ["Mid"]},
    {"pattern": "w3", "axes": ["Mid", "Out"]},
    {"pattern": "b4", "axes": ["Out4"]}
  ]})json");
  std::string f = forward_of(text);
  // MatMul of a weight read through a Reshape: regrouped and packed at load, no reshape call.
  EXPECT_EQ(f.find("reshape<"), std::string::npos) << f;
  EXPECT_NE(text.find("  w.w1_packed = PackedMatrix<Merged<P, Q>, Hid>(w.w1.regrouped<Axes<Merged<P, Q>, Hid>>({12, 8}));\n"),
            std::string::npos);
  EXPECT_NE(f.find(" r1 = backend.matmul_bias(x_dev, weights.w1_packed, b1_channels_dev, true);"), std::string::npos);
  // Gemm with transB: B packed from its transpose; C as given; Relu in the store.
  EXPECT_NE(text.find("  w.w2_packed = PackedMatrix<Hid, Mid>::from_transposed(w.w2);\n"), std::string::npos);
  EXPECT_NE(f.find(" r2 = backend.template gemm<false>(r1, weights.w2_packed, c2_dev, static_cast<float>(1), static_cast<float>(1), true);"),
            std::string::npos);
  EXPECT_NE(f.find(" y = backend.template gemm<false>(r2, weights.w3_packed, static_cast<float>(0.5));"), std::string::npos);
  // A B the run computes: the plain product and an elementwise Add.
  EXPECT_NE(f.find(" m4 = backend.matmul(r1, x4_dev);"), std::string::npos);
  EXPECT_NE(f.find(" q = backend.template elementwise<Axes<B, Out4>>("), std::string::npos);
  EXPECT_EQ(count(f, "backend.unary("), 0u);
}

TEST(Fusion, TheMlpExampleIsTwoFusedProducts) {
  driver::BuildRequest r;
  r.graph = std::filesystem::path(LOAM_SOURCE_DIR) / "examples/mlp/mlp.onnxtext";
  r.checkpoints = {std::filesystem::path(LOAM_SOURCE_DIR) / "examples/mlp/mlp.safetensors"};
  r.options_file = std::filesystem::path(LOAM_SOURCE_DIR) / "examples/mlp/layout.json";
  r.name = "mlp";
  std::string f = forward_of(driver::build_module(r).text);
  EXPECT_NE(f.find(" h2 = backend.matmul_bias(x_dev, weights.fc1_weight_packed, fc1_bias_dev, true);"), std::string::npos) << f;
  EXPECT_NE(f.find(" logits = backend.matmul_bias(h2, weights.fc2_weight_packed, fc2_bias_dev, false);"), std::string::npos);
  EXPECT_EQ(count(f, "backend.matmul_bias("), 2u);
  EXPECT_EQ(f.find("backend.upload(weights.fc1_weight)"), std::string::npos);
  EXPECT_EQ(f.find("elementwise<"), std::string::npos);
}

}  // namespace
}  // namespace loam
