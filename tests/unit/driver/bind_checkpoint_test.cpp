// Binding a published checkpoint's names to a graph through an architecture table: a prefix the
// checkpoint drops, a Linear weight the graph holds transposed under a name torch made, a tied head,
// and the refusals naming every name tried or the shape that disagreed.
#include <gtest/gtest.h>

#include <cstring>

#include "axes/architecture.hpp"
#include "checkpoint/checkpoint.hpp"
#include "checkpoint/safetensors.hpp"
#include "driver/bind_checkpoint.hpp"
#include "onnx/reader.hpp"
#include "support/error.hpp"

namespace {

using namespace loam;

// A safetensors file holding float32 tensors of these shapes (zeros), as its bytes.
std::vector<std::byte> safetensors(const std::vector<std::pair<std::string, std::vector<int64_t>>>& tensors) {
  std::string json = "{";
  uint64_t at = 0;
  for (const auto& [name, shape] : tensors) {
    uint64_t n = 4;
    std::string dims;
    for (auto d : shape) n *= static_cast<uint64_t>(d), dims += (dims.empty() ? "" : ",") + std::to_string(d);
    json += (json.size() > 1 ? "," : "") + std::string("\"") + name + "\":{\"dtype\":\"F32\",\"shape\":[" + dims +
            "],\"data_offsets\":[" + std::to_string(at) + "," + std::to_string(at + n) + "]}";
    at += n;
  }
  json += "}";
  while (json.size() % 8) json += ' ';
  std::vector<std::byte> out(8 + json.size() + at);
  uint64_t len = json.size();
  std::memcpy(out.data(), &len, 8);
  std::memcpy(out.data() + 8, json.data(), json.size());
  return out;
}

Checkpoint checkpoint(const std::vector<std::pair<std::string, std::vector<int64_t>>>& tensors) {
  return assemble_checkpoint({read_safetensors_header(safetensors(tensors), "published.safetensors")});
}

const char* const kTiedHead = R"(<ir_version: 8, opset_import: ["" : 17]>
g (int64[1,3] ids) => (float[1,3,5] logits)
<float[5,4] "transformer.wte.weight" = {}, float[4,5] "onnx::MatMul_7" = {}>
{
  ["/transformer/wte/Gather"] h = Gather ("transformer.wte.weight", ids)
  ["/lm_head/MatMul"] logits = MatMul (h, "onnx::MatMul_7")
}
)";

TEST(BindCheckpoint, DroppedPrefixAndTiedHead) {
  const Model model = read_onnx_text(kTiedHead, "model.onnxtext");
  const Checkpoint ck = checkpoint({{"wte.weight", {5, 4}}});
  const auto bound = driver::bind_checkpoint_names(model, ck, axes::find_architecture("gpt2", "opts.json"), "model.onnxtext");
  ASSERT_TRUE(bound);
  const Graph& g = bound->graph;
  ASSERT_EQ(g.initializers.size(), 1u);
  EXPECT_EQ(g.initializers[0].name, "wte.weight");
  EXPECT_EQ(g.initializers[0].dims, (std::vector<int64_t>{5, 4}));
  ASSERT_EQ(g.nodes.size(), 3u);
  EXPECT_EQ(g.nodes[0].op_type, "Transpose");
  EXPECT_EQ(g.nodes[0].inputs, (std::vector<std::string>{"wte.weight"}));
  EXPECT_EQ(g.nodes[0].outputs, (std::vector<std::string>{"onnx::MatMul_7"}));
  EXPECT_EQ(g.nodes[1].inputs[0], "wte.weight");
  EXPECT_EQ(g.nodes[2].inputs[1], "onnx::MatMul_7");
  EXPECT_NO_THROW(check_checkpoint_against_graph(ck, g, "model.onnxtext"));
  // A checkpoint under the graph's own names needs no binding.
  EXPECT_FALSE(driver::bind_checkpoint_names(model, checkpoint({{"transformer.wte.weight", {5, 4}}, {"onnx::MatMul_7", {4, 5}}}),
                                             axes::find_architecture("gpt2", "opts.json"), "model.onnxtext"));
}

