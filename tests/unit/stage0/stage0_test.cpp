// Stage 0 over small graphs in ONNX's textual form: folding of shape subgraphs, derived symbols from
// Slice, every owed-condition kind (each with an input that must be refused), the dims and outputs
// options, and symbol binding. Expected extents are worked by hand from the ONNX operator definitions.
#include <gtest/gtest.h>

#include <functional>

#include "onnx/reader.hpp"
#include "ops/operator.hpp"
#include "stage0/stage0.hpp"
#include "support/error.hpp"

namespace loam::stage0 {
namespace {

Extent S(const char* name) { return Extent::symbol(input_symbol(name)); }

std::string header() { return "<ir_version: 8, opset_import: [\"\" : 17]>\n"; }

Stage0Result run(const std::string& graph, Stage0Options opts = {.operators = &loam::ops::operators()}) {
  Model m = read_onnx_text(header() + graph, "t.onnxtext");
  opts.origin = "t.onnxtext";
  return run_stage0(m, opts);
}

std::string error_of(const std::string& graph, Stage0Options opts = {.operators = &loam::ops::operators()}) {
  try {
    run(graph, opts);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

std::vector<OwedCondition> owed_of(const Stage0Result& r, OwedKind kind) {
  std::vector<OwedCondition> out;
  for (const auto& c : r.owed)
    if (c.kind == kind) out.push_back(c);
  return out;
}

bool folded(const Stage0Result& r, const Model& m, const std::string& output) {
  for (const auto& n : r.nodes)
    for (const auto& o : m.graph.nodes[n.index].outputs)
      if (o == output) return n.folded;
  return false;
}

TEST(Stage0, ViewSizeZeroMinusOneFoldsToARegrouping) {
  std::string g = R"(g (float[B, S, 64] x) => (float[B, ?] y) <int64[1] m1 = {-1}> {
    s = Shape(x)
    i = Constant<value_int = 0>()
    b = Gather<axis=0>(s, i)
    ax = Constant<value_ints = [0]>()
    bu = Unsqueeze(b, ax)
    t = Concat<axis=0>(bu, m1)
    y = Reshape(x, t)
  })";
  Model m = read_onnx_text(header() + g, "t");
  Stage0Result r = run_stage0(m, {.operators = &loam::ops::operators()});
  EXPECT_EQ(r.value("y").dims, (std::vector<Extent>{S("B"), Extent(64) * S("S")}));
  ASSERT_TRUE(r.value("t").value);
  EXPECT_EQ(r.value("t").value->ints, (std::vector<Extent>{S("B"), Extent(-1)}));
  for (const char* v : {"s", "i", "b", "ax", "bu", "t"}) EXPECT_TRUE(folded(r, m, v)) << v;
  EXPECT_FALSE(folded(r, m, "y"));  // a regrouping of a float input: the reshape kernel
  EXPECT_EQ(r.value("s").elem, ElementType::I64);
  // The -1 owes that B is not 0 (ONNX finds no extent for it then).
  ASSERT_EQ(r.owed.size(), 1u);
  EXPECT_EQ(r.owed[0].kind, OwedKind::ReshapeNonzeroProduct);
  EXPECT_EQ(r.owed[0].slack, S("B") - Extent(1));
}

TEST(Stage0, SliceToNOverAnAxisOf8CarriesMinN8) {
  Stage0Result r = run(R"(g (float[8] x, float[N] z) => (float[?] y) <int64[1] zero = {0}> {
    n = Shape(z)
    y = Slice(x, zero, n)
  })");
  EXPECT_EQ(r.value("y").dims[0].to_string(), "min(N, 8)");
  EXPECT_TRUE(r.owed.empty());
}

TEST(Stage0, ANumberMeetingASymbolIsABuildErrorNamingBoth) {
  std::string m = error_of(R"(g (float[8] x, float[N] z) => (float[?] y) {
    y = Add(x, z)
  })");
  EXPECT_EQ(m, "t.onnxtext: node Add -> 'y': axis 0 of input 1 'z' (N) and axis 0 of input 0 'x' (8): the number 8 meets "
               "the symbolic length N (fix the symbol with the `dims` option)");
}

