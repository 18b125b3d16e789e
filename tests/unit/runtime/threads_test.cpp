// The CPU backend on several threads: Workers runs every job once and keeps a job's exception, and
// every kernel that splits its work (the SGEMM by rows and by columns, batched products, each
// convolution path and the copies around one image's product, depthwise, a product's fused
// epilogue, attention) gives bit for bit what one thread gives.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "loam/runtime.hpp"

namespace {

using namespace loam_runtime;

struct Batch {};
struct Feat {};
struct Hidden {};
struct Head {};
struct Seq {};
struct One {
  static constexpr std::int64_t EXTENT = 1;
};

template <class E, class L>
bool same_bits(const Tensor<E, L>& a, const Tensor<E, L>& b) {
  return a.extents() == b.extents() && std::memcmp(a.data(), b.data(), static_cast<std::size_t>(a.count()) * sizeof(E)) == 0;
}

template <class L>
Tensor<float, L> random_tensor(const typename Tensor<float, L>::Extents& extents, std::mt19937& gen) {
  std::uniform_real_distribution<float> u(-1, 1);
  Tensor<float, L> t(extents);
  for (std::int64_t i = 0; i < t.count(); ++i) t.data()[i] = u(gen);
  return t;
}

TEST(Workers, RunsEveryJobOnceOnMoreThanOneThread) {
  const Workers workers(3);
  EXPECT_EQ(workers.threads(), 3);
  std::vector<std::atomic<int>> hits(64);
  std::mutex m;
  std::set<std::thread::id> ids;
  workers.run(64, [&](std::int64_t i) {
    hits[static_cast<std::size_t>(i)].fetch_add(1);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    std::lock_guard<std::mutex> lock(m);
    ids.insert(std::this_thread::get_id());
  });
  for (const auto& h : hits) EXPECT_EQ(h.load(), 1);
  EXPECT_GT(ids.size(), 1u);
  // Many calls in a row, each seeing every job: the workers spin or sleep between them.
  for (int call = 0; call < 2000; ++call) {
    std::atomic<std::int64_t> sum{0};
    workers.run(5, [&](std::int64_t i) { sum.fetch_add(i + 1); });
    ASSERT_EQ(sum.load(), 15) << "call " << call;
  }
}

TEST(Workers, RethrowsAJobsExceptionAfterEveryJobRan) {
  const Workers workers(2);
  std::atomic<int> ran{0};
  EXPECT_THROW(workers.run(8,
                           [&](std::int64_t i) {
                             ran.fetch_add(1);
                             if (i == 3) throw KernelMisuse("job 3");
                           }),
               KernelMisuse);
  EXPECT_EQ(ran.load(), 8);
  // The workers are usable after it.
  std::atomic<int> after{0};
  workers.run(4, [&](std::int64_t) { after.fetch_add(1); });
  EXPECT_EQ(after.load(), 4);
}

TEST(Workers, ANestedCallAndAConcurrentCallRunWhereTheyAreMade) {
  const Workers workers(2);
  std::atomic<int> inner{0};
  workers.run(2, [&](std::int64_t) { workers.run(3, [&](std::int64_t) { inner.fetch_add(1); }); });
  EXPECT_EQ(inner.load(), 6);
  // Two threads sharing one Workers: each call still runs all its jobs.
  std::atomic<int> a{0}, b{0};
  std::thread other([&] {
    for (int i = 0; i < 200; ++i) workers.run(4, [&](std::int64_t) { a.fetch_add(1); });
  });
  for (int i = 0; i < 200; ++i) workers.run(4, [&](std::int64_t) { b.fetch_add(1); });
  other.join();
  EXPECT_EQ(a.load(), 800);
  EXPECT_EQ(b.load(), 800);
}

TEST(Workers, JobShareSplitsWholeUnitsLargerFirst) {
  std::int64_t next = 0;
  for (std::int64_t j = 0; j < 3; ++j) {
    const auto [first, end] = job_share(10, 3, j);
    EXPECT_EQ(first, next);
    EXPECT_EQ(end - first, j == 0 ? 4 : 3);
    next = end;
  }
  EXPECT_EQ(next, 10);
}

// Shapes on both sides of the split's choices: one row (a decode step's columns), few rows and
// many columns (a convolution's channels by its plane), many rows and few columns, rows and
// columns that end in partial units, K past one block.
const std::vector<std::array<std::int64_t, 3>> SHAPES = {{1, 1000, 300}, {16, 2000, 27}, {300, 70, 300}, {9, 49, 300},
                                                          {130, 25, 64}, {61, 150, 97}, {8, 24, 1024}, {1, 37, 4000}};

TEST(Threads, SgemmGivesOneThreadsBitsOnEveryPath) {
  std::mt19937 gen(17);
  std::uniform_real_distribution<float> u(-1, 1);
  const Workers two(2), three(3), five(5);
  for (auto [m, n, k] : SHAPES) {
    std::vector<float> a(static_cast<std::size_t>(m * k)), b(static_cast<std::size_t>(k * n)), row_bias(static_cast<std::size_t>(m)),
        col_bias(static_cast<std::size_t>(n));
    for (auto* v : {&a, &b, &row_bias, &col_bias})
      for (auto& x : *v) x = u(gen);
    std::vector<float> packed(static_cast<std::size_t>(Sgemm::packed_b_size(k, n)));
    Sgemm::pack_b(b.data(), n, 1, k, n, packed.data());
    for (const char* mode : {"wide", "avx2", "portable"}) {
      Sgemm::narrow_only = std::string(mode) == "avx2";
      Sgemm::portable_only = std::string(mode) == "portable";
      for (int operand = 0; operand < 2; ++operand) {
        const auto bo = operand == 0 ? Sgemm::BOperand::row_major(b.data(), n) : Sgemm::packed_b(packed.data(), k);
        Sgemm::Epilogue ep;
        ep.alpha = 0.5f;
        ep.row_bias = row_bias.data();
        ep.col_bias = col_bias.data();
        ep.relu = true;
        std::vector<float> want(static_cast<std::size_t>(m * n));
        Sgemm::run(m, n, k, Sgemm::AOperand::row_major(a.data(), k), bo, want.data(), n, ep);
        for (const Workers* w : {&two, &three, &five}) {
          std::vector<float> got(want.size(), 7.0f);
          Sgemm::run(m, n, k, Sgemm::AOperand::row_major(a.data(), k), bo, got.data(), n, ep, w);
          ASSERT_EQ(std::memcmp(got.data(), want.data(), want.size() * sizeof(float)), 0)
              << m << "x" << n << "x" << k << " " << mode << (operand ? " packed B" : " row-major B") << ", " << w->threads() << " threads";
        }
      }
    }
    Sgemm::narrow_only = Sgemm::portable_only = false;
  }
}

// relu(p + b[column % e[1]]) on rows [first, first + count) of e[0] columns (b holds e[1]
// elements), recording each row it is given; the rows come from several threads at once.
struct RecordedAddRelu {
  static inline std::mutex mutex;
  static inline std::vector<int> seen;
  static void run(const std::array<std::int64_t, 4>& e, std::byte* out, std::uint64_t, const KernelBytes& p, const KernelBytes& b) {
    const std::int64_t n = e[0], b_count = e[1], first = e[2], count = e[3];
    const auto* pv = reinterpret_cast<const float*>(p.data);
    const auto* bv = reinterpret_cast<const float*>(b.data);
    auto* y = reinterpret_cast<float*>(out);
    for (std::int64_t r = first; r < first + count; ++r)
      for (std::int64_t j = 0; j < n; ++j) y[r * n + j] = std::max(pv[r * n + j] + bv[j % b_count], 0.0f);
    std::lock_guard<std::mutex> lock(mutex);
    for (std::int64_t r = first; r < first + count; ++r) ++seen[static_cast<std::size_t>(r)];
  }
};

TEST(Threads, ProductsAndTheirEpiloguesGiveOneThreadsBits) {
  std::mt19937 gen(23);
  const Cpu one, two(2), three(3);
  EXPECT_EQ(one.threads(), 1);
  EXPECT_EQ(three.threads(), 3);
  for (auto [m, n, k] : SHAPES) {
    SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k));
    const auto a = random_tensor<Axes<Batch, Feat>>({m, k}, gen);
    const auto w = random_tensor<Axes<Feat, Hidden>>({k, n}, gen);
    const auto bias = random_tensor<Axes<Hidden>>({n}, gen);
    const PackedMatrix<Feat, Hidden> packed(w);
    const auto want = one.matmul(a, w);
    const auto want_packed = one.matmul_bias(a, packed, bias, true);
    const std::array<std::int64_t, 2> extents = {m, n}, args = {n, n};
    for (const Cpu* cpu : {&two, &three}) {
      EXPECT_TRUE(same_bits(cpu->matmul(a, w), want));
      EXPECT_TRUE(same_bits(cpu->matmul_bias(a, packed, bias, true), want_packed));
      // The product's rows reach its epilogue once each, whichever way the product was split.
      RecordedAddRelu::seen.assign(static_cast<std::size_t>(m), 0);
      const auto fused = cpu->matmul(a, packed, false, epilogue<Axes<Batch, Hidden>, float>(RecordedAddRelu{}, extents, args, bias));
      EXPECT_EQ(RecordedAddRelu::seen, std::vector<int>(static_cast<std::size_t>(m), 1));
      RecordedAddRelu::seen.assign(static_cast<std::size_t>(m), 0);
      const auto alone = one.matmul(a, packed, false, epilogue<Axes<Batch, Hidden>, float>(RecordedAddRelu{}, extents, args, bias));
      EXPECT_TRUE(same_bits(fused, alone));
    }
  }
  // Attention's products: a batch of heads, whole heads a thread, and fewer heads than threads.
  for (const std::int64_t heads : {std::int64_t{1}, std::int64_t{2}, std::int64_t{7}}) {
    const auto q = random_tensor<Axes<Head, Seq, Feat>>({heads, 128, 64}, gen);
    const auto kt = random_tensor<Axes<Head, Feat, Hidden>>({heads, 64, 96}, gen);
    const auto want = one.matmul(q, kt);
    EXPECT_TRUE(same_bits(two.matmul(q, kt), want)) << heads << " heads";
    EXPECT_TRUE(same_bits(three.matmul(q, kt), want)) << heads << " heads";
  }
}

