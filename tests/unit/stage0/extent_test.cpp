// The algebra of stage 0: normal forms, checked arithmetic, dim_param spellings, bounds, proofs,
// derived symbols and their readings. Expected values are worked by hand from the definitions.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>

#include "stage0/extent.hpp"
#include "support/error.hpp"

namespace loam::stage0 {
namespace {

Extent S(const char* name) { return Extent::symbol(input_symbol(name)); }

TEST(ExtentNormalForm, EqualPolynomialsHaveOneForm) {
  Extent n = S("N"), m = S("M");
  EXPECT_EQ((n + Extent(1)) * (n - Extent(1)), n * n - Extent(1));
  EXPECT_EQ(n * m + m, m * (n + Extent(1)));
  EXPECT_EQ(m * n, n * m);
  EXPECT_TRUE((n - n).is_constant());
  EXPECT_EQ((n - n).constant(), 0);
  EXPECT_TRUE((n * Extent(0)).is_constant());
  EXPECT_EQ((n * n * m).degree(), 3u);
  EXPECT_EQ(n.as_symbol(), input_symbol("N"));
  EXPECT_FALSE((n + Extent(1)).as_symbol());
  EXPECT_FALSE((n * Extent(2)).as_symbol());
}

TEST(ExtentNormalForm, PrintsByDegreeThenName) {
  Extent n = S("N"), s = S("S");
  EXPECT_EQ((Extent(2) * n * s + s - Extent(1)).to_string(), "2 * N * S + S - 1");
  EXPECT_EQ((Extent(-3) * n).to_string(), "-3 * N");
  EXPECT_EQ(Extent(0).to_string(), "0");
  EXPECT_EQ((n * n).to_string(), "N * N");
  EXPECT_EQ(Extent(INT64_MIN).to_string(), "-9223372036854775808");
}

TEST(ExtentArithmetic, RefusesCoefficientsPast2To63) {
  Extent n = S("N");
  EXPECT_THROW(Extent(INT64_MAX) + Extent(1), Error);
  EXPECT_THROW(Extent(INT64_MIN) - Extent(1), Error);
  EXPECT_THROW(n * Extent(INT64_MAX) + n, Error);
  EXPECT_THROW(Extent(int64_t(1) << 62) * Extent(2), Error);
  EXPECT_THROW(-Extent(INT64_MIN), Error);
  EXPECT_EQ((Extent(int64_t(1) << 62) * Extent(-2)).constant(), INT64_MIN);
}

TEST(ExtentArithmetic, DividesExactlyOrNot) {
  Extent b = S("B"), s = S("S");
  Extent count = Extent(768) * b * s;
  EXPECT_EQ(count.divide_exactly(Extent(12) * b * s), Extent(64));
  EXPECT_EQ(count.divide_exactly(b * s), Extent(768));
  EXPECT_EQ(count.divide_exactly(Extent(768)), b * s);
  EXPECT_FALSE(count.divide_exactly(Extent(7)));
  EXPECT_FALSE((s + Extent(1)).divide_exactly(s));
  EXPECT_EQ((s * s + s).divide_exactly(s + Extent(1)), s);
  EXPECT_FALSE(Extent(6).divide_exactly(Extent(0)));
  EXPECT_EQ(Extent(-6).divide_exactly(Extent(3)), Extent(-2));
}

TEST(ExtentArithmetic, Substitutes) {
  Extent n = S("N"), m = S("M");
  EXPECT_EQ((n * n + m).substitute(input_symbol("N"), m + Extent(1)), m * m + Extent(3) * m + Extent(1));
}

TEST(DimParam, SpelledArithmeticReadsAsPolynomial) {
  std::vector<std::string> names;
  EXPECT_EQ(parse_dim_param("past_sequence_length + 1", &names), S("past_sequence_length") + Extent(1));
  EXPECT_EQ(names, std::vector<std::string>{"past_sequence_length"});
  // * binds first.
  EXPECT_EQ(parse_dim_param("a + b * c"), S("a") + S("b") * S("c"));
  EXPECT_EQ(parse_dim_param("2 * n - 1"), Extent(2) * S("n") - Extent(1));
  EXPECT_EQ(parse_dim_param("a - b - c"), S("a") - S("b") - S("c"));
  EXPECT_EQ(parse_dim_param("a * b - c * 3"), S("a") * S("b") - Extent(3) * S("c"));
  EXPECT_EQ(parse_dim_param("batch  *   seq"), S("batch") * S("seq"));
  EXPECT_TRUE(is_spelled_arithmetic("past + 1"));
}

TEST(DimParam, AnyOtherSpellingIsOneOpaqueName) {
  for (const char* text : {"past_sequence_length+1", "seq-len", "(a + b)", "a / 2", "a +", "+ a", "a + + b", "N",
                           "a ** 2", "1a + b"}) {
    std::vector<std::string> names;
    Extent e = parse_dim_param(text, &names);
    EXPECT_EQ(e, Extent::symbol(input_symbol(text))) << text;
    EXPECT_EQ(names, std::vector<std::string>{text}) << text;
    EXPECT_FALSE(is_spelled_arithmetic(text)) << text;
  }
}

TEST(Bounds, InputSymbolsAreLengths) {
  Interval b = bound(S("N"));
  EXPECT_EQ(b.lo, 0);
  EXPECT_EQ(b.hi, INT32_MAX);
  Interval p = bound(S("N") * S("M") - Extent(5));
  EXPECT_EQ(p.lo, -5);
  EXPECT_EQ(p.hi, static_cast<__int128>(INT32_MAX) * INT32_MAX - 5);
  // Past 2^64 an endpoint is none.
  Interval big = bound(S("N") * S("M") * S("K"));
  EXPECT_FALSE(big.hi_bounded());
  EXPECT_EQ(big.lo, 0);
}

TEST(Proofs, HoldsFailsUnknown) {
  Extent n = S("N");
  EXPECT_EQ(prove_nonnegative(n), Proof::Holds);
  EXPECT_EQ(prove_nonnegative(Extent(INT32_MAX) - n), Proof::Holds);
  EXPECT_EQ(prove_nonnegative(n - Extent(1)), Proof::Unknown);
  EXPECT_EQ(prove_nonnegative(-n - Extent(1)), Proof::Fails);
  EXPECT_EQ(prove_nonnegative(n - S("M")), Proof::Unknown);
  EXPECT_EQ(prove_nonnegative(n - Extent(int64_t(1) << 31)), Proof::Fails);
}

TEST(DerivedSymbols, ClampsDecideWhereTheBuildCan) {
  Extent n = S("N");
  // A bound past any length is "to the end".
  EXPECT_EQ(min_of(Extent(INT64_MAX), n), n);
  EXPECT_EQ(min_of(n, Extent(INT64_MAX)), n);
  EXPECT_EQ(max_of(n, Extent(0)), n);
  EXPECT_EQ(min_of(Extent(3), Extent(8)), Extent(3));
  Extent m8 = min_of(n, Extent(8));
  auto s = m8.as_symbol();
  ASSERT_TRUE(s);
  EXPECT_EQ(symbol_info(*s).kind, SymbolKind::Min);
  EXPECT_EQ(m8.to_string(), "min(N, 8)");
  EXPECT_EQ(symbol_info(*s).range.lo, 0);
  EXPECT_EQ(symbol_info(*s).range.hi, 8);
  // Interned: the same operation on equal operands is the same symbol.
  EXPECT_EQ(min_of(n, Extent(8)), m8);
  EXPECT_NE(min_of(n, Extent(9)), m8);
  EXPECT_NE(max_of(n, Extent(8)), m8);
  std::vector<SymbolId> want{input_symbol("N"), input_symbol("M")};
  std::sort(want.begin(), want.end());
  EXPECT_EQ(input_symbols_of(m8 + S("M")), want);
}

TEST(DerivedSymbols, ProofsSeeThroughAClampAloneInATerm) {
  Extent n = S("N");
  Extent m8 = min_of(n, Extent(8));
  EXPECT_EQ(prove_nonnegative(n - m8), Proof::Holds);           // min(N, 8) <= N
  EXPECT_EQ(prove_nonnegative(Extent(8) - m8), Proof::Holds);   // by its range
  EXPECT_EQ(prove_nonnegative(m8 - n), Proof::Unknown);
  EXPECT_EQ(prove_nonnegative(m8 - Extent(9)), Proof::Fails);
  Extent x = max_of(n, S("M"));
  EXPECT_EQ(prove_nonnegative(x - S("M")), Proof::Holds);       // max(N, M) >= M
}

TEST(DerivedSymbols, CountsFromEndAndQuotients) {
  Extent n = S("N"), k = S("K");
  EXPECT_EQ(count_max0(n), n);
  EXPECT_EQ(count_max0(-n - Extent(1)), Extent(0));
  Extent c = count_max0(n - Extent(3));
  EXPECT_EQ(c.to_string(), "max(0, N - 3)");
  EXPECT_EQ(symbol_info(*c.as_symbol()).range.lo, 0);
  EXPECT_EQ(from_end(Extent(-1), n), n - Extent(1));
  EXPECT_EQ(from_end(k, n), k);
  Extent fe = from_end(k - S("J"), n);
  EXPECT_EQ(symbol_info(*fe.as_symbol()).kind, SymbolKind::FromEnd);
  EXPECT_EQ(floor_div(Extent(7), Extent(2)), Extent(3));
  EXPECT_EQ(floor_div(Extent(-7), Extent(2)), Extent(-4));
  EXPECT_EQ(floor_div(Extent(2) * n, Extent(2)), n);
  Extent h = floor_div(n, Extent(2));
  EXPECT_EQ(h.to_string(), "floor(N / 2)");
  EXPECT_EQ(symbol_info(*h.as_symbol()).range.hi, INT32_MAX / 2);
  EXPECT_EQ(ceil_div(Extent(7), 2), Extent(4));
  EXPECT_EQ(ceil_div(Extent(-7), 2), Extent(-3));
  Extent cd = ceil_div(n, 2);
  EXPECT_EQ(cd.to_string(), "ceil(N / 2)");
  EXPECT_EQ(symbol_info(*cd.as_symbol()).range.hi, (int64_t(INT32_MAX) + 1) / 2);
  EXPECT_EQ(ceil_div(n, 2), cd);
  EXPECT_THROW(floor_div(n, Extent(0)), Error);
}

TEST(DerivedSymbols, WrapAndRounding) {
  Extent n = S("N");
  EXPECT_EQ(wrap_i32(Extent((int64_t(1) << 32) + 5)), Extent(5));
  EXPECT_EQ(wrap_i32(Extent(int64_t(1) << 31)), Extent(INT32_MIN));
  EXPECT_EQ(wrap_i32(n), n);  // every length fits int32
  Extent w = wrap_i32(n * n);
  EXPECT_EQ(symbol_info(*w.as_symbol()).kind, SymbolKind::WrapI32);
  EXPECT_EQ(round_f16(Extent(2049)), Extent(2048));  // ties to even
  EXPECT_EQ(round_f16(Extent(2051)), Extent(2052));
  EXPECT_EQ(round_f16(Extent(4097)), Extent(4096));
  EXPECT_EQ(round_f16(Extent(4099)), Extent(4100));
  EXPECT_EQ(round_f32(Extent((int64_t(1) << 24) + 1)), Extent(int64_t(1) << 24));
  // A length may pass 2^24, where f32 stops holding every integer.
  EXPECT_EQ(symbol_info(*round_f32(n).as_symbol()).kind, SymbolKind::RoundF32);
  EXPECT_EQ(round_f32(min_of(n, Extent(1024))), min_of(n, Extent(1024)));
  EXPECT_THROW(round_f16(Extent(70000)), Error);
  Extent m = min_of(n, Extent(4096));
  Extent r = round_f16(m);
  EXPECT_EQ(symbol_info(*r.as_symbol()).kind, SymbolKind::RoundF16);
}

TEST(Readings, EachDerivedSymbolReadsAsTheOperandItTakesUnchanged) {
  Extent n = S("N"), m = S("M");
  std::vector<ReadingCondition> owed;
  // GPT-2's mask: min(N, 1024) read as N, owing N <= 1024.
  EXPECT_EQ(read_derived(min_of(n, Extent(1024)) - n, owed), Extent(0));
  ASSERT_EQ(owed.size(), 1u);
  EXPECT_EQ(owed[0].slack, Extent(1024) - n);
  owed.clear();
  EXPECT_EQ(read_derived(max_of(n, Extent(4)), owed), n);
  ASSERT_EQ(owed.size(), 1u);
  EXPECT_EQ(owed[0].slack, n - Extent(4));
  owed.clear();
  EXPECT_EQ(read_derived(count_max0(n - m), owed), n - m);
  ASSERT_EQ(owed.size(), 1u);
  EXPECT_EQ(owed[0].slack, n - m);
  owed.clear();
  EXPECT_EQ(read_derived(from_end(n - m, S("L")), owed), n - m);
  ASSERT_EQ(owed.size(), 1u);
  EXPECT_EQ(owed[0].slack, n - m);
  owed.clear();
  EXPECT_EQ(read_derived(wrap_i32(n * m), owed), n * m);
  ASSERT_EQ(owed.size(), 2u);
  EXPECT_EQ(owed[0].slack, Extent(INT32_MAX) - n * m);
  owed.clear();
  // A rounded quotient takes no operand unchanged: only its operand is read.
  Extent q = floor_div(n, Extent(2));
  EXPECT_EQ(read_derived(q, owed), q);
  EXPECT_TRUE(owed.empty());
  Extent qm = floor_div(min_of(n, Extent(8)), Extent(2));
  EXPECT_EQ(read_derived(qm, owed), floor_div(n, Extent(2)));
  ASSERT_EQ(owed.size(), 1u);
  EXPECT_EQ(owed[0].slack, Extent(8) - n);
}

TEST(FitsI64, EveryValueForwardComputesFits) {
  Extent n = S("N"), m = S("M");
  EXPECT_NO_THROW(require_fits_i64(n * m, "t"));
  EXPECT_NO_THROW(require_fits_i64(Extent(768) * n, "t"));
  // [N, M, 3] flattened: 3 * N * M can pass 2^63 with each symbol as large as a length can be.
  EXPECT_THROW(require_fits_i64(Extent(3) * n * m, "t"), Error);
  EXPECT_THROW(require_fits_i64(n * n * n, "t"), Error);
}

}  // namespace
}  // namespace loam::stage0
