// The operator table is the one place an operator is defined: no operator has two records, and a
// record `test-case` counts in scope is whole — a shape rule, an axis-naming rule, and a way to
// compute it (its own lowering, or the elementwise lowering's, never both).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "ops/operator.hpp"

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
    if (o.op_type != "Shape" && o.op_type != "Size") EXPECT_TRUE(o.lower != nullptr || o.elementwise);
  }
  for (const auto& o : operators().all()) EXPECT_FALSE(o.lower && o.elementwise) << o.op_type;
}

}  // namespace
}  // namespace loam::ops
