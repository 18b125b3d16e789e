// The operator table is the one place an operator is defined: no operator has two records, and a
// record `test-case` counts in scope is whole — a shape rule, an axis-naming rule, and a way to
// compute it (its own lowering, a generated kernel's expression, or both, each for the forms the
// other does not take); a record with a fusion role that a generated kernel computes composes.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "ops/operator.hpp"
#include "stage0/stage0.hpp"

namespace loam::ops {
namespace {

TEST(OperatorTable, EachOperatorHasOneRecord) {
  std::set<std::string> seen;
  for (const auto& o : operators().all())
    EXPECT_TRUE(seen.insert(std::string(o.domain) + "." + std::string(o.op_type)).second) << o.op_type << " twice";
  EXPECT_GT(seen.size(), 100u);
  ASSERT_NE(operators().find("", "Conv"), nullptr);
  EXPECT_EQ(operators().find("", "Conv")->op_type, "Conv");
  EXPECT_EQ(operators().find("loam", "Conv"), nullptr);
  EXPECT_EQ(operators().find("", "NoSuchOperator"), nullptr);
}

TEST(OperatorTable, ARecordInScopeIsWhole) {
  for (const auto& o : operators().all()) {
    if (!o.in_scope || o.op_type == "If") continue;  // If: the passes run its branches themselves
    SCOPED_TRACE(std::string(o.domain) + "." + std::string(o.op_type));
    EXPECT_NE(o.infer, nullptr);
    EXPECT_NE(o.name_axes, nullptr);
    // Shape's and Size's values are the build's always (extents): no kernel computes them.
    if (o.op_type != "Shape" && o.op_type != "Size") {
      EXPECT_TRUE(o.lower != nullptr || o.compose != nullptr);
    }
  }
  // A role is its operator's: a record composes exactly when it has a role a kernel's expression takes.
  for (const auto& o : operators().all()) {
    SCOPED_TRACE(std::string(o.domain) + "." + std::string(o.op_type));
    if (o.compose) {
      EXPECT_NE(o.fusion_role, nullptr);
    }
    if (o.unary || o.binary) {
      EXPECT_NE(o.compose, nullptr);
    }
  }
}

// Each operator decides its role per node: a Softmax along the last axis of floats normalises rows,
// along another axis it is the runtime's; a ReduceMean over the last axis alone, kept, is a row's
// scalar; a Cast between types held alike moves nothing.
TEST(OperatorTable, RolesAreDecidedPerNode) {
  stage0::Stage0Result st;
  st.operators = &operators();
  auto value = [&](const std::string& name, ElementType e, std::vector<stage0::Extent> dims) {
    stage0::ValueState v;
    v.name = name;
    v.elem = e;
    v.dims = std::move(dims);
    st.values[name] = v;
  };
  value("x", ElementType::F32, {stage0::Extent(2), stage0::Extent(3)});
  value("y", ElementType::F32, {stage0::Extent(2), stage0::Extent(3)});
  value("i", ElementType::I32, {stage0::Extent(2), stage0::Extent(3)});
  value("k", ElementType::I64, {stage0::Extent(2), stage0::Extent(3)});
  auto node = [](const std::string& op, std::vector<Attribute> attributes, const std::string& in = "x", const std::string& out = "y") {
    Node n;
    n.op_type = op;
    n.inputs = {in};
    n.outputs = {out};
    n.attributes = std::move(attributes);
    return n;
  };
  auto int_attribute = [](const std::string& name, std::int64_t v) {
    Attribute a;
    a.name = name;
    a.kind = Attribute::Kind::Int;
    a.i = v;
    return a;
  };
  auto ints_attribute = [](const std::string& name, std::vector<std::int64_t> v) {
    Attribute a;
    a.name = name;
    a.kind = Attribute::Kind::Ints;
    a.ints = std::move(v);
    return a;
  };
  auto role = [&](const Node& n) { return operators().find(n)->role(n, st); };
  EXPECT_EQ(role(node("Softmax", {})), FusionRole::RowNormaliser);
  EXPECT_EQ(role(node("Softmax", {int_attribute("axis", 0)})), FusionRole::None);
  EXPECT_EQ(role(node("ReduceMean", {ints_attribute("axes", {1})})), FusionRole::RowReduction);
  EXPECT_EQ(role(node("ReduceMean", {ints_attribute("axes", {0})})), FusionRole::None);
  EXPECT_EQ(role(node("ReduceMean", {ints_attribute("axes", {-1}), int_attribute("keepdims", 0)})), FusionRole::None);
  EXPECT_EQ(role(node("Relu", {})), FusionRole::Elementwise);
  EXPECT_EQ(role(node("Gemm", {})), FusionRole::Contraction);
  EXPECT_EQ(role(node("Cast", {}, "i", "k")), FusionRole::None);         // int32 is held in int64
  EXPECT_EQ(role(node("Cast", {}, "k", "i")), FusionRole::Elementwise);  // into int32's range
  EXPECT_EQ(role(node("Cast", {}, "x", "k")), FusionRole::Elementwise);
  EXPECT_EQ(role(node("Transpose", {})), FusionRole::None);
}

}  // namespace
}  // namespace loam::ops