const char* const kQuery = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[2,4] x) => (float[2,6] q)
<float[4,6] "onnx::MatMul_296" = {}>
{
  ["/encoder/layer.0/attention/self/query/MatMul"] q = MatMul (x, "onnx::MatMul_296")
}
)";

TEST(BindCheckpoint, TransposedLinearWeightUnderAnAddedPrefix) {
  const Model model = read_onnx_text(kQuery, "model.onnxtext");
  const auto& bert = axes::find_architecture("bert", "opts.json");
  const auto names = axes::parameter_names(model.graph);
  EXPECT_EQ(names.at("onnx::MatMul_296").name, "encoder.layer.0.attention.self.query.weight");
  EXPECT_TRUE(names.at("onnx::MatMul_296").transposed);
  const auto bound = driver::bind_checkpoint_names(model, checkpoint({{"bert.encoder.layer.0.attention.self.query.weight", {6, 4}}}),
                                                   bert, "model.onnxtext");
  ASSERT_TRUE(bound);
  ASSERT_EQ(bound->graph.initializers.size(), 1u);
  EXPECT_EQ(bound->graph.initializers[0].name, "bert.encoder.layer.0.attention.self.query.weight");
  EXPECT_EQ(bound->graph.initializers[0].dims, (std::vector<int64_t>{6, 4}));
  EXPECT_EQ(bound->graph.nodes[0].op_type, "Transpose");
  // The table names the weight's axes in the checkpoint's orientation, reversed for the graph's.
  const auto rules = axes::architecture_layout(model, bert.forms[0]);
  ASSERT_FALSE(rules.empty());
  EXPECT_EQ(rules[0].pattern, "onnx::MatMul_296");
  EXPECT_EQ(rules[0].axes, (std::vector<std::string>{"Hidden", "(Heads HeadDim)"}));
}

TEST(BindCheckpoint, RefusalsNameWhatWasTried) {
  const Model model = read_onnx_text(kQuery, "model.onnxtext");
  const auto& bert = axes::find_architecture("bert", "opts.json");
  try {
    driver::bind_checkpoint_names(model, checkpoint({{"other", {1}}}), bert, "model.onnxtext");
    FAIL() << "bound a checkpoint that lacks the weight";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "model.onnxtext: initializer 'onnx::MatMul_296' (the parameter encoder.layer.0.attention.self.query.weight, "
                 "transposed) has no data in the graph, and the checkpoint (published.safetensors) has none of the names the "
                 "architecture 'bert' gives it: 'encoder.layer.0.attention.self.query.weight', "
                 "'bert.encoder.layer.0.attention.self.query.weight'");
  }
  try {
    driver::bind_checkpoint_names(model, checkpoint({{"encoder.layer.0.attention.self.query.weight", {4, 6}}}), bert, "model.onnxtext");
    FAIL() << "bound a weight in the graph's orientation where the checkpoint's is the Linear's";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("its 'encoder.layer.0.attention.self.query.weight' is [4, 6] where the graph reads [6, 4]"),
              std::string::npos)
        << e.what();
  }
  try {
    axes::find_architecture("gpt-2", "opts.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "opts.json: architecture 'gpt-2': Loam has no table of that name (it has bert, gpt2, llama)");
  }
}

// The names the options reader accepts are exactly the tables Loam has: each one finds its table,
// and a name no table has is refused listing the same names.
TEST(BindCheckpoint, TheOptionsNameEveryTableAndNoOther) {
  std::string list;
  for (const auto& name : architecture_names()) {
    EXPECT_EQ(axes::find_architecture(name, "opts.json").name, name);
    list += (list.empty() ? "" : ", ") + name;
  }
  try {
    axes::find_architecture("none", "opts.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "opts.json: architecture 'none': Loam has no table of that name (it has " + list + ")");
  }
}

}  // namespace
