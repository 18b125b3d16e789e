// Every kernel against onnxruntime: oracle_cases.inc holds the inputs and what onnxruntime
// computed for one small model per case (written by make_oracle_cases.py).
#include <gtest/gtest.h>

#include "loam/runtime.hpp"
#include "oracle_cases.hpp"

namespace {

using namespace loam_runtime;
using loam_oracle::OracleTensor;
namespace oracle = loam_oracle::oracle;

struct N {};
struct C {};
struct Cout {};
struct Cin {};
struct H {};
struct W {};
struct D {};
struct KH {};
struct KW {};
struct KD {};
struct M {};
struct K {};
struct Nn {};
struct B0 {};
struct B1 {};
struct One {
  static constexpr std::int64_t EXTENT = 1;
};

template <class L, class T>
Tensor<T, L> load(const OracleTensor<T>& t) {
  typename Tensor<T, L>::Extents e{};
  EXPECT_EQ(t.shape.size(), e.size());
  for (std::size_t i = 0; i < e.size() && i < t.shape.size(); ++i) e[i] = t.shape[i];
  return Tensor<T, L>(e, t.values);
}

template <class T, class L>
void expect_matches(const Tensor<T, L>& got, const OracleTensor<T>& want, double rtol = 1e-4, double atol = 1e-5) {
  ASSERT_EQ(got.extents().size(), want.shape.size());
  for (std::size_t i = 0; i < want.shape.size(); ++i) ASSERT_EQ(got.extents()[i], want.shape[i]) << "extent " << i;
  ASSERT_EQ(static_cast<std::size_t>(got.count()), want.values.size());
  for (std::size_t i = 0; i < want.values.size(); ++i) {
    if constexpr (std::is_same_v<T, float>) {
      const double g = got.data()[i], w = want.values[i];
      EXPECT_NEAR(g, w, atol + rtol * std::fabs(w)) << "element " << i;
    } else {
      EXPECT_EQ(got.data()[i], want.values[i]) << "element " << i;
    }
  }
}

Cpu cpu;

template <class Case, class WAxes>
PackedConv<WAxes> packed(const OracleTensor<float>& w, std::int64_t group = 1) {
  return PackedConv<WAxes>(load<WAxes>(w), group);
}

TEST(OracleConv, PadsAndBias) {
  using namespace oracle::conv2d_pads;
  WindowParams p;
  p.pads = {1, 1, 1, 1};
  auto y = cpu.conv<Axes<N, Cout, H, W>>(load<Axes<N, Cin, H, W>>(x), packed<void, Axes<Cout, Cin, KH, KW>>(w), load<Axes<Cout>>(b), p);
  expect_matches(y, out0);
}

TEST(OracleConv, StridesDilationsAsymmetricPads) {
  using namespace oracle::conv2d_stride_dilation;
  WindowParams p;
  p.strides = {2, 1};
  p.dilations = {2, 3};
  p.pads = {0, 1, 2, 0};
  auto y = cpu.conv<Axes<N, Cout, H, W>>(load<Axes<N, Cin, H, W>>(x), load<Axes<Cout, Cin, KH, KW>>(w), p);
  expect_matches(y, out0);
}

TEST(OracleConv, Groups) {
  using namespace oracle::conv2d_groups;
  WindowParams p;
  p.group = 2;
  p.strides = {1, 2};
  auto y = cpu.conv<Axes<N, Cout, H, W>>(load<Axes<N, C, H, W>>(x), packed<void, Axes<Cout, Cin, KH, KW>>(w, 2), load<Axes<Cout>>(b), p);
  expect_matches(y, out0);
}

TEST(OracleConv, Depthwise) {
  using namespace oracle::conv2d_depthwise;
  WindowParams p;
  p.group = 5;
  p.pads = {1, 1, 1, 1};
  auto y = cpu.conv<Axes<N, Cout, H, W>>(load<Axes<N, C, H, W>>(x), load<Axes<Cout, Cin, KH, KW>>(w), p);
  expect_matches(y, out0);
}

TEST(OracleConv, DepthwiseWithTwoChannelsPerGroupStridedDilatedAndPadded) {
  using namespace oracle::conv2d_depthwise_strided;
  WindowParams p;
  p.group = 4;
  p.strides = {2, 1};
  p.pads = {1, 0, 1, 2};
  p.dilations = {1, 2};
  expect_matches(cpu.conv<Axes<N, Cout, H, W>>(load<Axes<N, C, H, W>>(x), load<Axes<Cout, Cin, KH, KW>>(w), load<Axes<Cout>>(b), p), out0);
  // With Relu in the store: onnxruntime's values with negatives zeroed.
  OracleTensor<float> want = out0;
  for (auto& v : want.values) v = std::max(v, 0.0f);
  expect_matches(cpu.conv<Axes<N, Cout, H, W>>(load<Axes<N, C, H, W>>(x), load<Axes<Cout, Cin, KH, KW>>(w), load<Axes<Cout>>(b), p, true), want);
}

TEST(OracleConv, DepthwiseAtColumnStrideTwoAndWithAKernelOfAnyExtent) {
  {
    using namespace oracle::conv2d_depthwise_stride2;
    WindowParams p;
    p.group = 3;
    p.strides = {2, 2};
    p.pads = {1, 1, 1, 1};
    expect_matches(cpu.conv<Axes<N, Cout, H, W>>(load<Axes<N, C, H, W>>(x), load<Axes<Cout, Cin, KH, KW>>(w), p), out0);
  }
  {
    using namespace oracle::conv2d_depthwise_5x4;
    WindowParams p;
    p.group = 2;
    p.strides = {1, 3};
    p.pads = {2, 1, 2, 1};
    expect_matches(cpu.conv<Axes<N, Cout, H, W>>(load<Axes<N, C, H, W>>(x), load<Axes<Cout, Cin, KH, KW>>(w), load<Axes<Cout>>(b), p), out0);
  }
}

// Rows wider than the kernel's column blocks, output rows not a multiple of the rows it computes
// together, and stride 2 with either parity of left pad and an even column dilation.
TEST(OracleConv, DepthwiseOverWideRows) {
  {
    using namespace oracle::conv2d_depthwise_wide;
    WindowParams p;
    p.group = 3;
    p.pads = {1, 1, 1, 1};
    expect_matches(cpu.conv<Axes<N, Cout, H, W>>(load<Axes<N, C, H, W>>(x), load<Axes<Cout, Cin, KH, KW>>(w), load<Axes<Cout>>(b), p), out0);
  }
  {
    using namespace oracle::conv2d_depthwise_stride2_wide;
    WindowParams p;
    p.group = 2;
    p.strides = {2, 2};
    p.pads = {0, 0, 1, 1};
    expect_matches(cpu.conv<Axes<N, Cout, H, W>>(load<Axes<N, C, H, W>>(x), load<Axes<Cout, Cin, KH, KW>>(w), load<Axes<Cout>>(b), p), out0);
  }
  {
    using namespace oracle::conv2d_depthwise_stride2_dilated;
    WindowParams p;
    p.group = 2;
    p.strides = {2, 2};
    p.pads = {2, 2, 2, 1};
    p.dilations = {1, 2};
    expect_matches(cpu.conv<Axes<N, Cout, H, W>>(load<Axes<N, C, H, W>>(x), load<Axes<Cout, Cin, KH, KW>>(w), p), out0);
  }
}

TEST(OracleConv, OneSpatialAxis) {
  using namespace oracle::conv1d;
  WindowParams p;
  p.strides = {2};
  p.pads = {1, 2};
  p.dilations = {2};
  auto y = cpu.conv<Axes<N, Cout, W>>(load<Axes<N, Cin, W>>(x), load<Axes<Cout, Cin, KW>>(w), load<Axes<Cout>>(b), p);
  expect_matches(y, out0);
}

TEST(OracleConv, ThreeSpatialAxes) {
  using namespace oracle::conv3d;
  WindowParams p;
  p.pads = {1, 0, 1, 0, 1, 1};
  auto y = cpu.conv<Axes<N, Cout, D, H, W>>(load<Axes<N, Cin, D, H, W>>(x), load<Axes<Cout, Cin, KD, KH, KW>>(w), p);
  expect_matches(y, out0);
}

TEST(OracleConv, AutoPadSameUpper) {
  using namespace oracle::conv2d_same_upper;
  WindowParams p;
  p.auto_pad = AutoPad::SameUpper;
  auto y = cpu.conv<Axes<N, Cout, H, W>>(load<Axes<N, Cin, H, W>>(x), load<Axes<Cout, Cin, KH, KW>>(w), load<Axes<Cout>>(b), p);
  expect_matches(y, out0);
}

TEST(OracleConv, AutoPadSameLowerStrided) {
  using namespace oracle::conv2d_same_lower_stride;
  WindowParams p;
  p.auto_pad = AutoPad::SameLower;
  p.strides = {2, 2};
  auto y = cpu.conv<Axes<N, Cout, H, W>>(load<Axes<N, Cin, H, W>>(x), load<Axes<Cout, Cin, KH, KW>>(w), p);
  expect_matches(y, out0);
}

TEST(OracleConv, PointwiseReadsInputInPlace) {
  using namespace oracle::conv2d_pointwise;
  auto y = cpu.conv<Axes<N, Cout, H, W>>(load<Axes<N, Cin, H, W>>(x), load<Axes<Cout, Cin, KH, KW>>(w), load<Axes<Cout>>(b), WindowParams{});
  expect_matches(y, out0);
}

TEST(OracleConv, DeepChannelsCrossTheKBlock) {
  using namespace oracle::conv2d_deep;
  WindowParams p;
  p.pads = {1, 1, 1, 1};
  auto y = cpu.conv<Axes<N, Cout, H, W>>(load<Axes<N, Cin, H, W>>(x), packed<void, Axes<Cout, Cin, KH, KW>>(w), load<Axes<Cout>>(b), p);
  expect_matches(y, out0);
}

TEST(OracleConv, FusedReluMatchesReluAfterConv) {
  using namespace oracle::conv2d_pads;
  WindowParams p;
  p.pads = {1, 1, 1, 1};
  auto y = cpu.conv<Axes<N, Cout, H, W>>(load<Axes<N, Cin, H, W>>(x), load<Axes<Cout, Cin, KH, KW>>(w), load<Axes<Cout>>(b), p, true);
  OracleTensor<float> want = out0;
  for (auto& v : want.values) v = std::max(v, 0.0f);
  expect_matches(y, want);
}

TEST(OraclePool, MaxCeilModePads) {
  using namespace oracle::maxpool2d_ceil;
  WindowParams p;
  p.kernel_shape = {3, 3};
  p.strides = {2, 2};
  p.pads = {1, 1, 1, 1};
  p.ceil_mode = true;
  expect_matches(cpu.max_pool<Axes<N, C, H, W>>(load<Axes<N, C, H, W>>(x), p), out0);
}

TEST(OraclePool, MaxDilations) {
  using namespace oracle::maxpool2d_dilation;
  WindowParams p;
  p.kernel_shape = {2, 3};
  p.dilations = {2, 2};
  p.pads = {0, 1, 1, 0};
  expect_matches(cpu.max_pool<Axes<N, C, H, W>>(load<Axes<N, C, H, W>>(x), p), out0);
}

TEST(OraclePool, MaxOneAndThreeSpatialAxes) {
  {
    using namespace oracle::maxpool1d;
    WindowParams p;
    p.kernel_shape = {3};
    p.strides = {3};
    expect_matches(cpu.max_pool<Axes<N, C, W>>(load<Axes<N, C, W>>(x), p), out0);
  }
  {
    using namespace oracle::maxpool3d;
    WindowParams p;
    p.kernel_shape = {2, 2, 3};
    p.strides = {1, 2, 2};
    p.pads = {1, 0, 1, 0, 1, 1};
    expect_matches(cpu.max_pool<Axes<N, C, D, H, W>>(load<Axes<N, C, D, H, W>>(x), p), out0);
  }
}

TEST(OraclePool, AverageCountIncludePad) {
  WindowParams p;
  p.kernel_shape = {3, 3};
  p.strides = {2, 2};
  p.pads = {1, 1, 1, 1};
  {
    using namespace oracle::avgpool_exclude_pad;
    expect_matches(cpu.average_pool<Axes<N, C, H, W>>(load<Axes<N, C, H, W>>(x), p), out0);
  }
  p.count_include_pad = true;
  {
    using namespace oracle::avgpool_include_pad;
    expect_matches(cpu.average_pool<Axes<N, C, H, W>>(load<Axes<N, C, H, W>>(x), p), out0);
  }
}

TEST(OraclePool, AverageCeilMode) {
  using namespace oracle::avgpool_ceil;
  WindowParams p;
  p.kernel_shape = {2, 2};
  p.strides = {2, 2};
  p.ceil_mode = true;
  expect_matches(cpu.average_pool<Axes<N, C, H, W>>(load<Axes<N, C, H, W>>(x), p), out0);
}

TEST(OraclePool, WindowsThatTileTheInput) {
  WindowParams p;
  p.kernel_shape = {2, 2};
  p.strides = {2, 2};
  {
    using namespace oracle::maxpool2d_tiled2;
    expect_matches(cpu.max_pool<Axes<N, C, H, W>>(load<Axes<N, C, H, W>>(x), p), out0);
  }
  {
    using namespace oracle::avgpool_tiled2;
    expect_matches(cpu.average_pool<Axes<N, C, H, W>>(load<Axes<N, C, H, W>>(x), p), out0);
  }
  p.kernel_shape = {3, 3};
  p.strides = {3, 3};
  {
    using namespace oracle::maxpool2d_tiled3;
    expect_matches(cpu.max_pool<Axes<N, C, H, W>>(load<Axes<N, C, H, W>>(x), p), out0);
  }
  {
    using namespace oracle::avgpool_tiled3;
    expect_matches(cpu.average_pool<Axes<N, C, H, W>>(load<Axes<N, C, H, W>>(x), p), out0);
  }
}

TEST(OraclePool, GlobalAverage) {
  using namespace oracle::global_average_pool;
  expect_matches(cpu.global_average_pool<Axes<N, C, One, One>>(load<Axes<N, C, H, W>>(x)), out0);
}

TEST(OracleGemm, TransposedWithRowBiasAlphaBeta) {
  using namespace oracle::gemm_trans_c_row;
  auto y = cpu.gemm<true, true>(load<Axes<K, M>>(a), load<Axes<Nn, K>>(b), load<Axes<Nn>>(c), 0.5f, 2.0f);
  static_assert(std::is_same_v<decltype(y), Tensor<float, Axes<M, Nn>>>);
  expect_matches(y, out0);
  // The same with B packed at load time.
  auto packed_b = PackedMatrix<K, Nn>::from_transposed(load<Axes<Nn, K>>(b));
  expect_matches(cpu.gemm<true>(load<Axes<K, M>>(a), packed_b, load<Axes<Nn>>(c), 0.5f, 2.0f), out0);
}

TEST(OracleGemm, ColumnBiasNegativeBeta) {
  using namespace oracle::gemm_c_column;
  expect_matches(cpu.gemm(load<Axes<M, K>>(a), load<Axes<K, Nn>>(b), load<Axes<M, One>>(c), 1.0f, -1.0f), out0);
}

TEST(OracleGemm, FullC) {
  using namespace oracle::gemm_c_full;
  expect_matches(cpu.gemm(load<Axes<M, K>>(a), load<Axes<K, Nn>>(b), load<Axes<M, Nn>>(c), 1.5f), out0);
}

TEST(OracleMatMul, BatchAxisOfOneStretches) {
  using namespace oracle::matmul_batch_stretch;
  expect_matches(cpu.matmul_broadcast<Axes<B0, B1, M, Nn>>(load<Axes<B0, One, M, K>>(a), load<Axes<B1, K, Nn>>(b)), out0);
}

TEST(OracleMatMul, RankOneOperands) {
  {
    using namespace oracle::matmul_vector_left;
    expect_matches(cpu.matmul_broadcast<Axes<B0, Nn>>(load<Axes<K>>(a), load<Axes<B0, K, Nn>>(b)), out0);
  }
  {
    using namespace oracle::matmul_vector_right;
    expect_matches(cpu.matmul_broadcast<Axes<B0, M>>(load<Axes<B0, M, K>>(a), load<Axes<K>>(b)), out0);
  }
}

TEST(OracleMatMul, LargeWithEdgesAndKBlocks) {
  using namespace oracle::matmul_large;
  auto y = cpu.matmul(load<Axes<M, K>>(a), load<Axes<K, Nn>>(b));
  static_assert(std::is_same_v<decltype(y), Tensor<float, Axes<M, Nn>>>);
  expect_matches(y, out0);
  PackedMatrix<K, Nn> w(load<Axes<K, Nn>>(b));
  expect_matches(cpu.matmul(load<Axes<M, K>>(a), w), out0);
}

TEST(OracleMatMul, RankTwoWeightBroadcastsOverBatch) {
  using namespace oracle::matmul_batched_weight;
  auto y = cpu.matmul(load<Axes<B0, M, K>>(a), load<Axes<K, Nn>>(b));
  static_assert(std::is_same_v<decltype(y), Tensor<float, Axes<B0, M, Nn>>>);
  expect_matches(y, out0);
  PackedMatrix<K, Nn> w(load<Axes<K, Nn>>(b));
  expect_matches(cpu.matmul(load<Axes<B0, M, K>>(a), w), out0);
}

TEST(OracleSoftmax, Forms) {
  {
    using namespace oracle::softmax13_axis1;
    expect_matches(cpu.softmax(load<Axes<B0, M, K>>(x), 1), out0);
  }
  {
    using namespace oracle::softmax11_flattened;
    expect_matches(cpu.softmax_flattened(load<Axes<B0, M, K>>(x), 1), out0);
  }
  {
    using namespace oracle::logsoftmax13_last;
    expect_matches(cpu.log_softmax(load<Axes<B0, K>>(x), -1), out0);
  }
}

TEST(OracleReduce, MeanAndSum) {
  {
    using namespace oracle::reduce_mean_02;
    const std::int64_t ax[] = {0, 2};
    expect_matches(cpu.reduce_mean<Axes<M>>(load<Axes<B0, M, K>>(x), ax, false), out0);
  }
  {
    using namespace oracle::reduce_sum_neg_keep;
    const std::int64_t ax[] = {-1};
    expect_matches(cpu.reduce_sum<Axes<B0, M, One>>(load<Axes<B0, M, K>>(x), ax, true), out0);
  }
}

TEST(OracleNorm, LayerAndBatch) {
  {
    using namespace oracle::layer_norm;
    expect_matches(cpu.layer_normalization(load<Axes<B0, M, K>>(x), load<Axes<K>>(s), load<Axes<K>>(b), -1, 1e-5f), out0);
  }
  {
    using namespace oracle::batch_norm;
    expect_matches(cpu.batch_normalization(load<Axes<N, C, H, W>>(x), load<Axes<C>>(s), load<Axes<C>>(b), load<Axes<C>>(m), load<Axes<C>>(v), 1e-3f),
                   out0);
  }
}

TEST(OracleMove, Pad) {
  {
    using namespace oracle::pad_reflect;
    expect_matches(cpu.pad<Axes<M, K>>(load<Axes<M, K>>(x), pads.values, PadMode::Reflect), out0, 0, 0);
  }
  {
    using namespace oracle::pad_edge;
    expect_matches(cpu.pad<Axes<M, K>>(load<Axes<M, K>>(x), pads.values, PadMode::Edge), out0, 0, 0);
  }
  {
    using namespace oracle::pad_constant_crop;
    expect_matches(cpu.pad<Axes<M, K>>(load<Axes<M, K>>(x), pads.values, PadMode::Constant, 2.5f), out0, 0, 0);
  }
}

TEST(OracleMove, GatherSliceTileExpandTransposeConcat) {
  {
    using namespace oracle::gather_axis1_negative;
    expect_matches(cpu.gather<Axes<B0, M, K, Nn>>(load<Axes<B0, D, Nn>>(x), load<Axes<M, K>>(i), 1), out0, 0, 0);
  }
  {
    using namespace oracle::slice_negative_step;
    expect_matches(cpu.slice<Axes<M, K>>(load<Axes<M, K>>(x), st.values, en.values, ax.values, sp.values), out0, 0, 0);
  }
  {
    using namespace oracle::tile;
    expect_matches(cpu.tile<Axes<M, K>>(load<Axes<M, K>>(x), r.values), out0, 0, 0);
  }
  {
    using namespace oracle::expand;
    expect_matches(cpu.expand<Axes<B0, M, K>>(load<Axes<M, One>>(x), s.values), out0, 0, 0);
  }
  {
    using namespace oracle::transpose;
    auto t = load<Axes<B0, M, K>>(x);
    expect_matches(cpu.transpose<Axes<K, B0, M>>(t, {2, 0, 1}), out0, 0, 0);
    expect_matches(cpu.transpose<Axes<K, B0, M>>(t), out0, 0, 0);  // the permutation read from the names
  }
  {
    using namespace oracle::concat_axis1;
    expect_matches(cpu.concat<Axes<B0, M, K>>(1, load<Axes<B0, One, K>>(a), load<Axes<B0, D, K>>(b)), out0, 0, 0);
  }
}

TEST(OracleReduce, ArgMaxSelectLastIndex) {
  using namespace oracle::argmax_last_index;
  expect_matches(cpu.argmax<Axes<M>>(load<Axes<M, K>>(x), 1, false, true), out0);
}

}  // namespace

