// loam split on MNIST-12 and UltraFace: the text reads back as the graph with no float values, the
// checkpoint's header is one the compiler's reader accepts and matches the graph, each float
// initializer's bytes are in it under its name, the integer initializers stay in the text, and the
// same model splits to the same bytes.
#include <gtest/gtest.h>

#include <cstring>

#include "checkpoint/checkpoint.hpp"
#include "checkpoint/safetensors.hpp"
#include "driver/split.hpp"
#include "onnx/reader.hpp"
#include "support/error.hpp"

namespace {

using namespace loam;

void expect_splits(const std::string& model_dir, std::size_t floats) {
  const Model model = read_model_file_as_written(std::filesystem::path(LOAM_SOURCE_DIR) / "models" / model_dir / "model.onnx");
  const driver::SplitModel split = driver::split_model(model);
  EXPECT_EQ(split.moved, floats);
  const Model text = read_onnx_text(split.text, "model.onnxtext");
  const SafetensorsHeader header = read_safetensors_header(split.checkpoint, "model.safetensors");
  EXPECT_NO_THROW(check_checkpoint_against_graph(header, text.graph, "model.onnxtext"));
  ASSERT_EQ(text.graph.initializers.size(), model.graph.initializers.size());
  std::size_t moved = 0;
  for (const auto& original : model.graph.initializers) {
    const TensorData* t = text.graph.initializer(original.name);
    ASSERT_NE(t, nullptr) << original.name;
    EXPECT_EQ(t->dims, original.dims);
    const SafetensorsTensor* in = header.find(original.name);
    if (original.elem != ElementType::F32) {  // the shapes the build reads stay in the graph
      EXPECT_TRUE(t->has_data) << original.name;
      EXPECT_EQ(t->data, original.data) << original.name;
      EXPECT_EQ(in, nullptr) << original.name;
      continue;
    }
    ++moved;
    EXPECT_FALSE(t->has_data) << original.name;
    ASSERT_NE(in, nullptr) << original.name;
    ASSERT_EQ(in->end - in->begin, original.data.size()) << original.name;
    EXPECT_EQ(std::memcmp(split.checkpoint.data() + header.payload_offset() + in->begin, original.data.data(), original.data.size()), 0)
        << original.name;
  }
  EXPECT_EQ(moved, floats);
  EXPECT_EQ(header.payload_offset() % 8, 0u);  // padded as the reference writer pads
  const driver::SplitModel again = driver::split_model(model);
  EXPECT_EQ(again.text, split.text);
  EXPECT_EQ(again.checkpoint, split.checkpoint);
}

TEST(Split, Mnist) { expect_splits("mnist-12", 6); }
TEST(Split, Ultraface) { expect_splits("ultraface-rfb-320", 209); }

TEST(Split, ATensorWithoutDataIsNotWritten) {
  TensorData t;
  t.name = "w";
  t.elem = ElementType::F32;
  t.dims = {2};
  t.has_data = false;
  try {
    write_safetensors({&t});
    ADD_FAILURE() << "written";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "tensor 'w' has no data to write");
  }
}

}  // namespace