TEST(Stage0, AClampMeetingItsOperandOwesTheReading) {
  Stage0Result r = run(R"(g (float[1024] buf, float[N] z) => (float[?] y) <int64[1] zero = {0}> {
    n = Shape(z)
    m = Slice(buf, zero, n)
    y = Add(m, z)
  })");
  EXPECT_EQ(r.value("m").dims[0].to_string(), "min(N, 1024)");
  // One length under what the inputs owe: the result carries the polynomial side.
  EXPECT_EQ(r.value("y").dims[0], S("N"));
  ASSERT_EQ(r.owed.size(), 1u);
  EXPECT_EQ(r.owed[0].kind, OwedKind::DerivedReading);
  EXPECT_EQ(r.owed[0].slack, Extent(1024) - S("N"));
  // Refused: read as N, min(N, 8) can never be N + 9.
  std::string e = error_of(R"(g (float[8] buf, float["N + 9"] z, float[N] w) => (float[?] y) <int64[1] zero = {0}> {
    n = Shape(w)
    m = Slice(buf, zero, n)
    y = Add(m, z)
  })");
  EXPECT_NE(e.find("differ for every input"), std::string::npos) << e;
}

TEST(Stage0, SliceBoundsFromTheEndAndSteps) {
  Stage0Result r = run(R"(g (float[N, 10] x) => (float[?, ?] y) <int64[2] st = {1, -1}, int64[2] en = {-1, -100}, int64[2] ax = {0, 1}, int64[2] sp = {2, -3}> {
    y = Slice(x, st, en, ax, sp)
  })");
  // Axis 0: start 1 clamped to min(1, N), end N - 1 (from the end) clamped below at 0; step 2.
  // Axis 1 (10): start -1 -> 9, end -100 -> clamped to -1; step -3: ceil((9 - -1) / 3) = 4.
  EXPECT_EQ(r.value("y").dims[1], Extent(4));
  EXPECT_FALSE(r.value("y").dims[0].is_constant());
  EXPECT_NE(r.value("y").dims[0].to_string().find("ceil("), std::string::npos) << r.value("y").dims[0].to_string();
}

TEST(Stage0, ShapeArithmeticFoldsThroughCastAndSqrt) {
  Model m = read_onnx_text(header() + R"(g (float[B, S, 64] x) => (float[B, S, 64] y) {
    s = Shape(x)
    i = Constant<value_int = -1>()
    d = Gather<axis=0>(s, i)
    f = Cast<to = 1>(d)
    r = Sqrt(f)
    y = Div(x, r)
  })", "t");
  Stage0Result r = run_stage0(m, {.operators = &loam::ops::operators()});
  ASSERT_TRUE(r.value("r").value);
  EXPECT_EQ(r.value("r").value->kind, FoldedValue::Kind::Float);
  EXPECT_EQ(r.value("r").value->floats, std::vector<float>{8.0f});
  EXPECT_TRUE(folded(r, m, "r"));
  EXPECT_FALSE(folded(r, m, "y"));
}

TEST(Stage0, RangeOverASymbolIsAKernelRangeOverNumbersFolds) {
  Model m = read_onnx_text(header() + R"(g (int64[B, S] ids) => (int64[S] p, int64[4] q) <int64 zero = {0}, int64 one = {1}, int64 four = {4}> {
    s = Shape(ids)
    i = Constant<value_int = 1>()
    n = Gather<axis=0>(s, i)
    p = Range(zero, n, one)
    q = Range(zero, four, one)
  })", "t");
  Stage0Result r = run_stage0(m, {.operators = &loam::ops::operators()});
  EXPECT_EQ(r.value("p").dims, std::vector<Extent>{S("S")});
  EXPECT_FALSE(folded(r, m, "p"));
  EXPECT_TRUE(folded(r, m, "q"));
  EXPECT_EQ(r.value("q").value->ints, (std::vector<Extent>{0, 1, 2, 3}));
  EXPECT_EQ(r.value("p").elem, ElementType::I64);
}

// ----- each owed-condition kind, owed and refused -----

