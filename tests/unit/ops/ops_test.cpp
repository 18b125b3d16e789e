// Shape rules and build-time folds per operator family. Expected shapes are ONNX's own examples
// (the operator pages and the names of its backend test cases) or worked by hand from the operator
// definitions; expected folds follow the definitions (numpy semantics where ONNX defers to it).
#include <gtest/gtest.h>

#include "onnx/normalize.hpp"
#include "onnx/reader.hpp"
#include "stage0/stage0.hpp"
#include "support/error.hpp"
#include "ops/operator.hpp"

namespace loam::stage0 {
namespace {

Extent S(const char* name) { return Extent::symbol(input_symbol(name)); }

Stage0Result run(const std::string& graph) {
  return run_stage0(read_onnx_text("<ir_version: 8, opset_import: [\"\" : 17, \"loam\" : 1]>\n" + graph, "t"), {.operators = &loam::ops::operators()});
}

std::vector<Extent> dims(std::initializer_list<int64_t> d) {
  std::vector<Extent> r;
  for (int64_t x : d) r.emplace_back(x);
  return r;
}

std::vector<Extent> ints(const Stage0Result& r, const std::string& v) {
  const auto& s = r.value(v);
  if (!s.value || s.value->kind != FoldedValue::Kind::Integer) throw Error("'" + v + "' did not fold to integers");
  return s.value->ints;
}

// ----- conv_pool -----

TEST(ConvPool, ConvWithPaddingAndStrides) {
  // ONNX Conv example "conv_with_strides_padding": x [1,1,7,5], W [1,1,3,3], pads 1, strides 2 -> [1,1,4,3].
  auto r = run(R"(g (float[1, 1, 7, 5] x, float[1, 1, 3, 3] w) => (float[?, ?, ?, ?] y) {
    y = Conv<kernel_shape = [3, 3], pads = [1, 1, 1, 1], strides = [2, 2]>(x, w)
  })");
  EXPECT_EQ(r.value("y").dims, dims({1, 1, 4, 3}));
  // "conv_with_strides_no_padding": -> [1,1,3,2].
  auto n = run(R"(g (float[1, 1, 7, 5] x, float[1, 1, 3, 3] w) => (float[?, ?, ?, ?] y) {
    y = Conv<strides = [2, 2]>(x, w)
  })");
  EXPECT_EQ(n.value("y").dims, dims({1, 1, 3, 2}));
}

TEST(ConvPool, ConvGroupsDilationsAutoPadAndSymbolicSpatial) {
  // Depthwise: 8 channels in 8 groups, W [8, 1, 3, 3], dilation 2: reach 5 -> 10 - 5 + 1 = 6.
  auto g = run(R"(g (float[2, 8, 10, 10] x, float[8, 1, 3, 3] w, float[8] b) => (float[?, ?, ?, ?] y) {
    y = Conv<group = 8, dilations = [2, 2]>(x, w, b)
  })");
  EXPECT_EQ(g.value("y").dims, dims({2, 8, 6, 6}));
  // SAME_UPPER: ceil(in / stride).
  auto s = run(R"(g (float[1, 3, 7, 7] x, float[4, 3, 3, 3] w) => (float[?, ?, ?, ?] y) {
    y = Conv<auto_pad = "SAME_UPPER", strides = [2, 2]>(x, w)
  })");
  EXPECT_EQ(s.value("y").dims, dims({1, 4, 4, 4}));
  // 1-D over a symbolic length with pads 1: floor((L + 2 - 3) / 1) + 1 = L, and it owes nothing
  // beyond L + 2 >= 3 (L - 1 >= 0).
  auto l = run(R"(g (float[B, 16, L] x, float[32, 16, 3] w) => (float[?, ?, ?] y) {
    y = Conv<pads = [1, 1]>(x, w)
  })");
  EXPECT_EQ(l.value("y").dims, (std::vector<Extent>{S("B"), Extent(32), S("L")}));
  ASSERT_EQ(l.owed.size(), 1u);
  EXPECT_EQ(l.owed[0].slack, S("L") - Extent(1));
  EXPECT_EQ(l.owed[0].kind, OwedKind::WindowReach);
}

