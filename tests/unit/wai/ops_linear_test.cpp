// conv, conv_transpose, rescale, chscale, mul, gram, apply (§5.1-§5.4, §5.9), each expectation
// worked by hand from the definitions.
#include "whg1_test_graphs.hpp"

#include <gtest/gtest.h>

using namespace loam::wai;
using namespace loam::wai::testing;

namespace {

ConvParams conv_params(std::uint32_t cout, std::uint32_t kh, std::uint32_t kw, std::vector<std::int64_t> w,
                       RqBlock rq = rq_shift(0)) {
  ConvParams c;
  c.cout = cout; c.kh = kh; c.kw = kw;
  c.w_bytes = 8;
  c.rq = std::move(rq);
  c.weights = std::move(w);
  return c;
}

RqBlock with_bias(RqBlock r, BiasPlacement place, std::vector<std::int64_t> b) {
  r.bias = place;
  r.b_bytes = 8;
  r.bias_values = std::move(b);
  return r;
}

}  // namespace

TEST(OpsConv, TwoByTwoKernelWithPreBiasAndShift) {
  // X = 1..9 in a 3×3 plane, Wt = [1 2; 3 4]: acc = 37, 47, 67, 77; (acc + 1) >> 1.
  auto c = conv_params(1, 2, 2, {1, 2, 3, 4}, with_bias(rq_shift(1), BiasPlacement::pre, {1}));
  const Tensor y = decode_ok(unary(Opcode::conv, c, 1, 1).g, {tensor_of({1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9})});
  EXPECT_EQ(y.shape, (Shape{1, 2, 2}));
  EXPECT_EQ(y.data, (std::vector<std::int64_t>{19, 24, 34, 39}));
}

TEST(OpsConv, PostBiasIsAddedAfterRounding) {
  // acc = 37: pre bias 1 gives ⌊38/2⌋ = 19; post bias 1 gives ⌊37/2⌋ + 1 = 19; at acc = 47: 24 and 24;
  // at acc = 67: 34 vs 34; the distinguishing value: acc = 1·1 = 1 (1×1 kernel, x = 1): pre ⌊2/2⌋ = 1,
  // post ⌊1/2⌋ + 1 = 1; with x = -1: pre ⌊0/2⌋ = 0, post ⌊-1/2⌋ + 1 = 0; with x = 2 and bias 1:
  // pre ⌊3/2⌋ = 1, post ⌊2/2⌋ + 1 = 2.
  auto pre = conv_params(1, 1, 1, {1}, with_bias(rq_shift(1), BiasPlacement::pre, {1}));
  auto post = conv_params(1, 1, 1, {1}, with_bias(rq_shift(1), BiasPlacement::post, {1}));
  EXPECT_EQ(decode_ok(unary(Opcode::conv, pre, 1, 1).g, {tensor_of({1, 1, 1}, {2})}).data[0], 1);
  EXPECT_EQ(decode_ok(unary(Opcode::conv, post, 1, 1).g, {tensor_of({1, 1, 1}, {2})}).data[0], 2);
}

TEST(OpsConv, KernelLargerThanInputWithPadding) {
  // A 1×1 input of 5 under a 3×3 kernel of ones with padding 1: only the centre tap reads data.
  auto c = conv_params(1, 3, 3, std::vector<std::int64_t>(9, 1));
  c.ph = c.pw = 1;
  const Tensor y = decode_ok(unary(Opcode::conv, c, 1, 1).g, {tensor_of({1, 1, 1}, {5})});
  EXPECT_EQ(y.shape, (Shape{1, 1, 1}));
  EXPECT_EQ(y.data[0], 5);
  // Without padding the kernel does not fit: the run-time plan refuses.
  auto np = conv_params(1, 3, 3, std::vector<std::int64_t>(9, 1));
  const auto r = decode_once(unary(Opcode::conv, np, 1, 1).g, {tensor_of({1, 2, 3}, {1, 2, 3, 4, 5, 6})});
  ASSERT_FALSE(r.completed());
  EXPECT_EQ(r.refusal->code, RefusalCode::geometry_mismatch);
}

