// Elementwise, table, normalisation and scalar-function operators (§5.5-§5.8), expectations
// worked by hand from the definitions.
#include "whg1_test_graphs.hpp"

#include <gtest/gtest.h>

using namespace loam::wai;
using namespace loam::wai::testing;

namespace {
std::vector<std::int64_t> run1(Opcode op, OpParams p, Shape s, std::vector<std::int64_t> x,
                               std::uint32_t max_h = 0, std::uint32_t max_w = 0) {
  auto g = unary(op, std::move(p), static_cast<std::uint32_t>(s.c), static_cast<std::uint32_t>(s.c), INT64_MIN,
                 INT64_MAX, max_h, max_w).g;
  return decode_ok(g, {tensor_of(s, std::move(x))}).data;
}
using V = std::vector<std::int64_t>;
}  // namespace

TEST(OpsElementwise, AddChunkAddClampReluAbs) {
  GraphBuilder b;
  const auto a = b.input(1, INT64_MIN, INT64_MAX), c = b.input(1, INT64_MIN, INT64_MAX);
  const auto y = b.tensor(1);
  b.op(Opcode::add, {a, c}, {y});
  b.output(y);
  EXPECT_EQ(decode_ok(b.g, {tensor_of({1, 1, 2}, {INT64_MAX - 1, -5}), tensor_of({1, 1, 2}, {1, 7})}).data,
            (V{INT64_MAX, 2}));
  // A saturating sum is add with a clamp policy on its output.
  b.g.tensors[y] = TensorRecord{1, kNoExponent, Policy::clamp, -10, 10};
  EXPECT_EQ(decode_ok(b.g, {tensor_of({1, 1, 2}, {8, -8}), tensor_of({1, 1, 2}, {8, -8})}).data, (V{10, -10}));

  GraphBuilder ca;
  const auto x = ca.input(4, -100, 100);
  const auto z = ca.tensor(2);
  ca.op(Opcode::chunk_add, {x}, {z});
  ca.output(z);
  EXPECT_EQ(decode_ok(ca.g, {tensor_of({4, 1, 1}, {1, 2, 30, 40})}).data, (V{31, 42}));

  EXPECT_EQ(run1(Opcode::clamp, ClampParams{-2, 3}, {1, 1, 4}, {-3, -2, 3, 4}), (V{-2, -2, 3, 3}));
  EXPECT_EQ(run1(Opcode::relu, std::monostate{}, {1, 1, 3}, {-1, 0, 5}), (V{0, 0, 5}));
  EXPECT_EQ(run1(Opcode::abs, std::monostate{}, {1, 1, 3}, {-7, 0, INT64_MAX}), (V{7, 0, INT64_MAX}));
  // |−2^63| does not fit i64: refused, not wrapped.
  auto r = decode_once(unary(Opcode::abs, std::monostate{}, 1, 1).g, {tensor_of({1, 1, 1}, {INT64_MIN})});
  ASSERT_FALSE(r.completed());
  EXPECT_EQ(r.refusal->code, RefusalCode::model_mismatch);
}

TEST(OpsElementwise, LeakyFloorsAwayFromZero) {
  // a = 1, f = 1: v = -3 gives ⌊-3/2⌋ = -2 (truncation would give -1); v = -1 gives -1; v >= 0 kept.
  EXPECT_EQ(run1(Opcode::leaky, LeakyParams{1, 1}, {1, 1, 4}, {-3, -1, 0, 9}), (V{-2, -1, 0, 9}));
  // a = 3, f = 2: v = -5 gives ⌊-15/4⌋ = -4. f = 63 with a = 1: ⌊-1/2^63⌋ = -1.
  EXPECT_EQ(run1(Opcode::leaky, LeakyParams{3, 2}, {1, 1, 1}, {-5}), (V{-4}));
  EXPECT_EQ(run1(Opcode::leaky, LeakyParams{1, 63}, {1, 1, 2}, {-1, INT64_MIN}), (V{-1, -1}));
  // A negative a on a negative v.
  EXPECT_EQ(run1(Opcode::leaky, LeakyParams{-2, 0}, {1, 1, 1}, {-5}), (V{10}));
}

