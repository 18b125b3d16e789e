// Data movement (§5.10), expectations read off the definitions.
#include "whg1_test_graphs.hpp"

#include <gtest/gtest.h>

using namespace loam::wai;
using namespace loam::wai::testing;

namespace {
using V = std::vector<std::int64_t>;
Tensor run1(Opcode op, OpParams p, Shape s, V x, std::uint32_t cout, std::vector<std::int64_t> scalars = {},
            std::vector<ScalarRecord> ranges = {}) {
  GraphBuilder b = unary(op, std::move(p), static_cast<std::uint32_t>(s.c), cout);
  b.g.scalars = std::move(ranges);
  return decode_ok(b.g, {tensor_of(s, std::move(x))}, std::move(scalars));
}
}  // namespace

TEST(OpsMovement, ConcatAndSplit) {
  GraphBuilder b;
  const auto a = b.input(1, 0, 99), c = b.input(2, 0, 99);
  const auto y = b.tensor(3);
  b.op(Opcode::concat, {a, c}, {y});
  b.output(y);
  EXPECT_EQ(decode_ok(b.g, {tensor_of({1, 1, 2}, {1, 2}), tensor_of({2, 1, 2}, {3, 4, 5, 6})}).data, (V{1, 2, 3, 4, 5, 6}));
  const auto r = decode_once(b.g, {tensor_of({1, 1, 2}, {1, 2}), tensor_of({2, 2, 1}, {3, 4, 5, 6})});
  ASSERT_FALSE(r.completed());
  EXPECT_EQ(r.refusal->code, RefusalCode::geometry_mismatch);
  EXPECT_EQ(run1(Opcode::split, SplitParams{1, 2}, {4, 1, 1}, {1, 2, 3, 4}, 2).data, (V{2, 3}));
}

TEST(OpsMovement, PixelShuffleAndUnshuffle) {
  // 4 channels of 1×1 (a, b, c, d) -> one 2×2 channel [[a, b], [c, d]].
  const Tensor s = run1(Opcode::pixel_shuffle, ShuffleParams{2}, {4, 1, 1}, {1, 2, 3, 4}, 1);
  EXPECT_EQ(s.shape, (Shape{1, 2, 2}));
  EXPECT_EQ(s.data, (V{1, 2, 3, 4}));
  // 8 channels 1×2 -> 2 channels 2×4: channel 0 from in[0..3]: row 0 = in0[0], in1[0], in0[1], in1[1].
  const Tensor t = run1(Opcode::pixel_shuffle, ShuffleParams{2}, {4, 1, 2}, {10, 11, 20, 21, 30, 31, 40, 41}, 1);
  EXPECT_EQ(t.shape, (Shape{1, 2, 4}));
  EXPECT_EQ(t.data, (V{10, 20, 11, 21, 30, 40, 31, 41}));
  const Tensor u = run1(Opcode::pixel_unshuffle, ShuffleParams{2}, {1, 2, 4}, {10, 20, 11, 21, 30, 40, 31, 41}, 4);
  EXPECT_EQ(u.shape, (Shape{4, 1, 2}));
  EXPECT_EQ(u.data, (V{10, 11, 20, 21, 30, 31, 40, 41}));
  // An odd side under pixel_unshuffle is a run-time shape refusal.
  const auto r = decode_once(unary(Opcode::pixel_unshuffle, ShuffleParams{2}, 1, 4).g, {tensor_of({1, 2, 3}, V(6, 0))});
  ASSERT_FALSE(r.completed());
  EXPECT_EQ(r.refusal->code, RefusalCode::geometry_mismatch);
}