TEST(OpsConv, StrideLargerThanKernelOddSizes) {
  // 1×5 input, 1×1 kernel of 2, stride 3: Wo = ⌊4/3⌋ + 1 = 2, reading x = 0 and 3.
  auto c = conv_params(1, 1, 1, {2});
  c.sw = 3;
  const Tensor y = decode_ok(unary(Opcode::conv, c, 1, 1).g, {tensor_of({1, 1, 5}, {1, 2, 3, 4, 5})});
  EXPECT_EQ(y.shape, (Shape{1, 1, 2}));
  EXPECT_EQ(y.data, (std::vector<std::int64_t>{2, 8}));
}

TEST(OpsConv, GroupsAndDepthwise) {
  // Depthwise: 2 channels, 1×1 kernels 3 and -2; a 1×2 plane per channel.
  auto d = conv_params(2, 1, 1, {3, -2});
  d.groups = 2;
  EXPECT_EQ(decode_ok(unary(Opcode::conv, d, 2, 2).g, {tensor_of({2, 1, 2}, {1, 2, 10, 20})}).data,
            (std::vector<std::int64_t>{3, 6, -20, -40}));
  // groups = 2 over 4 input channels and 2 outputs: output 0 reads channels 0-1, output 1 reads 2-3.
  auto g = conv_params(2, 1, 1, {1, 10, 100, 1000});
  g.groups = 2;
  EXPECT_EQ(decode_ok(unary(Opcode::conv, g, 4, 2).g, {tensor_of({4, 1, 1}, {1, 2, 3, 4})}).data,
            (std::vector<std::int64_t>{1 + 20, 300 + 4000}));
}

TEST(OpsConv, PerChannelMultiplierAndShiftHalfEven) {
  // 1×1 kernel of 1 over 2 output channels... per-channel mult {3, -3}, shift {1, 2}, half_even.
  RqBlock rq;
  rq.round = Round::half_even;
  rq.m_kind = 2; rq.m_bytes = 4; rq.mult = {3, -3};
  rq.s_kind = 2; rq.shift = {1, 2};
  auto c = conv_params(2, 1, 1, {1, 1}, rq);
  // x = 1: ch0 p = 3 -> 1.5 -> 2; ch1 p = -3 -> -0.75 -> -1.
  // x = 5: ch0 p = 15 -> 7.5 -> 8; ch1 p = -15 -> -3.75 -> -4.
  const Tensor y = decode_ok(unary(Opcode::conv, c, 1, 2).g, {tensor_of({1, 1, 2}, {1, 5})});
  EXPECT_EQ(y.data, (std::vector<std::int64_t>{2, 8, -1, -4}));
}

TEST(OpsConv, AccumulatorEndsAtI64) {
  // Two taps: x·(2^62) + x·(2^62 - 1)... with x = 1 the sum is 2^63 - 1 (the top of i64); with
  // x = -1 it is -(2^63 - 1).
  const std::int64_t big = std::int64_t{1} << 62;
  auto c = conv_params(1, 1, 2, {big, big - 1});
  const auto g = unary(Opcode::conv, c, 1, 1, -1, 1).g;
  EXPECT_EQ(decode_ok(g, {tensor_of({1, 1, 2}, {1, 1})}).data[0], INT64_MAX);
  EXPECT_EQ(decode_ok(g, {tensor_of({1, 1, 2}, {-1, -1})}).data[0], -INT64_MAX);
  // One past (2^62 + 2^62) does not fit acc64's acc class: refused, not wrapped.
  auto over = conv_params(1, 1, 2, {big, big});
  const auto r = decode_once(unary(Opcode::conv, over, 1, 1, -1, 1).g, {tensor_of({1, 1, 2}, {1, 1})});
  ASSERT_FALSE(r.completed());
  EXPECT_EQ(r.refusal->code, RefusalCode::model_mismatch);
  // ... whereas -2^63 exactly fits.
  EXPECT_EQ(decode_ok(unary(Opcode::conv, over, 1, 1, -1, 1).g, {tensor_of({1, 1, 2}, {-1, -1})}).data[0], INT64_MIN);
}

