// SafetensorsView: checkpoints built byte by byte here, well-formed and broken.
#include <gtest/gtest.h>

#include "loam/runtime.hpp"

namespace {

using namespace loam_runtime;

struct Out {};
struct In {};

std::vector<std::byte> checkpoint(const std::string& header, const std::vector<std::uint8_t>& payload, std::uint64_t length_override = 0) {
  std::vector<std::byte> out;
  const std::uint64_t n = length_override ? length_override : header.size();
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::byte>((n >> (8 * i)) & 0xFF));
  for (char c : header) out.push_back(static_cast<std::byte>(c));
  for (auto b : payload) out.push_back(static_cast<std::byte>(b));
  return out;
}

std::vector<std::uint8_t> floats(std::initializer_list<float> v) {
  std::vector<std::uint8_t> out;
  for (float f : v) {
    const auto u = std::bit_cast<std::uint32_t>(f);
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(u >> (8 * i)));
  }
  return out;
}

const std::string GOOD_HEADER =
    R"({"__metadata__": {"format": "pt", "nested": [1, {"a": null}]}, )"
    R"("fc.weight": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]}, )"
    R"("fc.bias": {"dtype": "F16", "shape": [2], "data_offsets": [24, 28]}})";

std::vector<std::uint8_t> good_payload() {
  auto p = floats({1, 2, 3, 4, 5, 6});
  for (std::uint8_t b : {0x00, 0x3C, 0x00, 0xC0}) p.push_back(b);  // f16 1.0, -2.0
  return p;
}

TEST(Safetensors, ReadsTensorsWithTheirDtypes) {
  const auto bytes = checkpoint(GOOD_HEADER, good_payload());
  auto view = SafetensorsView::parse(bytes);
  ASSERT_TRUE(view.has_value()) << view.error().what();
  EXPECT_EQ(view->entries().size(), 2u);
  auto w = view->tensor<float, Axes<Out, In>>("fc.weight", {2, -1}, {"Out", "In"});
  ASSERT_TRUE(w.has_value()) << w.error().what();
  EXPECT_EQ(w->extents(), (std::array<std::int64_t, 2>{2, 3}));
  EXPECT_EQ(std::vector<float>(w->data(), w->data() + 6), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  auto b = view->tensor<float, Axes<Out>>("fc.bias", {2}, {"Out"});
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->data()[0], 1.0f);
  EXPECT_EQ(b->data()[1], -2.0f);
  auto h = view->tensor<Half, Axes<Out>>("fc.bias", {2}, {"Out"});
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->data()[1].bits, 0xC000);
}

TEST(Safetensors, ReadsNarrowIntegersAsStoredAndRefusesAnotherDtype) {
  const std::string header = R"({"ids": {"dtype": "I32", "shape": [2], "data_offsets": [0, 8]}, "q": {"dtype": "U8", "shape": [3], "data_offsets": [8, 11]}})";
  const auto bytes = checkpoint(header, {0xFF, 0xFF, 0xFF, 0xFF, 0x07, 0, 0, 0, 1, 128, 255});
  auto view = SafetensorsView::parse(bytes);
  ASSERT_TRUE(view.has_value()) << view.error().what();
  auto ids = view->tensor<std::int32_t, Axes<Out>>("ids", {2}, {"Out"});
  ASSERT_TRUE(ids.has_value()) << ids.error().what();
  EXPECT_EQ(std::vector<std::int32_t>(ids->data(), ids->data() + 2), (std::vector<std::int32_t>{-1, 7}));
  auto q = view->tensor<std::uint8_t, Axes<Out>>("q", {3}, {"Out"});
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(std::vector<std::uint8_t>(q->data(), q->data() + 3), (std::vector<std::uint8_t>{1, 128, 255}));
  auto wrong = view->tensor<std::int8_t, Axes<Out>>("q", {3}, {"Out"});
  ASSERT_FALSE(wrong.has_value());
  EXPECT_EQ(wrong.error().tensor, "q");
  EXPECT_EQ(wrong.error().message, "dtype U8 where the graph has I8");
}

