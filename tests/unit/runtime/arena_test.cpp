// The memory plan at run time: plan_arena's layout (values alive at once never share a byte, a
// dead value's block is reused, the arena is no larger than it must be on a chain), the thread's
// arena and its placements (an allocation of the planned size lands in its block, any other
// size is left to the allocator and drops the placement), and a steady run of placed kernels
// that asks the allocator for nothing a second time.
#include <gtest/gtest.h>

#include <random>

#include "../counting_allocator.hpp"
#include "loam/runtime.hpp"

namespace {

using namespace loam_runtime;

struct Rows {};
struct Cols {};

// Layout of N values; returns the arena's bytes.
template <std::size_t N>
std::size_t layout(const std::array<ArenaInterval, N>& life, const std::array<std::size_t, N>& bytes, std::array<std::size_t, N>& offset) {
  std::array<std::uint32_t, 2 * N> scratch{};
  return plan_arena(life, bytes, offset, scratch);
}

TEST(ArenaPlan, AChainReusesTheBlockOfAValueThatDied) {
  // a -> b -> c: a dies as c is written, so c takes a's block; b meets both.
  const std::array<ArenaInterval, 3> life{{{0, 1}, {1, 2}, {2, 3}}};
  const std::array<std::size_t, 3> bytes{1000, 4000, 1000};
  std::array<std::size_t, 3> offset{};
  const std::size_t peak = layout(life, bytes, offset);
  EXPECT_EQ(offset[0], offset[2]);
  EXPECT_NE(offset[0], offset[1]);
  EXPECT_EQ(peak, 4032u + 1024u);  // each rounded up to 64 bytes
}

TEST(ArenaPlan, IsAConstantExpression) {
  constexpr auto peak = [] {
    const std::array<ArenaInterval, 4> life{{{0, 3}, {1, 1}, {2, 2}, {3, 4}}};
    const std::array<std::size_t, 4> bytes{64, 640, 640, 128};
    std::array<std::size_t, 4> offset{};
    std::array<std::uint32_t, 8> scratch{};
    return plan_arena(life, bytes, offset, scratch);
  }();
  // 1, 2 and 3 never meet one another: one block of 640 for them all, beside 0 (64), which meets each.
  static_assert(peak == 640 + 64);
  SUCCEED();
}

TEST(ArenaPlan, ValuesAliveAtOnceNeverShareAByte) {
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    constexpr std::size_t N = 40;
    std::array<ArenaInterval, N> life{};
    std::array<std::size_t, N> bytes{}, offset{};
    for (std::size_t i = 0; i < N; ++i) {
      const auto first = static_cast<std::uint32_t>(rng() % 60);
      life[i] = {first, first + static_cast<std::uint32_t>(rng() % 12)};
      bytes[i] = rng() % 5 == 0 ? 0 : 1 + rng() % 100000;
    }
    const std::size_t peak = layout(life, bytes, offset);
    std::size_t total = 0, live_peak = 0;
    for (std::size_t i = 0; i < N; ++i) total += (bytes[i] + 63) / 64 * 64;
    for (std::uint32_t t = 0; t < 72; ++t) {
      std::size_t live = 0;
      for (std::size_t i = 0; i < N; ++i)
        if (life[i].first <= t && t <= life[i].last) live += (bytes[i] + 63) / 64 * 64;
      live_peak = std::max(live_peak, live);
    }
    EXPECT_LE(peak, total);
    EXPECT_GE(peak, live_peak);
    for (std::size_t a = 0; a < N; ++a) {
      EXPECT_EQ(offset[a] % ARENA_ALIGN, 0u);
      EXPECT_LE(offset[a] + bytes[a], peak);
      for (std::size_t b = a + 1; b < N; ++b) {
        const bool meet = life[a].first <= life[b].last && life[b].first <= life[a].last;
        const bool overlap = bytes[a] > 0 && bytes[b] > 0 && offset[a] < offset[b] + bytes[b] && offset[b] < offset[a] + bytes[a];
        EXPECT_FALSE(meet && overlap) << "round " << round << ": values " << a << " and " << b;
      }
    }
  }
}

