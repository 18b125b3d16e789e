// Stage operators (§5E), with expectations worked by hand from the text; the mans_decode streams
// are laid out bit by bit in the comments.
#include "wai/decode_json.hpp"
#include "wai/stage_ops.hpp"

#include <gtest/gtest.h>

using namespace loam::wai;
using nlohmann::json;

namespace {
using V = std::vector<std::int64_t>;

StageRefusal refusal_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const StageRefusalError& e) {
    return e.value();
  }
  ADD_FAILURE() << "not refused";
  return {};
}
Tensor t(Shape s, V d) {
  Tensor x;
  x.shape = s;
  x.data = std::move(d);
  return x;
}
}  // namespace

TEST(StageDequantize, ValueAndRefusals) {
  EXPECT_EQ(dequantize(3, 2, -1), 11);
  EXPECT_EQ(dequantize(1, 62, 0), std::int64_t{1} << 62);
  EXPECT_EQ(dequantize(-2, 62, 0), INT64_MIN);
  auto r = refusal_of([] { dequantize(2, 62, 0); });  // 2^63
  EXPECT_EQ(r.refusal.code, RefusalCode::field_range);
  EXPECT_EQ(r.at, 0);
  EXPECT_EQ(refusal_of([] { dequantize(-2, 62, -1); }).refusal.code, RefusalCode::field_range);
  EXPECT_EQ(refusal_of([] { dequantize(0, 63, 0); }).refusal.code, RefusalCode::field_range);
}

TEST(StageBucket, CeilAndFloorAtEdges) {
  const V e{10, 20, 30};
  EXPECT_EQ(bucket(5, e, BucketRule::ceil), 0);
  EXPECT_EQ(bucket(10, e, BucketRule::ceil), 0);  // exactly at an edge
  EXPECT_EQ(bucket(11, e, BucketRule::ceil), 1);
  EXPECT_EQ(bucket(20, e, BucketRule::ceil), 1);
  EXPECT_EQ(bucket(21, e, BucketRule::ceil), 2);
  EXPECT_EQ(bucket(1000, e, BucketRule::ceil), 2);  // e_{N-1} is never compared
  EXPECT_EQ(bucket(7, V{5}, BucketRule::ceil), 0);
  EXPECT_EQ(bucket(9, V{10, 20}, BucketRule::floor), 0);
  EXPECT_EQ(bucket(10, V{10, 20}, BucketRule::floor), 1);  // exactly at an edge
  EXPECT_EQ(bucket(19, V{10, 20}, BucketRule::floor), 1);
  EXPECT_EQ(bucket(20, V{10, 20}, BucketRule::floor), 2);
  const auto r = refusal_of([] { bucket(0, V{20, 10}, BucketRule::floor); });
  EXPECT_EQ(r.refusal.code, RefusalCode::model_mismatch);
  EXPECT_EQ(r.at, -1);
  EXPECT_EQ(refusal_of([] { bucket(0, V{}, BucketRule::ceil); }).refusal.code, RefusalCode::model_mismatch);
}