TEST(Safetensors, NamesTensorAndAxisOnAMismatch) {
  const auto bytes = checkpoint(GOOD_HEADER, good_payload());
  auto view = SafetensorsView::parse(bytes);
  ASSERT_TRUE(view.has_value());
  auto w = view->tensor<float, Axes<Out, In>>("fc.weight", {2, 4}, {"Out", "In"});
  ASSERT_FALSE(w.has_value());
  EXPECT_EQ(w.error().tensor, "fc.weight");
  EXPECT_EQ(w.error().axis, "In");
  auto missing = view->tensor<float, Axes<Out>>("fc2.bias", {2}, {"Out"});
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().tensor, "fc2.bias");
  auto rank = view->tensor<float, Axes<Out>>("fc.weight", {2}, {"Out"});
  ASSERT_FALSE(rank.has_value());
  auto dtype = view->tensor<std::int64_t, Axes<Out>>("fc.bias", {2}, {"Out"});
  ASSERT_FALSE(dtype.has_value());
  EXPECT_NE(dtype.error().message.find("F16"), std::string::npos);
}

struct Broken {
  const char* what;
  std::string header;
  std::vector<std::uint8_t> payload;
  const char* tensor;  // the tensor the error must name ("" for the container)
};

TEST(Safetensors, RefusesBrokenCheckpoints) {
  const std::vector<Broken> cases = {
      {"payload shorter than the offsets", R"({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}})", floats({1}), "w"},
      {"count disagrees with the bytes", R"({"w": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}})", floats({1, 2}), "w"},
      {"overlap", R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}, "b": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}})",
       floats({1, 2}), "b"},
      {"unknown dtype", R"({"w": {"dtype": "F12", "shape": [1], "data_offsets": [0, 4]}})", floats({1}), "w"},
      {"begin past end", R"({"w": {"dtype": "F32", "shape": [0], "data_offsets": [4, 0]}})", floats({1}), "w"},
      {"negative extent", R"({"w": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}})", floats({1}), ""},
      {"absurd shape", R"({"w": {"dtype": "F32", "shape": [4294967296, 4294967296], "data_offsets": [0, 4]}})", floats({1}), "w"},
      {"integer past int64", R"({"w": {"dtype": "F32", "shape": [99999999999999999999], "data_offsets": [0, 4]}})", floats({1}), ""},
      {"missing key", R"({"w": {"dtype": "F32", "shape": [1]}})", floats({1}), ""},
      {"duplicate name", R"({"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}, "w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}})",
       floats({1}), ""},
      {"trailing bytes", R"({"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}} x)", floats({1}), ""},
      {"unterminated", R"({"w": {"dtype": "F32)", floats({1}), ""},
      {"not an object", R"([1, 2])", {}, ""},
      {"deep metadata", "{\"__metadata__\": " + std::string(100, '[') + std::string(100, ']') + "}", {}, ""},
  };
  for (const auto& c : cases) {
    const auto bytes = checkpoint(c.header, c.payload);
    auto view = SafetensorsView::parse(bytes);
    ASSERT_FALSE(view.has_value()) << c.what;
    EXPECT_EQ(view.error().tensor, c.tensor) << c.what << ": " << view.error().what();
  }
  // The header length itself runs past the buffer, or the buffer is shorter than 8 bytes.
  EXPECT_FALSE(SafetensorsView::parse(checkpoint("{}", {}, 1000)).has_value());
  EXPECT_FALSE(SafetensorsView::parse(checkpoint("{}", {}, ~std::uint64_t{0})).has_value());
  const std::vector<std::byte> tiny(5);
  EXPECT_FALSE(SafetensorsView::parse(tiny).has_value());
  EXPECT_TRUE(SafetensorsView::parse(checkpoint("{}", {})).has_value());
}

TEST(Safetensors, EveryTruncationIsRefusedOrReadsWithinBounds) {
  const auto bytes = checkpoint(GOOD_HEADER, good_payload());
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    // Under the sanitizers a read past the prefix would be reported.
    std::vector<std::byte> prefix(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
    auto view = SafetensorsView::parse(prefix);
    EXPECT_FALSE(view.has_value()) << n;
  }
}

}  // namespace

