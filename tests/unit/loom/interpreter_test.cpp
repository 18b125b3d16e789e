// The reference semantics where a plausible implementation goes wrong: arithmetic that must not
// wrap, casts that must not lose a value, promises that do not hold, out-of-bounds access, the
// narrow float formats' rounding, saturating conversions, the reduction order and q4_0 decoding.
#include <gtest/gtest.h>

#include <cmath>

#include "loom/interpreter.hpp"
#include "loom/run_args.hpp"
#include "loom/syntax.hpp"
#include "support/error.hpp"

namespace {

using namespace loam::loom;

// Runs @f of `text` with `args`; gives the results' bits, or the error message.
struct Outcome {
  std::vector<std::uint64_t> results;
  std::string error;
  std::vector<RunArgument> args;
};

Outcome run(const std::string& text, const std::vector<std::string>& specs, const std::string& entry = "f") {
  Outcome o;
  try {
    Module m = parse_module(text, "t.loom");
    o.args = make_run_arguments(m, entry, specs);
    std::vector<RtValue> values;
    for (const auto& a : o.args) values.push_back(a.value);
    Interpreter in(m);
    for (const auto& r : in.call(entry, values)) o.results.push_back(r.bits);
  } catch (const loam::Error& e) {
    o.error = e.what();
  }
  return o;
}

std::string binary_index(const std::string& op) {
  return "func.def @f(%a: index, %b: index) -> (index) {\n  %r = " + op + " %a, %b : index\n  func.return %r : index\n}\n";
}

TEST(LoomInterpreter, IndexArithmeticNeverWraps) {
  EXPECT_EQ(run(binary_index("index.add"), {"9223372036854775806", "1"}).results.at(0), 9223372036854775807ull);
  EXPECT_EQ(run(binary_index("index.add"), {"9223372036854775807", "1"}).error,
            "t.loom:2:3: index.add: %r = %a + %b leaves index (9223372036854775807 + 1)");
  EXPECT_NE(run(binary_index("index.mul"), {"4294967296", "4294967296"}).error, "");
  EXPECT_NE(run(binary_index("index.div"), {"7", "0"}).error, "");
  EXPECT_NE(run(binary_index("index.div"), {"-9223372036854775808", "-1"}).error, "");
  EXPECT_EQ(run(binary_index("index.rem"), {"-9223372036854775808", "-1"}).results.at(0), 0u);
  EXPECT_EQ(static_cast<std::int64_t>(run(binary_index("index.div"), {"-7", "2"}).results.at(0)), -3);  // toward zero
  EXPECT_EQ(static_cast<std::int64_t>(run(binary_index("index.rem"), {"-7", "2"}).results.at(0)), -1);
}

TEST(LoomInterpreter, OffsetsStayNonNegative) {
  const std::string text =
      "func.def @f(%a: offset, %b: offset) -> (offset) {\n  %r = index.sub %a, %b : offset\n  func.return %r : offset\n}\n";
  EXPECT_EQ(run(text, {"5", "3"}).results.at(0), 2u);
  EXPECT_NE(run(text, {"3", "5"}).error, "");
}

TEST(LoomInterpreter, CastsCheckRepresentability) {
  const std::string narrow = "func.def @f(%a: index) -> (i8) {\n  %r = index.cast %a : index to i8\n  func.return %r : i8\n}\n";
  EXPECT_EQ(run(narrow, {"-128"}).results.at(0), 0x80u);
  EXPECT_EQ(run(narrow, {"128"}).error, "t.loom:2:3: index.cast: %a = 128 does not fit in i8");
  const std::string widen = "func.def @f(%a: i32) -> (index) {\n  %r = index.cast %a : i32 to index\n  func.return %r : index\n}\n";
  EXPECT_EQ(static_cast<std::int64_t>(run(widen, {"-5"}).results.at(0)), -5);  // a payload enters index signed
  const std::string to_offset =
      "func.def @f(%a: index) -> (offset) {\n  %p = index.assume %a [range(%a, 0, 100)] : index\n"
      "  %r = index.cast %p : index to offset\n  func.return %r : offset\n}\n";
  EXPECT_EQ(run(to_offset, {"7"}).results.at(0), 7u);
  EXPECT_EQ(run(to_offset, {"101"}).error, "t.loom:2:3: index.assume: the promise range(0, 100) on %a does not hold: it is 101");
}

TEST(LoomInterpreter, ViewAccessIsBoundsChecked) {
  const std::string text =
      "func.def @f(%n: index, %i: index, %b: buffer) -> (f32) {\n"
      "  %base = index.constant 0 : offset\n"
      "  %v = buffer.view %b[%base] : buffer -> view<[%n]xf32>\n"
      "  %x = view.load %v[%i] : view<[%n]xf32> -> f32\n"
      "  func.return %x : f32\n}\n";
  EXPECT_EQ(run(text, {"4", "3", "f32:1,2,3,4"}).results.at(0), std::bit_cast<std::uint32_t>(4.0f));
  EXPECT_EQ(run(text, {"4", "4", "f32:1,2,3,4"}).error, "t.loom:4:3: view.load: %i = 4 lies outside dimension 0 (extent 4)");
  EXPECT_EQ(run(text, {"4", "-1", "f32:1,2,3,4"}).error, "t.loom:4:3: view.load: %i = -1 lies outside dimension 0 (extent 4)");
  EXPECT_EQ(run(text, {"5", "0", "f32:1,2,3,4"}).error,
            "t.loom:3:3: buffer.view: %v needs bytes [0, 20) of %b, which holds 16");
}

TEST(LoomInterpreter, NoaliasPromisesAreChecked) {
  const std::string text =
      "func.def @f(%a: buffer) {\n  %x, %y = buffer.assume.noalias %a, %a : buffer, buffer\n  func.return\n}\n";
  EXPECT_EQ(run(text, {"f32:1"}).error, "t.loom:2:3: buffer.assume.noalias: the promise does not hold: %a and %a share bytes");
}

TEST(LoomInterpreter, NarrowFloatsRoundEachResult) {
  const std::string text =
      "func.def @f(%a: f16, %b: f16) -> (f16) {\n  %r = scalar.addf %a, %b : f16\n  func.return %r : f16\n}\n";
  // 2048 + 1 is exactly between two f16 values; ties go to even: 2048.
  EXPECT_EQ(run(text, {"2048.0", "1.0"}).results.at(0), 0x6800u);
  EXPECT_EQ(run(text, {"2048.0", "3.0"}).results.at(0), 0x6802u);  // 2051 rounds up to 2052
  EXPECT_EQ(run(text, {"65504.0", "32.0"}).results.at(0), 0x7C00u);  // overflows to +inf
}

TEST(LoomInterpreter, FloatToIntSaturates) {
  const std::string text = "func.def @f(%a: f32) -> (i32) {\n  %r = scalar.fptosi %a : f32 to i32\n  func.return %r : i32\n}\n";
  EXPECT_EQ(run(text, {"1e10"}).results.at(0), 0x7FFFFFFFu);
  EXPECT_EQ(run(text, {"-1e10"}).results.at(0), 0x80000000u);
  EXPECT_EQ(run(text, {"nan"}).results.at(0), 0u);
  EXPECT_EQ(run(text, {"-2.9"}).results.at(0), 0xFFFFFFFEu);
  const std::string f8 = "func.def @f(%a: f32) -> (f8E4M3) {\n  %r = scalar.convertf saturate %a : f32 to f8E4M3\n  func.return %r : f8E4M3\n}\n";
  EXPECT_EQ(run(f8, {"1000.0"}).results.at(0), 0x7Eu);  // 448, the largest finite
  const std::string f8n = "func.def @f(%a: f32) -> (f8E4M3) {\n  %r = scalar.convertf %a : f32 to f8E4M3\n  func.return %r : f8E4M3\n}\n";
  EXPECT_EQ(run(f8n, {"1000.0"}).results.at(0), 0x7Fu);  // NaN without saturation
}

TEST(LoomInterpreter, ReductionsFoldInTheDefinedOrder) {
  // Lanes 1e8, 1, -1e8, 1 in f32: halving adds (1e8 + -1e8) and (1 + 1), giving 2; left to right
  // would give 1e8 + 1 = 1e8, then 0, then 1.
  const std::string text =
      "func.def @f(%v: vector<4xf32>) -> (f32) {\n  %r = vector.reduce add, %v : vector<4xf32> -> f32\n  func.return %r : f32\n}\n";
  EXPECT_EQ(run(text, {"1e8,1.0,-1e8,1.0"}).results.at(0), std::bit_cast<std::uint32_t>(2.0f));
}

TEST(LoomInterpreter, IntegerPayloadsWrapAndDivisionStops) {
  const std::string add = "func.def @f(%a: i8, %b: i8) -> (i8) {\n  %r = scalar.addi %a, %b : i8\n  func.return %r : i8\n}\n";
  EXPECT_EQ(run(add, {"127", "1"}).results.at(0), 0x80u);
  const std::string div = "func.def @f(%a: i8, %b: i8) -> (i8) {\n  %r = scalar.divsi %a, %b : i8\n  func.return %r : i8\n}\n";
  EXPECT_EQ(run(div, {"-7", "2"}).results.at(0), 0xFDu);
  EXPECT_NE(run(div, {"-128", "-1"}).error, "");
  EXPECT_NE(run(div, {"1", "0"}).error, "");
  const std::string shift = "func.def @f(%a: i8, %b: i8) -> (i8) {\n  %r = scalar.shrsi %a, %b : i8\n  func.return %r : i8\n}\n";
  EXPECT_EQ(run(shift, {"-128", "9"}).results.at(0), 0xFFu);  // past the width: all sign bits
}

TEST(LoomInterpreter, Q4_0DecodesAsGgmlStoresIt) {
  const std::string text =
      "func.def @f(%rows: index, %t: tensor<[%rows]x32xi8, #ggml.q4_0>, %i: index, %j: index) -> (i8, f16) {\n"
      "  %q = tensor.extract %t[%i, %j] : tensor<[%rows]x32xi8, #ggml.q4_0> -> i8\n"
      "  %s = tensor.block_scale %t[%i, %j] : tensor<[%rows]x32xi8, #ggml.q4_0> -> f16\n"
      "  func.return %q, %s : i8, f16\n}\n";
  Module m = parse_module(text, "t.loom");
  // One block: scale 0.5 (f16 0x3800), then 16 bytes; byte 3 = 0xA2: element 3 is 2 - 8 = -6,
  // element 19 is 10 - 8 = 2.
  auto s = std::make_shared<Storage>();
  s->bytes.assign(18, std::byte{0});
  s->bytes[0] = std::byte{0x00};
  s->bytes[1] = std::byte{0x38};
  s->bytes[2 + 3] = std::byte{0xA2};
  Interpreter in(m);
  auto r = in.call("f", {RtValue::scalar(1), RtValue::buffer(s), RtValue::scalar(0), RtValue::scalar(3)});
  EXPECT_EQ(r.at(0).bits, 0xFAu);
  EXPECT_EQ(r.at(1).bits, 0x3800u);
  r = in.call("f", {RtValue::scalar(1), RtValue::buffer(s), RtValue::scalar(0), RtValue::scalar(19)});
  EXPECT_EQ(r.at(0).bits, 0x02u);
  EXPECT_THROW(in.call("f", {RtValue::scalar(2), RtValue::buffer(s), RtValue::scalar(0), RtValue::scalar(0)}), loam::Error);
}

TEST(LoomInterpreter, AViewCrossesAFunctionCall) {
  const std::string text =
      "func.def @first(%n: index, %v: view<[%n]xf32>) -> (f32) {\n  %zero = index.constant 0 : index\n"
      "  %x = view.load %v[%zero] : view<[%n]xf32> -> f32\n  func.return %x : f32\n}\n\n"
      "func.def @f(%n: index, %b: buffer) -> (f32) {\n  %base = index.constant 0 : offset\n"
      "  %v = buffer.view %b[%base] : buffer -> view<[%n]xf32>\n"
      "  %x = func.call @first(%n, %v) : (index, view<[%n]xf32>) -> (f32)\n  func.return %x : f32\n}\n";
  EXPECT_EQ(run(text, {"2", "f32:3,4"}).results.at(0), std::bit_cast<std::uint32_t>(3.0f));
}

TEST(LoomInterpreter, NarrowNaNsAreQuiet) {
  const std::string text =
      "func.def @f(%x: i16) -> (i16) {\n  %h = scalar.bitcast %x : i16 to f16\n  %r = scalar.bitcast %h : f16 to i16\n"
      "  func.return %r : i16\n}\n";
  EXPECT_EQ(run(text, {"0x7D01"}).results.at(0), 0x7F01u);  // the signalling NaN's payload kept, made quiet
  EXPECT_EQ(run(text, {"0x7C00"}).results.at(0), 0x7C00u);  // infinity is no NaN
}

// forward's form: a kernel.call writes a fresh tensor through the kernel's first buffer, reading
// the operand's; tensor.cast rebinds its extent to another value, which must be equal at run time.
const std::string kForward =
    "kernel.def @negate(%n: index) {\n  %one = index.constant 1 : index\n"
    "  kernel.launch.config workgroups(%one, %one, %one) workgroup_size(%one, %one, %one) : index\n"
    "} launch(%n: index, %out: buffer, %in: buffer) {\n  %base = index.constant 0 : offset\n"
    "  %o = buffer.view %out[%base] : buffer -> view<[%n]xf32>\n  %x = buffer.view %in[%base] : buffer -> view<[%n]xf32>\n"
    "  %zero = index.constant 0 : index\n  %step = index.constant 1 : index\n"
    "  scf.for %i = %zero to %n step %step {\n    %v = view.load %x[%i] : view<[%n]xf32> -> f32\n"
    "    %w = scalar.negf %v : f32\n    view.store %w, %o[%i] : f32, view<[%n]xf32>\n  }\n  kernel.return\n}\n\n"
    "func.def @f(%n: index, %m: index, %x: tensor<[%n]xf32>, %i: index) -> (f32) {\n"
    "  %y = kernel.call @negate(%n, %n, %x) : (index, index, tensor<[%n]xf32>) -> (tensor<[%n]xf32>)\n"
    "  %z = tensor.cast %y : tensor<[%n]xf32> -> tensor<[%m]xf32>\n"
    "  %r = tensor.extract %z[%i] : tensor<[%m]xf32> -> f32\n  func.return %r : f32\n}\n";

// Runs kForward's @f over x = [1, -2, 5] with extents n and m, giving element i of the result.
Outcome run_forward(std::int64_t n, std::int64_t m, std::int64_t i) {
  Outcome o;
  try {
    Module mod = parse_module(kForward, "t.loom");
    auto x = std::make_shared<Storage>();
    for (float v : {1.0f, -2.0f, 5.0f}) {
      const auto u = std::bit_cast<std::uint32_t>(v);
      for (int k = 0; k < 4; ++k) x->bytes.push_back(static_cast<std::byte>(u >> (8 * k)));
    }
    Interpreter in(mod);
    const auto as_index = [](std::int64_t v) { return RtValue::scalar(static_cast<std::uint64_t>(v)); };
    for (const auto& r : in.call("f", {as_index(n), as_index(m), RtValue::buffer(x), as_index(i)})) o.results.push_back(r.bits);
  } catch (const loam::Error& e) {
    o.error = e.what();
  }
  return o;
}

TEST(LoomInterpreter, AKernelCallWritesAFreshTensor) {
  EXPECT_EQ(run_forward(3, 3, 1).results, std::vector<std::uint64_t>{std::bit_cast<std::uint32_t>(2.0f)});
  EXPECT_EQ(run_forward(3, 3, 2).results, std::vector<std::uint64_t>{std::bit_cast<std::uint32_t>(-5.0f)});
}

TEST(LoomInterpreter, ATensorCastWhoseExtentsDifferStops) {
  const Outcome o = run_forward(3, 4, 1);
  EXPECT_NE(o.error.find("tensor.cast: %y has extent 3 along dimension 0, not 4"), std::string::npos) << o.error;
}

TEST(LoomInterpreter, RunawayLoopsStop) {
  const std::string text =
      "func.def @f(%n: index) {\n  %z = index.constant 0 : index\n  %one = index.constant 1 : index\n"
      "  scf.for %i = %z to %n step %one {\n  }\n  func.return\n}\n";
  Module m = parse_module(text, "t.loom");
  InterpreterOptions o;
  o.max_steps = 1000;
  Interpreter in(m, o);
  EXPECT_THROW(in.call("f", {RtValue::scalar(1000000)}), loam::Error);
}

}  // namespace