TEST(OpsMovement, PadRepCropToCrop) {
  const Tensor p = run1(Opcode::pad_rep, PadRepParams{2}, {1, 1, 3}, {1, 2, 3}, 1);
  EXPECT_EQ(p.shape, (Shape{1, 2, 4}));
  EXPECT_EQ(p.data, (V{1, 2, 3, 3, 1, 2, 3, 3}));

  GraphBuilder b;
  const auto x = b.input(1, 0, 99), ref = b.input(5, 0, 99);
  const auto y = b.tensor(1);
  b.op(Opcode::crop_to, {x, ref}, {y});
  b.output(y);
  EXPECT_EQ(decode_ok(b.g, {tensor_of({1, 2, 3}, {1, 2, 3, 4, 5, 6}), tensor_of({5, 1, 2}, V(10, 0))}).data, (V{1, 2}));
  auto r = decode_once(b.g, {tensor_of({1, 2, 3}, {1, 2, 3, 4, 5, 6}), tensor_of({5, 1, 4}, V(20, 0))});
  ASSERT_FALSE(r.completed());
  EXPECT_EQ(r.refusal->code, RefusalCode::geometry_mismatch);

  // crop with scalar start and constant size: rows [s, s+1), columns [1, 3).
  CropParams c;
  c.y0 = {OperandKind::scalar, 0};
  c.x0 = {OperandKind::constant, 1};
  c.h = {OperandKind::constant, 1};
  c.w = {OperandKind::scalar, 1};
  const std::vector<ScalarRecord> ranges = {{-5, 5}, {-5, 5}};
  EXPECT_EQ(run1(Opcode::crop, c, {1, 2, 3}, {1, 2, 3, 4, 5, 6}, 1, {1, 2}, ranges).data, (V{5, 6}));
  // A negative start, a zero length and a crop past the side: geometry_mismatch.
  for (std::vector<std::int64_t> s : {std::vector<std::int64_t>{-1, 2}, {0, 0}, {0, 3}, {2, 1}}) {
    GraphBuilder cb = unary(Opcode::crop, c, 1, 1);
    cb.g.scalars = ranges;
    const auto rr = decode_once(cb.g, {tensor_of({1, 2, 3}, {1, 2, 3, 4, 5, 6})}, s);
    ASSERT_FALSE(rr.completed());
    EXPECT_EQ(rr.refusal->code, RefusalCode::geometry_mismatch) << s[0] << "," << s[1];
  }
}

TEST(OpsMovement, SubposSplitMergeAndFill) {
  // order (1,1), (0,0), (1,0), (0,1) = {3, 0, 2, 1} on a 2×2 plane [[a, b], [c, d]].
  SubposParams sp;
  sp.order = {3, 0, 2, 1};
  GraphBuilder b;
  const auto x = b.input(1, 0, 99);
  const auto o0 = b.tensor(1), o1 = b.tensor(1), o2 = b.tensor(1), o3 = b.tensor(1), m = b.tensor(1);
  b.op(Opcode::subpos_split, {x}, {o0, o1, o2, o3}, sp);
  b.op(Opcode::subpos_merge, {o0, o1, o2, o3}, {m}, sp);
  b.output(o0);
  b.output(o1);
  b.output(o2);
  b.output(o3);
  b.output(m);
  const auto r = decode_once(b.g, {tensor_of({1, 2, 2}, {1, 2, 3, 4})});
  ASSERT_TRUE(r.completed());
  EXPECT_EQ(r.outputs[0].data, (V{4}));
  EXPECT_EQ(r.outputs[1].data, (V{1}));
  EXPECT_EQ(r.outputs[2].data, (V{3}));
  EXPECT_EQ(r.outputs[3].data, (V{2}));
  EXPECT_EQ(r.outputs[4].data, (V{1, 2, 3, 4}));
  const auto odd = decode_once(b.g, {tensor_of({1, 1, 2}, {1, 2})});
  ASSERT_FALSE(odd.completed());
  EXPECT_EQ(odd.refusal->code, RefusalCode::geometry_mismatch);

  const Tensor f = run1(Opcode::fill, FillParams{OperandKind::constant, -9}, {2, 1, 2}, {1, 2, 3, 4}, 3);
  EXPECT_EQ(f.shape, (Shape{3, 1, 2}));
  EXPECT_EQ(f.data, V(6, -9));
  const Tensor fs = run1(Opcode::fill, FillParams{OperandKind::scalar, 0}, {1, 1, 1}, {0}, 1, {INT64_MIN},
                         {{INT64_MIN, 0}});
  EXPECT_EQ(fs.data, (V{INT64_MIN}));
}