TEST(ConvPool, PoolsCeilModeDilationsAndGlobal) {
  // "maxpool_2d_ceil": [1,1,4,4], kernel 3, strides 2, ceil_mode -> [1,1,2,2].
  auto c = run(R"(g (float[1, 1, 4, 4] x) => (float[?, ?, ?, ?] y) {
    y = MaxPool<kernel_shape = [3, 3], strides = [2, 2], ceil_mode = 1>(x)
  })");
  EXPECT_EQ(c.value("y").dims, dims({1, 1, 2, 2}));
  // "maxpool_2d_dilations": [1,1,4,4], kernel 2, dilations 2 -> [1,1,2,2].
  auto d = run(R"(g (float[1, 1, 4, 4] x) => (float[?, ?, ?, ?] y) {
    y = MaxPool<kernel_shape = [2, 2], dilations = [2, 2]>(x)
  })");
  EXPECT_EQ(d.value("y").dims, dims({1, 1, 2, 2}));
  // "averagepool_2d_same_upper": [1,3,32,32], kernel 2 -> [1,3,32,32].
  auto a = run(R"(g (float[1, 3, 32, 32] x) => (float[?, ?, ?, ?] y) {
    y = AveragePool<kernel_shape = [2, 2], auto_pad = "SAME_UPPER">(x)
  })");
  EXPECT_EQ(a.value("y").dims, dims({1, 3, 32, 32}));
  // "averagepool_2d_pads": [1,3,28,28], kernel 3, pads 2 -> [1,3,30,30].
  auto p = run(R"(g (float[1, 3, 28, 28] x) => (float[?, ?, ?, ?] y) {
    y = AveragePool<kernel_shape = [3, 3], pads = [2, 2, 2, 2]>(x)
  })");
  EXPECT_EQ(p.value("y").dims, dims({1, 3, 30, 30}));
  auto gl = run(R"(g (float[N, 3, 5, 7] x) => (float[?, ?, ?, ?] y) {
    y = GlobalAveragePool(x)
  })");
  EXPECT_EQ(gl.value("y").dims, (std::vector<Extent>{S("N"), Extent(3), Extent(1), Extent(1)}));
}

// ----- matmul -----

TEST(MatMulGemm, NumpySemanticsAndTransposes) {
  auto m = run(R"(g (float[2, 1, S, 64] a, float[3, 64, 5] b, float[64] v) => (float[?, ?, ?, ?] y, float[?, ?, ?] w) {
    y = MatMul(a, b)
    w = MatMul(a, v)
  })");
  EXPECT_EQ(m.value("y").dims, (std::vector<Extent>{Extent(2), Extent(3), S("S"), Extent(5)}));
  EXPECT_EQ(m.value("w").dims, (std::vector<Extent>{Extent(2), Extent(1), S("S")}));
  auto g = run(R"(g (float[K, M] a, float[N, K] b, float[N] c) => (float[?, ?] y) {
    y = Gemm<transA = 1, transB = 1>(a, b, c)
  })");
  EXPECT_EQ(g.value("y").dims, (std::vector<Extent>{S("M"), S("N")}));
  EXPECT_THROW(run(R"(g (float[3, 4] a, float[4, 5] b, float[3] c) => (float[?, ?] y) {
    y = Gemm(a, b, c)
  })"), Error);  // a bias of 3 does not broadcast to [3, 5]
}

// ----- reshape family -----

