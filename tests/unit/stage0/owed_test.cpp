// Owed conditions: proved ones are dropped, refuted ones stop the build, the rest are owed once.
// And the equality rule: a number meeting a symbol, two symbolic lengths, derived readings.
#include <gtest/gtest.h>

#include <functional>

#include "stage0/owed.hpp"
#include "support/error.hpp"

namespace loam::stage0 {
namespace {

Extent S(const char* name) { return Extent::symbol(input_symbol(name)); }

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(OwedConditions, ProvedDroppedRefutedRefusedRestOwedOnce) {
  OwedConditions owed;
  owed.require(S("N"), OwedKind::ReshapeTargetNonzero, "node 'a'", "holds for every input");
  EXPECT_TRUE(owed.list().empty());
  owed.require(S("N") - Extent(1), OwedKind::ReshapeTargetNonzero, "node 'a'", "N is not 0");
  owed.require(S("N") - Extent(1), OwedKind::ReshapeTargetNonzero, "node 'b'", "N is not 0");
  ASSERT_EQ(owed.list().size(), 1u);
  EXPECT_EQ(owed.list()[0].node, "node 'a'");
  EXPECT_EQ(owed.list()[0].to_string(), "N - 1 >= 0 [reshape_target_nonzero] node 'a': N is not 0");
  std::string m = message_of([&] { owed.require(-S("N") - Extent(1), OwedKind::RangeStepNonzero, "node 'c'", "the step"); });
  EXPECT_NE(m.find("node 'c'"), std::string::npos) << m;
  EXPECT_NE(m.find("fails for every input"), std::string::npos) << m;
}

// A slack some lengths would carry past 2^63 is owed and checked: forward computes it with
// overflow checks. One that fits is owed unchecked; so is a length that fits, which owes nothing.
TEST(OwedConditions, ASlackThatCouldWrapIsCheckedNotRefused) {
  OwedConditions owed;
  owed.require(Extent(3) * S("N") * S("M") - Extent(1), OwedKind::AxisEqual, "n", "big");
  owed.require(S("N") - Extent(1), OwedKind::AxisEqual, "n", "small");
  ASSERT_EQ(owed.list().size(), 2u);
  EXPECT_TRUE(owed.list()[0].checked);
  EXPECT_FALSE(owed.list()[1].checked);
  owed.require_fits(Extent(2) * S("N"), "n", "fits");
  owed.require_fits(Extent(8) * S("N") * S("M"), "n", "could pass 2^63");
  owed.require_fits(Extent(8) * S("N") * S("M"), "n2", "the same, owed once");
  ASSERT_EQ(owed.list().size(), 3u);
  EXPECT_EQ(owed.list()[2].kind, OwedKind::FitsI64);
  EXPECT_TRUE(owed.list()[2].checked);
  EXPECT_EQ(owed.list()[2].message, "could pass 2^63");
}

TEST(Equality, ANumberMeetingASymbolNamesBoth) {
  OwedConditions owed;
  std::string m = message_of([&] {
    require_equal(Extent(8), S("N"), EqualityRule::Axis, OwedKind::AxisEqual, owed, "node 'mm' (MatMul)", "axis 1 of 'a' and axis 0 of 'b'");
  });
  EXPECT_NE(m.find("node 'mm' (MatMul)"), std::string::npos) << m;
  EXPECT_NE(m.find("the number 8 meets the symbolic length N"), std::string::npos) << m;
}

TEST(Equality, DeclaredLengthsAgainstAPolynomialAreOwed) {
  OwedConditions owed;
  require_equal(S("N") + Extent(1), Extent(8), EqualityRule::Declared, OwedKind::DeclaredOutput, owed, "output 'y'", "axis 0");
  ASSERT_EQ(owed.list().size(), 2u);
  EXPECT_EQ(owed.list()[0].slack, S("N") - Extent(7));
  EXPECT_EQ(owed.list()[1].slack, Extent(7) - S("N"));
  EXPECT_EQ(owed.list()[0].kind, OwedKind::DeclaredOutput);
  // A declared length no input can meet stops the build.
  EXPECT_THROW(require_equal(S("N") + Extent(1), Extent(0), EqualityRule::Declared, OwedKind::DeclaredOutput, owed, "o", "a"), Error);
}

TEST(Equality, TwoSymbolicLengthsOweTheEqualityAsTwoInequalities) {
  OwedConditions owed;
  require_equal(S("T"), S("P") + S("S"), EqualityRule::Axis, OwedKind::AxisEqual, owed, "node 'w'", "keys and mask");
  ASSERT_EQ(owed.list().size(), 2u);
  EXPECT_EQ(owed.list()[0].slack, S("T") - S("P") - S("S"));
  EXPECT_EQ(owed.list()[1].slack, S("P") + S("S") - S("T"));
  EXPECT_EQ(owed.list()[0].kind, OwedKind::AxisEqual);
  // Lengths that differ by a number differ for every input.
  EXPECT_THROW(require_equal(S("N") + Extent(1), S("N"), EqualityRule::Axis, OwedKind::AxisEqual, owed, "n", "w"), Error);
  // Shown unequal for every input: N + M + 1 > min(N, 8).
  EXPECT_THROW(require_equal(S("N") + S("M") + Extent(1), Extent(0) + min_of(S("N"), Extent(8)) * Extent(-1), EqualityRule::Axis,
                             OwedKind::AxisEqual, owed, "n", "w"),
               Error);
}

TEST(Equality, ADerivedSymbolInTheDifferenceIsReadAsItsOperand) {
  OwedConditions owed;
  Extent n = S("sequence_length");
  require_equal(min_of(n, Extent(1024)), n, EqualityRule::Axis, OwedKind::AxisEqual, owed, "node 'where'", "mask and scores");
  ASSERT_EQ(owed.list().size(), 1u);
  EXPECT_EQ(owed.list()[0].slack, Extent(1024) - n);
  EXPECT_EQ(owed.list()[0].kind, OwedKind::DerivedReading);
  // A derived term both sides share owes nothing.
  OwedConditions none;
  Extent m = min_of(n, Extent(1024));
  require_equal(m + n, n + m, EqualityRule::Axis, OwedKind::AxisEqual, none, "n", "w");
  EXPECT_TRUE(none.list().empty());
  // Where the operation can take its operand unchanged for some input, the reading is owed.
  OwedConditions some;
  require_equal(min_of(n, Extent(8)) + Extent(20), n + Extent(20), EqualityRule::Axis, OwedKind::AxisEqual, some, "n", "w");
  ASSERT_EQ(some.list().size(), 1u);
  EXPECT_EQ(some.list()[0].slack, Extent(8) - n);
  // Where it never can, the reading is refused: this wrap always wraps.
  OwedConditions refuse;
  Extent big = n * S("M") + Extent(int64_t(1) << 40);
  EXPECT_THROW(require_equal(wrap_i32(big), big, EqualityRule::Axis, OwedKind::AxisEqual, refuse, "n", "w"), Error);
}

TEST(Equality, ReadsAsOne) {
  OwedConditions owed;
  Extent n = S("N");
  // A clamp min(1, N) reads as 1, owing N >= 1.
  Extent one = min_of(Extent(1), n);
  EXPECT_TRUE(reads_as_one(one, owed, "node 'b'", "broadcast"));
  ASSERT_EQ(owed.list().size(), 1u);
  EXPECT_EQ(owed.list()[0].slack, n - Extent(1));
  EXPECT_FALSE(reads_as_one(n, owed, "node 'b'", "broadcast"));
  EXPECT_FALSE(reads_as_one(Extent(2), owed, "node 'b'", "broadcast"));
}

}  // namespace
}  // namespace loam::stage0
