// The generated elementwise kernels run in Loom's reference interpreter, where ONNX's integer and
// conversion rules are easy to get wrong: int64 Div truncates toward zero and Mod takes the
// divisor's sign, Pow squares through 64 bits, sums wrap, a narrow integer keeps its low bits, a
// float past int64 converts to INT64_MIN, Clip's bounds saturate; bools combine as bools; an
// operand broadcasts with stride 0 and a symbolic extent arrives as the kernel's parameter. The
// kernels pass Loom's verifier before they run. The float operators are checked against what
// onnxruntime computed for the same inputs (../runtime/oracle_cases.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "loom/interpreter.hpp"
#include "loom/verifier.hpp"
#include "lower/elementwise_kernel.hpp"
#include "ops/operator.hpp"
#include "support/error.hpp"
#include "../runtime/oracle_cases.hpp"

namespace loam::lower {
namespace {

using loam_oracle::OracleTensor;
namespace oracle = loam_oracle::oracle;

using stage0::Extent;

template <class T>
std::shared_ptr<loom::Storage> storage_of(const std::vector<T>& v) {
  auto s = std::make_shared<loom::Storage>();
  s->bytes.resize(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(s->bytes.data(), v.data(), s->bytes.size());
  return s;
}

// Builds `k`, verifies it, runs it over `operands` (the kernel's bytes, in order) with `symbols`
// the values of the extents it is passed; gives the result's elements.
template <class Out>
std::vector<Out> run(ElementwiseKernel k, const std::vector<std::shared_ptr<loom::Storage>>& operands,
                     std::int64_t count, const std::vector<std::int64_t>& symbols = {}) {
  k.symbol = "k";
  loom::Module m;
  m.file = "test";
  const std::vector<Extent> passed = build_elementwise_kernel(m, k);
  loom::verify_module(m);
  EXPECT_EQ(passed.size(), symbols.size());
  std::vector<loom::RtValue> args;
  for (int pass = 0; pass < 2; ++pass)  // configuration parameters, then launch parameters
    for (auto s : symbols) args.push_back(loom::RtValue::scalar(static_cast<std::uint64_t>(s)));
  auto out = std::make_shared<loom::Storage>();
  out->bytes.resize(static_cast<std::size_t>(count) * sizeof(Out));
  args.push_back(loom::RtValue::buffer(out));
  for (const auto& o : operands) args.push_back(loom::RtValue::buffer(o));
  loom::Interpreter(m).call("k", args);
  std::vector<Out> r(static_cast<std::size_t>(count));
  if (count) std::memcpy(r.data(), out->bytes.data(), out->bytes.size());
  return r;
}

ElementwiseOperand operand(ElementType t, std::vector<Extent> dims) { return {"t", t, std::move(dims)}; }

constexpr auto load = ExprValue::load;
constexpr auto number = ExprValue::constant;
// An operator's value, with its record as the lowering passes it (ops::operators()).
ExprValue op(std::string name, std::vector<int> args, ElementType t, double p = 0, double q = 0) {
  ExprValue v = ExprValue::apply(std::move(name), std::move(args), t, p, q);
  if (const ops::Operator* record = ops::operators().find("", v.op)) {
    v.unary = record->unary;
    v.binary = record->binary;
  }
  return v;
}

constexpr ElementType F = ElementType::F32, I = ElementType::I64, B = ElementType::Bool;
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min(), kMax = std::numeric_limits<std::int64_t>::max();

// An int64 binary operator over four pairs.
std::vector<std::int64_t> int_binary(const std::string& name, std::vector<std::int64_t> a, std::vector<std::int64_t> b, double p = 0) {
  ElementwiseKernel k;
  k.out_type = I;
  k.out_dims = {static_cast<std::int64_t>(a.size())};
  k.operands = {operand(I, k.out_dims), operand(I, k.out_dims)};
  k.values = {load(0, I), load(1, I), op(name, {0, 1}, I, p)};
  return run<std::int64_t>(k, {storage_of(a), storage_of(b)}, static_cast<std::int64_t>(a.size()));
}

TEST(ElementwiseKernel, FloatExpressionBroadcastsABiasAlongTheBatch) {
  // relu(x * 2 + b) - 1 over [2, 19], b [19]: a vector of 16 and a tail of 3 per row.
  ElementwiseKernel k;
  k.out_type = F;
  k.out_dims = {2, 19};
  k.operands = {operand(F, {2, 19}), operand(F, {19})};
  k.values = {load(0, F), number(2, F), op("Mul", {0, 1}, F), load(1, F), op("Add", {2, 3}, F),
              op("Relu", {4}, F), number(1, F), op("Sub", {5, 6}, F)};
  std::vector<float> x(38), b(19);
  for (int i = 0; i < 38; ++i) x[static_cast<std::size_t>(i)] = static_cast<float>(i % 7) - 3.0f;
  for (int i = 0; i < 19; ++i) b[static_cast<std::size_t>(i)] = 0.5f * static_cast<float>(i % 3) - 0.5f;
  const auto y = run<float>(k, {storage_of(x), storage_of(b)}, 38);
  for (std::size_t i = 0; i < 38; ++i) EXPECT_EQ(y[i], std::max(x[i] * 2.0f + b[i % 19], 0.0f) - 1.0f) << i;
}

TEST(ElementwiseKernel, ASymbolicExtentIsTheKernelsParameter) {
  // [Batch, 5] with Batch = 3 at run time, b [1, 5] broadcast along it.
  ElementwiseKernel k;
  k.out_type = F;
  k.out_dims = {Extent::symbol(0), 5};
  k.operands = {operand(F, k.out_dims), operand(F, {1, 5})};
  k.values = {load(0, F), load(1, F), op("Max", {0, 1}, F)};
  const std::vector<float> x = {1, -2, 3, -4, 5, 0, 0, 0, 0, 0, -9, 9, -9, 9, -9};
  const std::vector<float> b = {0, 1, 2, 3, 4};
  EXPECT_EQ(run<float>(k, {storage_of(x), storage_of(b)}, 15, {3}),
            (std::vector<float>{1, 1, 3, 3, 5, 0, 1, 2, 3, 4, 0, 9, 2, 9, 4}));
}

TEST(ElementwiseKernel, IntegerDivisionFollowsOnnx) {
  const std::vector<std::int64_t> a = {7, -7, 7, -7}, b = {2, 2, -2, -2};
  EXPECT_EQ(int_binary("Div", a, b), (std::vector<std::int64_t>{3, -3, -3, 3}));  // toward zero
  EXPECT_EQ(int_binary("Mod", a, b), (std::vector<std::int64_t>{1, 1, -1, -1}));  // the divisor's sign
  EXPECT_EQ(int_binary("Mod", a, b, 1), (std::vector<std::int64_t>{1, -1, 1, -1}));  // fmod: the dividend's sign
  EXPECT_EQ(int_binary("PRelu", {-3, 4, -5, 0}, {2, 2, -1, 7}), (std::vector<std::int64_t>{-6, 4, 5, 0}));
  EXPECT_EQ(int_binary("Pow", a, b), (std::vector<std::int64_t>{49, 49, 0, 0}));
  EXPECT_EQ(int_binary("Pow", {1, -1, -1, 3}, {-3, -3, -4, 40}),
            (std::vector<std::int64_t>{1, -1, 1, static_cast<std::int64_t>(12157665459056928801ull)}));  // 3^40 wraps
  EXPECT_EQ(int_binary("Div", {kMin, 9, 0, -1}, {-1, 3, 5, 1}), (std::vector<std::int64_t>{kMin, 3, 0, -1}));
  EXPECT_EQ(int_binary("Add", {kMax, kMin, 1, 2}, {1, -1, 2, 3}), (std::vector<std::int64_t>{kMin, kMax, 3, 5}));  // wraps
  EXPECT_THROW(int_binary("Div", {1, 2, 3, 4}, {1, 0, 1, 1}), Error);  // a zero divisor stops the run
}

TEST(ElementwiseKernel, ANarrowIntegerKeepsItsLowBits) {
  auto wrap = [](int bits, bool is_signed, std::vector<std::int64_t> x) {
    ElementwiseKernel k;
    k.out_type = I;
    k.out_dims = {static_cast<std::int64_t>(x.size())};
    k.operands = {operand(I, k.out_dims)};
    k.values = {load(0, I), op("Wrap", {0}, I, bits, is_signed ? 1 : 0)};
    return run<std::int64_t>(k, {storage_of(x)}, static_cast<std::int64_t>(x.size()));
  };
  EXPECT_EQ(wrap(8, true, {200, -129, 127, 256}), (std::vector<std::int64_t>{-56, 127, 127, 0}));
  EXPECT_EQ(wrap(8, false, {-1, 256, 255, 300}), (std::vector<std::int64_t>{255, 0, 255, 44}));
  EXPECT_EQ(wrap(16, true, {40000, -32769, 5, 65536}), (std::vector<std::int64_t>{-25536, 32767, 5, 0}));
  EXPECT_EQ(wrap(32, false, {-1, 4294967296, 7, -4294967295}), (std::vector<std::int64_t>{4294967295, 0, 7, 1}));
}

TEST(ElementwiseKernel, FloatToInt64TruncatesAndSaturatesToTheMinimum) {
  ElementwiseKernel k;
  k.out_type = I;
  k.out_dims = {6};
  k.operands = {operand(F, {6})};
  k.values = {load(0, F), op("Cast", {0}, I)};
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(run<std::int64_t>(k, {storage_of(std::vector<float>{-2.7f, 2.7f, nan, 3e19f, -3e19f, 0.5f})}, 6),
            (std::vector<std::int64_t>{-2, 2, kMin, kMin, kMin, 0}));
}

TEST(ElementwiseKernel, BoolsCombineAsBools) {
  // Where(Xor(p, q) or Not(p), x, -x), with a comparison's bool: x < 0.
  ElementwiseKernel k;
  k.out_type = F;
  k.out_dims = {4};
  k.operands = {operand(B, {4}), operand(B, {4}), operand(F, {4})};
  k.values = {load(0, B), load(1, B), op("Xor", {0, 1}, B), op("Not", {0}, B), op("Or", {2, 3}, B),
              load(2, F), op("Neg", {5}, F), op("Where", {4, 5, 6}, F), number(0, F), op("Less", {7, 8}, B),
              op("Cast", {9}, F)};
  const std::vector<std::uint8_t> p = {1, 1, 0, 0}, q = {1, 0, 1, 0};
  // p^q | !p = {0, 1, 1, 1}; picked = {-x0, x1, x2, x3} = {-1, -2, 3, -4}; < 0 = {1, 1, 0, 1}.
  EXPECT_EQ(run<float>(k, {storage_of(p), storage_of(q), storage_of(std::vector<float>{1, -2, 3, -4})}, 4),
            (std::vector<float>{1, 1, 0, 1}));
}

TEST(ElementwiseKernel, AnExpressionOfTheWrongResultTypeIsRefused) {
  ElementwiseKernel k;
  k.symbol = "k";
  k.out_type = I;
  k.out_dims = {4};
  k.operands = {operand(F, {4})};
  k.values = {load(0, F)};
  loom::Module m;
  EXPECT_THROW(build_elementwise_kernel(m, k), Error);
}


// One ONNX operator over the oracle's operands, computed by a generated kernel, against what
// onnxruntime gave.
void expect_oracle(const std::string& name, const std::vector<const OracleTensor<float>*>& in, const OracleTensor<float>& want,
                   double p = 0, double q = 0, double rtol = 1e-5, double atol = 1e-6) {
  ElementwiseKernel k;
  k.out_type = F;
  for (auto d : want.shape) k.out_dims.emplace_back(d);
  std::vector<int> args;
  std::vector<std::shared_ptr<loom::Storage>> bytes;
  for (std::size_t i = 0; i < in.size(); ++i) {
    std::vector<Extent> dims;
    for (auto d : in[i]->shape) dims.emplace_back(d);
    k.operands.push_back(operand(F, dims));
    k.values.push_back(load(static_cast<int>(i), F));
    args.push_back(static_cast<int>(i));
    bytes.push_back(storage_of(in[i]->values));
  }
  k.values.push_back(op(name, args, F, p, q));
  const auto got = run<float>(k, bytes, static_cast<std::int64_t>(want.values.size()));
  ASSERT_EQ(got.size(), want.values.size());
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want.values[i], atol + rtol * std::fabs(want.values[i])) << name << " element " << i;
}

TEST(OracleElementwise, BroadcastingBinaries) {
  expect_oracle("Add", {&oracle::add_broadcast::a, &oracle::add_broadcast::b}, oracle::add_broadcast::out0);
  // [2, 1, 4] * [3, 1] -> [2, 3, 4]: each operand stretches along the other's axis.
  expect_oracle("Mul", {&oracle::mul_stretch_both::a, &oracle::mul_stretch_both::b}, oracle::mul_stretch_both::out0);
  expect_oracle("Pow", {&oracle::pow::a, &oracle::pow::b}, oracle::pow::out0, 0, 0, 1e-4, 1e-5);
  expect_oracle("PRelu", {&oracle::prelu::x, &oracle::prelu::slope}, oracle::prelu::out0);
  expect_oracle("Add", {&oracle::add_per_channel::a, &oracle::add_per_channel::b}, oracle::add_per_channel::out0);
}

TEST(OracleElementwise, ClipIsMaxThenMin) {
  // The lowering's Clip: max(x, lo), then min(., hi), each bound a constant of the kernel.
  const auto& x = oracle::clip::x;
  ElementwiseKernel k;
  k.out_type = F;
  for (auto d : x.shape) k.out_dims.emplace_back(d);
  k.operands = {operand(F, k.out_dims)};
  k.values = {load(0, F), number(-0.5, F), op("Max", {0, 1}, F), number(0.7, F), op("Min", {2, 3}, F)};
  const auto got = run<float>(k, {storage_of(x.values)}, static_cast<std::int64_t>(x.values.size()));
  ASSERT_EQ(got.size(), oracle::clip::out0.values.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], oracle::clip::out0.values[i]) << i;
}

TEST(OracleElementwise, Unaries) {
  expect_oracle("Erf", {&oracle::erf::x}, oracle::erf::out0);
  expect_oracle("Sigmoid", {&oracle::sigmoid::x}, oracle::sigmoid::out0);
  expect_oracle("Tanh", {&oracle::tanh::x}, oracle::tanh::out0);
  expect_oracle("LeakyRelu", {&oracle::leaky_relu::x}, oracle::leaky_relu::out0, 0.1, 0, 1e-6, 0);
}

TEST(ElementwiseKernel, AnEmptyResultRunsNoRow) {
  ElementwiseKernel k;
  k.out_type = F;
  k.out_dims = {0, 3};
  k.operands = {operand(F, {0, 3}), operand(F, {3})};
  k.values = {load(0, F), load(1, F), op("Add", {0, 1}, F)};
  EXPECT_TRUE(run<float>(k, {storage_of(std::vector<float>{}), storage_of(std::vector<float>{1, 2, 3})}, 0).empty());
}

TEST(ElementwiseKernel, AComparisonWithNaNIsFalse) {
  ElementwiseKernel k;
  k.out_type = B;
  k.out_dims = {4};
  k.operands = {operand(F, {4}), operand(F, {})};
  k.values = {load(0, F), load(1, F), op("Less", {0, 1}, B)};
  const auto y = run<std::uint8_t>(k, {storage_of(std::vector<float>{1, 2, 3, NAN}), storage_of(std::vector<float>{2})}, 4);
  EXPECT_EQ(y, (std::vector<std::uint8_t>{1, 0, 0, 0}));
}

// softmax(x + b) and log_softmax(x + b) along rows of 19 (a vector and a tail), with values near 100
// that overflow exp unless the row's maximum is taken out first; against a double computation.
TEST(ElementwiseKernel, RowsNormaliseAfterTheExpression) {
  std::vector<float> x(3 * 19), b(19);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = 90.0f + static_cast<float>((i * 7) % 23) * 0.5f;
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i % 5) - 2.0f;
  for (const auto form : {RowNormalisation::Softmax, RowNormalisation::LogSoftmax}) {
    ElementwiseKernel k;
    k.normalise = form;
    k.out_type = F;
    k.out_dims = {3, 19};
    k.operands = {operand(F, {3, 19}), operand(F, {19})};
    k.values = {load(0, F), load(1, F), op("Add", {0, 1}, F)};
    const auto y = run<float>(k, {storage_of(x), storage_of(b)}, 57);
    for (std::size_t r = 0; r < 3; ++r) {
      double max = -1e300, sum = 0;
      for (std::size_t j = 0; j < 19; ++j) max = std::max(max, double{x[r * 19 + j]} + b[j]);
      for (std::size_t j = 0; j < 19; ++j) sum += std::exp(double{x[r * 19 + j]} + b[j] - max);
      for (std::size_t j = 0; j < 19; ++j) {
        const double v = double{x[r * 19 + j]} + b[j] - max;
        const double want = form == RowNormalisation::Softmax ? std::exp(v) / sum : v - std::log(sum);
        EXPECT_NEAR(y[r * 19 + j], want, 1e-6 + 1e-6 * std::fabs(want)) << r << ", " << j;
      }
    }
  }
}

TEST(ElementwiseKernel, ARowOfOneElementIsOne) {
  ElementwiseKernel k;
  k.normalise = RowNormalisation::Softmax;
  k.out_type = F;
  k.out_dims = {4, 1};
  k.operands = {operand(F, {4, 1})};
  k.values = {load(0, F)};
  EXPECT_EQ(run<float>(k, {storage_of(std::vector<float>{-3, 0, 7, 1e30f})}, 4), (std::vector<float>{1, 1, 1, 1}));
}

}  // namespace
}  // namespace loam::lower