TEST(Regroupings, FlattenSqueezeUnsqueezeTranspose) {
  auto r = run(R"(g (float[N, 3, 4, 5] x) => (float[?, ?] f, float[?, ?, ?, ?, ?, ?] u, float[?, ?, ?, ?] t) <int64[2] ax = {-1, 1}> {
    f = Flatten<axis = -2>(x)
    u = Unsqueeze(x, ax)
    t = Transpose<perm = [3, 0, 2, 1]>(x)
  })");
  EXPECT_EQ(r.value("f").dims, (std::vector<Extent>{Extent(3) * S("N"), Extent(20)}));
  EXPECT_EQ(r.value("u").dims, (std::vector<Extent>{S("N"), Extent(1), Extent(3), Extent(4), Extent(5), Extent(1)}));
  EXPECT_EQ(r.value("t").dims, (std::vector<Extent>{Extent(5), S("N"), Extent(4), Extent(3)}));
}

TEST(Regroupings, FoldsRearrangeKnownValues) {
  auto r = run(R"(g (float[1] dummy) => (int64[?, ?] t, int64[?, ?] tl, int64[?, ?] e, int64[?] c, int64[?] s0, int64[?] s1) <int64[2, 3] m = {1, 2, 3, 4, 5, 6}, int64[2] reps = {1, 2}, int64[2] shp = {2, 3}, int64[1] row = {7}> {
    t = Transpose(m)
    tl = Tile(m, reps)
    e = Expand(row, shp)
    c = Concat<axis = 0>(row, row, row)
    flat = Constant<value_ints = [6]>()
    mf = Reshape(m, flat)
    s0, s1 = Split<axis = 0, num_outputs = 2>(mf)
  })");
  EXPECT_EQ(ints(r, "t"), (std::vector<Extent>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(r.value("tl").dims, dims({2, 6}));
  EXPECT_EQ(ints(r, "tl"), (std::vector<Extent>{1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6}));
  EXPECT_EQ(ints(r, "e"), (std::vector<Extent>{7, 7, 7, 7, 7, 7}));
  EXPECT_EQ(ints(r, "c"), (std::vector<Extent>{7, 7, 7}));
  EXPECT_EQ(ints(r, "s0"), (std::vector<Extent>{1, 2, 3}));
  EXPECT_EQ(ints(r, "s1"), (std::vector<Extent>{4, 5, 6}));
}

TEST(Regroupings, SplitUnevenNumOutputsAndSymbolicEqualParts) {
  // Opset 18's num_outputs: parts of ceil(7 / 3) = 3, the last what remains.
  auto r = run(R"(g (float[7] x, float[N] z) => (float[?] a, float[?] b, float[?] c, float[?] p, float[?] q) {
    a, b, c = Split<axis = 0, num_outputs = 3>(x)
    p, q = Split<axis = 0>(z)
  })");
  EXPECT_EQ(r.value("a").dims, dims({3}));
  EXPECT_EQ(r.value("c").dims, dims({1}));
  EXPECT_EQ(r.value("p").dims[0].to_string(), "floor(N / 2)");
  ASSERT_EQ(r.owed.size(), 1u);
  EXPECT_EQ(r.owed[0].kind, OwedKind::SplitParts);
  EXPECT_EQ(r.owed[0].slack.to_string(), "2 * floor(N / 2) - N");
}

// ----- slice / gather / pad -----

TEST(Select, GatherFoldsNegativeIndicesSliceFoldsNegativeSteps) {
  auto r = run(R"(g (float[A, B, C] x) => (int64[?] g, int64[?] s) <int64[2] idx = {-1, 0}, int64[1] st = {-1}, int64[1] en = {-1000}, int64[1] ax = {0}, int64[1] sp = {-2}> {
    sh = Shape(x)
    g = Gather<axis = 0>(sh, idx)
    s = Slice(sh, st, en, ax, sp)
  })");
  EXPECT_EQ(ints(r, "g"), (std::vector<Extent>{S("C"), S("A")}));
  EXPECT_EQ(ints(r, "s"), (std::vector<Extent>{S("C"), S("A")}));  // indices 2, 0
}

