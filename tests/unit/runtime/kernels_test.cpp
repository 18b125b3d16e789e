// Kernel behaviour whose expected values are worked out by hand: casts, moves, refusals, empty
// tensors, negative axes, the two SGEMM paths, a generated kernel's call, and the opaque backend.
#include <gtest/gtest.h>

#include <cstring>
#include <sys/mman.h>
#include <unistd.h>
#include <random>

#include "loam/runtime.hpp"

namespace {

using namespace loam_runtime;

struct Batch {};
struct Feat {};
struct Hidden {};
struct Out {};
struct Idx {};
struct Seq {};
struct One {
  static constexpr std::int64_t EXTENT = 1;
};

Cpu cpu;

template <class E, class L>
std::vector<E> values(const Tensor<E, L>& t) {
  return std::vector<E>(t.data(), t.data() + t.count());
}

TEST(Lift, RelabelsOnlyAnAxisOfOne) {
  Tensor<float, Axes<Seq, Feat>> one_row({1, 2}, {1, 2});
  auto lifted = cpu.lift<Axes<Batch, Feat>>(one_row);
  EXPECT_EQ(lifted.data(), one_row.data());
  Tensor<float, Axes<Seq, Feat>> two_rows({2, 2});
  EXPECT_THROW((cpu.lift<Axes<Batch, Feat>>(two_rows)), KernelMisuse);
}

TEST(Gather, RefusesAnOutOfRangeIndexNamingTheTensor) {
  Tensor<float, Axes<Idx, Feat>> table({3, 2}, {0, 1, 10, 11, 20, 21});
  Tensor<std::int64_t, Axes<Seq>> ok({3}, {2, -3, -1});
  EXPECT_EQ(values(cpu.gather<Axes<Seq, Feat>>(table, ok, 0, "token_ids")), (std::vector<float>{20, 21, 0, 1, 20, 21}));
  for (std::int64_t bad : {std::int64_t{3}, std::int64_t{-4}, std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()}) {
    Tensor<std::int64_t, Axes<Seq>> ids({2}, {0, bad});
    try {
      cpu.gather<Axes<Seq, Feat>>(table, ids, 0, "token_ids");
      ADD_FAILURE() << "index " << bad << " was not refused";
    } catch (const KernelRefusal& e) {
      EXPECT_EQ(e.error().input, "token_ids");
      EXPECT_NE(std::string(e.what()).find("index " + std::to_string(bad)), std::string::npos) << e.what();
    }
  }
}

// Cosine 0 and sine 1 turn each pair (x1, x2) into (-x2, x1); cosine 1 and sine 0 leave it. The
// channels past the caches' pairs pass unchanged.
TEST(RotaryEmbedding, RotatesPairsByPositionAndRefusesAPositionOutsideTheCaches) {
  struct Head {};
  struct Pos {};
  struct Half {};
  // [batch 1, sequence 2, hidden 6] as one head of 6 channels, the first 4 rotated.
  Tensor<float, Axes<Batch, Seq, Head>> x({1, 2, 6}, {1, 2, 3, 4, 5, 6, 10, 20, 30, 40, 50, 60});
  Tensor<float, Axes<Pos, Half>> cos({3, 2}, {1, 1, 0, 0, 1, 0});
  Tensor<float, Axes<Pos, Half>> sin({3, 2}, {0, 0, 1, 1, 0, 1});
  Tensor<std::int64_t, Axes<Batch, Seq>> at({1, 2}, {1, 0});
  // Halves: channel i pairs with i + 2. Position 1 turns (1, 3) and (2, 4); position 0 leaves.
  EXPECT_EQ(values(cpu.rotary_embedding_at(x, cos, sin, at, false, 1)), (std::vector<float>{-3, -4, 1, 2, 5, 6, 10, 20, 30, 40, 50, 60}));
  // Interleaved: channel 2i pairs with 2i + 1. Position 2 turns only the second pair.
  Tensor<std::int64_t, Axes<Batch, Seq>> second({1, 2}, {2, 2});
  EXPECT_EQ(values(cpu.rotary_embedding_at(x, cos, sin, second, true, 1)), (std::vector<float>{1, 2, -4, 3, 5, 6, 10, 20, -40, 30, 50, 60}));
  // Two heads of 3 channels, the caches per (batch, sequence), one pair each.
  Tensor<float, Axes<Batch, Seq, Half>> c3({1, 2, 1}, {0, 1}), s3({1, 2, 1}, {1, 0});
  EXPECT_EQ(values(cpu.rotary_embedding(x, c3, s3, false, 2)), (std::vector<float>{-2, 1, 3, -5, 4, 6, 10, 20, 30, 40, 50, 60}));
  for (std::int64_t bad : {std::int64_t{3}, std::int64_t{-1}}) {
    Tensor<std::int64_t, Axes<Batch, Seq>> ids({1, 2}, {0, bad});
    try {
      (void)cpu.rotary_embedding_at(x, cos, sin, ids, false, 1, "position_ids");
      ADD_FAILURE() << "position " << bad << " was not refused";
    } catch (const KernelRefusal& e) {
      EXPECT_EQ(e.error().input, "position_ids");
      EXPECT_NE(std::string(e.what()).find("position " + std::to_string(bad)), std::string::npos) << e.what();
    }
  }
}

// One query of head size 1 against two keys 0 and ln 3 (scale 1): softmax weights 1/4 and 3/4 for
// query 1, 3/4 and 1/4 for query -1; values 4 and 8 give 7 and 5. Two query heads share the one kv
// head. Each bias then shuts keys: a bool mask, the causal frontier (after a past key or not), the
// keys a batch holds; a query with no key left gives 0; a mask or a count past the keys is refused.
TEST(Attention, WeighsValuesBySoftmaxAndShutsKeysAsEachBiasSays) {
  struct Heads {};
  struct Kv {};
  struct Q {};
  struct K {};
  struct D {};
  const float ln3 = std::log(3.0f);
  Tensor<float, Axes<Batch, Heads, Q, D>> q({1, 2, 1, 1}, {1, -1});
  Tensor<float, Axes<Batch, Kv, K, D>> k({1, 1, 2, 1}, {0, ln3});
  Tensor<float, Axes<Batch, Kv, K, D>> v({1, 1, 2, 1}, {4, 8});
  using Y = Axes<Batch, Heads, Q, D>;
  AttentionParams p{.scale = 1.0f};
  const auto near = [](const std::vector<float>& got, const std::vector<float>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << "element " << i;
  };
  near(values(cpu.attention<Y>(q, k, v, nullptr, nullptr, nullptr, nullptr, p)), {7, 5});
  Tensor<bool, Axes<K>> second_only({2}, {false, true});
  near(values(cpu.attention<Y>(q, k, v, nullptr, nullptr, second_only, nullptr, p)), {8, 8});
  AttentionParams causal = p;
  causal.causal = true;
  near(values(cpu.attention<Y>(q, k, v, nullptr, nullptr, nullptr, nullptr, causal)), {4, 4});
  // After one past key the query sits at position 1: both keys are before it or at it.
  Tensor<float, Axes<Batch, Kv, K, D>> new_k({1, 1, 1, 1}, {ln3}), new_v({1, 1, 1, 1}, {8});
  Tensor<float, Axes<Batch, Kv, K, D>> past_k({1, 1, 1, 1}, {0}), past_v({1, 1, 1, 1}, {4});
  near(values(cpu.attention<Y>(q, new_k, new_v, past_k, past_v, nullptr, nullptr, causal)), {7, 5});
  near(values(cpu.attention_cache<Axes<Batch, Kv, K, D>>(past_v, new_v, 0)), {4, 8});
  Tensor<std::int64_t, Axes<Batch>> held({1}, {1});
  near(values(cpu.attention<Y>(q, k, v, nullptr, nullptr, nullptr, held, p)), {4, 4});
  Tensor<bool, Axes<K>> none({2}, {false, false});
  near(values(cpu.attention<Y>(q, k, v, nullptr, nullptr, none, nullptr, p)), {0, 0});
  // The scores of mode 3 are the weights.
  AttentionParams weights = p;
  weights.scores_mode = 3;
  auto [y, scores] = cpu.attention_scores<Y, Axes<Batch, Heads, Q, K>>(q, k, v, nullptr, nullptr, nullptr, nullptr, weights);
  near(values(scores), {0.25f, 0.75f, 0.75f, 0.25f});
  Tensor<std::int64_t, Axes<Batch>> too_many({1}, {3});
  try {
    (void)cpu.attention<Y>(q, k, v, nullptr, nullptr, nullptr, too_many, p, "attn_mask", "lengths");
    ADD_FAILURE() << "3 keys of 2 were not refused";
  } catch (const KernelRefusal& e) {
    EXPECT_EQ(e.error().input, "lengths");
  }
  Tensor<bool, Axes<K>> long_mask({3}, {true, true, true});
  try {
    (void)cpu.attention<Y>(q, k, v, nullptr, nullptr, long_mask, nullptr, p, "mask");
    ADD_FAILURE() << "a mask over 3 keys of 2 was not refused";
  } catch (const KernelRefusal& e) {
    EXPECT_EQ(e.error().input, "mask");
  }
}

TEST(Range, CountsAsOnnxDoes) {
  EXPECT_EQ(values(cpu.range<Axes<Seq>>(std::int64_t{0}, std::int64_t{5}, std::int64_t{2})), (std::vector<std::int64_t>{0, 2, 4}));
  EXPECT_EQ(values(cpu.range<Axes<Seq>>(std::int64_t{5}, std::int64_t{0}, std::int64_t{-2})), (std::vector<std::int64_t>{5, 3, 1}));
  EXPECT_EQ((cpu.range<Axes<Seq>>(std::int64_t{5}, std::int64_t{0}, std::int64_t{1}).count()), 0);
  EXPECT_EQ(values(cpu.range<Axes<Seq>>(1.0f, 2.0f, 0.25f)), (std::vector<float>{1.0f, 1.25f, 1.5f, 1.75f}));
  EXPECT_THROW((cpu.range<Axes<Seq>>(std::int64_t{0}, std::int64_t{5}, std::int64_t{0})), KernelMisuse);
  const auto huge = cpu.range<Axes<Seq>>(std::numeric_limits<std::int64_t>::max() - 1, std::numeric_limits<std::int64_t>::max(), std::int64_t{5});
  EXPECT_EQ(huge.count(), 1);
}

TEST(ConstantOfShape, Fills) {
  EXPECT_EQ(values(cpu.constant_of_shape<Axes<Batch, Feat>>({2, 2}, std::int64_t{7})), (std::vector<std::int64_t>(4, 7)));
}

TEST(Cast, BetweenEveryElementType) {
  Tensor<float, Axes<Feat>> f({5}, {1.9f, -1.9f, 0.0f, NAN, 1e30f});
  EXPECT_EQ(values(cpu.cast<std::int64_t>(f)),
            (std::vector<std::int64_t>{1, -1, 0, std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::min()}));
  EXPECT_EQ(values(cpu.cast<bool>(f)), (std::vector<bool>{true, true, false, true, true}));
  Tensor<bool, Axes<Feat>> b({2}, {true, false});
  EXPECT_EQ(values(cpu.cast<float>(b)), (std::vector<float>{1, 0}));
  Tensor<float, Axes<Feat>> g({2}, {1.0f + std::ldexp(1.0f, -11), 3.0f});
  auto h = cpu.cast<Half>(g);
  EXPECT_EQ(h.data()[0].bits, 0x3C00);
  EXPECT_EQ(values(cpu.cast<float>(h)), (std::vector<float>{1.0f, 3.0f}));
  auto bf = cpu.cast<BFloat16>(g);
  EXPECT_EQ(values(cpu.cast<float>(bf)), (std::vector<float>{1.0f, 3.0f}));
  EXPECT_EQ(values(cpu.cast<std::int64_t>(h)), (std::vector<std::int64_t>{1, 3}));
}

TEST(Moves, SplitConcatSliceClamp) {
  Tensor<float, Axes<Batch, Feat>> t({2, 5}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  auto first = cpu.split_part<Axes<Batch, Hidden>>(t, -1, 0, 2);
  auto rest = cpu.split_part<Axes<Batch, Out>>(t, 1, 2, 3);
  EXPECT_EQ(values(first), (std::vector<float>{0, 1, 5, 6}));
  EXPECT_EQ(values(rest), (std::vector<float>{2, 3, 4, 7, 8, 9}));
  EXPECT_EQ(values(cpu.concat<Axes<Batch, Feat>>(1, first, rest)), values(t));
  EXPECT_THROW((cpu.split_part<Axes<Batch, Out>>(t, 1, 3, 3)), KernelMisuse);
  // A bound past any length reads as "to the end"; a start past the end gives nothing.
  const std::int64_t st[] = {1}, en[] = {std::numeric_limits<std::int64_t>::max()}, ax[] = {1};
  EXPECT_EQ(values(cpu.slice<Axes<Batch, Feat>>(t, st, en, ax)), (std::vector<float>{1, 2, 3, 4, 6, 7, 8, 9}));
  const std::int64_t st2[] = {9}, en2[] = {12};
  EXPECT_EQ((cpu.slice<Axes<Batch, Feat>>(t, st2, en2, ax).count()), 0);
}

TEST(Softmax, NegativeAxisAndFlattenedForm) {
  Tensor<float, Axes<Batch, Feat>> t({2, 2}, {0, std::log(3.0f), 1, 1});
  auto s = cpu.softmax(t, -1);
  EXPECT_NEAR(s.data()[0], 0.25f, 1e-6);
  EXPECT_NEAR(s.data()[1], 0.75f, 1e-6);
  EXPECT_NEAR(s.data()[2], 0.5f, 1e-6);
  // Flattened at axis 0: one row of four.
  auto f = cpu.softmax_flattened(t, 0);
  const float z = 1 + 3 + 2 * std::exp(1.0f);
  EXPECT_NEAR(f.data()[1], 3 / z, 1e-6);
  EXPECT_NEAR(f.data()[3], std::exp(1.0f) / z, 1e-6);
  auto l = cpu.log_softmax(t, 1);
  EXPECT_NEAR(l.data()[0], std::log(0.25f), 1e-6);
}

TEST(Reduce, AllAxesNoopAndIntegers) {
  Tensor<std::int64_t, Axes<Batch, Feat>> t({2, 3}, {1, 5, 3, -4, 2, 6});
  EXPECT_EQ(values(cpu.reduce_sum<Axes<>>(t, {}, false)), (std::vector<std::int64_t>{13}));
  EXPECT_EQ(values(cpu.reduce_max<Axes<Batch, One>>(t, std::vector<std::int64_t>{-1}, true)), (std::vector<std::int64_t>{5, 6}));
  EXPECT_EQ(values(cpu.reduce_min<Axes<Feat>>(t, std::vector<std::int64_t>{0}, false)), (std::vector<std::int64_t>{-4, 2, 3}));
  auto same = cpu.reduce_sum<Axes<Batch, Feat>>(t, {}, true, true);
  EXPECT_EQ(same.data(), t.data());
  Tensor<float, Axes<Batch, Feat>> empty({0, 3});
  auto sums = cpu.reduce_sum<Axes<Feat>>(empty, std::vector<std::int64_t>{0}, false);
  EXPECT_EQ(values(sums), (std::vector<float>{0, 0, 0}));
}

TEST(ArgMax, FirstMaximumAndNaN) {
  Tensor<float, Axes<Batch, Feat>> t({2, 3}, {1, 3, 3, 2, NAN, 9});
  EXPECT_EQ(values(cpu.argmax<Axes<Batch, One>>(t, -1)), (std::vector<std::int64_t>{1, 1}));
}

TEST(Reduce, EmptyGroupsGiveEachReductionsIdentity) {
  Tensor<float, Axes<Batch, Feat>> empty({0, 2});
  const std::vector<std::int64_t> rows{0};
  EXPECT_EQ(values(cpu.reduce_l1<Axes<Feat>>(empty, rows, false)), (std::vector<float>{0, 0}));
  EXPECT_EQ(values(cpu.reduce_l2<Axes<Feat>>(empty, rows, false)), (std::vector<float>{0, 0}));
  EXPECT_EQ(values(cpu.reduce_sum_square<Axes<Feat>>(empty, rows, false)), (std::vector<float>{0, 0}));
  EXPECT_EQ(values(cpu.reduce_prod<Axes<Feat>>(empty, rows, false)), (std::vector<float>{1, 1}));
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(values(cpu.reduce_log_sum<Axes<Feat>>(empty, rows, false)), (std::vector<float>{-inf, -inf}));
  EXPECT_EQ(values(cpu.reduce_log_sum_exp<Axes<Feat>>(empty, rows, false)), (std::vector<float>{-inf, -inf}));
  EXPECT_EQ(values(cpu.reduce_max<Axes<Feat>>(empty, rows, false)), (std::vector<float>{-inf, -inf}));
  EXPECT_EQ(values(cpu.reduce_min<Axes<Feat>>(empty, rows, false)), (std::vector<float>{inf, inf}));
}

TEST(Reduce, LogSumExpOfLargeValuesDoesNotOverflow) {
  // exp(1000) overflows double; shifted by the maximum the result is 1000 + log(2).
  Tensor<float, Axes<Feat>> t({2}, {1000.0f, 1000.0f});
  EXPECT_FLOAT_EQ(values(cpu.reduce_log_sum_exp<Axes<>>(t, {}, false))[0], 1000.0f + std::log(2.0f));
  Tensor<std::int64_t, Axes<Feat>> i({3}, {-3, 4, 12});
  EXPECT_EQ(values(cpu.reduce_l1<Axes<>>(i, {}, false)), (std::vector<std::int64_t>{19}));
  EXPECT_EQ(values(cpu.reduce_l2<Axes<>>(i, {}, false)), (std::vector<std::int64_t>{13}));  // sqrt(169)
}

TEST(ArgMin, FirstMinimumOrTheLast) {
  Tensor<float, Axes<Batch, Feat>> t({2, 3}, {4, 1, 1, 2, 0, 0});
  EXPECT_EQ(values(cpu.argmin<Axes<Batch, One>>(t, -1)), (std::vector<std::int64_t>{1, 1}));
  EXPECT_EQ(values(cpu.argmin<Axes<Batch>>(t, 1, false, true)), (std::vector<std::int64_t>{2, 2}));
}

TEST(TopK, SortedTiesToTheLowerIndexAndKRefusedPastTheAxis) {
  Tensor<float, Axes<Batch, Feat>> t({2, 4}, {1, 3, 3, 2, 0, -1, 5, 5});
  auto [v, i] = cpu.top_k<Axes<Batch, Seq>, Axes<Batch, Seq>>(t, 3, -1, true, "K");
  EXPECT_EQ(values(v), (std::vector<float>{3, 3, 2, 5, 5, 0}));
  EXPECT_EQ(values(i), (std::vector<std::int64_t>{1, 2, 3, 2, 3, 0}));
  auto [sv, si] = cpu.top_k<Axes<Batch, Seq>, Axes<Batch, Seq>>(t, 2, 1, false, "K");
  EXPECT_EQ(values(sv), (std::vector<float>{1, 2, -1, 0}));
  EXPECT_EQ(values(si), (std::vector<std::int64_t>{0, 3, 1, 0}));
  try {
    (void)cpu.top_k<Axes<Batch, Seq>, Axes<Batch, Seq>>(t, 5, -1, true, "k_tensor");
    ADD_FAILURE() << "K past the axis was not refused";
  } catch (const KernelRefusal& e) {
    EXPECT_EQ(e.error().input, "k_tensor");
  }
}

TEST(CumSum, ExclusiveReverseAndAnAxisOutsideTheRankRefused) {
  Tensor<float, Axes<Batch, Feat>> t({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor<std::int32_t, Axes<>> last({}, {-1});
  EXPECT_EQ(values(cpu.cumsum(t, last, false, false)), (std::vector<float>{1, 3, 6, 4, 9, 15}));
  EXPECT_EQ(values(cpu.cumsum(t, last, true, true)), (std::vector<float>{5, 3, 0, 11, 6, 0}));
  Tensor<std::int64_t, Axes<>> rows({}, {0});
  EXPECT_EQ(values(cpu.cumsum(t, rows, false, false)), (std::vector<float>{1, 2, 3, 5, 7, 9}));
  Tensor<std::int64_t, Axes<>> bad({}, {2});
  try {
    (void)cpu.cumsum(t, bad, false, false, "the_axis");
    ADD_FAILURE() << "axis 2 of a rank-2 tensor was not refused";
  } catch (const KernelRefusal& e) {
    EXPECT_EQ(e.error().input, "the_axis");
  }
}

TEST(Trilu, UpperAndLowerFromDiagonalK) {
  Tensor<std::int64_t, Axes<Batch, Feat>> t({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(values(cpu.trilu(t, std::int64_t{0}, true)), (std::vector<std::int64_t>{1, 2, 3, 0, 5, 6}));
  Tensor<std::int64_t, Axes<>> k({}, {-1});
  EXPECT_EQ(values(cpu.trilu(t, k, false)), (std::vector<std::int64_t>{0, 0, 0, 4, 0, 0}));
  Tensor<std::int64_t, Axes<Seq>> two({2}, {0, 1});
  EXPECT_THROW((void)cpu.trilu(t, two, true), KernelRefusal);
}

TEST(Hardmax, OneAtTheFirstMaximumOfEachLane) {
  Tensor<float, Axes<Batch, Feat>> t({2, 3}, {1, 3, 3, 2, 0, -1});
  EXPECT_EQ(values(cpu.hardmax(t, -1)), (std::vector<float>{0, 1, 0, 1, 0, 0}));
  EXPECT_EQ(values(cpu.hardmax(t, 0)), (std::vector<float>{0, 1, 1, 1, 0, 0}));
  EXPECT_EQ(values(cpu.hardmax_flattened(t, 0)), (std::vector<float>{0, 1, 0, 0, 0, 0}));
}

TEST(GatherScatter, ElementsAndNdPickAndWriteWhereTheIndicesSay) {
  Tensor<float, Axes<Batch, Feat>> data({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor<std::int64_t, Axes<Batch, Seq>> idx({2, 2}, {2, -3, 1, 1});
  EXPECT_EQ(values(cpu.gather_elements<Axes<Batch, Seq>>(data, idx, 1)), (std::vector<float>{3, 1, 5, 5}));
  Tensor<float, Axes<Batch, Seq>> upd({2, 2}, {10, 20, 30, 40});
  // Duplicate indices apply in order: the last write wins, an add adds both.
  EXPECT_EQ(values(cpu.scatter_elements(data, idx, upd, 1, ScatterReduction::None)), (std::vector<float>{20, 2, 10, 4, 40, 6}));
  EXPECT_EQ(values(cpu.scatter_elements(data, idx, upd, 1, ScatterReduction::Add)), (std::vector<float>{21, 2, 13, 4, 75, 6}));
  Tensor<std::int64_t, Axes<Seq, One>> rows({2, 1}, {1, -2});
  EXPECT_EQ(values(cpu.gather_nd<Axes<Seq, Feat>>(data, rows, 0)), (std::vector<float>{4, 5, 6, 1, 2, 3}));
  Tensor<float, Axes<Seq, Feat>> rows_upd({2, 3}, {7, 8, 9, 0, 0, 0});
  EXPECT_EQ(values(cpu.scatter_nd(data, rows, rows_upd, ScatterReduction::Mul)), (std::vector<float>{0, 0, 0, 28, 40, 54}));
  Tensor<std::int64_t, Axes<Seq, One>> bad({2, 1}, {0, 2});
  for (int which = 0; which < 3; ++which) {
    try {
      if (which == 0) (void)cpu.gather_nd<Axes<Seq, Feat>>(data, bad, 0, "ids");
      if (which == 1) (void)cpu.scatter_nd(data, bad, rows_upd, ScatterReduction::None, "ids");
      if (which == 2) (void)cpu.gather_elements<Axes<Seq, One>>(data, bad, 1, "ids");
      if (which != 2) ADD_FAILURE() << "index 2 of an axis of 2 was not refused (" << which << ")";
    } catch (const KernelRefusal& e) {
      EXPECT_EQ(e.error().input, "ids");
    }
  }
}

TEST(DepthSpace, DcrAndCrdAreEachOthersRegroupingAndSpaceToDepthInvertsDcr) {
  Tensor<float, Axes<Batch, Feat, Seq, Idx>> x({1, 4, 1, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  // DCR: channel (i*2 + j) goes to row i, column j of each 2x2 block.
  auto dcr = cpu.depth_to_space<Axes<Batch, One, Seq, Idx>>(x, 2, false);
  EXPECT_EQ(values(dcr), (std::vector<float>{0, 2, 1, 3, 4, 6, 5, 7}));
  Tensor<float, Axes<Batch, Feat, Seq, Idx>> y({1, 8, 1, 1}, {0, 1, 2, 3, 4, 5, 6, 7});
  EXPECT_EQ(values(cpu.depth_to_space<Axes<Batch, Feat, Seq, Idx>>(y, 2, true)), (std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(values(cpu.depth_to_space<Axes<Batch, Feat, Seq, Idx>>(y, 2, false)), (std::vector<float>{0, 2, 4, 6, 1, 3, 5, 7}));
  EXPECT_EQ(values(cpu.space_to_depth<Axes<Batch, Feat, Seq, Idx>>(dcr, 2)), values(x));
}

TEST(OneHot, NegativeIndicesCountFromTheDepthAndOthersNameNone) {
  Tensor<std::int64_t, Axes<Seq>> idx({4}, {0, -1, 3, -4});
  Tensor<float, Axes<Idx>> off_on({2}, {-1, 5});
  EXPECT_EQ(values(cpu.one_hot<Axes<Seq, Feat>>(idx, 3, off_on, -1)),
            (std::vector<float>{5, -1, -1, -1, -1, 5, -1, -1, -1, -1, -1, -1}));
  EXPECT_EQ(values(cpu.one_hot<Axes<Feat, Seq>>(idx, 3, off_on, 0)),
            (std::vector<float>{5, -1, -1, -1, -1, -1, -1, -1, -1, 5, -1, -1}));
}

TEST(Einsum, ContractsDiagonalsAndBroadcastsAnEllipsisAxisOfOne) {
  Tensor<float, Axes<Batch, Feat>> a({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor<float, Axes<Feat, Out>> b({3, 2}, {1, 0, 0, 1, 1, 1});
  EXPECT_EQ(values(cpu.einsum<Axes<Batch, Out>>("ij,jk->ik", a, b)), (std::vector<float>{4, 5, 10, 11}));
  EXPECT_EQ(values(cpu.einsum<Axes<Feat, Batch>>("ij->ji", a)), (std::vector<float>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(values(cpu.einsum<Axes<>>("ij->", a)), (std::vector<float>{21}));
  Tensor<float, Axes<Feat, Idx>> sq({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  EXPECT_EQ(values(cpu.einsum<Axes<Feat>>("ii->i", sq)), (std::vector<float>{1, 5, 9}));
  // '0' is an ellipsis axis: a's 1 broadcasts against c's 2.
  Tensor<float, Axes<One, Feat>> a1({1, 3}, {1, 2, 3});
  Tensor<float, Axes<Batch, Feat>> c({2, 3}, {1, 1, 1, 0, 1, 0});
  EXPECT_EQ(values(cpu.einsum<Axes<Batch>>("0i,0i->0", a1, c)), (std::vector<float>{6, 2}));
}

TEST(Normalisations, GroupNormalizationByHand) {
  // Four channels of two positions in two groups: group 0 holds {0, 2, 4, 6} (mean 3, variance 5),
  // group 1 {1, 1, 1, 1} (variance 0).
  Tensor<float, Axes<Batch, Feat, Seq>> x({1, 4, 2}, {0, 2, 4, 6, 1, 1, 1, 1});
  Tensor<float, Axes<Feat>> scale({4}, {1, 2, 1, 1}), bias({4}, {0, 0, 10, -1});
  auto y = values(cpu.group_normalization(x, scale, bias, 2, 0.0f));
  const float s = 1.0f / std::sqrt(5.0f);
  EXPECT_FLOAT_EQ(y[0], -3 * s);
  EXPECT_FLOAT_EQ(y[2], 2 * 1 * s);  // channel 1: scale 2, x - mean = 1
  EXPECT_FLOAT_EQ(y[3], 2 * 3 * s);
  EXPECT_TRUE(std::isnan(y[4]));     // 0 / 0 in the constant group
  auto eps = values(cpu.group_normalization(x, scale, bias, 2, 1.0f));
  EXPECT_FLOAT_EQ(eps[4], 10.0f);    // channel 2's bias on x - mean = 0
  EXPECT_FLOAT_EQ(eps[7], -1.0f);
  // One group is the layer's statistics; four are instance normalisation's.
  auto one = values(cpu.group_normalization(x, scale, bias, 1, 0.0f));
  auto four = values(cpu.group_normalization(x, scale, bias, 4, 1.0f));
  auto instance = values(cpu.instance_normalization(x, scale, bias, 1.0f));
  for (std::size_t i = 0; i < instance.size(); ++i) EXPECT_FLOAT_EQ(four[i], instance[i]) << i;
  EXPECT_FLOAT_EQ(one[0], -2.0f / std::sqrt(3.5f));  // all eight: mean 2, variance 3.5; channel 0 scale 1
  EXPECT_THROW(cpu.group_normalization(x, scale, bias, 3, 0.0f), KernelMisuse);  // 4 channels, 3 groups
}

TEST(Normalisations, InstanceLrnAndMeanVarianceByHand) {
  Tensor<float, Axes<Batch, Feat, Seq>> x({1, 2, 2}, {1, 3, 10, 10});
  Tensor<float, Axes<Feat>> scale({2}, {2, 1}), bias({2}, {0.5f, -1});
  // Channel 0: mean 2, variance 1; channel 1: variance 0, so x - mean = 0.
  auto in = values(cpu.instance_normalization(x, scale, bias, 0.0f));
  EXPECT_FLOAT_EQ(in[0], -1.5f);
  EXPECT_FLOAT_EQ(in[1], 2.5f);
  EXPECT_TRUE(std::isnan(in[2]));  // (x - mean) / sqrt(0 + 0) is 0 / 0
  auto eps = values(cpu.instance_normalization(x, scale, bias, 1.0f));
  EXPECT_FLOAT_EQ(eps[2], -1.0f);
  // LRN of size 3 over 2 channels: each sees both; alpha 3 makes alpha / size 1.
  Tensor<float, Axes<Batch, Feat, Seq>> y({1, 2, 1}, {1, 2});
  auto l = values(cpu.lrn(y, 3, 3.0f, 1.0f, 1.0f));
  EXPECT_FLOAT_EQ(l[0], 1.0f / 6.0f);
  EXPECT_FLOAT_EQ(l[1], 2.0f / 6.0f);
  // MVN over the last axis: (x - mean) / (std + 1e-9).
  Tensor<float, Axes<Batch, Feat>> m({2, 2}, {1, 3, 5, 5});
  auto mv = values(cpu.mean_variance_normalization(m, std::vector<std::int64_t>{1}));
  EXPECT_FLOAT_EQ(mv[0], -1.0f);
  EXPECT_FLOAT_EQ(mv[1], 1.0f);
  EXPECT_FLOAT_EQ(mv[2], 0.0f);
}

TEST(Windows, RefuseAKernelLargerThanThePaddedInput) {
  struct N {};
  struct C {};
  struct H {};
  WindowParams p;
  p.kernel_shape = {5};
  Tensor<float, Axes<N, C, H>> x({1, 1, 3});
  EXPECT_THROW((cpu.max_pool<Axes<N, C, H>>(x, p)), KernelMisuse);
  p.pads = {1, 1};
  EXPECT_EQ((cpu.max_pool<Axes<N, C, H>>(x, p).extents()[2]), 1);
}

TEST(Conv, EmptyBatchGivesEmptyResult) {
  struct N {};
  struct C {};
  struct K {};
  struct H {};
  struct KH {};
  Tensor<float, Axes<N, C, H>> x({0, 2, 5});
  Tensor<float, Axes<K, C, KH>> w({3, 2, 2});
  auto y = cpu.conv<Axes<N, K, H>>(x, w, WindowParams{});
  EXPECT_EQ(y.extents(), (std::array<std::int64_t, 3>{0, 3, 4}));
}

// conv_max_pool / conv_average_pool pool each image's product where it lies (rows at the padded
// pitch) or, for a Conv that is not stride-1 2-D or is depthwise, store the Conv's result first. Either way every
// element is the one the two calls give: the same products, reduced in the same order (a NaN too).
TEST(ConvPool, GivesWhatTheConvThenThePoolGive) {
  struct N {};
  struct C {};
  struct K {};
  struct H {};
  struct W {};
  struct KH {};
  struct KW {};
  struct PH {};
  struct PW {};
  struct Case {
    std::array<std::int64_t, 4> x, w;
    WindowParams conv, pool;
    bool relu, average;
  };
  const std::vector<Case> cases = {
      // 2x2 at stride 2 over a padded product (pitch 11 for 10 columns); a row no window reaches.
      {{2, 3, 11, 10}, {4, 3, 3, 3}, {{}, {}, {1, 1, 1, 1}, {}, 1, AutoPad::NotSet, false, false},
       {{2, 2}, {2, 2}, {}, {}, 1, AutoPad::NotSet, false, false}, true, false},
      // An overlapping, padded, ceil-mode window: the row-pass path, at the pitch.
      {{2, 3, 11, 10}, {4, 3, 3, 3}, {{}, {}, {1, 1, 1, 1}, {}, 1, AutoPad::NotSet, false, false},
       {{3, 3}, {2, 2}, {1, 1, 1, 1}, {}, 1, AutoPad::NotSet, true, false}, false, false},
      // Groups and dilations; 3x3 average at stride 3.
      {{1, 4, 9, 9}, {6, 2, 3, 3}, {{}, {}, {2, 2, 2, 2}, {2, 2}, 2, AutoPad::NotSet, false, false},
       {{3, 3}, {3, 3}, {}, {}, 1, AutoPad::NotSet, false, false}, true, true},
      // Asymmetric pads, an average counting its padding.
      {{1, 2, 7, 8}, {3, 2, 2, 3}, {{}, {}, {0, 2, 1, 0}, {}, 1, AutoPad::NotSet, false, false},
       {{2, 2}, {1, 1}, {1, 0, 0, 1}, {}, 1, AutoPad::NotSet, false, true}, false, true},
      // A depthwise Conv (its own kernel): stored, then pooled.
      {{1, 4, 9, 9}, {4, 1, 3, 3}, {{}, {}, {1, 1, 1, 1}, {}, 4, AutoPad::NotSet, false, false},
       {{2, 2}, {2, 2}, {}, {}, 1, AutoPad::NotSet, false, false}, true, false},
      // A strided Conv: stored, then pooled.
      {{2, 3, 11, 10}, {4, 3, 3, 3}, {{}, {2, 2}, {1, 1, 1, 1}, {}, 1, AutoPad::NotSet, false, false},
       {{2, 2}, {2, 2}, {}, {}, 1, AutoPad::NotSet, false, false}, true, false},
      // An empty batch.
      {{0, 3, 6, 6}, {4, 3, 3, 3}, {}, {{2, 2}, {2, 2}, {}, {}, 1, AutoPad::NotSet, false, false}, false, false},
  };
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    SCOPED_TRACE("case " + std::to_string(i));
    Tensor<float, Axes<N, C, H, W>> x(c.x);
    Tensor<float, Axes<K, C, KH, KW>> wt(c.w);
    Tensor<float, Axes<K>> bias({c.w[0]});
    for (std::int64_t j = 0; j < x.count(); ++j) x.data()[j] = u(rng);
    if (x.count() > 5) x.data()[5] = std::numeric_limits<float>::quiet_NaN();
    for (std::int64_t j = 0; j < wt.count(); ++j) wt.data()[j] = u(rng);
    for (std::int64_t j = 0; j < bias.count(); ++j) bias.data()[j] = u(rng);
    const PackedConv<Axes<K, C, KH, KW>> w(wt, c.conv.group);
    auto product = cpu.conv<Axes<N, K, H, W>>(x, w, bias, c.conv, c.relu);
    auto want = c.average ? cpu.average_pool<Axes<N, K, PH, PW>>(product, c.pool) : cpu.max_pool<Axes<N, K, PH, PW>>(product, c.pool);
    auto got = c.average ? cpu.conv_average_pool<Axes<N, K, PH, PW>, Axes<N, K, H, W>>(x, w, bias, c.conv, c.relu, c.pool)
                         : cpu.conv_max_pool<Axes<N, K, PH, PW>, Axes<N, K, H, W>>(x, w, bias, c.conv, c.relu, c.pool);
    ASSERT_EQ(got.extents(), want.extents());
    for (std::int64_t j = 0; j < want.count(); ++j) {
      const float g = got.data()[j], e = want.data()[j];
      EXPECT_TRUE(g == e || (std::isnan(g) && std::isnan(e))) << "element " << j << ": " << g << " against " << e;
    }
  }
}

TEST(LayerNorm, WithoutBias) {
  Tensor<float, Axes<Batch, Feat>> x({1, 2}, {1, 3});
  Tensor<float, Axes<Feat>> g({2}, {2, 1});
  auto y = cpu.layer_normalization(x, g, nullptr, -1, 0.0f);
  EXPECT_NEAR(y.data()[0], -2.0f, 1e-6);
  EXPECT_NEAR(y.data()[1], 1.0f, 1e-6);
}

TEST(LayerNorm, MeanAndInvStdDevKeepEveryAxisAtLengthOne) {
  // Rows {1, 3} and {2, 6}: means 2 and 4, variances 1 and 4.
  Tensor<float, Axes<Batch, Feat>> x({2, 2}, {1, 3, 2, 6});
  auto mean = cpu.layer_normalization_statistic<Axes<Batch, Feat>>(x, -1, 0.0f, false);
  EXPECT_EQ(mean.extents(), (std::array<std::int64_t, 2>{2, 1}));
  EXPECT_EQ(values(mean), (std::vector<float>{2, 4}));
  auto inv = cpu.layer_normalization_statistic<Axes<Batch, Feat>>(x, 1, 0.0f, true);
  EXPECT_EQ(values(inv), (std::vector<float>{1.0f, 0.5f}));
  // axis 0: one block of all four, mean 3, variance (4 + 0 + 1 + 9) / 4 = 3.5, plus epsilon 0.5.
  auto all = cpu.layer_normalization_statistic<Axes<Batch, Feat>>(x, 0, 0.5f, true);
  EXPECT_EQ(all.extents(), (std::array<std::int64_t, 2>{1, 1}));
  EXPECT_FLOAT_EQ(all.data()[0], 0.5f);
  OpaqueBackend opaque;
  auto through = opaque.download(opaque.layer_normalization_statistic<Axes<Batch, Feat>>(opaque.upload(x), -1, 0.0f, false));
  EXPECT_EQ(values(through), (std::vector<float>{2, 4}));
}

TEST(Windows, MaxPoolIndicesRowAndColumnMajor) {
  struct N {};
  struct C {};
  struct H {};
  struct W {};
  // Two planes of 3 x 3; a 2 x 2 window, stride 1. Plane 1 is plane 0 negated, so its maxima move.
  Tensor<float, Axes<N, C, H, W>> x({1, 2, 3, 3}, {1, 5, 2,  //
                                                   7, 3, 4,  //
                                                   0, 8, 6,  //
                                                   -1, -5, -2, -7, -3, -4, 0, -8, -6});
  WindowParams p;
  p.kernel_shape = {2, 2};
  auto rows = cpu.max_pool_indices<Axes<N, C, H, W>>(x, p);
  EXPECT_EQ(rows.extents(), (std::array<std::int64_t, 4>{1, 2, 2, 2}));
  // Plane 0: windows' maxima 7 (1,0), 5 (0,1), 8 (2,1), 8 (2,1); plane 1 (offset 9): -1 (0,0),
  // -2 (0,2), 0 (2,0), -3 (1,1).
  EXPECT_EQ(values(rows), (std::vector<std::int64_t>{3, 1, 7, 7, 9, 11, 15, 13}));
  // Column-major: h + 3 w within a plane.
  auto cols = cpu.max_pool_indices<Axes<N, C, H, W>>(x, p, true);
  EXPECT_EQ(values(cols), (std::vector<std::int64_t>{1, 3, 5, 5, 9, 15, 11, 13}));
  // Padding is never an index: a 3 x 3 window padded by one at the corner reads (0,0)..(1,1).
  p.kernel_shape = {3, 3};
  p.pads = {1, 1, 1, 1};
  p.strides = {2, 2};
  auto padded = cpu.max_pool_indices<Axes<N, C, H, W>>(x, p);
  EXPECT_EQ(values(padded), (std::vector<std::int64_t>{3, 1, 7, 7, 9, 11, 15, 13}));
}

// Runs `body` under each microkernel this machine has: AVX-512's wide tile (where present), AVX2's,
// the portable loop; `mode` names the one running.
template <class Body>
void each_sgemm_path(Body body) {
  for (const char* mode : {"wide", "avx2", "portable"}) {
    Sgemm::narrow_only = std::string(mode) == "avx2";
    Sgemm::portable_only = std::string(mode) == "portable";
    body(mode);
  }
  Sgemm::narrow_only = Sgemm::portable_only = false;
}

// The SGEMM's microkernels against a plain triple loop, over shapes that cross every edge (one
// row too, whose AVX2 path takes whole strips in one pass over K), with A row-major and read
// transposed, a row or a column bias.
TEST(Sgemm, EveryPathMatchesAPlainProduct) {
  std::mt19937 gen(3);
  std::uniform_real_distribution<float> u(-1, 1);
  for (auto [m, n, k] : std::vector<std::array<std::int64_t, 3>>{{1, 1, 1}, {5, 23, 7}, {4, 24, 256}, {9, 49, 300}, {130, 25, 3}, {6, 40, 9}, {3, 7, 0}, {1, 50, 9}, {1, 71, 300}, {1, 24, 4}, {1, 5, 3}, {13, 48, 300}, {130, 72, 20}, {8, 24, 1}}) {
    std::vector<float> a(static_cast<std::size_t>(m * k)), b(static_cast<std::size_t>(k * n)), bias(static_cast<std::size_t>(m));
    for (auto& v : a) v = u(gen);
    for (auto& v : b) v = u(gen);
    for (auto& v : bias) v = u(gen);
    std::vector<float> at(static_cast<std::size_t>(m * k)), col_bias(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t q = 0; q < k; ++q) at[q * m + i] = a[i * k + q];
    for (auto& v : col_bias) v = u(gen);
    std::vector<double> want(static_cast<std::size_t>(m * n)), want_col(static_cast<std::size_t>(m * n));
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (std::int64_t q = 0; q < k; ++q) s += double(a[i * k + q]) * b[q * n + j];
        want[i * n + j] = std::max(0.0, 0.5 * s + bias[i]);
        want_col[i * n + j] = s + col_bias[j];
      }
    each_sgemm_path([&](const char* mode) {
      std::vector<float> c(static_cast<std::size_t>(m * n), 123.0f);
      Sgemm::Epilogue ep;
      ep.alpha = 0.5f;
      ep.row_bias = bias.data();
      ep.relu = true;
      Sgemm::run(m, n, k, Sgemm::AOperand::row_major(a.data(), k), Sgemm::BOperand::row_major(b.data(), n), c.data(), n, ep);
      for (std::size_t i = 0; i < c.size(); ++i) ASSERT_NEAR(c[i], want[i], 1e-4) << m << "x" << n << "x" << k << " " << mode;
      Sgemm::Epilogue plain;
      plain.col_bias = col_bias.data();
      Sgemm::run(m, n, k, Sgemm::AOperand::transposed(at.data(), m), Sgemm::BOperand::row_major(b.data(), n), c.data(), n, plain);
      for (std::size_t i = 0; i < c.size(); ++i)
        ASSERT_NEAR(c[i], want_col[i], 1e-4) << m << "x" << n << "x" << k << " " << mode << ", A transposed";
    });
  }
}

// AVX-512 computes two strips at once where a product has a second (three 16-lane vectors a row);
// each element is still summed as one strip's tile sums it. So, bit for bit: the wide path's result
// equals AVX2's, and a packed B (whose strips lie a panel apart) gives what the row-major B does,
// at every width that ends a pair whole, partly (masked, or read from the packed panels' padding)
// or with one strip left over, with C accumulated and a column bias.
TEST(Sgemm, PairedStripsGiveOneStripsBits) {
  std::mt19937 gen(5);
  std::uniform_real_distribution<float> u(-1, 1);
  for (auto [m, n, k] : std::vector<std::array<std::int64_t, 3>>{{8, 48, 37}, {9, 25, 300}, {12, 47, 5}, {3, 73, 260}, {17, 96, 64}, {2, 120, 1}}) {
    std::vector<float> a(static_cast<std::size_t>(m * k)), b(static_cast<std::size_t>(k * n)), col_bias(static_cast<std::size_t>(n)),
        start(static_cast<std::size_t>(m * n));
    for (auto* v : {&a, &b, &col_bias, &start})
      for (auto& x : *v) x = u(gen);
    std::vector<float> packed(static_cast<std::size_t>(Sgemm::packed_b_size(k, n)));
    Sgemm::pack_b(b.data(), n, 1, k, n, packed.data());
    Sgemm::Epilogue ep;
    ep.alpha = 0.75f;
    ep.accumulate = true;
    ep.col_bias = col_bias.data();
    std::vector<float> want;
    each_sgemm_path([&](const char* mode) {
      if (std::string(mode) == "portable") return;  // its sums may round differently (no fused multiply-add)
      for (int operand = 0; operand < 2; ++operand) {
        const auto bo = operand == 0 ? Sgemm::BOperand::row_major(b.data(), n) : Sgemm::packed_b(packed.data(), k);
        std::vector<float> c = start;
        Sgemm::run(m, n, k, Sgemm::AOperand::row_major(a.data(), k), bo, c.data(), n, ep);
        if (want.empty()) want = c;
        ASSERT_EQ(std::memcmp(c.data(), want.data(), c.size() * sizeof(float)), 0)
            << m << "x" << n << "x" << k << " " << mode << (operand ? " packed B" : " row-major B");
      }
    });
  }
}

// The depthwise kernels (AVX-512's 3 x 3 in place at stride 1 and on the deinterleaved copy at
// stride 2, AVX2's rows for any kernel, the portable loop) against a double-precision sum,
// over rows that end a 16- or 32-column step whole, partly or not at all, row counts that leave
// every remainder of 8, 4 and 2, pads of 0 to 2 on either side, and a NaN input that Relu keeps.
// The vector paths sum each output's taps in one order, so AVX-512's bits are AVX2's.
TEST(Depthwise, EveryPathMatchesAPlainSumAndTheVectorPathsAgreeBitForBit) {
  struct N {};
  struct C {};
  struct K {};
  struct H {};
  struct W {};
  struct KH {};
  struct KW {};
  struct Case {
    std::int64_t h, w, k, stride, pad_begin, pad_end;
  };
  std::vector<Case> cases;
  for (std::int64_t w : {1, 5, 15, 16, 17, 31, 32, 33, 40, 47, 70})
    for (std::int64_t stride : {1, 2}) cases.push_back({w % 11 + 1, w, 3, stride, 1, 1});
  for (std::int64_t h : {2, 3, 7, 9, 12, 17}) cases.push_back({h, 10, 3, 1, 1, 1});
  cases.push_back({9, 21, 3, 1, 0, 0});
  cases.push_back({9, 21, 3, 1, 2, 0});
  cases.push_back({8, 20, 3, 1, 0, 2});
  cases.push_back({11, 23, 3, 2, 0, 1});
  cases.push_back({11, 23, 3, 2, 2, 2});
  cases.push_back({10, 19, 5, 1, 2, 2});  // not 3 x 3: the any-kernel rows
  std::mt19937 gen(17);
  std::uniform_real_distribution<float> u(-1, 1);
  for (const Case& c : cases)
    for (const bool relu : {false, true}) {
      const std::int64_t channels = 3;
      Tensor<float, Axes<N, C, H, W>> x({1, channels, c.h, c.w});
      Tensor<float, Axes<K, C, KH, KW>> wt({channels, 1, c.k, c.k});
      Tensor<float, Axes<K>> bias({channels});
      for (std::int64_t i = 0; i < x.count(); ++i) x.data()[i] = u(gen);
      for (std::int64_t i = 0; i < wt.count(); ++i) wt.data()[i] = u(gen);
      for (std::int64_t i = 0; i < bias.count(); ++i) bias.data()[i] = u(gen);
      x.data()[x.count() / 2] = std::numeric_limits<float>::quiet_NaN();
      WindowParams p;
      p.strides = {c.stride, c.stride};
      p.pads = {c.pad_begin, c.pad_begin, c.pad_end, c.pad_end};
      p.group = channels;
      const PackedConv<Axes<K, C, KH, KW>> w(wt, channels);
      const std::int64_t OH = (c.h + c.pad_begin + c.pad_end - c.k) / c.stride + 1, OW = (c.w + c.pad_begin + c.pad_end - c.k) / c.stride + 1;
      if (OH < 1 || OW < 1) continue;
      std::vector<float> vector_bits;
      each_sgemm_path([&](const char* mode) {
        const auto y = cpu.conv<Axes<N, K, H, W>>(x, w, bias, p, relu);
        ASSERT_EQ(y.extents(), (std::array<std::int64_t, 4>{1, channels, OH, OW}));
        const std::string where = std::string(mode) + " " + std::to_string(c.h) + "x" + std::to_string(c.w) + " k" + std::to_string(c.k) + " s" +
                                  std::to_string(c.stride) + " pads " + std::to_string(c.pad_begin) + "," + std::to_string(c.pad_end) +
                                  (relu ? " relu" : "");
        for (std::int64_t ch = 0; ch < channels; ++ch)
          for (std::int64_t oh = 0; oh < OH; ++oh)
            for (std::int64_t ow = 0; ow < OW; ++ow) {
              double sum = 0;
              bool nan = false;
              for (std::int64_t kh = 0; kh < c.k; ++kh)
                for (std::int64_t kw = 0; kw < c.k; ++kw) {
                  const std::int64_t ih = oh * c.stride + kh - c.pad_begin, iw = ow * c.stride + kw - c.pad_begin;
                  if (ih < 0 || ih >= c.h || iw < 0 || iw >= c.w) continue;
                  const float v = x.data()[(ch * c.h + ih) * c.w + iw];
                  nan = nan || std::isnan(v);
                  sum += double(v) * wt.data()[(ch * c.k + kh) * c.k + kw];
                }
              const float got = y.data()[(ch * OH + oh) * OW + ow];
              if (nan) {
                ASSERT_TRUE(std::isnan(got)) << where << " at " << ch << "," << oh << "," << ow;
                continue;
              }
              sum += bias.data()[ch];
              ASSERT_NEAR(got, relu ? std::max(0.0, sum) : sum, 1e-5) << where << " at " << ch << "," << oh << "," << ow;
            }
        if (std::string(mode) == "portable") return;  // its sums may round differently (no fused multiply-add)
        std::vector<float> bits(y.data(), y.data() + y.count());
        if (vector_bits.empty()) vector_bits = bits;
        ASSERT_EQ(std::memcmp(bits.data(), vector_bits.data(), bits.size() * sizeof(float)), 0) << where;
      });
    }
}

// Floats placed so the last one ends a readable page and the next page faults: a kernel that
// reads or writes one float past the operand stops the test.
class GuardedFloats {
 public:
  explicit GuardedFloats(std::size_t count) {
    page_ = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    const std::size_t data_pages = (count * sizeof(float) + page_ - 1) / page_;
    bytes_ = (data_pages + 1) * page_;
    void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::runtime_error("mmap failed");
    base_ = static_cast<std::byte*>(p);
    if (mprotect(base_ + data_pages * page_, page_, PROT_NONE) != 0) throw std::runtime_error("mprotect failed");
    data_ = reinterpret_cast<float*>(base_ + data_pages * page_) - count;
  }
  GuardedFloats(const GuardedFloats&) = delete;
  GuardedFloats& operator=(const GuardedFloats&) = delete;
  ~GuardedFloats() { munmap(base_, bytes_); }
  float* data() const { return data_; }

 private:
  std::size_t page_ = 0, bytes_ = 0;
  std::byte* base_ = nullptr;
  float* data_ = nullptr;
};

// A product whose last strip is partial (n not a multiple of 24), its B, C and column bias each
// ending where the next page faults, and C's rows wider than n: every path reads and writes only
// the product's columns, and leaves the rest of C's rows as they were.
TEST(Sgemm, PartialStripsTouchOnlyTheirColumns) {
  std::mt19937 gen(11);
  std::uniform_real_distribution<float> u(-1, 1);
  for (auto [m, n, k] : std::vector<std::array<std::int64_t, 3>>{{9, 8, 5}, {17, 32, 40}, {3, 47, 2}, {1, 13, 7}, {12, 128, 32}}) {
    const std::int64_t ldc = n + 3;
    GuardedFloats b(static_cast<std::size_t>(k * n)), c(static_cast<std::size_t>(m * ldc)), col_bias(static_cast<std::size_t>(n));
    std::vector<float> a(static_cast<std::size_t>(m * k));
    for (auto& v : a) v = u(gen);
    for (std::int64_t i = 0; i < k * n; ++i) b.data()[i] = u(gen);
    for (std::int64_t j = 0; j < n; ++j) col_bias.data()[j] = u(gen);
    each_sgemm_path([&](const char* mode) {
      for (const bool accumulate : {false, true}) {
        for (std::int64_t i = 0; i < m * ldc; ++i) c.data()[i] = 2.0f;
        Sgemm::Epilogue ep;
        ep.col_bias = col_bias.data();
        ep.accumulate = accumulate;
        Sgemm::run(m, n, k, Sgemm::AOperand::row_major(a.data(), k), Sgemm::BOperand::row_major(b.data(), n), c.data(), ldc, ep);
        for (std::int64_t i = 0; i < m; ++i)
          for (std::int64_t j = 0; j < ldc; ++j) {
            double want = 2.0;
            if (j < n) {
              double s = accumulate ? 2.0 : 0.0;
              for (std::int64_t q = 0; q < k; ++q) s += double(a[i * k + q]) * b.data()[q * n + j];
              want = s + col_bias.data()[j];
            }
            ASSERT_NEAR(c.data()[i * ldc + j], want, 1e-4) << m << "x" << n << "x" << k << " " << mode << " row " << i << " column " << j
                                                           << (accumulate ? ", accumulating" : "");
          }
      }
    });
  }
}

TEST(Sgemm, FusedReluZeroesNegativesAndKeepsNaN) {
  // A = [1; -1] (K = 1), B = one row of n values with a NaN at column 3: row 0 is relu(b), row 1
  // relu(-b), and the NaN column stays NaN in both, as ONNX's Relu leaves it. n = 24 takes the
  // full-tile store, n = 5 the partial one.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (std::int64_t n : {24, 5}) {
    std::vector<float> a = {1.0f, -1.0f}, b(static_cast<std::size_t>(n));
    for (std::int64_t j = 0; j < n; ++j) b[static_cast<std::size_t>(j)] = j == 3 ? nan : static_cast<float>(j % 2 ? j : -j);
    each_sgemm_path([&](const char* mode) {
      std::vector<float> c(static_cast<std::size_t>(2 * n), 123.0f);
      Sgemm::Epilogue ep;
      ep.relu = true;
      Sgemm::run(2, n, 1, Sgemm::AOperand::row_major(a.data(), 1), Sgemm::BOperand::row_major(b.data(), n), c.data(), n, ep);
      for (std::int64_t j = 0; j < n; ++j) {
        const float v0 = c[static_cast<std::size_t>(j)], v1 = c[static_cast<std::size_t>(n + j)];
        if (j == 3) {
          EXPECT_TRUE(std::isnan(v0) && std::isnan(v1)) << "n=" << n << " " << mode;
        } else {
          const float x = static_cast<float>(j % 2 ? j : -j);
          EXPECT_EQ(v0, x > 0 ? x : 0.0f) << j << " " << mode;
          EXPECT_EQ(v1, -x > 0 ? -x : 0.0f) << j << " " << mode;
        }
      }
    });
  }
}

// A kernel as the module's adapter for a generated one presents it: relu(h + b) over [rows, n],
// b broadcast along the rows. Hand-written here; the runtime does not see what wrote it.
struct AddRelu {
  static void run(const std::array<std::int64_t, 2>& e, std::byte* out, std::uint64_t out_bytes, const KernelBytes& h,
                  const KernelBytes& b) {
    const std::int64_t rows = e[0], n = e[1];
    ASSERT_EQ(out_bytes, static_cast<std::uint64_t>(rows * n) * sizeof(float));
    ASSERT_EQ(h.bytes, out_bytes);
    ASSERT_EQ(b.bytes, static_cast<std::uint64_t>(n) * sizeof(float));
    const auto* hv = reinterpret_cast<const float*>(h.data);
    const auto* bv = reinterpret_cast<const float*>(b.data);
    auto* y = reinterpret_cast<float*>(out);
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t j = 0; j < n; ++j) y[r * n + j] = std::max(hv[r * n + j] + bv[j], 0.0f);
  }
};

// A small network through the opaque backend gives what it gives through Cpu.
template <Backend B>
HostTensor<float, Axes<Batch, Out>> tiny_forward(B& backend, const HostTensor<float, Axes<Batch, Feat>>& x,
                                                 const HostTensor<float, Axes<Feat, Hidden>>& w1, const HostTensor<float, Axes<Hidden>>& b1,
                                                 const HostTensor<float, Axes<Hidden, Out>>& w2) {
  auto h = backend.matmul(backend.upload(x), backend.upload(w1));
  const std::array<std::int64_t, 2> extents = {x.extents()[0], w1.extents()[1]};
  auto a = backend.template loom<Axes<Batch, Hidden>, float>(AddRelu{}, extents, extents, h, backend.upload(b1));
  auto y = backend.matmul(a, backend.upload(w2));
  return backend.download(backend.softmax(y, -1));
}

TEST(OpaqueBackend, RunsThroughTheSeamLikeCpu) {
  HostTensor<float, Axes<Batch, Feat>> x({2, 3}, {1, 2, 3, -1, 0, 1});
  HostTensor<float, Axes<Feat, Hidden>> w1({3, 2}, {1, -1, 0, 1, 1, 0});
  HostTensor<float, Axes<Hidden>> b1({2}, {0.5f, -3});
  HostTensor<float, Axes<Hidden, Out>> w2({2, 2}, {1, 0, 0, 1});
  Cpu c;
  OpaqueBackend o;
  const auto want = tiny_forward(c, x, w1, b1, w2);
  const auto got = tiny_forward(o, x, w1, b1, w2);
  EXPECT_EQ(values(got), values(want));
  // By hand: row 0: h = [4, 1] + b = [4.5, -2] -> relu [4.5, 0]; softmax = [1/(1+e^-4.5), ...]
  EXPECT_NEAR(want.data()[0], 1.0f / (1.0f + std::exp(-4.5f)), 1e-6);
}

// An epilogue as the module's adapter presents one: relu(p + b) on rows [first, first + count) of a
// result of rows of n, b one element per row (a Conv's channel, here broadcast as a row's own
// scalar) or one per column. Each run is logged, so a test sees the rows come as the product
// finishes them.
struct RowsAddRelu {
  static inline std::vector<std::pair<std::int64_t, std::int64_t>> runs;
  static inline bool per_row = false;
  static void run(const std::array<std::int64_t, 4>& e, std::byte* out, std::uint64_t out_bytes, const KernelBytes& p,
                  const KernelBytes& b) {
    const std::int64_t n = e[0], channels = e[1], first = e[2], count = e[3];
    runs.emplace_back(first, count);
    ASSERT_EQ(p.bytes, out_bytes);
    const auto* pv = reinterpret_cast<const float*>(p.data);
    const auto* bv = reinterpret_cast<const float*>(b.data);
    auto* y = reinterpret_cast<float*>(out);
    for (std::int64_t r = first; r < first + count; ++r)
      for (std::int64_t j = 0; j < n; ++j) y[r * n + j] = std::max(pv[r * n + j] + (per_row ? bv[r % channels] : bv[j]), 0.0f);
  }
};

// Whether the runs cover rows [0, rows) once each, in order.
bool covers_in_order(const std::vector<std::pair<std::int64_t, std::int64_t>>& runs, std::int64_t rows) {
  std::int64_t next = 0;
  for (const auto& [first, count] : runs) {
    if (first != next || count <= 0) return false;
    next += count;
  }
  return next == rows;
}

TEST(Epilogue, RunsOnAMatrixProductsRowsAsTheyAreFinished) {
  std::mt19937 gen(5);
  std::uniform_real_distribution<float> u(-1, 1);
  // 300 rows: the SGEMM finishes them in blocks of 128; K past one block of 256 finishes none early.
  for (const std::int64_t k : {std::int64_t{7}, std::int64_t{300}}) {
    SCOPED_TRACE("k " + std::to_string(k));
    HostTensor<float, Axes<Batch, Feat>> a({300, k});
    HostTensor<float, Axes<Feat, Hidden>> w({k, 5});
    HostTensor<float, Axes<Hidden>> b({5});
    for (std::int64_t i = 0; i < a.count(); ++i) a.data()[i] = u(gen);
    for (std::int64_t i = 0; i < w.count(); ++i) w.data()[i] = u(gen);
    for (std::int64_t i = 0; i < b.count(); ++i) b.data()[i] = u(gen);
    const std::array<std::int64_t, 2> extents = {300, 5};
    const std::array<std::int64_t, 2> args = {5, 1};
    const auto want = cpu.loom<Axes<Batch, Hidden>, float>(AddRelu{}, extents, extents, cpu.matmul(a, w), b);
    RowsAddRelu::per_row = false;
    RowsAddRelu::runs.clear();
    const auto got = cpu.matmul(a, w, epilogue<Axes<Batch, Hidden>, float>(RowsAddRelu{}, extents, args, b));
    EXPECT_EQ(values(got), values(want));
    EXPECT_TRUE(covers_in_order(RowsAddRelu::runs, 300));
    EXPECT_EQ(RowsAddRelu::runs.size(), 3u);  // 128, 128, 44
    // A packed weight, through the opaque backend: the same elements.
    OpaqueBackend opaque;
    const PackedMatrix<Feat, Hidden> packed(w);
    const auto through = opaque.download(opaque.matmul(opaque.upload(a), packed, false,
                                                       epilogue<Axes<Batch, Hidden>, float>(RowsAddRelu{}, extents, args, opaque.upload(b))));
    EXPECT_EQ(values(through), values(want));
  }
  // An operand that does not meet the result is refused before the product runs.
  HostTensor<float, Axes<Batch, Feat>> a({2, 3});
  HostTensor<float, Axes<Feat, Hidden>> w({3, 4});
  HostTensor<float, Axes<Hidden>> wrong({3});
  EXPECT_THROW((cpu.matmul(a, w, epilogue<Axes<Batch, Hidden>, float>(RowsAddRelu{}, std::array<std::int64_t, 2>{2, 4},
                                                                        std::array<std::int64_t, 2>{4, 1}, wrong))),
               KernelMisuse);
}

TEST(Epilogue, RunsOnEachPlaneOfEveryConvolutionPath) {
  struct N {};
  struct C {};
  struct K {};
  struct H {};
  struct W {};
  struct KH {};
  struct KW {};
  struct Case {
    std::array<std::int64_t, 4> x, w;
    WindowParams conv;
  };
  const std::vector<Case> cases = {
      {{2, 3, 9, 8}, {4, 3, 3, 3}, {{}, {}, {1, 1, 1, 1}, {}, 1, AutoPad::NotSet, false, false}},  // stride 1: implicit
      {{2, 3, 9, 8}, {4, 3, 3, 3}, {{}, {2, 2}, {1, 1, 1, 1}, {}, 1, AutoPad::NotSet, false, false}},  // strided: im2col
      {{2, 4, 9, 8}, {4, 1, 3, 3}, {{}, {}, {1, 1, 1, 1}, {}, 4, AutoPad::NotSet, false, false}},  // depthwise
      {{2, 4, 9, 8}, {6, 2, 1, 1}, {{}, {}, {}, {}, 2, AutoPad::NotSet, false, false}},  // pointwise, grouped
  };
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    SCOPED_TRACE("case " + std::to_string(i));
    Tensor<float, Axes<N, C, H, W>> x(c.x);
    Tensor<float, Axes<K, C, KH, KW>> wt(c.w);
    Tensor<float, Axes<K>> bias({c.w[0]});
    for (std::int64_t j = 0; j < x.count(); ++j) x.data()[j] = u(rng);
    for (std::int64_t j = 0; j < wt.count(); ++j) wt.data()[j] = u(rng);
    for (std::int64_t j = 0; j < bias.count(); ++j) bias.data()[j] = u(rng);
    // The bias as the kernel reads it: per channel, aligned with the result's last axes.
    Tensor<float, Axes<K, One, One>> channel({c.w[0], 1, 1}, values(bias));
    const PackedConv<Axes<K, C, KH, KW>> w(wt, c.conv.group);
    const auto product = cpu.conv<Axes<N, K, H, W>>(x, w, c.conv);
    const auto& e = product.extents();
    const std::int64_t plane = e[2] * e[3], rows = e[0] * e[1];
    // The same kernel over every plane at once gives what the epilogue must.
    RowsAddRelu::per_row = true;
    RowsAddRelu::runs.clear();
    std::vector<std::byte> want(static_cast<std::size_t>(product.count()) * sizeof(float));
    RowsAddRelu::run({plane, e[1], 0, rows}, want.data(), want.size(),
                     KernelBytes{reinterpret_cast<const std::byte*>(product.data()), want.size()},
                     KernelBytes{reinterpret_cast<const std::byte*>(bias.data()), static_cast<std::uint64_t>(bias.count()) * sizeof(float)});
    RowsAddRelu::runs.clear();
    const auto got = cpu.conv<Axes<N, K, H, W>>(x, w, c.conv, false,
                                               epilogue<Axes<N, K, H, W>, float>(RowsAddRelu{}, e, std::array<std::int64_t, 2>{plane, e[1]}, channel));
    ASSERT_EQ(got.count() * static_cast<std::int64_t>(sizeof(float)), static_cast<std::int64_t>(want.size()));
    EXPECT_EQ(std::memcmp(got.data(), want.data(), want.size()), 0);
    EXPECT_TRUE(covers_in_order(RowsAddRelu::runs, rows));
    EXPECT_GT(RowsAddRelu::runs.size(), 1u);  // each image (and group) as it is finished
  }
}

TEST(Loom, RefusesAnOperandThatDoesNotMeetTheResult) {
  HostTensor<float, Axes<Batch, Hidden>> h({2, 3}, {1, 2, 3, 4, 5, 6});
  HostTensor<float, Axes<Hidden>> b({3}, {-2, 0, 2}), wrong({2}, {0, 0});
  const std::array<std::int64_t, 2> extents = {2, 3};
  EXPECT_EQ(values(cpu.loom<Axes<Batch, Hidden>, float>(AddRelu{}, extents, extents, h, b)), (std::vector<float>{0, 2, 5, 2, 5, 8}));
  EXPECT_THROW((cpu.loom<Axes<Batch, Hidden>, float>(AddRelu{}, extents, extents, h, wrong)), KernelMisuse);
  const std::array<std::int64_t, 2> more_rows = {4, 3};
  EXPECT_THROW((cpu.loom<Axes<Batch, Hidden>, float>(AddRelu{}, more_rows, more_rows, h, b)), KernelMisuse);
}

}  // namespace