TEST(StageScalars, CodedScaleIndexBandLookupResidual) {
  EXPECT_TRUE(coded(5, 4));
  EXPECT_FALSE(coded(4, 4));
  EXPECT_EQ(scale_index(5, 1, 10), 3);    // 2.5 rounds up
  EXPECT_EQ(scale_index(-5, 1, 10), 0);   // -2 clamps to 0
  EXPECT_EQ(scale_index(100, 0, 10), 9);
  EXPECT_EQ(refusal_of([] { scale_index(1, 128, 10); }).refusal.code, RefusalCode::model_mismatch);
  EXPECT_EQ(refusal_of([] { scale_index(1, 0, 0); }).refusal.code, RefusalCode::model_mismatch);

  const std::vector<V> table{{1, 2, 3}, {4, 5, 6}};
  EXPECT_EQ(band_lookup(15, V{10, 20}, table, 1), 5);
  EXPECT_EQ(band_lookup(20, V{10, 20}, table, 1), 6);
  EXPECT_EQ(band_lookup(9, V{10, 20}, table, 0), 1);
  EXPECT_EQ(refusal_of([&] { band_lookup(9, V{10, 20}, table, 2); }).refusal.code, RefusalCode::model_mismatch);

  // lo = 0, hi = 255, q = 3: R = ⌊255/3⌋ + 1 = 86.
  EXPECT_EQ(residual_step(100, 10, 3, 0, 255), 130);
  EXPECT_EQ(residual_step(100, 86, 3, 0, 255), 255);
  EXPECT_EQ(residual_step(100, 87, 3, 0, 255), 255);
  EXPECT_EQ(residual_step(100, -86, 3, 0, 255), 0);
  EXPECT_EQ(residual_step(100, -87, 3, 0, 255), 0);
  EXPECT_EQ(residual_step(2, -1, 2, 0, 255), 0);
  // At the i32 limits: hi + 2·65535 is formed wider and clamps.
  EXPECT_EQ(residual_step(INT32_MAX, 2, 65535, INT32_MAX - 65535, INT32_MAX), INT32_MAX);
  EXPECT_EQ(residual_step(INT32_MAX, INT32_MIN, 65535, INT32_MIN, INT32_MAX), INT32_MIN);
  EXPECT_EQ(refusal_of([] { residual_step(0, std::int64_t{1} << 31, 1, 0, 255); }).refusal.code, RefusalCode::model_mismatch);
  EXPECT_EQ(refusal_of([] { residual_step(0, 0, 0, 0, 255); }).refusal.code, RefusalCode::model_mismatch);
  EXPECT_EQ(refusal_of([] { residual_step(0, 0, 65536, 0, 255); }).refusal.code, RefusalCode::model_mismatch);
  EXPECT_EQ(refusal_of([] { residual_step(256, 0, 1, 0, 255); }).refusal.code, RefusalCode::model_mismatch);
  EXPECT_EQ(refusal_of([] { residual_step(5, 0, 1, 5, 5); }).refusal.code, RefusalCode::model_mismatch);
}

TEST(StageBlockStat, PartialBlocks) {
  // 1..9 in 3×3, b = 2, s = 1: sums 12, 9, 15, 9 -> R_half_up /2: 6, 5, 8, 5.
  const Tensor y = block_stat(t({1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}), 2, 1, -100, 100);
  EXPECT_EQ(y.data, (V{6, 6, 5, 6, 6, 5, 8, 8, 5}));
  const Tensor c = block_stat(t({1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}), 2, 1, 5, 7);
  EXPECT_EQ(c.data, (V{6, 6, 5, 6, 6, 5, 7, 7, 5}));
  EXPECT_EQ(refusal_of([] { block_stat(t({1, 1, 1}, {0}), 0, 0, 0, 1); }).refusal.code, RefusalCode::model_mismatch);
  EXPECT_EQ(refusal_of([] { block_stat(t({1, 1, 1}, {0}), 1, 0, 2, 1); }).refusal.code, RefusalCode::model_mismatch);
}

TEST(StagePredictors, McPredict) {
  // Channel 0 of a 2×2 frame: [[10, 20], [30, 40]].
  const Tensor f = t({3, 2, 2}, {10, 20, 30, 40, 0, 0, 0, 0, 0, 0, 0, 0});
  EXPECT_EQ(mc_predict(f, 0, 0, 0, 1, 1, 1), 40);
  EXPECT_EQ(mc_predict(f, 0, 0, 0, -5, 1, 1), 20);   // rows clamp
  EXPECT_EQ(mc_predict(f, 0, 0, 0, 1, 0, 2), 20);    // (10 + 30 + 1) >> 1
  EXPECT_EQ(mc_predict(f, 0, 0, 0, 1, 1, 2), 25);    // (100 + 2) >> 2
  EXPECT_EQ(mc_predict(f, 0, 0, 0, -1, 0, 2), 10);   // iy = -1 (arithmetic shift), clamped
  EXPECT_EQ(mc_predict(f, 0, 0, 0, 0, 3, 2), 20);    // ix = 1, fx = 1: avg(20, 20)
  EXPECT_EQ(mc_predict(f, 1, 1, 0, 0, -1, 2), 35);   // ix = 0, fx = 1: (30 + 40 + 1) >> 1
  EXPECT_EQ(refusal_of([&] { mc_predict(f, 0, 0, 3, 0, 0, 1); }).refusal.code, RefusalCode::model_mismatch);
  EXPECT_EQ(refusal_of([&] { mc_predict(f, 0, 0, 0, 0, 0, 3); }).refusal.code, RefusalCode::model_mismatch);
}