TEST(Select, PadAddsBothSides) {
  auto r = run(R"(g (float[N, 4] x) => (float[?, ?] y) <int64[4] pads = {1, 0, 2, -1}> {
    y = Pad(x, pads)
  })");
  EXPECT_EQ(r.value("y").dims, (std::vector<Extent>{S("N") + Extent(3), Extent(3)}));
}

TEST(ConvPool, ConvTransposeOutputsAndPads) {
  // stride * (in - 1) + output_padding + reach - pads: a 2 x 2 stride-2 window doubles a symbol.
  auto r = run(R"(g (float[N, 4, H, 5] x, float[4, 3, 2, 2] w, float[3] b) => (float[?, ?, ?, ?] y) {
    y = ConvTranspose<strides = [2, 2]>(x, w, b)
  })");
  EXPECT_EQ(r.value("y").dims, (std::vector<Extent>{S("N"), Extent(3), Extent(2) * S("H"), Extent(10)}));
  // Groups multiply the weight's axis 1; pads, dilations and output_padding (ONNX's example
  // "convtranspose_pads": [1, 1, 3, 3] by W [1, 2, 3, 3], strides [3, 2], pads [1, 2, 1, 2] -> [1, 2, 7, 3]).
  auto p = run(R"(g (float[1, 1, 3, 3] x, float[1, 2, 3, 3] w) => (float[?, ?, ?, ?] y) {
    y = ConvTranspose<strides = [3, 2], pads = [1, 2, 1, 2]>(x, w)
  })");
  EXPECT_EQ(p.value("y").dims, dims({1, 2, 7, 3}));
  auto g = run(R"(g (float[2, 4, 4, 3] x, float[4, 3, 3, 3] w) => (float[?, ?, ?, ?] y) {
    y = ConvTranspose<group = 2, strides = [2, 3], dilations = [2, 1], pads = [1, 0, 2, 1], output_padding = [1, 2]>(x, w)
  })");
  EXPECT_EQ(g.value("y").dims, dims({2, 6, 9, 10}));
  // output_shape and SAME_UPPER set the output (and leave the pads to it).
  auto o = run(R"(g (float[1, 1, 3, 3] x, float[1, 2, 3, 3] w) => (float[?, ?, ?, ?] y, float[?, ?, ?, ?] z) {
    y = ConvTranspose<strides = [3, 2], output_shape = [10, 8]>(x, w)
    z = ConvTranspose<strides = [2, 2], auto_pad = "SAME_UPPER">(x, w)
  })");
  EXPECT_EQ(o.value("y").dims, dims({1, 2, 10, 8}));
  EXPECT_EQ(o.value("z").dims, dims({1, 2, 6, 6}));
  EXPECT_THROW(run(R"(g (float[1, 3, 3, 3] x, float[3, 2, 3, 3] w) => (float[?, ?, ?, ?] y) {
    y = ConvTranspose<group = 2>(x, w)
  })"), Error);
}

// ----- resize -----

TEST(Resize, ScalesFloorTheExactProductSizesMayBeSymbolic) {
  // floor(length * scale) with the float's exact value: 0.5 of a symbol is floor(H / 2), 1.5 of 7
  // is 10, and 0.7f (0.699999988...) of 10 is 6, as ONNX's reference computes it.
  auto r = run(R"(g (float[N, 3, H, 7] x, float[2, 2, 10, 10] z) => (float[?, ?, ?, ?] y, float[?, ?, ?, ?] w) <float[4] s = {1, 1, 0.5, 1.5}, float[4] t = {1, 1, 0.7, 1}> {
    y = Resize<mode = "linear">(x, , s)
    w = Resize(z, , t)
  })");
  EXPECT_EQ(r.value("y").dims, (std::vector<Extent>{S("N"), Extent(3), floor_div(S("H"), Extent(2)), Extent(10)}));
  EXPECT_EQ(r.value("w").dims, dims({2, 2, 6, 10}));
  // Sizes folded from the input's shape keep its symbols.
  auto z = run(R"(g (float[N, 2, 4, 6] x) => (float[?, ?, ?, ?] y) <int64[1] zero = {0}, int64[1] two = {2}, int64[2] hw = {5, 11}> {
    sh = Shape(x)
    nc = Slice(sh, zero, two)
    sizes = Concat<axis = 0>(nc, hw)
    y = Resize<mode = "cubic">(x, , , sizes)
  })");
  EXPECT_EQ(z.value("y").dims, (std::vector<Extent>{S("N"), Extent(2), Extent(5), Extent(11)}));
}

