// Axis types, Tensor storage, half storage types and the boundary's error types.
#include <gtest/gtest.h>

#include <random>

#include "loam/runtime.hpp"

namespace {

using namespace loam_runtime;

struct Batch {};
struct Seq {};
struct C {
  static constexpr std::int64_t EXTENT = 3;
};
struct H {
  static constexpr std::int64_t EXTENT = 4;
};
struct W {
  static constexpr std::int64_t EXTENT = 5;
};
struct One {
  static constexpr std::int64_t EXTENT = 1;
};

// --- axis algebra, decided at compile time
static_assert(StaticAxis<C> && !StaticAxis<Batch>);
static_assert(Merged<C, H, W>::EXTENT == 60);
static_assert(!StaticAxis<Merged<Batch, C>>);
static_assert(std::is_same_v<Merged<C, H>::PARTS, Axes<C, H>>);
static_assert(AxisRank<Axes<Batch, Seq, C>> == 3);
static_assert(std::is_same_v<AxisAt<1, Axes<Batch, Seq, C>>, Seq>);
static_assert(AxisIndex<C, Axes<Batch, Seq, C>> == 2);
static_assert(AxisIn<Seq, Axes<Batch, Seq>> && !AxisIn<C, Axes<Batch, Seq>>);
static_assert(std::is_same_v<AxisFront<2, Axes<Batch, Seq, C>>, Axes<Batch, Seq>>);
static_assert(std::is_same_v<AxisBack<1, Axes<Batch, Seq, C>>, Axes<Seq, C>>);
static_assert(std::is_same_v<AxisJoin<Axes<Batch>, Axes<>, Axes<Seq, C>>, Axes<Batch, Seq, C>>);
static_assert(AxesBroadcastTo<Axes<C>, Axes<Batch, C>>);
static_assert(AxesBroadcastTo<Axes<One, C>, Axes<Batch, C>>);        // an axis of EXTENT 1 stretches
static_assert(!AxesBroadcastTo<Axes<Seq, C>, Axes<Batch, C>>);       // two names never meet
static_assert(!AxesBroadcastTo<Axes<Batch, Seq, C>, Axes<Seq, C>>);  // more axes than the result
static_assert(AxesPermute<Axes<C, Batch, Seq>, Axes<Batch, Seq, C>>);
static_assert(!AxesPermute<Axes<C, Batch, Batch>, Axes<Batch, Seq, C>>);
static_assert(std::is_same_v<MatMulRule<Axes<Batch, Seq, C>, Axes<Batch, C, H>>::Result, Axes<Batch, Seq, H>>);
static_assert(std::is_same_v<MatMulRule<Axes<Batch, Seq, C>, Axes<C, H>>::Result, Axes<Batch, Seq, H>>);
static_assert(std::is_same_v<MatMulRule<Axes<Seq, C>, Axes<Batch, C, H>>::Result, Axes<Batch, Seq, H>>);
static_assert(Backend<Cpu> && Backend<OpaqueBackend>);
static_assert(!Backend<int>);

TEST(Tensor, ExtentsByAxisAndCount) {
  Tensor<float, Axes<Batch, Seq, C>> t({2, 7, 3});
  EXPECT_EQ(t.extent<Seq>(), 7);
  EXPECT_EQ(t.extent<C>(), 3);
  EXPECT_EQ(t.count(), 42);
  EXPECT_EQ(t.strides(), (std::array<std::int64_t, 3>{21, 3, 1}));
  for (float v : t.values()) EXPECT_EQ(v, 0.0f);  // zero-filled
  Tensor<float, Axes<>> scalar;
  EXPECT_EQ(scalar.count(), 1);
}

TEST(Tensor, RegroupingSharesStorage) {
  Tensor<float, Axes<Batch, C>> t({2, 3}, {1, 2, 3, 4, 5, 6});
  auto flat = t.regrouped<Axes<Merged<Batch, C>>>({6});
  EXPECT_EQ(flat.data(), t.data());
  EXPECT_THROW((t.regrouped<Axes<Batch>>({5})), KernelMisuse);
  Cpu cpu;
  auto r = cpu.reshape<Axes<C, Batch>>(t, {3, 2});
  EXPECT_EQ(r.data(), t.data());
  EXPECT_EQ(cpu.identity(t).data(), t.data());
}

TEST(Tensor, BorrowedStorageIsCopiedBeforeAWrite) {
  static const float weights[] = {1, 2, 3, 4};
  auto t = Tensor<float, Axes<Batch, C>>::borrowed({2, 2}, weights);
  const auto& ct = t;
  EXPECT_EQ(ct.data(), weights);  // no copy to read
  t.data()[0] = 9;
  EXPECT_EQ(weights[0], 1.0f);
  EXPECT_EQ(ct.data()[0], 9.0f);
  EXPECT_NE(ct.data(), weights);
}

TEST(Tensor, RefusesBadShapes) {
  using T = Tensor<float, Axes<Batch, Seq>>;
  EXPECT_THROW(T({-1, 2}), KernelMisuse);
  EXPECT_THROW(T({std::int64_t{1} << 40, std::int64_t{1} << 40}), KernelMisuse);  // count past int64
  EXPECT_THROW(T({2, 2}, std::vector<float>{1, 2, 3}), KernelMisuse);
  EXPECT_EQ(T({0, 5}).count(), 0);
}

TEST(Half, WidensExactly) {
  EXPECT_EQ(Half::widen(Half::from_bits(0x3C00)), 1.0f);
  EXPECT_EQ(Half::widen(Half::from_bits(0xC000)), -2.0f);
  EXPECT_EQ(Half::widen(Half::from_bits(0x7BFF)), 65504.0f);
  EXPECT_EQ(Half::widen(Half::from_bits(0x0001)), std::ldexp(1.0f, -24));          // smallest subnormal
  EXPECT_EQ(Half::widen(Half::from_bits(0x03FF)), 1023.0f * std::ldexp(1.0f, -24));  // largest subnormal
  EXPECT_EQ(Half::widen(Half::from_bits(0x0400)), std::ldexp(1.0f, -14));          // smallest normal
  EXPECT_EQ(Half::widen(Half::from_bits(0xFC00)), -INFINITY);
  EXPECT_TRUE(std::isnan(Half::widen(Half::from_bits(0x7E00))));
  EXPECT_TRUE(std::signbit(Half::widen(Half::from_bits(0x8000))));
}

TEST(Half, NarrowsToNearestEven) {
  const auto bits = [](float f) { return Half::narrow(f).bits; };
  EXPECT_EQ(bits(1.0f), 0x3C00);
  EXPECT_EQ(bits(65504.0f), 0x7BFF);
  EXPECT_EQ(bits(65519.0f), 0x7BFF);
  EXPECT_EQ(bits(65520.0f), 0x7C00);  // the tie goes to the even neighbour, infinity
  EXPECT_EQ(bits(1.0f + std::ldexp(1.0f, -11)), 0x3C00);      // tie between 0x3C00 and 0x3C01: even
  EXPECT_EQ(bits(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);  // tie between 0x3C01 and 0x3C02: even
  EXPECT_EQ(bits(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(bits(std::ldexp(1.0f, -25)), 0x0000);           // tie with zero: even
  EXPECT_EQ(bits(1.5f * std::ldexp(1.0f, -25)), 0x0001);
  EXPECT_EQ(bits(3 * std::ldexp(1.0f, -25)), 0x0002);       // tie between 1 and 2 subnormal units: even
  EXPECT_EQ(bits(-0.0f), 0x8000);
  EXPECT_EQ(bits(INFINITY), 0x7C00);
  const auto nan = bits(NAN);
  EXPECT_EQ(nan & 0x7C00, 0x7C00);
  EXPECT_NE(nan & 0x03FF, 0);
}

TEST(Half, EveryHalfSurvivesARoundTrip) {
  for (std::uint32_t b = 0; b < 0x10000; ++b) {
    const Half h = Half::from_bits(static_cast<std::uint16_t>(b));
    const float f = Half::widen(h);
    if (std::isnan(f)) continue;
    ASSERT_EQ(Half::narrow(f).bits, b) << std::hex << b;
  }
}

#if defined(__x86_64__)
__attribute__((target("f16c"))) std::uint16_t hardware_narrow(float f) { return static_cast<std::uint16_t>(_cvtss_sh(f, 0)); }

TEST(Half, NarrowingAgreesWithTheF16cInstruction) {
  if (!__builtin_cpu_supports("f16c")) GTEST_SKIP() << "no F16C";
  std::mt19937 gen(7);
  std::uniform_int_distribution<std::uint32_t> any;
  for (int i = 0; i < 2000000; ++i) {
    std::uint32_t raw = any(gen);
    // Concentrate on the half's range, where rounding decides.
    if (i % 2) raw = (raw & 0x807FFFFFu) | ((100u + raw % 45u) << 23);
    const float f = std::bit_cast<float>(raw);
    if (std::isnan(f)) continue;
    ASSERT_EQ(Half::narrow(f).bits, hardware_narrow(f)) << std::hex << raw;
  }
}
#endif

TEST(BFloat16, WidensAndNarrowsToNearestEven) {
  EXPECT_EQ(BFloat16::widen(BFloat16::from_bits(0x3F80)), 1.0f);
  EXPECT_EQ(BFloat16::widen(BFloat16::from_bits(0xC0A0)), -5.0f);
  EXPECT_EQ(BFloat16::narrow(1.0f).bits, 0x3F80);
  EXPECT_EQ(BFloat16::narrow(1.0f + std::ldexp(1.0f, -8)).bits, 0x3F80);      // tie: even
  EXPECT_EQ(BFloat16::narrow(1.0f + 3 * std::ldexp(1.0f, -8)).bits, 0x3F82);  // tie: even
  EXPECT_EQ(BFloat16::narrow(1.0f + 1.5f * std::ldexp(1.0f, -8)).bits, 0x3F81);
  EXPECT_EQ(BFloat16::narrow(std::numeric_limits<float>::max()).bits, 0x7F80);  // rounds to infinity
  EXPECT_TRUE(std::isnan(BFloat16::widen(BFloat16::narrow(NAN))));
  for (std::uint32_t b = 0; b < 0x10000; ++b) {
    const float f = BFloat16::widen(BFloat16::from_bits(static_cast<std::uint16_t>(b)));
    if (!std::isnan(f)) {
      ASSERT_EQ(BFloat16::narrow(f).bits, b);
    }
  }
}

TEST(Errors, NameTensorAxisInputAndNode) {
  const LoadError load{"fc1.weight", "In", "the payload holds 12 bytes, the header says 16"};
  EXPECT_EQ(load.what(), "weights: tensor 'fc1.weight', axis 'In': the payload holds 12 bytes, the header says 16");
  const InputError input{"x", "Seq", "/attn/Slice", "extent 2000 exceeds 1024"};
  EXPECT_EQ(input.what(), "input 'x', axis 'Seq' (needed by node '/attn/Slice'): extent 2000 exceeds 1024");
  LoadResult<int> r = std::unexpected(load);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().tensor, "fc1.weight");
}

}  // namespace
