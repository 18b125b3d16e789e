#include "graph/graph.hpp"

#include <gtest/gtest.h>

#include <cmath>

using namespace loam;

TEST(TensorData, ElementCountIsCheckedProduct) {
  TensorData t;
  t.dims = {2, 3, 4};
  EXPECT_EQ(t.element_count(), 24);
  t.dims = {};
  EXPECT_EQ(t.element_count(), 1);  // a scalar holds one element
  t.dims = {2, 0, 5};
  EXPECT_EQ(t.element_count(), 0);
  t.dims = {-1, 2};
  EXPECT_EQ(t.element_count(), std::nullopt);
  t.dims = {int64_t{1} << 40, int64_t{1} << 40};
  EXPECT_EQ(t.element_count(), std::nullopt);  // 2^80 does not fit: refused, not wrapped
}

TEST(ElementType, SizesFollowOnnxStorage) {
  EXPECT_EQ(element_size(ElementType::F32), 4u);
  EXPECT_EQ(element_size(ElementType::BF16), 2u);
  EXPECT_EQ(element_size(ElementType::Bool), 1u);
  EXPECT_EQ(element_size(ElementType::I64), 8u);
  EXPECT_EQ(element_size(ElementType::String), 0u);
  EXPECT_STREQ(element_type_name(ElementType::F16), "float16");
  EXPECT_FALSE(is_known_element_type(17));
}

TEST(Attribute, NanFloatsCompareByBits) {
  Attribute a;
  a.kind = Attribute::Kind::Float;
  a.f = std::nanf("");
  Attribute b = a;
  EXPECT_TRUE(a == b);
  b.f = 1.0f;
  EXPECT_FALSE(a == b);
}

TEST(Model, OpsetTreatsAiOnnxAsDefaultDomain) {
  Model m;
  m.opset_imports = {{"ai.onnx", 13}, {"com.microsoft", 1}};
  EXPECT_EQ(m.opset(""), 13);
  EXPECT_EQ(m.opset("com.microsoft"), 1);
  EXPECT_EQ(m.opset("ai.onnx.ml"), std::nullopt);
}