// Stage 0 refuses the graph with a message holding `part`.
void refused(const std::string& graph, const std::string& part) {
  try {
    run(graph);
    ADD_FAILURE() << "accepted: " << graph;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST(Resize, RefusesWhatONNXLeavesUndefined) {
  refused(R"(g (float[1, 1, 4, 4] x) => (float[?, ?, ?, ?] y) <float[4] s = {1, 1, 2, 2}, int64[4] z = {1, 1, 8, 8}> {
    y = Resize(x, , s, z)
  })", "both scales and sizes");
  refused(R"(g (float[1, 1, 4, 4] x) => (float[?, ?, ?, ?] y) <float[4] s = {1, 1, 0, 2}> {
    y = Resize(x, , s)
  })", "a scale is a positive number");
  refused(R"(g (float[1, 1, 4, 4] x) => (float[?, ?, ?, ?] y) <float[4] s = {1, 1, 2, 2}> {
    y = Resize<coordinate_transformation_mode = "corners">(x, , s)
  })", "ONNX defines half_pixel");
  refused(R"(g (float[1, 1, 4, 4] x, float[4] s) => (float[?, ?, ?, ?] y) {
    y = Resize(x, , s)
  })", "computed at run time");
}

// ----- recurrent -----

TEST(Recurrent, OutputsByLayoutAndDirections) {
  // Y [seq, directions, batch, hidden] and the states [directions, batch, hidden]; hidden_size
  // read from R where the attribute is absent.
  auto r = run(R"(g (float[S, N, 5] x, float[2, 24, 5] w, float[2, 24, 6] r, float[2, N, 6] h) => (float[?, ?, ?, ?] y, float[?, ?, ?] yh, float[?, ?, ?] yc) {
    y, yh, yc = LSTM<direction = "bidirectional">(x, w, r, , , h)
  })");
  EXPECT_EQ(r.value("y").dims, (std::vector<Extent>{S("S"), Extent(2), S("N"), Extent(6)}));
  EXPECT_EQ(r.value("yc").dims, (std::vector<Extent>{Extent(2), S("N"), Extent(6)}));
  // layout 1 puts the batch first in X, Y and the states.
  auto g = run(R"(g (float[N, S, 3] x, float[1, 12, 3] w, float[1, 12, 4] r) => (float[?, ?, ?, ?] y, float[?, ?, ?] yh) {
    y, yh = GRU<hidden_size = 4, layout = 1>(x, w, r)
  })");
  EXPECT_EQ(g.value("y").dims, (std::vector<Extent>{S("N"), S("S"), Extent(1), Extent(4)}));
  EXPECT_EQ(g.value("yh").dims, (std::vector<Extent>{S("N"), Extent(1), Extent(4)}));
}