TEST(OwedKinds, ReshapeTargetNonzero) {
  Stage0Result r = run(R"(g (float[N] x, float[M] z) => (float[?] y) {
    t = Shape(z)
    y = Reshape(x, t)
  })");
  auto c = owed_of(r, OwedKind::ReshapeTargetNonzero);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].slack, S("M") - Extent(1));
  EXPECT_EQ(owed_of(r, OwedKind::ElementCount).size(), 2u);  // N == M, as two inequalities
  std::string e = error_of(R"(g (float[N] x, float[M] z) => (float[?] y) <int64[1] zero = {0}> {
    t0 = Shape(z)
    t = Sub(zero, t0)
    y = Reshape(x, t)
  })");
  EXPECT_NE(e.find("target element 0 (-M) is not 0 fails for every input"), std::string::npos) << e;
}

TEST(OwedKinds, ReshapeDivides) {
  Stage0Result r = run(R"(g (float[N] x) => (float[3, ?] y) <int64[2] t = {3, -1}> {
    y = Reshape(x, t)
  })");
  auto c = owed_of(r, OwedKind::ReshapeDivides);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].slack.to_string(), "3 * floor(N / 3) - N");
  EXPECT_EQ(r.value("y").dims[1].to_string(), "floor(N / 3)");
  std::string e = error_of(R"(g (float[7] x) => (float[3, ?] y) <int64[2] t = {3, -1}> {
    y = Reshape(x, t)
  })");
  EXPECT_EQ(e, "t.onnxtext: node Reshape -> 'y': the condition that the extents beside -1 (3) divide the element count 7 fails for every input (-1 >= 0 never holds)");
}

TEST(OwedKinds, ReshapeNonzeroProduct) {
  Stage0Result r = run(R"(g (float[N, 4] x) => (float[?, ?] y) <int64[2] t = {0, -1}> {
    y = Reshape(x, t)
  })");
  auto c = owed_of(r, OwedKind::ReshapeNonzeroProduct);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].slack, S("N") - Extent(1));
  EXPECT_EQ(r.value("y").dims, (std::vector<Extent>{S("N"), Extent(4)}));
  std::string e = error_of(R"(g (float[0, 4] x) => (float[?, ?] y) <int64[2] t = {0, -1}> {
    y = Reshape(x, t)
  })");
  EXPECT_NE(e.find("do not multiply to 0 fails for every input"), std::string::npos) << e;
}

TEST(OwedKinds, RangeStepNonzero) {
  Stage0Result r = run(R"(g (float[N] x, float[M] z) => (int64[?] y) <int64 zero = {0}> {
    sn = Shape(x)
    sm = Shape(z)
    i = Constant<value_int = 0>()
    n = Gather<axis=0>(sn, i)
    m = Gather<axis=0>(sm, i)
    y = Range(zero, n, m)
  })");
  auto c = owed_of(r, OwedKind::RangeStepNonzero);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].slack, S("M") - Extent(1));
  EXPECT_EQ(r.value("y").dims[0].to_string(), "floor((M + N - 1) / M)");
  std::string e = error_of(R"(g (float[N] x) => (int64[?] y) <int64 zero = {0}> {
    sn = Shape(x)
    i = Constant<value_int = 0>()
    n = Gather<axis=0>(sn, i)
    y = Range(zero, n, zero)
  })");
  EXPECT_EQ(e, "t.onnxtext: node Range -> 'y': delta is 0");
  std::string sign = error_of(R"(g (float[N] x, float[M] z) => (int64[?] y) <int64 zero = {0}> {
    sn = Shape(x)
    sm = Shape(z)
    i = Constant<value_int = 0>()
    n = Gather<axis=0>(sn, i)
    m = Gather<axis=0>(sm, i)
    d = Sub(n, m)
    y = Range(zero, n, d)
  })");
  EXPECT_NE(sign.find("has a sign the build cannot tell"), std::string::npos) << sign;
}

TEST(OwedKinds, WindowReach) {
  Stage0Result r = run(R"(g (float[1, 1, N] x) => (float[?, ?, ?] y) {
    y = MaxPool<kernel_shape = [3], strides = [2]>(x)
  })");
  auto c = owed_of(r, OwedKind::WindowReach);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].slack, S("N") - Extent(3));
  EXPECT_EQ(r.value("y").dims[2].to_string(), "floor((N - 3) / 2) + 1");
  std::string e = error_of(R"(g (float[1, 1, 2] x) => (float[?, ?, ?] y) {
    y = MaxPool<kernel_shape = [3]>(x)
  })");
  EXPECT_EQ(e, "t.onnxtext: node MaxPool -> 'y': the condition that the padded spatial axis 0 (2) holds the window's reach 3 fails for every "
               "input (-1 >= 0 never holds)");
}