TEST(ArenaPlan, SizesPastSizeTAreRefusedNotWrapped) {
  EXPECT_EQ(arena_value_bytes(6, 4), 24u);
  EXPECT_THROW(arena_value_bytes(-1, 4), KernelMisuse);
  EXPECT_THROW(arena_value_bytes(std::int64_t{1} << 62, 8), KernelMisuse);
  // Each value fits, the two together do not.
  ArenaPlan<2> plan;
  const std::array<ArenaInterval, 2> life{{{0, 1}, {1, 2}}};
  const std::size_t half = std::numeric_limits<std::size_t>::max() / 2 + 1;
  EXPECT_THROW(plan.enter(life, {half, half}), KernelMisuse);
}

TEST(ArenaScope, AnAllocationOfThePlannedSizeLandsInItsBlock) {
  ArenaPlan<2> plan;
  const std::array<ArenaInterval, 2> life{{{0, 1}, {1, 2}}};
  const std::array<std::size_t, 2> bytes{6 * sizeof(float), 4 * sizeof(float)};
  {
    const ArenaScope arena = plan.enter(life, bytes);
    arena.place(0);
    auto a = Tensor<float, Axes<Rows, Cols>>::uninitialized({2, 3});
    arena.place(1);
    auto other = Tensor<float, Axes<Rows, Cols>>::uninitialized({3, 3});  // not the planned size: the allocator's
    auto after = Tensor<float, Axes<Rows, Cols>>::uninitialized({2, 2});  // the placement was dropped
    EXPECT_NE(a.data(), other.data());
    EXPECT_NE(after.data(), a.data() + 64 / sizeof(float));
    arena.place(1);
    auto b = Tensor<float, Axes<Rows, Cols>>::uninitialized({2, 2});
    EXPECT_EQ(reinterpret_cast<const std::byte*>(b.data()) - reinterpret_cast<const std::byte*>(a.data()), 64);
    // A forward inside a forward on this thread finds the arena held and places nothing.
    ArenaPlan<2> inner_plan;
    const ArenaScope inner = inner_plan.enter(life, bytes);
    inner.place(0);
    auto c = Tensor<float, Axes<Rows, Cols>>::uninitialized({2, 3});
    EXPECT_NE(c.data(), a.data());
  }
  // Left: nothing is placed any more.
  auto d = Tensor<float, Axes<Rows, Cols>>::uninitialized({2, 3});
  EXPECT_EQ(plan.peak_bytes(), 128u);
  SUCCEED() << d.count();
}

// Three placed kernels a call, as a generated forward runs them: after the first call (which sizes
// the arena) the results cost the allocator nothing; without the plan each costs a block and its
// count.
float three_kernels(const Cpu& cpu, const ArenaScope* arena) {
  static const auto x = Tensor<float, Axes<Rows, Cols>>({2, 3}, {1, 2, 3, 4, 5, 6});
  if (arena) arena->place(0);
  const auto t = cpu.transpose<Axes<Cols, Rows>>(x);
  if (arena) arena->place(1);
  const auto s = cpu.softmax(t, 1);
  if (arena) arena->place(2);
  const auto u = cpu.transpose<Axes<Rows, Cols>>(s);
  return u.data()[5];
}

std::size_t requests_of_a_call(bool planned) {
  const Cpu cpu;
  static constexpr std::array<ArenaInterval, 3> life{{{0, 1}, {1, 2}, {2, 3}}};
  const std::array<std::size_t, 3> bytes{6 * sizeof(float), 6 * sizeof(float), 6 * sizeof(float)};
  static thread_local ArenaPlan<3> plan;
  three_kernels(cpu, nullptr);  // the input's first construction, outside the count
  std::size_t before = 0;
  for (int call = 0; call < 2; ++call) {
    before = counting_allocator::requests;
    counting_allocator::on = true;
    float last = 0;
    if (planned) {
      const ArenaScope arena = plan.enter(life, bytes);
      last = three_kernels(cpu, &arena);
    } else {
      last = three_kernels(cpu, nullptr);
    }
    counting_allocator::on = false;
    EXPECT_NEAR(last, 0.952574f, 1e-5f);
  }
  return counting_allocator::requests - before;
}

TEST(ArenaScope, ASteadyRunOfPlacedKernelsAllocatesNothing) {
  const std::size_t unplanned = requests_of_a_call(false);
  const std::size_t planned = requests_of_a_call(true);
  EXPECT_GE(unplanned, 3u);
  EXPECT_EQ(planned, 0u);
}

}  // namespace
