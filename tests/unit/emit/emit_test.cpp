// The module writer's naming and embedding, and whole builds of small graphs: what the header
// declares, that it is byte-identical across builds, and that reserved names are refused.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "driver/pipeline.hpp"
#include "emit/bytes_literal.hpp"
#include "emit/names.hpp"
#include "emit/reserved.hpp"
#include "onnx/reader.hpp"
#include "options/options.hpp"
#include "support/error.hpp"

namespace loam::emit {
namespace {

using driver::BuildRequest;
using driver::build_module;

const std::filesystem::path kSource = LOAM_SOURCE_DIR;

TEST(IdentifierSpelling, GraphNamesBecomeIdentifiers) {
  EXPECT_EQ(identifier_spelling("onnx::Conv_3"), "onnx_Conv_3");
  EXPECT_EQ(identifier_spelling("214"), "t214");
  EXPECT_EQ(identifier_spelling(""), "t");
  EXPECT_EQ(identifier_spelling("__x"), "x");  // no leading or double underscore
  EXPECT_EQ(identifier_spelling("a..b"), "a_b");
  EXPECT_EQ(identifier_spelling("fc1.weight"), "fc1_weight");
}

TEST(NameMinter, TakenTensorNamesGetATrailingUnderscore) {
  NameMinter m;
  EXPECT_EQ(m.mint("forward"), "forward_");   // the module's own name
  EXPECT_EQ(m.mint("Weights"), "Weights_");
  EXPECT_EQ(m.mint("Tensor"), "Tensor_");     // the runtime's
  EXPECT_EQ(m.mint("class"), "class_");       // a keyword
  EXPECT_EQ(m.mint("x.y"), "x_y");
  EXPECT_EQ(m.mint("x_y"), "x_y_");           // two graph names, one spelling
  EXPECT_EQ(m.mint("x.y"), "x_y");            // the same name mints the same identifier
}

TEST(NameMinter, AxesAndTensorsShareOneSet) {
  NameMinter m;
  m.claim_axis("Batch", "layout");
  EXPECT_EQ(m.mint("Batch"), "Batch_");
}

TEST(NameMinter, AnAxisNamedAfterAReservedNameStopsTheBuild) {
  NameMinter m;
  try {
    m.claim_axis("Tensor", "model.onnx: layout");
    FAIL() << "claimed";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "model.onnx: layout: axis 'Tensor' is a name the inlined runtime declares; rename it in the layout");
  }
  try {
    m.claim_axis("class", "layout");
    FAIL() << "claimed";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "layout: axis 'class' is a C++ keyword or standard name; rename it in the layout");
  }
  try {
    m.claim_axis("forward", "layout");
    FAIL() << "claimed";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "layout: axis 'forward' is a name the generated module declares; rename it in the layout");
  }
  EXPECT_THROW(m.claim_axis("9a", "layout"), Error);
  EXPECT_THROW(m.claim_axis("a__b", "layout"), Error);
}

TEST(ReservedSet, HoldsKeywordsRuntimeAndModuleNames) {
  const auto& r = ReservedSet::standard();
  for (const char* n : {"class", "int", "Tensor", "Axes", "Merged", "Cpu", "OpaqueBackend", "Backend", "LoadError",
                        "InputError", "KernelBytes", "forward", "Weights", "Outputs", "LoamBackend"})
    EXPECT_TRUE(r.contains(n)) << n;
  // Names inside the runtime's classes are not the module's namespace's.
  for (const char* n : {"Batch", "In", "Hidden", "M", "K", "N", "x"}) EXPECT_FALSE(r.contains(n)) << n;
}

TEST(BytesLiteral, EveryByteEscapedSixtyFourToALine) {
  std::vector<std::byte> b = {std::byte{0x00}, std::byte{0xff}, std::byte{0x41}};
  std::ostringstream s;
  write_bytes_literal(s, b, "");
  EXPECT_EQ(s.str(), "\"\\x00\\xff\\x41\"");
  std::vector<std::byte> many(65, std::byte{0x10});
  std::ostringstream t;
  write_bytes_literal(t, many, "  ");
  std::string line1 = "  \"";
  for (int i = 0; i < 64; ++i) line1 += "\\x10";
  EXPECT_EQ(t.str(), line1 + "\"\n  \"\\x10\"");
}

WrittenModule build_mlp() {
  BuildRequest r;
  r.graph = kSource / "examples/mlp/mlp.onnxtext";
  r.checkpoints = {kSource / "examples/mlp/mlp.safetensors"};
  r.options_file = kSource / "examples/mlp/layout.json";
  r.name = "mlp";
  return build_module(r);
}