TEST(Threads, GemmWithCGivesOneThreadsBits) {
  std::mt19937 gen(29);
  const Cpu one, two(2);
  const auto a = random_tensor<Axes<Batch, Feat>>({70, 300}, gen);
  const auto bt = random_tensor<Axes<Hidden, Feat>>({90, 300}, gen);
  const auto c = random_tensor<Axes<Batch, Hidden>>({70, 90}, gen);
  EXPECT_TRUE(same_bits(two.gemm<false, true>(a, bt, c, 0.5f, 2.0f), one.gemm<false, true>(a, bt, c, 0.5f, 2.0f)));
  const auto at = random_tensor<Axes<Feat, Batch>>({300, 70}, gen);
  EXPECT_TRUE(same_bits(two.gemm<true, true>(at, bt, 1.0f, true), one.gemm<true, true>(at, bt, 1.0f, true)));
}

// Attention splits by (batch, head): 3-D Q over grouped kv heads, with a past cache, a float mask
// and the causal frontier.
TEST(Threads, AttentionGivesOneThreadsBits) {
  std::mt19937 gen(31);
  const Cpu one, two(2);
  struct Kv {};
  struct Past {};
  const auto q = random_tensor<Axes<Batch, Seq, Feat>>({2, 5, 4 * 8}, gen);
  const auto k = random_tensor<Axes<Batch, Seq, Hidden>>({2, 5, 2 * 8}, gen);
  const auto v = random_tensor<Axes<Batch, Seq, Hidden>>({2, 5, 2 * 8}, gen);
  const auto past_k = random_tensor<Axes<Batch, Kv, Past, Head>>({2, 2, 3, 8}, gen);
  const auto past_v = random_tensor<Axes<Batch, Kv, Past, Head>>({2, 2, 3, 8}, gen);
  const auto mask = random_tensor<Axes<Seq, Past>>({5, 8}, gen);
  AttentionParams p{.scale = 0.3f, .causal = true, .q_heads = 4, .kv_heads = 2};
  using Y = Axes<Batch, Seq, Feat>;
  EXPECT_TRUE(same_bits(two.attention<Y>(q, k, v, past_k, past_v, mask, nullptr, p), one.attention<Y>(q, k, v, past_k, past_v, mask, nullptr, p)));
}