namespace {

// A checkpoint in two shards, as Hugging Face writes one past its size limit, with its index.
const std::string SHARD_1 = R"({"fc.weight": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]}})";
const std::string SHARD_2 = R"({"fc.bias": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}})";
const std::string INDEX = R"({"metadata": {"total_size": 32}, "weight_map": {"fc.weight": "model-00001-of-00002.safetensors", )"
                          R"("fc.bias": "model-00002-of-00002.safetensors", "head.weight": "model-00003-of-00003.safetensors"}})";

TEST(ShardedSafetensors, ReadsEachTensorFromTheShardHoldingIt) {
  const auto one = checkpoint(SHARD_1, floats({1, 2, 3, 4, 5, 6}));
  const auto two = checkpoint(SHARD_2, floats({7, 8}));
  const CheckpointShard shards[] = {{"model-00001-of-00002.safetensors", one}, {"model-00002-of-00002.safetensors", two}};
  auto view = ShardedSafetensors::parse(shards, INDEX);
  ASSERT_TRUE(view.has_value()) << view.error().what();
  auto w = view->tensor<float, Axes<Out, In>>("fc.weight", {2, 3}, {"Out", "In"});
  ASSERT_TRUE(w.has_value()) << w.error().what();
  EXPECT_EQ(std::vector<float>(w->data(), w->data() + 6), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  auto b = view->tensor<float, Axes<Out>>("fc.bias", {2}, {"Out"});
  ASSERT_TRUE(b.has_value()) << b.error().what();
  EXPECT_EQ(b->data()[1], 8.0f);
  // A shard's checks are a whole checkpoint's: a wrong extent names the tensor and axis.
  auto bad = view->tensor<float, Axes<Out>>("fc.bias", {3}, {"Out"});
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().axis, "Out");
}

TEST(ShardedSafetensors, NamesTheShardAMissingTensorBelongsTo) {
  const auto one = checkpoint(SHARD_1, floats({1, 2, 3, 4, 5, 6}));
  const CheckpointShard shards[] = {{"model-00001-of-00002.safetensors", one}};
  auto view = ShardedSafetensors::parse(shards, INDEX);
  ASSERT_TRUE(view.has_value()) << view.error().what();
  auto b = view->tensor<float, Axes<Out>>("fc.bias", {2}, {"Out"});
  ASSERT_FALSE(b.has_value());
  EXPECT_EQ(b.error().tensor, "fc.bias");
  EXPECT_EQ(b.error().message, "absent from the 1 shards given; the index puts it in 'model-00002-of-00002.safetensors'");
  auto none = ShardedSafetensors::parse(shards);
  ASSERT_TRUE(none.has_value());
  auto missing = none->tensor<float, Axes<Out>>("fc.bias", {2}, {"Out"});
  EXPECT_EQ(missing.error().message, "absent from the 1 shards given");
  auto unnamed = view->tensor<float, Axes<Out>>("other", {2}, {"Out"});
  EXPECT_EQ(unnamed.error().message, "absent from the 1 shards given, and the index names no shard for it");
}

TEST(ShardedSafetensors, RefusesATensorTwoShardsHoldABrokenShardAndABrokenIndex) {
  const auto one = checkpoint(SHARD_1, floats({1, 2, 3, 4, 5, 6}));
  const CheckpointShard twice[] = {{"a.safetensors", one}, {"b.safetensors", one}};
  auto dup = ShardedSafetensors::parse(twice);
  ASSERT_FALSE(dup.has_value());
  EXPECT_EQ(dup.error().tensor, "fc.weight");
  EXPECT_EQ(dup.error().message, "shards 'a.safetensors' and 'b.safetensors' both hold it");
  const auto cut = checkpoint(SHARD_1, floats({1, 2, 3}));
  const CheckpointShard broken[] = {{"a.safetensors", cut}};
  auto b = ShardedSafetensors::parse(broken);
  ASSERT_FALSE(b.has_value());
  EXPECT_EQ(b.error().message.rfind("shard 'a.safetensors': ", 0), 0u) << b.error().message;
  const CheckpointShard fine[] = {{"a.safetensors", one}};
  for (const char* index : {"[]", R"({"weight_map": {"x": 3}})", R"({"weight_map": {"x": "a"})", R"({"weight_map": {}} x)"}) {
    auto i = ShardedSafetensors::parse(fine, index);
    ASSERT_FALSE(i.has_value()) << index;
    EXPECT_EQ(i.error().message.rfind("the index is not valid: ", 0), 0u) << i.error().message;
  }
}

}  // namespace