TEST(OpsLut16, IndexesAtVPlus32768) {
  Lut16Params l;
  l.table.assign(65536, 0);
  l.table[32768 + 5] = 7;
  l.table[32768 - 32767] = -32768;
  l.table[32768 + 32767] = 32767;
  EXPECT_EQ(run1(Opcode::lut16, l, {1, 1, 4}, {5, -32767, 32767, 1}), (V{7, -32768, 32767, 0}));
}

TEST(OpsIgdn, FloorsEachTerm) {
  // C = 2, γ all 1, β = 0, gf = 1, frac = 0, x = (1, 1): each term ⌊1/2⌋ = 0, N = 0, r = 0, out 0.
  // Flooring the sum once would give N = 1, r = 1, out = 1.
  IgdnParams p;
  p.gf = 1;
  p.gamma = {1, 1, 1, 1};
  p.beta = {0, 0};
  EXPECT_EQ(run1(Opcode::igdn, p, {2, 1, 1}, {1, 1}), (V{0, 0}));
  // x = (3, -4), γ = [[1, 0], [2, 1]], β = (7, -100), gf = 0, frac = 1:
  // N0 = 7 + 9 = 16, r0 = 4, out0 = ⌊12/2⌋ = 6; N1 = -100 + 18 + 16 = -66, r1 = 0, out1 = 0.
  IgdnParams q;
  q.frac = 1;
  q.gamma = {1, 0, 2, 1};
  q.beta = {7, -100};
  EXPECT_EQ(run1(Opcode::igdn, q, {2, 1, 1}, {3, -4}), (V{6, 0}));
  // Negative x_i with r = 3: x = (-5), γ = 1, β = 0 -> N = 25, r = 5, out = ⌊-25 / 2⌋ = -13.
  IgdnParams s;
  s.frac = 1;
  s.gamma = {1};
  s.beta = {0};
  EXPECT_EQ(run1(Opcode::igdn, s, {1, 1, 1}, {-5}), (V{-13}));
}

TEST(OpsLayernorm, MeanAtAHalfRoundsAwayFromZero) {
  // C = 2, x = (0, 1): S = 1, M = 2, m = 1; d = (-1, 0); T = 1, V = 0, U = ε = 3, isqrt 1, k = 2^32;
  // n = (-65536, 0); γ = 2^16, β = 0: out = (-65536, 0). x = (0, -1): m = -1, out = (65536, 0).
  LayernormParams p;
  p.eps = 3;
  p.gamma = {65536, 65536};
  p.beta = {0, 0};
  EXPECT_EQ(run1(Opcode::layernorm_c, p, {2, 1, 1}, {0, 1}), (V{-65536, 0}));
  EXPECT_EQ(run1(Opcode::layernorm_c, p, {2, 1, 1}, {0, -1}), (V{65536, 0}));
}

TEST(OpsLayernorm, OddChannels) {
  // C = 3, x = (0, 0, 1): S = 1, M = 2, m = trunc(2/3) = 0; d = (0, 0, 1); T = 1, V = 0; ε = 1,
  // k = 2^32; n = (0, 0, 65536); γ = (65536, 65536, 131072), β = (0, 5, -7): (0, 5, 131065).
  LayernormParams p;
  p.eps = 1;
  p.gamma = {65536, 65536, 131072};
  p.beta = {0, 5, -7};
  EXPECT_EQ(run1(Opcode::layernorm_c, p, {3, 1, 1}, {0, 0, 1}), (V{0, 5, 131065}));
}

TEST(OpsLayernorm, EpsilonAtTheTopPassesSixtyFourBits) {
  // ε = 2^64 - 1, C = 2, x = (0, 2): m = 1, d = (-1, 1), T = 2, V = 1, U = 2^64 (past 64 bits),
  // isqrt = 2^32, k = 1; n = (⌊-1/2^16⌋, ⌊1/2^16⌋) = (-1, 0); γ = 196608: (-3, 0).
  LayernormParams p;
  p.eps = UINT64_MAX;
  p.g_bytes = 8;
  p.gamma = {196608, 196608};
  p.beta = {0, 0};
  EXPECT_EQ(run1(Opcode::layernorm_c, p, {2, 1, 1}, {0, 2}), (V{-3, 0}));
}