TEST(OwedKinds, SplitParts) {
  Stage0Result r = run(R"(g (float[N] x) => (float[2] a, float[3] b) <int64[2] parts = {2, 3}> {
    a, b = Split<axis = 0>(x, parts)
  })");
  auto c = owed_of(r, OwedKind::SplitParts);
  // Each part within the axis (N - 2, N - 3) and the sum (N - 5, 5 - N); N - 5 >= 0 implies the
  // first two but each is recorded as its own condition.
  ASSERT_EQ(c.size(), 4u);
  EXPECT_EQ(c[0].slack, S("N") - Extent(2));
  EXPECT_EQ(c[1].slack, S("N") - Extent(3));
  EXPECT_EQ(c[2].slack, Extent(5) - S("N"));
  EXPECT_EQ(c[3].slack, S("N") - Extent(5));
  std::string e = error_of(R"(g (float[4] x) => (float[2] a, float[5] b) <int64[2] parts = {2, 5}> {
    a, b = Split<axis = 0>(x, parts)
  })");
  EXPECT_EQ(e, "t.onnxtext: node Split -> 'a': the condition that part 1 (5) lies within axis 0 of input 0 'x' (4) fails "
               "for every input (-1 >= 0 never holds)");
  std::string sum = error_of(R"(g (float[6] x) => (float[2] a, float[3] b) <int64[2] parts = {2, 3}> {
    a, b = Split<axis = 0>(x, parts)
  })");
  EXPECT_NE(sum.find("the parts' sum (5) and axis 0 of input 0 'x' (6) differ: 5 against 6"), std::string::npos) << sum;
}

TEST(OwedKinds, DeclaredOutput) {
  Stage0Result r = run(R"(g (float[N] x) => (float[8] y) {
    y = Relu(x)
  })");
  auto c = owed_of(r, OwedKind::DeclaredOutput);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].slack, S("N") - Extent(8));
  EXPECT_EQ(c[1].slack, Extent(8) - S("N"));
  EXPECT_EQ(error_of(R"(g (float[7] x) => (float[8] y) {
    y = Relu(x)
  })"), "t.onnxtext: output 'y' axis 0: the graph declares length 8 but the nodes produce 7");
  EXPECT_EQ(error_of(R"(g (float[7] x) => (float[7, 1] y) {
    y = Relu(x)
  })"), "t.onnxtext: output 'y': the graph declares rank 2 but the nodes produce rank 1 [7]");
  // A dim_param or ? names nothing, so it cannot disagree.
  EXPECT_TRUE(run(R"(g (float[7] x) => (float[Q] y) {
    y = Relu(x)
  })").owed.empty());
}

TEST(OwedKinds, AxisEqual) {
  Stage0Result r = run(R"(g (float[N] x, float[M] z) => (float[?] y) {
    y = Add(x, z)
  })");
  auto c = owed_of(r, OwedKind::AxisEqual);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].slack, S("N") - S("M"));
  EXPECT_EQ(c[1].slack, S("M") - S("N"));
  std::string e = error_of(R"(g (float[N] x, float["N + 1"] z) => (float[?] y) {
    y = Add(x, z)
  })");
  EXPECT_EQ(e, "t.onnxtext: node Add -> 'y': axis 0 of input 1 'z' (N + 1) and axis 0 of input 0 'x' (N) differ: N against N + 1");
}

// ----- options -----

TEST(Options, DimsFixesANameInsideASpelling) {
  Stage0Options o{.operators = &loam::ops::operators()};
  o.dims = {{"past", 3}};
  Stage0Result r = run(R"(g (float[B, "past + 1"] x) => (float[?, ?] y) {
    y = Relu(x)
  })", o);
  EXPECT_EQ(r.value("x").dims[1], Extent(4));
  EXPECT_EQ(r.value("x").dims[0], S("B"));
}