TEST(BuildModule, TheMlpHeaderDeclaresItsAxesWeightsAndForward) {
  WrittenModule m = build_mlp();
  const std::string& h = m.text;
  EXPECT_NE(h.find("namespace mlp {"), std::string::npos);
  // Batch is a dim_param: no EXTENT; In, Hidden and Out are fixed by every value carrying them.
  EXPECT_NE(h.find("struct Batch {};"), std::string::npos);
  EXPECT_NE(h.find("struct In { static constexpr std::int64_t EXTENT = 16; };"), std::string::npos);
  EXPECT_NE(h.find("struct Hidden { static constexpr std::int64_t EXTENT = 32; };"), std::string::npos);
  EXPECT_NE(h.find("  Tensor<float, Axes<In, Hidden>> fc1_weight;"), std::string::npos);
  EXPECT_NE(h.find("static LoadResult<Weights> load(std::span<const std::byte> checkpoint);"), std::string::npos);
  // The checkpoint supplies the weights, so there is nothing to embed.
  EXPECT_EQ(h.find("static Weights embedded();"), std::string::npos);
  EXPECT_NE(h.find("RunResult<Tensor<float, Axes<Batch, Out>>> forward(LoamBackend& backend"), std::string::npos);
  // The runtime is inlined, not included.
  EXPECT_EQ(h.find("#include \"runtime"), std::string::npos);
  EXPECT_NE(h.find("struct Cpu : CpuBoundary, CpuProducts, CpuWindows, CpuMovement, CpuResampling, CpuRecurrent, CpuAttention, CpuReductions {"), std::string::npos);
  EXPECT_NE(h.find("class Workers {"), std::string::npos);
  ASSERT_EQ(m.interface.inputs.size(), 1u);
  EXPECT_EQ(m.interface.inputs[0].cpp_type, "Tensor<float, Axes<Batch, In>>");
}

TEST(BuildModule, IdenticalInputsGiveIdenticalBytes) {
  EXPECT_EQ(build_mlp().text, build_mlp().text);
}

TEST(BuildModule, AGraphCarryingItsWeightsEmbedsThemInOneByteLiteral) {
  Model model = read_model_file(kSource / "examples/mnist/mnist-12.onnx");
  Options options = load_options(kSource / "examples/mnist/layout.json");
  WrittenModule m = build_module(model, options, {}, "mnist-12.onnx", "mnist");
  EXPECT_TRUE(m.interface.has_embedded);
  EXPECT_NE(m.text.find("static Weights embedded();"), std::string::npos);
  EXPECT_NE(m.text.find("alignas(64) static const char bytes[] ="), std::string::npos);
  // No float literal per element: the 5x5 kernels' values do not appear as numbers.
  EXPECT_FALSE(std::regex_search(m.text, std::regex(R"((const|constexpr) float [A-Za-z_0-9]+\s*\[)")));
  // A regrouping named by its parts, checked against the weight's merged axis.
  EXPECT_NE(m.text.find("Merged<Conv2, Pool2H, Pool2W>"), std::string::npos);
}

// The generated kernels at both widths, the target choosing: the same kernels, the same symbols.
TEST(BuildModule, GeneratedKernelsComeAtSixteenAndAtEightLanes) {
  const auto graph = kSource / "tests/conformance/fusion/elementwise/model.onnx";
  Model model = read_model_file(graph);
  Options options;
  options.layout = driver::propose_layout(model, options, graph.string());
  const std::string h = build_module(model, options, {}, graph.string(), "ew").text;
  const std::size_t wide = h.find("#if defined(__AVX512F__) && !defined(LOAM_NARROW_VECTORS)\n");
  const std::size_t narrow = h.find("#else\n// 8 lanes", wide);
  const std::size_t end = h.find("#endif\n#undef LOOM_ON_FAIL", narrow);
  ASSERT_NE(wide, std::string::npos);
  ASSERT_NE(narrow, std::string::npos);
  ASSERT_NE(end, std::string::npos);
  const std::string wide_part = h.substr(wide, narrow - wide), narrow_part = h.substr(narrow, end - narrow);
  EXPECT_NE(wide_part.find("rt::vec<float, 16>"), std::string::npos);
  EXPECT_EQ(wide_part.find("rt::vec<float, 8>"), std::string::npos);
  EXPECT_NE(narrow_part.find("rt::vec<float, 8>"), std::string::npos);
  EXPECT_EQ(narrow_part.find("rt::vec<float, 16>"), std::string::npos);
  const auto kernels = [](const std::string& part) {
    const std::regex def(R"(inline void (ew[0-9]+)\()");
    std::vector<std::string> names;
    for (auto it = std::sregex_iterator(part.begin(), part.end(), def); it != std::sregex_iterator(); ++it) names.push_back((*it)[1]);
    return names;
  };
  EXPECT_FALSE(kernels(wide_part).empty());
  EXPECT_EQ(kernels(wide_part), kernels(narrow_part));
}

}  // namespace
}  // namespace loam::emit