TEST(Recurrent, RefusesOperandsThatDoNotMeet) {
  // W holds 3 gates of 4 for an LSTM.
  refused(R"(g (float[2, 1, 3] x, float[1, 12, 3] w, float[1, 12, 4] r) => (float[?, ?, ?, ?] y) {
    y = LSTM<hidden_size = 4>(x, w, r)
  })", "axis 1 of input 1");
  refused(R"(g (float[2, 1, 3] x, float[1, 4, 3] w, float[1, 4, 4] r, float[1] lens) => (float[?, ?, ?, ?] y) {
    y = RNN<hidden_size = 4>(x, w, r, , lens)
  })", "not int32");
  refused(R"(g (float[2, 1, 3] x, float[1, 4, 3] w, float[1, 4, 4] r) => (float[?, ?, ?, ?] y) {
    y = RNN<hidden_size = 4, activations = ["Swish"]>(x, w, r)
  })", "activation 'Swish' is none of");
  refused(R"(g (float[2, 1, 3] x, float[1, 12, 3] w, float[1, 12, 4] r) => (float[?, ?, ?, ?] y) {
    y = GRU<hidden_size = 4, activations = ["Sigmoid", "ScaledTanh"]>(x, w, r)
  })", "ONNX gives it no defaults");
  refused(R"(g (float[2, 1, 3] x, float[2, 4, 3] w, float[2, 4, 4] r) => (float[?, ?, ?, ?] y) {
    y = RNN<hidden_size = 4>(x, w, r)
  })", "axis 0 of input 1");
}

Stage0Result run_restated(const std::string& text) {
  Model m = read_onnx_text(text, "t");
  normalize_opsets(m);
  return run_stage0(m, {.operators = &loam::ops::operators()});
}

TEST(Resize, UpsampleAndResize10AreRestated) {
  auto r = run_restated(R"(<ir_version: 3, opset_import: ["" : 7]>
g (float[1, 2, 3, 4] x) => (float[?, ?, ?, ?] y) {
    y = Upsample<mode = "bilinear", scales = [1.0, 1.0, 2.0, 3.0]>(x)
  })");
  EXPECT_EQ(r.value("y").dims, dims({1, 2, 6, 12}));
  auto t = run_restated(R"(<ir_version: 5, opset_import: ["" : 10]>
g (float[1, 2, 3, 8] x) => (float[?, ?, ?, ?] y) <float[4] s = {1, 1, 2, 0.5}> {
    y = Resize(x, s)
  })");
  EXPECT_EQ(t.value("y").dims, dims({1, 2, 6, 4}));
}

// ----- elementwise folds -----

TEST(ElementwiseFolds, IntegerDivTruncatesModFollowsTheDivisor) {
  auto r = run(R"(g (float[1] dummy) => (int64[?] d, int64[?] m, int64[?] f) <int64[4] a = {-7, 7, -7, 7}, int64[4] b = {2, 2, -2, -2}, int64[4] c = {3, 3, -3, -3}> {
    d = Div(a, b)
    m = Mod(a, c)
    f = Mod<fmod = 1>(a, c)
  })");
  EXPECT_EQ(ints(r, "d"), (std::vector<Extent>{-3, 3, 3, -3}));
  EXPECT_EQ(ints(r, "m"), (std::vector<Extent>{2, 1, -1, -2}));  // numpy: sign of the divisor
  EXPECT_EQ(ints(r, "f"), (std::vector<Extent>{-1, 1, -1, 1}));  // C fmod: sign of the dividend
}

TEST(ElementwiseFolds, SymbolicComparisonsMinMaxAndWhere) {
  auto r = run(R"(g (float[N] x) => (bool[?] lt, bool[?] eq, int64[?] mn, int64[?] w) <int64[1] zero = {0}, int64[1] big = {4294967296}> {
    s = Shape(x)
    lt = Less(s, big)
    eq = Equal(s, zero)
    mn = Min(s, zero)
    w = Where(lt, s, zero)
  })");
  EXPECT_EQ(ints(r, "lt"), (std::vector<Extent>{1}));      // every length is below 2^32
  EXPECT_FALSE(r.value("eq").value);                        // N == 0 is the run's to decide
  EXPECT_EQ(ints(r, "mn"), (std::vector<Extent>{0}));       // min(N, 0) is 0 for every length
  EXPECT_EQ(ints(r, "w"), (std::vector<Extent>{S("N")}));
  EXPECT_EQ(r.value("lt").elem, ElementType::Bool);
}