TEST(OpsConv, QPastI64WhilePostBiasBringsYBack) {
  // mult 2^62 on t = 4 gives p = q = 2^64 (shift 0); a post bias of -2^63 can't bring it into i64
  // alone, but with shift 1 q = 2^63 and post bias -1 gives y = 2^63 - 1, which fits.
  RqBlock rq = with_bias(rq_shift(1), BiasPlacement::post, {-1});
  rq.m_kind = 1; rq.m_bytes = 8; rq.mult = {std::int64_t{1} << 62};
  const Tensor y = decode_ok(unary(Opcode::rescale, RqParams{rq}, 1, 1, -8, 8).g, {tensor_of({1, 1, 1}, {4})});
  EXPECT_EQ(y.data[0], INT64_MAX);
}

TEST(OpsConvTranspose, OutputPaddingAtLeastTheStrideAndUnreachedPositions) {
  // Input [1, 1, 2] = {1, 2}; kernel 1×3 of ones; stride 2; opw = 2: uw = 1·2 + 3 + 2 = 7.
  // Scatter: x0 adds 1 at 0..2, x1 adds 2 at 2..4: {1, 1, 3, 2, 2, 0, 0}; post bias 10 everywhere,
  // so the positions no tap reaches hold rq(0) = 10.
  ConvTransposeParams c;
  c.cout = 1; c.kh = 1; c.kw = 3; c.sw = 2; c.opw = 2; c.w_bytes = 1;
  c.rq = with_bias(rq_shift(0), BiasPlacement::post, {10});
  c.weights = {1, 1, 1};
  EXPECT_EQ(decode_ok(unary(Opcode::conv_transpose, c, 1, 1).g, {tensor_of({1, 1, 2}, {1, 2})}).data,
            (std::vector<std::int64_t>{11, 11, 13, 12, 12, 10, 10}));
  // pw = 1 crops one column on each side: Wo = 5.
  c.pw = 1;
  const Tensor y = decode_ok(unary(Opcode::conv_transpose, c, 1, 1).g, {tensor_of({1, 1, 2}, {1, 2})});
  EXPECT_EQ(y.shape, (Shape{1, 1, 5}));
  EXPECT_EQ(y.data, (std::vector<std::int64_t>{11, 13, 12, 12, 10}));
}

TEST(OpsConvTranspose, TwoDimensionsTwoChannels) {
  // cin = 2, cout = 1, 2×2 kernel, stride 2 on a 1×1 input: out 2×2 = w[0]·a + w[1]·b per tap.
  ConvTransposeParams c;
  c.cout = 1; c.kh = 2; c.kw = 2; c.sh = 2; c.sw = 2; c.w_bytes = 2;
  c.rq = rq_shift(0);
  c.weights = {1, 2, 3, 4, -1, -2, -3, -4};  // Wt[ci][o][i][j]
  const Tensor y = decode_ok(unary(Opcode::conv_transpose, c, 2, 1).g, {tensor_of({2, 1, 1}, {10, 1})});
  EXPECT_EQ(y.shape, (Shape{1, 2, 2}));
  EXPECT_EQ(y.data, (std::vector<std::int64_t>{9, 18, 27, 36}));
  // Padding that empties the output is a shape refusal at run time.
  c.ph = 1;
  const auto r = decode_once(unary(Opcode::conv_transpose, c, 2, 1).g, {tensor_of({2, 1, 1}, {10, 1})});
  ASSERT_FALSE(r.completed());
  EXPECT_EQ(r.refusal->code, RefusalCode::geometry_mismatch);
}