TEST(StagePredictors, Up2AndRate) {
  const Tensor u = up2_predict(t({1, 1, 2}, {10, 20}), 2, 3);
  EXPECT_EQ(u.shape, (Shape{1, 2, 3}));
  EXPECT_EQ(u.data, (V{10, 15, 20, 10, 15, 20}));
  EXPECT_EQ(refusal_of([] { up2_predict(t({1, 2, 2}, {1, 2, 3, 4}), 2, 3); }).refusal.code, RefusalCode::geometry_mismatch);
  EXPECT_EQ(refusal_of([] { up2_predict(t({1, 1, 2}, {1, 2}), 0, 3); }).refusal.code, RefusalCode::geometry_mismatch);

  EXPECT_EQ(rate_predict(t({1, 1, 2}, {0, 100}), 2, 1, 4).data, (V{0, 50, 100, 100}));
  EXPECT_EQ(rate_predict(t({1, 1, 2}, {0, -3}), 2, 1, 2).data, (V{0, -2}));  // rdiv(-3, 2): away from zero
  EXPECT_EQ(refusal_of([] { rate_predict(t({1, 1, 2}, {0, 1}), 2, 1, 5); }).refusal.code, RefusalCode::geometry_mismatch);
  EXPECT_EQ(refusal_of([] { rate_predict(t({1, 1, 2}, {0, 1}), 2, 0, 1); }).refusal.code, RefusalCode::geometry_mismatch);
}