TEST(ElementwiseFolds, CastWrapsToInt32AndRoundsToFloat) {
  auto r = run(R"(g (float[1] dummy) => (int32[?] w, float[?] f, int64[?] back) <int64[2] a = {2147483648, 16777217}> {
    w = Cast<to = 6>(a)
    f = Cast<to = 1>(a)
    back = Cast<to = 7>(f)
  })");
  EXPECT_EQ(ints(r, "w"), (std::vector<Extent>{INT32_MIN, 16777217}));
  ASSERT_TRUE(r.value("f").value);
  EXPECT_EQ(r.value("f").value->floats, (std::vector<float>{2147483648.0f, 16777216.0f}));
  EXPECT_EQ(ints(r, "back"), (std::vector<Extent>{2147483648LL, 16777216}));
}

TEST(ElementwiseFolds, ReduceProdRangeConstantOfShape) {
  auto r = run(R"(g (float[N, 3, 4] x) => (int64[] p, int64[?] rg, float[?, ?] k) <int64 st = {10}, int64 lim = {1}, int64 dl = {-4}, int64[2] ks = {2, 3}> {
    s = Shape(x)
    p = ReduceProd<keepdims = 0>(s)
    rg = Range(st, lim, dl)
    k = ConstantOfShape(ks)
  })");
  EXPECT_EQ(ints(r, "p"), (std::vector<Extent>{Extent(12) * S("N")}));
  EXPECT_EQ(ints(r, "rg"), (std::vector<Extent>{10, 6, 2}));  // ceil((1 - 10) / -4) = 3
  EXPECT_EQ(r.value("k").dims, dims({2, 3}));
  EXPECT_EQ(r.value("k").value->floats, std::vector<float>(6, 0.0f));
}

// ----- normalization, reductions, loam operators -----

TEST(Normalization, LayerNormStatsArgMaxReduceAndLoamOps) {
  auto r = run(R"(g (float[B, S, 8] x, float[8] g, float[8] b, float[4] s4, float[B, 4, S] y4) => (float[?, ?, ?] ln, float[?, ?, ?] mean, int64[?, ?] am, float[?, ?, ?] rm, float[?, ?, ?] sm, float[?, ?, ?] z) {
    ln, mean = LayerNormalization<axis = -1>(x, g, b)
    am = ArgMax<axis = 2, keepdims = 0>(x)
    rm = ReduceMean<axes = [1]>(x)
    sm = loam.SoftmaxFlattened<axis = 1>(x)
    z = loam.ZipAt<op = "Add", axis = 1>(y4, s4)
  })");
  EXPECT_EQ(r.value("ln").dims, (std::vector<Extent>{S("B"), S("S"), Extent(8)}));
  EXPECT_EQ(r.value("mean").dims, (std::vector<Extent>{S("B"), S("S"), Extent(1)}));
  EXPECT_EQ(r.value("am").dims, (std::vector<Extent>{S("B"), S("S")}));
  EXPECT_EQ(r.value("am").elem, ElementType::I64);
  EXPECT_EQ(r.value("rm").dims, (std::vector<Extent>{S("B"), Extent(1), Extent(8)}));
  EXPECT_EQ(r.value("sm").dims, r.value("x").dims);
  // Opset-6 broadcast: B [4] aligned at A's axis 1, followed by A's remaining axes at 1.
  EXPECT_EQ(r.value("z").dims, (std::vector<Extent>{S("B"), Extent(4), S("S")}));
  EXPECT_THROW(run(R"(g (float[2, 4, 3] a, float[3] b) => (float[?, ?, ?] z) {
    z = loam.ZipAt<op = "Add", axis = 1>(a, b)
  })"), Error);  // 3 aligned at axis 1 meets 4
}