TEST(OpsRescale, AffineMapPerChannel) {
  // out = R_half_up((v + pre[c]) · 3, 2); pre = {1, -1}; v = {1, 1}: (2·3 = 6) -> 1.5 -> 2; (0) -> 0.
  RqBlock rq = with_bias(rq_shift(2, Round::half_up), BiasPlacement::pre, {1, -1});
  rq.m_kind = 1; rq.m_bytes = 4; rq.mult = {3};
  EXPECT_EQ(decode_ok(unary(Opcode::rescale, RqParams{rq}, 2, 1 + 1).g, {tensor_of({2, 1, 1}, {1, 1})}).data,
            (std::vector<std::int64_t>{2, 0}));
}

TEST(OpsChscale, RowChosenByScalar) {
  ChscaleParams c;
  c.n_rows = 2; c.round = Round::half_up; c.shift = 1;
  c.m = {1, 2, 3, -4};  // rows {1, 2} and {3, -4} over 2 channels
  GraphBuilder b = unary(Opcode::chscale, c, 2, 2);
  b.scalar(0, 1);
  // row 1: ch0 R(5·3 = 15, 1) = 8; ch1 R(5·-4 = -20, 1) = -10. row 0: ch0 R(5) = 3; ch1 R(10) = 5.
  EXPECT_EQ(decode_ok(b.g, {tensor_of({2, 1, 1}, {5, 5})}, {1}).data, (std::vector<std::int64_t>{8, -10}));
  EXPECT_EQ(decode_ok(b.g, {tensor_of({2, 1, 1}, {5, 5})}, {0}).data, (std::vector<std::int64_t>{3, 5}));
}

TEST(OpsMul, BroadcastOneChannel) {
  GraphBuilder b;
  const auto a = b.input(2, -100, 100), bb = b.input(1, -100, 100);
  const auto y = b.tensor(2);
  b.op(Opcode::mul, {a, bb}, {y}, RqParams{rq_shift(1)});  // ⌊a·b / 2⌋
  b.output(y);
  EXPECT_EQ(decode_ok(b.g, {tensor_of({2, 1, 2}, {3, -3, 5, 7}), tensor_of({1, 1, 2}, {1, 3})}).data,
            (std::vector<std::int64_t>{1, -5, 2, 10}));
  // b with 2 channels that differ from a's 3 is a shape refusal at load (channels).
  GraphBuilder bad;
  const auto a3 = bad.input(3, 0, 1), b2 = bad.input(2, 0, 1);
  const auto y3 = bad.tensor(3);
  bad.op(Opcode::mul, {a3, b2}, {y3}, RqParams{rq_shift(0)});
  bad.output(y3);
  EXPECT_EQ(load_verdict(bad.g), "model_mismatch");
  // Sizes that differ are refused at run time.
  const auto r = decode_once(b.g, {tensor_of({2, 1, 2}, {3, -3, 5, 7}), tensor_of({1, 1, 1}, {1})});
  ASSERT_FALSE(r.completed());
  EXPECT_EQ(r.refusal->code, RefusalCode::geometry_mismatch);
}

TEST(OpsGramApply, AttentionShapes) {
  // gram: C = 2, groups = 1, d = 2, over a 1×2 plane. A = B = {{1, 2}, {3, 4}}:
  // out[i][j] = Σ A_i·B_j = {5, 11; 11, 25}; shift 1 half_up: {3, 6; 6, 13}.
  GraphBuilder b;
  const auto A = b.input(2, -10, 10, 1, 2), B = b.input(2, -10, 10, 1, 2);
  const auto y = b.tensor(2);
  b.op(Opcode::gram, {A, B}, {y}, ContractionParams{1, rq_shift(1, Round::half_up)});
  b.output(y);
  const Tensor g = decode_ok(b.g, {tensor_of({2, 1, 2}, {1, 2, 3, 4}), tensor_of({2, 1, 2}, {1, 2, 3, 4})});
  EXPECT_EQ(g.shape, (Shape{2, 1, 2}));
  EXPECT_EQ(g.data, (std::vector<std::int64_t>{3, 6, 6, 13}));
  // apply: A [2, 1, 2] = {1, 2; -1, 1}, V [2, 1, 1] = {10, 100}: out0 = 210, out1 = 90; shift 0.
  GraphBuilder a;
  const auto Aa = a.input(2, -10, 10), V = a.input(2, -1000, 1000);
  const auto o = a.tensor(2);
  a.op(Opcode::apply, {Aa, V}, {o}, ContractionParams{1, rq_shift(0)});
  a.output(o);
  EXPECT_EQ(decode_ok(a.g, {tensor_of({2, 1, 2}, {1, 2, -1, 1}), tensor_of({2, 1, 1}, {10, 100})}).data,
            (std::vector<std::int64_t>{210, 90}));
  // apply with A not [C, 1, C/groups]: run-time shape refusal.
  const auto r = decode_once(a.g, {tensor_of({2, 1, 1}, {1, 2}), tensor_of({2, 1, 1}, {10, 100})});
  ASSERT_FALSE(r.completed());
  EXPECT_EQ(r.refusal->code, RefusalCode::geometry_mismatch);
}

