// Decoding (§4 run steps 1-4, §10.3 state): each refusal code at its step, and every pair of
// steps in an order that a changed order would get wrong.
#include "whg1_test_graphs.hpp"

#include <gtest/gtest.h>

using namespace loam::wai;
using namespace loam::wai::testing;

namespace {
using V = std::vector<std::int64_t>;

std::string code_of(const DecodeOutcome& r) { return r.completed() ? "ok" : std::string(r.refusal->code_name()); }

// Two data inputs (declared at most 4×4), one scalar in [0, 3], then:
//   op 0: add(a, b) -> s (check [-10, 10])
//   op 1: crop(s, y0 = scalar 0, rows 1) -> c
//   op 2: conv 3×3 (no padding) on s -> k
// max_elems = 32.
GraphBuilder pipeline() {
  GraphBuilder b;
  b.g.max_elems = 32;
  const auto a = b.input(2, -10, 10, 4, 4);
  const auto bb = b.input(2, -10, 10, 4, 4);
  b.scalar(0, 3);
  const auto s = b.tensor(2, Policy::check, -10, 10);
  const auto c = b.tensor(2);
  const auto k = b.tensor(1);
  b.op(Opcode::add, {a, bb}, {s});
  CropParams cp;
  cp.y0 = {OperandKind::scalar, 0};
  cp.x0 = {OperandKind::constant, 0};
  cp.h = {OperandKind::constant, 1};
  cp.w = {OperandKind::constant, 1};
  b.op(Opcode::crop, {s}, {c}, cp);
  ConvParams cv;
  cv.cout = 1; cv.kh = 3; cv.kw = 3;
  cv.rq = rq_shift(0);
  cv.weights.assign(18, 1);
  b.op(Opcode::conv, {s}, {k}, cv);
  b.output(c);
  b.output(k);
  return b;
}

Tensor plane(std::int64_t c, std::int64_t h, std::int64_t w, std::int64_t v) { return Tensor(Shape{c, h, w}, v); }

DecodeOutcome run(std::vector<Tensor> in, std::int64_t scalar) { return decode_once(pipeline().g, std::move(in), {scalar}); }

}  // namespace

TEST(DecodeOrder, CompletesOnGoodInputs) {
  const auto r = run({plane(2, 3, 3, 1), plane(2, 3, 3, 2)}, 2);
  ASSERT_TRUE(r.completed()) << r.refusal->message;
  EXPECT_EQ(r.outputs[0].data, (V{3, 3}));      // s[c][2][0] = 3
  EXPECT_EQ(r.outputs[1].data, (V{18 * 3}));    // 18 taps of 3
}

TEST(DecodeOrder, Step1InputsInTableOrder) {
  // Input 0's channel count (model_mismatch) comes before input 1's size (too_large)...
  EXPECT_EQ(code_of(run({plane(1, 3, 3, 1), plane(2, 5, 3, 1)}, 0)), "model_mismatch");
  // ... and input 0's size before input 1's channels.
  EXPECT_EQ(code_of(run({plane(2, 5, 3, 1), plane(1, 3, 3, 1)}, 0)), "too_large");
  // Declared maximum at its end and one past.
  EXPECT_EQ(code_of(run({plane(2, 4, 3, 1), plane(2, 4, 3, 1)}, 0)), "ok");
  EXPECT_EQ(code_of(run({plane(2, 3, 5, 1), plane(2, 3, 3, 1)}, 0)), "too_large");
  // C·H·W against max_elems (32): 2·4·4 = 32 is at the cap (the conv output then plans to 2×2).
  EXPECT_EQ(code_of(run({plane(2, 4, 4, 1), plane(2, 4, 4, 1)}, 0)), "ok");
  // An empty side is model_mismatch, before any size.
  EXPECT_EQ(code_of(run({plane(2, 0, 3, 1), plane(2, 9, 9, 1)}, 0)), "model_mismatch");
  // Step 1 before step 2: a bad scalar with a bad input size is too_large.
  EXPECT_EQ(code_of(run({plane(2, 3, 3, 1), plane(2, 3, 5, 1)}, 99)), "too_large");
}

TEST(DecodeOrder, Step2ScalarsAtTheirEnds) {
  EXPECT_EQ(code_of(run({plane(2, 4, 3, 1), plane(2, 4, 3, 1)}, 3)), "ok");
  EXPECT_EQ(code_of(run({plane(2, 4, 3, 1), plane(2, 4, 3, 1)}, 4)), "field_range");
  EXPECT_EQ(code_of(run({plane(2, 4, 3, 1), plane(2, 4, 3, 1)}, -1)), "field_range");
  // Step 2 before step 3: a scalar out of range and a conv that does not plan (2×2 input).
  EXPECT_EQ(code_of(run({plane(2, 2, 2, 1), plane(2, 2, 2, 1)}, 4)), "field_range");
}

TEST(DecodeOrder, Step3PlanInGraphOrder) {
  // Inputs whose sizes disagree refuse at op 0 (add).
  EXPECT_EQ(code_of(run({plane(2, 3, 3, 1), plane(2, 3, 2, 1)}, 0)), "geometry_mismatch");
  // The crop at op 1 (row 3 of a 3-row input) refuses before the conv (op 2) is planned.
  const auto r = run({plane(2, 3, 3, 1), plane(2, 3, 3, 1)}, 3);
  ASSERT_FALSE(r.completed());
  EXPECT_EQ(r.refusal->code, RefusalCode::geometry_mismatch);
  EXPECT_NE(r.refusal->message.find("operator 1 (crop)"), std::string::npos) << r.refusal->message;
  // A kernel larger than a small input: conv at op 2.
  const auto k = run({plane(2, 2, 4, 1), plane(2, 2, 4, 1)}, 0);
  ASSERT_FALSE(k.completed());
  EXPECT_NE(k.refusal->message.find("operator 2 (conv)"), std::string::npos) << k.refusal->message;
  // Step 3 before step 4: an input value outside its check range with a plan refusal.
  EXPECT_EQ(code_of(run({plane(2, 2, 4, 11), plane(2, 2, 4, 1)}, 0)), "geometry_mismatch");
}