TEST(Threads, EveryConvolutionPathGivesOneThreadsBits) {
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
    const char* name;
    std::array<std::int64_t, 4> x, w;
    WindowParams conv;
  };
  const std::vector<Case> cases = {
      {"stride 1 (implicit im2col)", {2, 3, 40, 37}, {16, 3, 3, 3}, {{}, {}, {1, 1, 1, 1}, {}, 1, AutoPad::NotSet, false, false}},
      {"strided (im2col)", {1, 8, 41, 40}, {24, 8, 3, 3}, {{}, {2, 2}, {1, 1, 1, 1}, {}, 1, AutoPad::NotSet, false, false}},
      // One image, large enough that the copies into and out of its product are split too.
      {"one image's first layer, copies split", {1, 3, 120, 161}, {16, 3, 3, 3}, {{}, {2, 2}, {1, 1, 1, 1}, {}, 1, AutoPad::NotSet, false, false}},
      {"one image at stride 1, copies split", {1, 8, 64, 70}, {8, 8, 3, 3}, {{}, {}, {1, 1, 1, 1}, {}, 1, AutoPad::NotSet, false, false}},
      {"depthwise, stride 1", {2, 24, 30, 31}, {24, 1, 3, 3}, {{}, {}, {1, 1, 1, 1}, {}, 24, AutoPad::NotSet, false, false}},
      {"depthwise, stride 2", {1, 32, 41, 40}, {32, 1, 3, 3}, {{}, {2, 2}, {1, 1, 1, 1}, {}, 32, AutoPad::NotSet, false, false}},
      // Planes large enough to split by bands of rows where the input is copied (those above split
      // by planes; 3 x 3 at stride 1 reads in place where AVX-512 is present, so by planes there).
      {"depthwise by bands, stride 1", {1, 8, 64, 72}, {8, 1, 3, 3}, {{}, {}, {1, 1, 1, 1}, {}, 8, AutoPad::NotSet, false, false}},
      {"depthwise by bands, stride 2", {1, 8, 130, 127}, {8, 1, 3, 3}, {{}, {2, 2}, {1, 1, 1, 1}, {}, 8, AutoPad::NotSet, false, false}},
      {"depthwise by bands, 5 x 5", {1, 4, 66, 62}, {4, 1, 5, 5}, {{}, {}, {2, 2, 2, 2}, {}, 4, AutoPad::NotSet, false, false}},
      {"pointwise, grouped", {2, 16, 30, 30}, {24, 8, 1, 1}, {{}, {}, {}, {}, 2, AutoPad::NotSet, false, false}},
  };
  std::mt19937 gen(31);
  const Cpu one, two(2), three(3);
  // Where AVX-512 is present, the AVX2 kernels too (their depthwise copies its input, so splits by bands).
  for (const bool narrow : {false, true}) {
    for (const Case& c : cases) {
      SCOPED_TRACE(c.name);
      SCOPED_TRACE(narrow ? "AVX2 kernels" : "the machine's kernels");
      Sgemm::narrow_only = narrow;
      const auto x = random_tensor<Axes<N, C, H, W>>(c.x, gen);
      const auto wt = random_tensor<Axes<K, C, KH, KW>>(c.w, gen);
      const auto bias = random_tensor<Axes<K>>({c.w[0]}, gen);
      const PackedConv<Axes<K, C, KH, KW>> w(wt, c.conv.group);
      const auto want = one.conv<Axes<N, K, H, W>>(x, w, bias, c.conv, true);
      WindowParams pool{{2, 2}, {2, 2}, {}, {}, 1, AutoPad::NotSet, false, false};
      const auto want_pooled = one.conv_max_pool<Axes<N, K, PH, PW>, Axes<N, K, H, W>>(x, w, bias, c.conv, true, pool);
      const auto& e = want.extents();
      const std::int64_t plane = e[2] * e[3], rows = e[0] * e[1];
      Tensor<float, Axes<One, One>> zero({1, 1});
      for (const Cpu* cpu : {&two, &three}) {
        EXPECT_TRUE(same_bits(cpu->conv<Axes<N, K, H, W>>(x, w, bias, c.conv, true), want)) << cpu->threads() << " threads";
        EXPECT_TRUE(same_bits(cpu->conv_max_pool<Axes<N, K, PH, PW>, Axes<N, K, H, W>>(x, w, bias, c.conv, true, pool), want_pooled))
            << cpu->threads() << " threads";
        // A fused epilogue sees each (image, channel) plane once.
        RecordedAddRelu::seen.assign(static_cast<std::size_t>(rows), 0);
        const auto fused = cpu->conv<Axes<N, K, H, W>>(
            x, w, bias, c.conv, false, epilogue<Axes<N, K, H, W>, float>(RecordedAddRelu{}, e, std::array<std::int64_t, 2>{plane, 1}, zero));
        EXPECT_EQ(RecordedAddRelu::seen, std::vector<int>(static_cast<std::size_t>(rows), 1));
        EXPECT_TRUE(same_bits(fused, want)) << cpu->threads() << " threads";
      }
      Sgemm::narrow_only = false;
    }
  }
  // Three spatial axes take the generic im2col.
  struct D {};
  const auto x3 = random_tensor<Axes<N, C, D, H, W>>({1, 4, 10, 12, 12}, gen);
  const auto w3 = random_tensor<Axes<K, C, KH, KW, D>>({8, 4, 3, 3, 3}, gen);
  const PackedConv<Axes<K, C, KH, KW, D>> p3(w3, 1);
  const WindowParams c3{{}, {}, {1, 1, 1, 1, 1, 1}, {}, 1, AutoPad::NotSet, false, false};
  EXPECT_TRUE(same_bits(two.conv<Axes<N, K, D, H, W>>(x3, p3, c3), one.conv<Axes<N, K, D, H, W>>(x3, p3, c3)));
}

TEST(Threads, TheOpaqueBackendTakesAThreadCount) {
  std::mt19937 gen(37);
  const auto a = random_tensor<Axes<Batch, Feat>>({200, 300}, gen);
  const auto w = random_tensor<Axes<Feat, Hidden>>({300, 100}, gen);
  const OpaqueBackend opaque(2);
  const Cpu one;
  EXPECT_TRUE(same_bits(opaque.download(opaque.matmul(opaque.upload(a), opaque.upload(w))), one.matmul(a, w)));
}

}  // namespace