TEST(OpsL2norm, PerChannelOverThePlane) {
  // Channel (3, 4), ε = 1: T = 25, U = 26, isqrt 5, k = ⌊2^32/5⌋ = 858993459;
  // ⌊3k/2^16⌋ = 39321, ⌊4k/2^16⌋ = 52428. Channel (0, -1): T = 1, U = 2, k = 2^32, out (0, -65536).
  EXPECT_EQ(run1(Opcode::l2norm, L2normParams{1}, {2, 1, 2}, {3, 4, 0, -1}, 1, 2), (V{39321, 52428, 0, -65536}));
}

TEST(OpsSoftmax, RowsNeedNotSumToOne) {
  // Row (0, 0, 0): e = 65553 each, Σ = 196659, out = ⌊(65553·2^16 + 98329) / 196659⌋ = 21845,
  // three of which sum to 65535.
  EXPECT_EQ(run1(Opcode::softmax, std::monostate{}, {1, 1, 3}, {0, 0, 0}, 1, 3), (V{21845, 21845, 21845}));
  // Row (0, 0): 32768 each. Row (5, 4, -69995) (max 5): e = (65553, 65552, 22508) as for
  // (0, -1, -70000): out = (27967, 27966, 9603).
  EXPECT_EQ(run1(Opcode::softmax, std::monostate{}, {2, 1, 2}, {0, 0, 7, 7}, 1, 2), (V{32768, 32768, 32768, 32768}));
  EXPECT_EQ(run1(Opcode::softmax, std::monostate{}, {1, 1, 3}, {5, 4, -69995}, 1, 3), (V{27967, 27966, 9603}));
  // A difference past 64 bits: (INT64_MAX, INT64_MIN): e = (65553, 0), out = (65536, 0).
  EXPECT_EQ(run1(Opcode::softmax, std::monostate{}, {1, 1, 2}, {INT64_MAX, INT64_MIN}, 1, 2), (V{65536, 0}));
}

TEST(OpsSigmoid, BothBranches) {
  // v = 0: ⌊2^32 / 131089⌋ = 32763. v = 1: e = exp_neg_q16(-1) = 65552, ⌊2^32 / 131088⌋ = 32764.
  // v = -1: ⌊65552·2^16 / 131088⌋ = 32771. v = -(2^63 - 1) and -2^63: e = 0, out 0. v = 2^63 - 1: 65536.
  EXPECT_EQ(run1(Opcode::sigmoid, std::monostate{}, {1, 1, 6}, {0, 1, -1, -INT64_MAX, INT64_MIN, INT64_MAX}),
            (V{32763, 32764, 32771, 0, 0, 65536}));
}

TEST(OpsElu, AtZeroAndBelow) {
  // elu(0) = ⌊17α / 2^16⌋: α = 65536 -> 17; α = 3855 -> 0; α = 3856 -> 1; α = -65536 -> -17.
  EXPECT_EQ(run1(Opcode::elu, EluParams{65536}, {1, 1, 3}, {0, 5, -1}), (V{17, 5, 16}));
  EXPECT_EQ(run1(Opcode::elu, EluParams{3855}, {1, 1, 1}, {0}), (V{0}));
  EXPECT_EQ(run1(Opcode::elu, EluParams{3856}, {1, 1, 1}, {0}), (V{1}));
  EXPECT_EQ(run1(Opcode::elu, EluParams{-65536}, {1, 1, 1}, {0}), (V{-17}));
  // α = -7, v = -45426: e = 32776, ⌊-7·(32776 - 65536) / 2^16⌋ = ⌊229320 / 65536⌋ = 3.
  EXPECT_EQ(run1(Opcode::elu, EluParams{-7}, {1, 1, 1}, {-45426}), (V{3}));
  // v = -2^63 decodes here (the load refusal of §14.1 belongs to the bounds pass): e = 0, α·(-2^16).
  EXPECT_EQ(run1(Opcode::elu, EluParams{65536}, {1, 1, 1}, {INT64_MIN}), (V{-65536}));
}