namespace {

TEST(OracleConv, StrideOneDilatedGroupedBatch) {
  using namespace oracle::conv2d_stride1_dilated_groups;
  WindowParams p;
  p.group = 2;
  p.dilations = {2, 3};
  p.pads = {2, 0, 1, 3};
  auto y = cpu.conv<Axes<N, Cout, H, W>>(load<Axes<N, C, H, W>>(x), packed<void, Axes<Cout, Cin, KH, KW>>(w, 2), load<Axes<Cout>>(b), p);
  expect_matches(y, out0);
}

TEST(OracleResize, CubicLinearAndNearestBySizes) {
  {
    using namespace oracle::resize_cubic_align_corners;
    ResizeParams p{ResizeMode::Cubic, ResizeCoordinates::AlignCorners, NearestRounding::RoundPreferFloor};
    const std::array<std::int64_t, 4> out{1, 2, 7, 4};
    expect_matches(cpu.resize<Axes<N, C, H, W>>(load<Axes<N, C, H, W>>(x), out, scales.values, {}, p), out0);
  }
  {
    using namespace oracle::resize_linear_down;
    ResizeParams p{ResizeMode::Linear, ResizeCoordinates::HalfPixel, NearestRounding::RoundPreferFloor};
    const std::array<std::int64_t, 4> out{2, 1, 3, 4};
    expect_matches(cpu.resize<Axes<N, C, H, W>>(load<Axes<N, C, H, W>>(x), out, scales.values, {}, p), out0);
  }
  {
    using namespace oracle::resize_nearest_sizes;
    ResizeParams p{ResizeMode::Nearest, ResizeCoordinates::HalfPixel, NearestRounding::RoundPreferCeil};
    const std::array<std::int64_t, 4> out{1, 3, 7, 5};
    const std::array<float, 4> by_sizes{1, 1, 0, 0};
    expect_matches(cpu.resize<Axes<N, C, H, W>>(load<Axes<N, C, H, W>>(x), out, by_sizes, {}, p), out0, 0, 0);
  }
}

TEST(OracleConvTranspose, GroupsStridesDilationsPadsAndBias) {
  using namespace oracle::conv_transpose_grouped;
  const std::array<std::int64_t, 4> out{2, 4, 9, 10};
  const std::array<std::int64_t, 2> pads{1, 0}, strides{2, 3}, dilations{2, 1};
  auto y = cpu.conv_transpose<Axes<N, Cout, H, W>>(load<Axes<N, Cin, H, W>>(x), load<Axes<Cin, C, KH, KW>>(w), load<Axes<Cout>>(b), out,
                                                   pads, strides, dilations, 2);
  expect_matches(y, out0);
  // A result whose channels are not the weight's groups is a misuse, not a wrong number.
  const std::array<std::int64_t, 4> wrong{2, 6, 9, 10};
  auto misuse = [&] {
    return cpu.conv_transpose<Axes<N, Cout, H, W>>(load<Axes<N, Cin, H, W>>(x), load<Axes<Cin, C, KH, KW>>(w), wrong, pads, strides,
                                                   dilations, 2);
  };
  EXPECT_THROW(misuse(), KernelMisuse);
}

}  // namespace