TEST(StageCodingOrder, RasterAndCheckerboard) {
  EXPECT_EQ(coding_order({1, 2, 3}, false, false), (V{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(coding_order({1, 2, 3}, true, true), (V{0, 2, 4}));
  EXPECT_EQ(coding_order({1, 2, 3}, true, false), (V{1, 3, 5}));
  EXPECT_EQ(coding_order({2, 1, 2}, true, true), (V{0, 2}));
}

namespace {
std::vector<std::uint8_t> mem(std::vector<std::uint8_t> b) { return b; }
std::vector<V> one_row_pmf(std::size_t width, std::size_t at) {
  V p(width, 0);
  p[at] = 256;
  return {p};
}
}  // namespace

TEST(StageMansDecode, RefusedOnAZeroTailAndAShortStream) {
  // A zero tail: h = 0, no sentinel bit. A one-byte stream: h = 2^56, s1 and s2 read, then the
  // flush needs 7 XOR 5 = 2 bytes with p = 1.
  for (const auto& m : {mem({0, 0, 0, 0, 0, 0, 0, 0}), mem({1})}) {
    const auto r = refusal_of([&] { mans_decode_fac(m, {V(63, 0)}, {1}); });
    EXPECT_EQ(r.refusal.code, RefusalCode::stream_exhausted);
    EXPECT_EQ(r.at, 0);
    const auto s = refusal_of([&] { mans_decode_sgm(m, one_row_pmf(1, 0), {0}, {MansSpan{{true}, {0}}}); });
    EXPECT_EQ(s.refusal.code, RefusalCode::stream_exhausted);
    EXPECT_EQ(s.at, 0);
  }
}

TEST(StageMansDecode, FacEscape) {
  // Stream 00 00 00 00 B4 55 80 FF. init: h = LE64(8) = 0xFF8055B400000000, sentinel bit 63;
  // s1 = bits 62..55 = 255, s2 = bits 54..47 = 0; flush: d = 7 XOR 5 = 2, p = 6,
  // h = LE64(6) mod 2^63, whose bits 62..49 are 1010101 1 011010 (from bytes 55 and B4).
  // All 63 counts 0: only T_z[255] = Zp[1]·2^16 + 63 = 2048·2^16 + 63 is written.
  // Position 0: in(s1) reads T_z[255]: read(8) = 10101011 = 171, symbol 63; out: read(6) = 26.
  // Position 1: in(s2) reads T_z[0] = 0: read(0), symbol 0.
  const auto m = mem({0, 0, 0, 0, 0xB4, 0x55, 0x80, 0xFF});
  EXPECT_EQ(mans_decode_fac(m, {V(63, 0)}, {1}), (std::vector<V>{{26}}));
  EXPECT_EQ(mans_decode_fac(m, {V(63, 0)}, {2}), (std::vector<V>{{26, 0}}));
  // Counts that decrease are a table condition.
  V bad(63, 0);
  bad[0] = 5;
  EXPECT_EQ(refusal_of([&] { mans_decode_fac(m, {bad}, {1}); }).at, -1);
}

TEST(StageMansDecode, SgmEscapeAtBounds0_128_255) {
  // Stream 00 00 00 00 00 68 00 80: s1 = s2 = 0; after the flush, bits 62..59 = 1 101 (byte 68).
  // A row whose one nonzero column k holds 256 gives every slot u the entry u·2^16 + sym(k): no
  // bits read, the symbol sym(k). With B = -sym(k) the escape is taken: f = 1, v = read(3) = 5,
  // g = 1: symbol wrap16(-2 - β).
  const auto m = mem({0, 0, 0, 0, 0, 0x68, 0x00, 0x80});
  const MansSpan one{{true}, {0}};
  EXPECT_EQ(mans_decode_sgm(m, one_row_pmf(1, 0), {0}, {one}), (std::vector<V>{{-2}}));      // sym(0) = 0
  EXPECT_EQ(mans_decode_sgm(m, one_row_pmf(256, 255), {128}, {one}), (std::vector<V>{{-130}}));  // sym(255) = -128
  EXPECT_EQ(mans_decode_sgm(m, one_row_pmf(510, 509), {255}, {one}), (std::vector<V>{{-257}}));  // sym(509) = -255
  // No escape when sym + β != 0: the symbol is the table's.
  EXPECT_EQ(mans_decode_sgm(m, one_row_pmf(256, 255), {127}, {one}), (std::vector<V>{{-128}}));
  // Unmasked positions are 0 and read nothing.
  EXPECT_EQ(mans_decode_sgm(m, one_row_pmf(1, 0), {0}, {MansSpan{{false, true}, {0, 0}}}), (std::vector<V>{{0, -2}}));
  // Table conditions: a bound past 255, a row not summing to 256, a σ with no row.
  EXPECT_EQ(refusal_of([&] { mans_decode_sgm(m, one_row_pmf(1, 0), {256}, {one}); }).at, -1);
  EXPECT_EQ(refusal_of([&] { mans_decode_sgm(m, {V{255}}, {0}, {one}); }).at, -1);
  EXPECT_EQ(refusal_of([&] { mans_decode_sgm(m, one_row_pmf(1, 0), {0}, {MansSpan{{true}, {1}}}); }).refusal.code,
            RefusalCode::model_mismatch);
}

TEST(StageJson, VectorForms) {
  EXPECT_EQ(run_stage_json("dequantize", json{{"sym", "3"}, {"f", "2"}, {"base", "-1"}}, json::object()).dump(),
            R"({"value":"11"})");
  EXPECT_EQ(run_stage_json("dequantize", json{{"sym", "2"}, {"f", "62"}, {"base", "0"}}, json::object()).dump(),
            R"({"at":"0","refuse":"field_range"})");
  EXPECT_EQ(run_stage_json("bucket", json{{"sigma", "0"}, {"edges", {"20", "10"}}}, json{{"bucket", "floor"}}).dump(),
            R"({"at":"-1","refuse":"model_mismatch"})");
  EXPECT_EQ(run_stage_json("coded", json{{"v", "1"}, {"thr", "1"}}, json::object()).dump(), R"({"coded":false})");
  EXPECT_THROW(run_stage_json("rans64_decode", json::object(), json::object()), loam::Error);
  // A vector's answer lists every position: 2^20 of them is the most it takes, one more is refused.
  EXPECT_EQ(run_stage_json("coding_order", json{{"shape", {"1", "1", "3"}}, {"order", "raster"}}, json::object()).dump(),
            R"({"indices":["0","1","2"]})");
  EXPECT_EQ(run_stage_json("coding_order", json{{"shape", {"1", "1024", "1024"}}, {"order", "checkerboard"}, {"anchor", true}},
                           json::object())["indices"].size(),
            std::size_t{1} << 19);
  EXPECT_THROW(run_stage_json("coding_order", json{{"shape", {"1", "1025", "1024"}}, {"order", "raster"}}, json::object()),
               loam::Error);
}