TEST(Options, DimsRefusals) {
  Stage0Options partial{.operators = &loam::ops::operators()};
  partial.dims = {{"a", 2}};
  EXPECT_EQ(error_of(R"(g (float["a * b"] x) => (float[?] y) {
    y = Relu(x)
  })", partial), "t.onnxtext: input 'x' axis 0: option dims fixes 'a' of the spelled length 'a * b' but not 'b'");
  Stage0Options negative{.operators = &loam::ops::operators()};
  negative.dims = {{"N", -1}};
  EXPECT_EQ(error_of(R"(g (float[N] x) => (float[?] y) {
    y = Relu(x)
  })", negative), "t.onnxtext: option dims: 'N' is fixed to the negative extent -1");
  Stage0Options unknown{.operators = &loam::ops::operators()};
  unknown.dims = {{"Q", 2}};
  EXPECT_EQ(error_of(R"(g (float[N] x) => (float[?] y) {
    y = Relu(x)
  })", unknown), "t.onnxtext: option dims: the graph declares no dim_param 'Q'");
  Stage0Options neg_spelled{.operators = &loam::ops::operators()};
  neg_spelled.dims = {{"n", 2}};
  EXPECT_EQ(error_of(R"(g (float["n - 5"] x) => (float[?] y) {
    y = Relu(x)
  })", neg_spelled), "t.onnxtext: input 'x' axis 0: option dims makes the spelled length 'n - 5' -3, a negative extent");
}

// What exporters write for a length they leave open: no value and no name, -1 (tf2onnx, paddle2onnx)
// or the dim_param "?". Each position is a symbol of its own, which `dims` reaches as "x[k]".
TEST(Stage0, ADimensionNamingNothingIsASymbolOfItsOwn) {
  Model m = read_onnx_text(header() + R"(g (float[?, 4, 5] x) => (float[?, ?, ?] y) {
    y = Relu(x)
  })", "t.onnxtext");
  auto& shape = *m.graph.inputs[0].type.shape;
  shape[1] = Dim::of(-1);
  shape[2] = Dim::named("?");
  Stage0Result r = run_stage0(m, {.operators = &loam::ops::operators()});
  EXPECT_EQ(r.value("x").dims, (std::vector<Extent>{S("x[0]"), S("x[1]"), S("x[2]")}));
  ASSERT_EQ(r.bindings.size(), 3u);
  EXPECT_EQ(r.bindings[2].symbol, "x[2]");
  EXPECT_EQ(r.bindings[2].axis, 2u);

  // Two "?" are two lengths, never one symbol.
  shape[1] = Dim::named("?");
  Stage0Result twice = run_stage0(m, {.operators = &loam::ops::operators()});
  EXPECT_NE(twice.value("x").dims[1], twice.value("x").dims[2]);

  Stage0Options fixed{.operators = &loam::ops::operators()};
  fixed.dims = {{"x[1]", 6}};
  EXPECT_EQ(run_stage0(m, fixed).value("x").dims[1], Extent(6));

  shape[0] = Dim::of(-2);
  try {
    run_stage0(m, {.operators = &loam::ops::operators(), .origin = "t.onnxtext"});
    ADD_FAILURE() << "a length of -2 was accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "t.onnxtext: input 'x' axis 0: declared length -2 is negative (-1 alone stands for a length the graph leaves open)");
  }
}

TEST(Options, OutputsCutTheGraph) {
  std::string g = R"(g (float[N] x) => (float[?] a, float[?] b) {
    a = Relu(x)
    t = Neg(x)
    b = Exp(t)
  })";
  Stage0Options o{.operators = &loam::ops::operators()};
  o.outputs = std::vector<std::string>{"a"};
  Stage0Result r = run(g, o);
  EXPECT_EQ(r.nodes.size(), 1u);
  EXPECT_EQ(r.outputs, std::vector<std::string>{"a"});
  EXPECT_EQ(r.find("t"), nullptr);
  Stage0Options bad{.operators = &loam::ops::operators()};
  bad.outputs = std::vector<std::string>{"c"};
  EXPECT_EQ(error_of(g, bad), "t.onnxtext: option outputs: the graph declares no output 'c'");
}