TEST(OpsConv, PaddingFarLargerThanTheData) {
  // 1×1 input, 1×1 kernel of 3, padding 1000, stride 1000: the padded side is 2001, Ho = Wo = 3,
  // and only the centre reads data (x = 5): 15; the rest read padding: rq(0) = 0.
  auto c = conv_params(1, 1, 1, {3});
  c.ph = c.pw = 1000;
  c.sh = c.sw = 1000;
  const Tensor y = decode_ok(unary(Opcode::conv, c, 1, 1).g, {tensor_of({1, 1, 1}, {5})});
  EXPECT_EQ(y.shape, (Shape{1, 3, 3}));
  EXPECT_EQ(y.data, (std::vector<std::int64_t>{0, 0, 0, 0, 15, 0, 0, 0, 0}));
}

TEST(OpsConv, WideLayersCountTheirTaps) {
  // All weights 1 on a constant input v, 3×3 with padding 1: each output is v times the number of
  // taps that land in the plane: 4·cin at a corner, 6·cin on an edge, 9·cin inside. (These values
  // and weights fit 16 bits, which takes the paired multiply-add kernel where the processor has it.)
  for (auto [cin, cout, v] : {std::tuple<std::uint32_t, std::uint32_t, std::int64_t>{64, 64, 1}, {3, 5, 2}, {2, 1, -32768}}) {
    auto c = conv_params(cout, 3, 3, std::vector<std::int64_t>(std::size_t{cout} * cin * 9, 1));
    c.ph = c.pw = 1;
    const Tensor y = decode_ok(unary(Opcode::conv, c, cin, cout).g, {Tensor(Shape{cin, 5, 17}, v)});
    ASSERT_EQ(y.shape, (Shape{cout, 5, 17}));
    for (std::uint32_t o = 0; o < cout; ++o) {
      EXPECT_EQ(y.at(o, 0, 0), 4 * cin * v);
      EXPECT_EQ(y.at(o, 4, 16), 4 * cin * v);
      EXPECT_EQ(y.at(o, 0, 4), 6 * cin * v);
      EXPECT_EQ(y.at(o, 2, 16), 6 * cin * v);
      EXPECT_EQ(y.at(o, 1, 15), 9 * cin * v);
      EXPECT_EQ(y.at(o, 4, 9), 6 * cin * v);
      EXPECT_EQ(y.at(o, 2, 4), 9 * cin * v);
      EXPECT_EQ(y.at(o, 3, 7), 9 * cin * v);
    }
  }
  // Signed weights: channel 0 weighted +3, channel 1 weighted -2, inputs 7 and 5, 1×1 kernel:
  // 21 - 10 = 11 everywhere, over a width (11) that is not a multiple of 8.
  auto s = conv_params(1, 1, 1, {3, -2});
  Tensor x(Shape{2, 1, 11});
  for (int i = 0; i < 11; ++i) {
    x.at(0, 0, i) = 7;
    x.at(1, 0, i) = 5;
  }
  EXPECT_EQ(decode_ok(unary(Opcode::conv, s, 2, 1).g, {x}).data, std::vector<std::int64_t>(11, 11));
}
