#include <gtest/gtest.h>

#include "checkpoint/checkpoint.hpp"
#include "checkpoint/safetensors.hpp"
#include "support/error.hpp"
#include "test_util.hpp"

namespace loam {
namespace {

using test::fixture;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(SafetensorsDtype, NamesBitsAndElementTypes) {
  struct Row {
    const char* name;
    unsigned bits;
    std::optional<ElementType> elem;
  };
  // From the format's dtype list; element types by storage (ONNX numbering in graph.hpp).
  const Row rows[] = {
      {"BOOL", 8, ElementType::Bool}, {"U8", 8, ElementType::U8},     {"I8", 8, ElementType::I8},
      {"I16", 16, ElementType::I16},  {"U16", 16, ElementType::U16},  {"I32", 32, ElementType::I32},
      {"U32", 32, ElementType::U32},  {"I64", 64, ElementType::I64},  {"U64", 64, ElementType::U64},
      {"F16", 16, ElementType::F16},  {"BF16", 16, ElementType::BF16}, {"F32", 32, ElementType::F32},
      {"F64", 64, ElementType::F64},  {"C64", 64, ElementType::C64},  {"F8_E5M2", 8, std::nullopt},
      {"F8_E4M3", 8, std::nullopt},   {"F8_E8M0", 8, std::nullopt},   {"F6_E2M3", 6, std::nullopt},
      {"F6_E3M2", 6, std::nullopt},   {"F4", 4, std::nullopt},
  };
  for (const auto& r : rows) {
    auto d = parse_safetensors_dtype(r.name);
    ASSERT_TRUE(d) << r.name;
    EXPECT_STREQ(safetensors_dtype_name(*d), r.name);
    EXPECT_EQ(safetensors_dtype_bits(*d), r.bits) << r.name;
    EXPECT_EQ(safetensors_dtype_to_element(*d), r.elem) << r.name;
  }
  EXPECT_FALSE(parse_safetensors_dtype("f32"));
  EXPECT_FALSE(parse_safetensors_dtype("F128"));
}

TEST(SafetensorsHeader, ReadsWhatTheReferenceWriterWrote) {
  auto path = fixture("small.safetensors");
  SafetensorsHeader h = read_safetensors_header_file(path, "small.safetensors");
  EXPECT_EQ(h.origin, "small.safetensors");
  EXPECT_EQ(h.metadata, (std::map<std::string, std::string>{{"format", "pt"}, {"note", "fixture"}}));
  struct Want {
    const char* name;
    SafetensorsDtype dtype;
    std::vector<int64_t> shape;
    uint64_t bytes;
  };
  const Want want[] = {
      {"fc.weight", SafetensorsDtype::F32, {4, 3}, 48}, {"fc.bias", SafetensorsDtype::F32, {4}, 16},
      {"emb", SafetensorsDtype::F16, {2, 2}, 8},        {"ids", SafetensorsDtype::I64, {3}, 24},
      {"mask", SafetensorsDtype::BOOL, {2, 2}, 4},      {"scalar", SafetensorsDtype::F64, {}, 8},
      {"empty", SafetensorsDtype::F32, {0, 5}, 0},
  };
  ASSERT_EQ(h.tensors.size(), std::size(want));
  for (const auto& w : want) {
    const SafetensorsTensor* t = h.find(w.name);
    ASSERT_NE(t, nullptr) << w.name;
    EXPECT_EQ(t->dtype, w.dtype) << w.name;
    EXPECT_EQ(t->shape, w.shape) << w.name;
    EXPECT_EQ(t->end - t->begin, w.bytes) << w.name;
  }
  // Ordered by offset and contiguous from 0 to the end of the file.
  uint64_t at = 0;
  for (const auto& t : h.tensors) {
    EXPECT_EQ(t.begin, at) << t.name;
    at = t.end;
  }
  EXPECT_EQ(h.payload_size, 48u + 16 + 8 + 24 + 4 + 8 + 0);
  const uint64_t file_size = std::filesystem::file_size(path);
  EXPECT_EQ(h.file_size, file_size);
  EXPECT_EQ(h.payload_offset() + h.payload_size, file_size);
  // The header bytes are the file's first 8 + N bytes, exactly.
  auto bytes = test::read_bytes(path);
  ASSERT_EQ(h.header_bytes.size(), h.payload_offset());
  EXPECT_TRUE(std::equal(h.header_bytes.begin(), h.header_bytes.end(), bytes.begin()));
}

TEST(SafetensorsHeader, HandmadeOffsetsAndOrder) {
  SafetensorsHeader h = read_safetensors_header_file(fixture("handmade.safetensors"));
  ASSERT_EQ(h.tensors.size(), 3u);
  EXPECT_EQ(h.tensors[0].name, "a");
  EXPECT_EQ(h.tensors[0].dtype, SafetensorsDtype::BF16);
  EXPECT_EQ(h.tensors[0].begin, 0u);
  EXPECT_EQ(h.tensors[0].end, 4u);
  EXPECT_EQ(h.tensors[1].name, "b");
  EXPECT_EQ(h.tensors[1].begin, 4u);
  EXPECT_EQ(h.tensors[1].end, 7u);
  EXPECT_EQ(h.tensors[2].name, "c");
  EXPECT_EQ(h.tensors[2].dtype, SafetensorsDtype::I32);
  EXPECT_EQ(h.tensors[2].begin, 7u);
  EXPECT_EQ(h.tensors[2].end, 11u);
  EXPECT_EQ(h.metadata.at("source"), "hand");
  EXPECT_EQ(h.payload_size, 11u);
}

TEST(SafetensorsHeader, NoTensorsIsAValidFile) {
  SafetensorsHeader h = read_safetensors_header_file(fixture("no_tensors.safetensors"));
  EXPECT_TRUE(h.tensors.empty());
  EXPECT_EQ(h.header_length, 8u);  // "{}" padded with spaces to 8 bytes by the writer
  EXPECT_EQ(h.payload_size, 0u);
}

TEST(SafetensorsHeader, PrefixWithFileSizeReadsTheSame) {
  auto path = fixture("small.safetensors");
  auto bytes = test::read_bytes(path);
  SafetensorsHeader whole = read_safetensors_header(bytes, "small.safetensors");
  SafetensorsHeader from_file = read_safetensors_header_file(path, "small.safetensors");
  EXPECT_EQ(whole.tensors, from_file.tensors);
  std::span<const std::byte> prefix(bytes.data(), whole.payload_offset());
  SafetensorsHeader from_prefix = read_safetensors_header(prefix, "small.safetensors", bytes.size());
  EXPECT_EQ(from_prefix.tensors, whole.tensors);
  EXPECT_EQ(from_prefix.header_bytes, whole.header_bytes);
  // A prefix that stops inside the header cannot be read, and says so.
  std::span<const std::byte> short_prefix(bytes.data(), 20);
  EXPECT_EQ(error_of([&] { read_safetensors_header(short_prefix, "s", bytes.size()); }),
            "s: only 20 bytes given, but the header ends at byte " + std::to_string(whole.payload_offset()));
  // The same prefix read as if it were the whole file: the header runs past it.
  EXPECT_EQ(error_of([&] { read_safetensors_header(short_prefix, "s"); }),
            "s: header length " + std::to_string(whole.header_length) +
                " (bytes 0..8) runs past the end of the file (20 bytes)");
}

TEST(SafetensorsHeader, TruncatedPayloadIsRefusedNamingTheTensor) {
  auto bytes = test::read_bytes(fixture("handmade.safetensors"));
  bytes.pop_back();  // c's last byte
  EXPECT_EQ(error_of([&] { read_safetensors_header(bytes, "cut.safetensors"); }),
            "cut.safetensors: tensor 'c': data_offsets [7, 11] (file bytes 209..213) end past the payload, "
            "which holds 10 bytes");
}

TEST(ShardedCheckpoint, IndexMapsEachTensorToItsShard) {
  Checkpoint c = load_sharded_checkpoint(fixture("sharded/model.safetensors.index.json"));
  ASSERT_EQ(c.shards.size(), 2u);
  auto w1 = c.find("h.1.w");
  ASSERT_TRUE(w1);
  EXPECT_EQ(c.shards[w1->shard].origin, fixture("sharded/model-00002-of-00002.safetensors").string());
  EXPECT_EQ(w1->tensor->shape, (std::vector<int64_t>{3, 2}));
  auto b0 = c.find("h.0.b");
  ASSERT_TRUE(b0);
  EXPECT_EQ(b0->shard, 0u);
  EXPECT_FALSE(c.find("h.2.w"));
}

TEST(ShardedCheckpoint, IndexParsing) {
  SafetensorsIndex i = parse_safetensors_index(
      R"({"metadata":{"total_size":1},"weight_map":{"a":"s2.safetensors","b":"s1.safetensors","c":"s2.safetensors"}})",
      "i.json");
  EXPECT_EQ(i.shard_names(), (std::vector<std::string>{"s1.safetensors", "s2.safetensors"}));
  EXPECT_EQ(i.weight_map.at("a"), "s2.safetensors");
}

TEST(ShardedCheckpoint, OneFileNamedTwiceIsOneCheckpoint) {
  auto a = fixture("handmade.safetensors");
  auto b = fixture("sharded/../handmade.safetensors");
  EXPECT_EQ(distinct_checkpoint_files({a, b, a}), std::vector<std::filesystem::path>{a});
  Checkpoint c = load_checkpoint({a, b});
  EXPECT_EQ(c.shards.size(), 1u);
  EXPECT_TRUE(c.find("a"));
}

TEST(SafetensorsHeader, MissingFileIsNamed) {
  EXPECT_EQ(error_of([&] { read_safetensors_header_file("/nonexistent/x.safetensors"); }),
            "/nonexistent/x.safetensors: no such file");
  EXPECT_EQ(error_of([&] { read_safetensors_header_file(fixture("sharded"), "sharded"); }),
            "sharded: not a regular file");
}

TEST(ShardedCheckpoint, ATensorInTwoShardsIsRefused) {
  SafetensorsHeader a = read_safetensors_header_file(fixture("handmade.safetensors"), "a.safetensors");
  SafetensorsHeader b = a;
  b.origin = "b.safetensors";
  EXPECT_EQ(error_of([&] { assemble_checkpoint({a, b}); }),
            "b.safetensors: tensor 'a' is also in a.safetensors; a tensor belongs to one shard");
}

// The graph side: initializers without data, as a reader of a split graph produces them.
TensorData declared(const std::string& name, ElementType elem, std::vector<int64_t> dims) {
  TensorData t;
  t.name = name;
  t.elem = elem;
  t.dims = std::move(dims);
  t.has_data = false;
  return t;
}

Graph small_graph() {
  Graph g;
  g.name = "main";
  g.initializers = {declared("fc.weight", ElementType::F32, {4, 3}), declared("fc.bias", ElementType::F32, {4}),
                    declared("emb", ElementType::F16, {2, 2}), declared("ids", ElementType::I64, {3}),
                    declared("mask", ElementType::Bool, {2, 2}), declared("scalar", ElementType::F64, {}),
                    declared("empty", ElementType::F32, {0, 5})};
  // An initializer the graph carries data for is the graph's, whatever the checkpoint holds.
  TensorData embedded;
  embedded.name = "fc.weight_embedded";
  embedded.elem = ElementType::F32;
  embedded.dims = {1};
  embedded.data.resize(4);
  g.initializers.push_back(embedded);
  return g;
}

TEST(CheckAgainstGraph, MatchingGraphPasses) {
  SafetensorsHeader h = read_safetensors_header_file(fixture("small.safetensors"), "small.safetensors");
  EXPECT_NO_THROW(check_checkpoint_against_graph(h, small_graph(), "model.onnxtext"));
}

TEST(CheckAgainstGraph, EachDisagreementNamesTensorAndAxis) {
  SafetensorsHeader h = read_safetensors_header_file(fixture("small.safetensors"), "small.safetensors");
  {
    Graph g = small_graph();
    g.initializers[0].dims = {4, 5};
    EXPECT_EQ(error_of([&] { check_checkpoint_against_graph(h, g, "model.onnxtext"); }),
              "small.safetensors: tensor 'fc.weight': axis 1 has extent 3, but the graph (model.onnxtext) "
              "declares 5 (checkpoint shape [4, 3], graph shape [4, 5])");
  }
  {
    Graph g = small_graph();
    g.initializers[1].dims = {2, 2};
    EXPECT_EQ(error_of([&] { check_checkpoint_against_graph(h, g, "model.onnxtext"); }),
              "small.safetensors: tensor 'fc.bias' has shape [4] (rank 1), but the graph (model.onnxtext) "
              "declares [2, 2] (rank 2)");
  }
  {
    Graph g = small_graph();
    g.initializers[2].elem = ElementType::BF16;
    EXPECT_EQ(error_of([&] { check_checkpoint_against_graph(h, g, "model.onnxtext"); }),
              "small.safetensors: tensor 'emb' is F16, but the graph (model.onnxtext) declares it bfloat16");
  }
  {
    Graph g = small_graph();
    g.initializers.push_back(declared("lm_head.weight", ElementType::F32, {2, 2}));
    EXPECT_EQ(error_of([&] { check_checkpoint_against_graph(h, g, "model.onnxtext"); }),
              "model.onnxtext: initializer 'lm_head.weight' has no data in the graph, and the checkpoint "
              "(small.safetensors) has no tensor of that name");
  }
}

TEST(CheckAgainstGraph, BranchInitializersAreCheckedToo) {
  SafetensorsHeader h = read_safetensors_header_file(fixture("small.safetensors"), "small.safetensors");
  Graph g = small_graph();
  auto branch = std::make_shared<Graph>();
  branch->name = "then_branch";
  branch->initializers = {declared("ids", ElementType::I64, {4})};
  Node n;
  n.op_type = "If";
  Attribute a;
  a.name = "then_branch";
  a.kind = Attribute::Kind::Graph;
  a.g = branch;
  n.attributes.push_back(a);
  g.nodes.push_back(n);
  EXPECT_EQ(error_of([&] { check_checkpoint_against_graph(h, g, "m.onnx"); }),
            "small.safetensors: tensor 'ids': axis 0 has extent 3, but the graph (m.onnx) declares 4 "
            "(checkpoint shape [3], graph shape [4])");
}

TEST(CheckAgainstGraph, ShardedCheckpointAnswersForEveryShard) {
  Checkpoint c = load_checkpoint({fixture("sharded/model.safetensors.index.json")});
  Graph g;
  g.initializers = {declared("h.0.w", ElementType::F32, {2, 3}), declared("h.0.b", ElementType::F32, {3}),
                    declared("h.1.w", ElementType::F32, {3, 2})};
  EXPECT_NO_THROW(check_checkpoint_against_graph(c, g, "g.onnxtext"));
  g.initializers[2].dims = {3, 3};
  EXPECT_EQ(error_of([&] { check_checkpoint_against_graph(c, g, "g.onnxtext"); }),
            fixture("sharded/model-00002-of-00002.safetensors").string() +
                ": tensor 'h.1.w': axis 1 has extent 2, but the graph (g.onnxtext) declares 3 "
                "(checkpoint shape [3, 2], graph shape [3, 3])");
}

}  // namespace
}  // namespace loam