TEST(DecodeOrder, Step4PoliciesOnInputsThenProducedTensors) {
  // An input at its check range's ends and one past.
  EXPECT_EQ(code_of(run({plane(2, 3, 3, 10), plane(2, 3, 3, 0)}, 0)), "ok");
  EXPECT_EQ(code_of(run({plane(2, 3, 3, -10), plane(2, 3, 3, 0)}, 0)), "ok");
  EXPECT_EQ(code_of(run({plane(2, 3, 3, 11), plane(2, 3, 3, 0)}, 0)), "field_range");
  EXPECT_EQ(code_of(run({plane(2, 3, 3, -11), plane(2, 3, 3, 0)}, 0)), "field_range");
  // A produced check tensor (s = a + b) at 10, and one past at 11.
  EXPECT_EQ(code_of(run({plane(2, 3, 3, 5), plane(2, 3, 3, 5)}, 0)), "ok");
  const auto r = run({plane(2, 3, 3, 5), plane(2, 3, 3, 6)}, 0);
  ASSERT_FALSE(r.completed());
  EXPECT_EQ(r.refusal->code, RefusalCode::field_range);
  EXPECT_NE(r.refusal->message.find("operator 0 (add)"), std::string::npos) << r.refusal->message;
}

TEST(DecodeOrder, ClampInputPolicy) {
  GraphBuilder b;
  const auto x = b.input(1, -3, 3, 0, 0, Policy::clamp);
  const auto y = b.tensor(1);
  b.op(Opcode::relu, {x}, {y});
  b.output(y);
  EXPECT_EQ(decode_ok(b.g, {tensor_of({1, 1, 3}, {-9, 2, 9})}).data, (V{0, 2, 3}));
}

TEST(DecodeState, CarriedAcrossDecodesAndUntouchedByARefusal) {
  // y = x + s, s a state input fed by output 0 (y), init 5. x's check range [-100, 100].
  GraphBuilder b;
  const auto x = b.input(1, -100, 100);
  const auto s = b.state(1, -1000, 1000, 0, 5);
  const auto y = b.tensor(1);
  b.op(Opcode::add, {x, s}, {y});
  b.output(y);
  Decoder d(read_whg1(write_whg1(b.g)));
  auto one = [](std::int64_t v) { return std::vector<Tensor>{tensor_of({1, 1, 2}, {v, v})}; };
  auto r1 = d.decode(one(1), {});
  ASSERT_TRUE(r1.completed());
  EXPECT_EQ(r1.outputs[0].data, (V{6, 6}));  // init 5, at input 0's size 1×2
  EXPECT_EQ(d.decode(one(1), {}).outputs[0].data, (V{7, 7}));
  // Refused at step 4 (x outside its range): no state change.
  EXPECT_EQ(code_of(d.decode(one(101), {})), "field_range");
  // Refused at step 3 (the state is 1×2, x now 1×3): no state change either.
  EXPECT_EQ(code_of(d.decode(std::vector<Tensor>{tensor_of({1, 1, 3}, {0, 0, 0})}, {})), "geometry_mismatch");
  EXPECT_EQ(d.decode(one(1), {}).outputs[0].data, (V{8, 8}));
  // The carried state goes through its input's own check policy: it can refuse a later decode.
  EXPECT_EQ(d.decode(one(100), {}).outputs[0].data, (V{108, 108}));
  for (int i = 0; i < 8; ++i) ASSERT_TRUE(d.decode(one(100), {}).completed());  // 908
  EXPECT_EQ(d.decode(one(100), {}).outputs[0].data, (V{1008, 1008}));
  EXPECT_EQ(code_of(d.decode(one(0), {})), "field_range");  // s = 1008 > 1000
  // A new sequence starts again from init.
  d.start_sequence();
  EXPECT_EQ(d.decode(one(0), {}).outputs[0].data, (V{5, 5}));
}

TEST(DecodeState, InitTakesInputZerosSizeUntilADecodeCompletes) {
  GraphBuilder b;
  const auto x = b.input(1, -100, 100);
  const auto s = b.state(2, -9, 9, 1, -2);
  const auto y = b.tensor(1), z = b.tensor(2);
  b.op(Opcode::relu, {x}, {y});
  b.op(Opcode::abs, {s}, {z});
  b.output(y);
  b.output(z);
  Decoder d(read_whg1(write_whg1(b.g)));
  // Refused first decode: the next one still starts from init, at its own input 0 size.
  EXPECT_EQ(code_of(d.decode(std::vector<Tensor>{tensor_of({1, 1, 1}, {500})}, {})), "field_range");
  auto r = d.decode(std::vector<Tensor>{tensor_of({1, 2, 1}, {1, 1})}, {});
  ASSERT_TRUE(r.completed());
  EXPECT_EQ(r.outputs[1].shape, (Shape{2, 2, 1}));
  EXPECT_EQ(r.outputs[1].data, V(4, 2));
}