TEST(Stage0Errors, UnknownRankAndUnknownOperator) {
  Model m = read_onnx_text(header() + R"(g (float[N] x) => (float[?] y) {
    y = Relu(x)
  })", "t");
  m.graph.inputs[0].type.shape.reset();
  try {
    run_stage0(m, {.operators = &loam::ops::operators()});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "input 'x': its rank is unknown; stage 0 needs every input's rank");
  }
  EXPECT_EQ(error_of(R"(g (float[N] x) => (float[?] y) {
    y = NonZero(x)
  })"), "t.onnxtext: node NonZero -> 'y': stage 0 has no rule for the operator NonZero");
}

// ----- symbol binding -----

TEST(Binding, SpelledNamesReadBackFromALinearAxis) {
  Stage0Result r = run(R"(g (float[B, past] p, float[B, "past + S"] mask, float[B, S] ids) => (float[?, ?] y) {
    y = Relu(ids)
  })");
  ASSERT_EQ(r.bindings.size(), 3u);
  EXPECT_EQ(r.bindings[0].symbol, "B");
  EXPECT_EQ(r.bindings[1].symbol, "past");
  EXPECT_EQ(r.bindings[2].symbol, "S");
  EXPECT_TRUE(r.bindings[2].alone);  // ids carries S alone
  // A spelling over a name no input axis yields is one opaque name after all.
  Stage0Result o = run(R"(g (float["batch * seq"] x) => (float[?] y) {
    y = Relu(x)
  })");
  EXPECT_EQ(o.value("x").dims[0], S("batch * seq"));
  ASSERT_EQ(o.bindings.size(), 1u);
  EXPECT_EQ(o.bindings[0].symbol, "batch * seq");
  // Linear read-back: "2 * n" alone on an input binds n from it.
  Stage0Result l = run(R"(g (float["2 * n"] x) => (float[?] y) {
    y = Relu(x)
  })");
  ASSERT_EQ(l.bindings.size(), 1u);
  EXPECT_EQ(l.bindings[0].symbol, "n");
  EXPECT_FALSE(l.bindings[0].alone);
}

// ----- element types -----

TEST(ElementTypes, IntegersStayIntegersThroughRegroupings) {
  Stage0Result r = run(R"(g (int64[B, S] ids, float[V, 8] emb) => (float[?, ?, ?] y) {
    t = Transpose<perm = [1, 0]>(ids)
    u = Identity(t)
    y = Gather<axis = 0>(emb, u)
  })");
  EXPECT_EQ(r.value("t").elem, ElementType::I64);
  EXPECT_EQ(r.value("u").elem, ElementType::I64);
  EXPECT_EQ(r.value("y").elem, ElementType::F32);
  EXPECT_EQ(r.value("y").dims, (std::vector<Extent>{S("S"), S("B"), Extent(8)}));
}

TEST(ElementTypes, NothingIsEvaluatedOverAFloatInitializer) {
  Stage0Result r = run(R"(g (float[2] x) => (float[2] y) <float[2] w = {1.0, 2.0}> {
    y = Add(w, w)
  })");
  EXPECT_FALSE(r.value("w").value);
  EXPECT_FALSE(r.value("y").value);
}

}  // namespace
}  // namespace loam::stage0

namespace loam::stage0 {
namespace {

TEST(ControlFlow, IfShapesBothBranchesInTheOuterScope) {
  Stage0Result r = run(R"(g (bool c, float[N, 4] x) => (float[?, ?] y) {
    y = If<then_branch = then_g () => (float[N, 4] a) { a = Relu(x) }, else_branch = else_g () => (float[N, 4] b) { b = Neg(x) }>(c)
  })");
  EXPECT_EQ(r.value("y").dims, (std::vector<Extent>{S("N"), Extent(4)}));
  EXPECT_EQ(r.find("a"), nullptr);  // branch values stay in their branch
  EXPECT_EQ(error_of(R"(g (bool c, float[N, 4] x) => (float[?, ?] y) <int64[1] t = {-1}> {
    y = If<then_branch = then_g () => (float[N, 4] a) { a = Relu(x) }, else_branch = else_g () => (float[?] b) { b = Reshape(x, t) }>(c)
  })"), "t.onnxtext: node If -> 'y': output 0 'y' has rank 2 in then_branch and 1 in else_branch");
}

}  // namespace
}  // namespace loam::stage0