TEST(Einsum, ImplicitOutputsEllipsesAndRefusals) {
  auto r = run(R"(g (float[B, S, 4] a, float[4, K] b, float[1, 3, S, S] d) => (float[?, ?, ?] y, float[?, ?] t, float[?, ?, ?] e) {
    y = Einsum<equation = "bsi,ik">(a, b)
    t = Einsum<equation = "ij->ji">(b)
    e = Einsum<equation = "...ii->...i">(d)
  })");
  // Implicit: the letters used once, in order (b, k, s).
  EXPECT_EQ(r.value("y").dims, (std::vector<Extent>{S("B"), S("K"), S("S")}));
  EXPECT_EQ(r.value("t").dims, (std::vector<Extent>{S("K"), Extent(4)}));
  EXPECT_EQ(r.value("e").dims, (std::vector<Extent>{Extent(1), Extent(3), S("S")}));
  refused(R"(g (float[2, 3] a) => (float[?] y) { y = Einsum<equation = "ijk->i">(a) })", "does not fit operand 0");
  refused(R"(g (float[2, 3] a) => (float[?] y) { y = Einsum<equation = "i1->i">(a) })", "'1' is no label");
  refused(R"(g (float[2, 3] a) => (float[?] y) { y = Einsum<equation = "ij->k">(a) })", "the output's 'k' is no operand's");
  refused(R"(g (float[2, 3] a, float[4, 3] b) => (float[?] y) { y = Einsum<equation = "ij,ij->i">(a, b) })", "label 'i'");
}

TEST(Selections, TopKOneHotGatherNdDepthToSpaceShapes) {
  auto r = run(R"(g (float[N, 10] x, int64[N, 2] i, float[2] v, float[2, 3, 4] d, int64[5, 2] p, float[1, 8, 2, 3] s) => (float[?, ?] tv, int64[?, ?] ti, float[?, ?, ?] oh, float[?, ?] g, float[?, ?, ?, ?] ds) <int64[1] k = {3}, int64[1] depth = {7}> {
    tv, ti = TopK<axis = -1>(x, k)
    oh = OneHot<axis = 1>(i, depth, v)
    g = GatherND(d, p)
    ds = DepthToSpace<blocksize = 2, mode = "CRD">(s)
  })");
  EXPECT_EQ(r.value("tv").dims, (std::vector<Extent>{S("N"), Extent(3)}));
  EXPECT_EQ(r.value("ti").elem, ElementType::I64);
  EXPECT_EQ(r.value("oh").dims, (std::vector<Extent>{S("N"), Extent(7), Extent(2)}));
  EXPECT_EQ(r.value("g").dims, dims({5, 4}));
  EXPECT_EQ(r.value("ds").dims, dims({1, 2, 4, 6}));
  refused(R"(g (float[2, 4] x) => (float[?, ?] v, int64[?, ?] i) <int64[1] k = {5}> { v, i = TopK(x, k) })", "past the axis");
  refused(R"(g (float[1, 6, 2, 2] s) => (float[?, ?, ?, ?] y) { y = DepthToSpace<blocksize = 2>(s) })", "not a multiple of 4");
  refused(R"(g (float[2, 3] d, int64[5, 3] p) => (float[?] y) { y = GatherND(d, p) })", "it must lie in [1, 2]");
}

TEST(Normalization, BatchNormChecksItsChannels) {
  auto ok = run(R"(g (float[N, 3, 4, 4] x, float[3] s, float[3] b, float[3] m, float[3] v) => (float[?, ?, ?, ?] y) {
    y = BatchNormalization(x, s, b, m, v)
  })");
  EXPECT_EQ(ok.value("y").dims, ok.value("x").dims);
  EXPECT_THROW(run(R"(g (float[N, 3, 4, 4] x, float[4] s, float[3] b, float[3] m, float[3] v) => (float[?, ?, ?, ?] y) {
    y = BatchNormalization(x, s, b, m, v)
  })"), Error);
}

}  // namespace
}  // namespace loam::stage0
