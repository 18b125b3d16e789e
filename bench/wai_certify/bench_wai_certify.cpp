// Certifying a graph the size of syn_y (§13.6.2): 32 convolutions and transposed convolutions of
// 192 channels over a [160, 16, 16] latent, with Q16 products, additions, layer normalisations
// and attention, every activation checked at A32. About 10 million weights. The requirement is
// under 1 s per certificate, reading and planning the bytes included.
#include "wai/certificate.hpp"

#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

namespace {

using namespace loam::wai;

constexpr std::int64_t kA32Lo = INT32_MIN, kA32Hi = INT32_MAX;

struct Lcg {
  std::uint64_t s = 0x9E3779B97F4A7C15ull;
  std::int64_t next(std::int64_t span) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<std::int64_t>((s >> 33) % static_cast<std::uint64_t>(2 * span + 1)) - span;
  }
};

std::uint32_t tensor(Whg1Graph& g, std::uint32_t ch, Policy p = Policy::check) {
  TensorRecord t;
  t.channels = ch;
  t.policy = p;
  if (p != Policy::derived) {
    t.lo = kA32Lo;
    t.hi = kA32Hi;
  }
  g.tensors.push_back(t);
  return static_cast<std::uint32_t>(g.tensors.size() - 1);
}

std::uint32_t op(Whg1Graph& g, Opcode code, std::vector<std::uint32_t> in, OpParams p, std::uint32_t ch,
                 Policy pol = Policy::check) {
  Operator o;
  o.opcode = code;
  o.inputs = std::move(in);
  o.outputs = {tensor(g, ch, pol)};
  o.params = std::move(p);
  g.ops.push_back(std::move(o));
  return g.ops.back().outputs[0];
}

RqBlock rq_q16(std::uint32_t cout, Lcg& r) {
  RqBlock rq;
  rq.round = Round::floor;
  rq.m_kind = 1;
  rq.m_bytes = 8;
  rq.mult = {1 + r.next(1 << 20) + (1 << 20)};
  rq.s_kind = 1;
  rq.shift = {31};
  rq.bias = BiasPlacement::post;
  rq.b_bytes = 8;
  for (std::uint32_t o = 0; o < cout; ++o) rq.bias_values.push_back(r.next(1 << 20));
  return rq;
}

std::vector<std::uint8_t> syn_y_sized() {
  Lcg r;
  Whg1Graph g;
  InputRecord in;
  in.tensor = tensor(g, 160);
  in.max_h = in.max_w = 16;
  g.inputs.push_back(in);
  const std::uint32_t C = 192;
  ConvParams first;
  first.cout = C;
  first.kh = first.kw = 3;
  first.ph = first.pw = 1;
  first.w_bytes = 2;
  first.rq = rq_q16(C, r);
  for (std::size_t i = 0; i < std::size_t{C} * 160 * 9; ++i) first.weights.push_back(r.next(20000));
  std::uint32_t x = op(g, Opcode::conv, {0}, first, C);
  for (int layer = 0; layer < 30; ++layer) {
    if (layer % 10 == 5) {
      ConvTransposeParams t;
      t.cout = C;
      t.kh = t.kw = 3;
      t.sh = t.sw = 1;
      t.ph = t.pw = 1;
      t.w_bytes = 2;
      t.rq = rq_q16(C, r);
      for (std::size_t i = 0; i < std::size_t{C} * C * 9; ++i) t.weights.push_back(r.next(20000));
      x = op(g, Opcode::conv_transpose, {x}, t, C);
      continue;
    }
    ConvParams c;
    c.cout = C;
    c.kh = c.kw = 3;
    c.ph = c.pw = 1;
    c.w_bytes = 2;
    c.rq = rq_q16(C, r);
    for (std::size_t i = 0; i < std::size_t{C} * C * 9; ++i) c.weights.push_back(r.next(20000));
    const std::uint32_t y = op(g, Opcode::conv, {x}, c, C);
    RqBlock q16;
    q16.s_kind = 1;
    q16.shift = {16};
    const std::uint32_t m = op(g, Opcode::mul, {x, y}, RqParams{q16}, C);
    x = op(g, Opcode::add, {x, m}, std::monostate{}, C);
    if (layer % 10 == 9) {
      LayernormParams ln;
      ln.eps = 42949;
      for (std::uint32_t k = 0; k < C; ++k) {
        ln.gamma.push_back(65536 + r.next(1000));
        ln.beta.push_back(r.next(1000));
      }
      x = op(g, Opcode::layernorm_c, {x}, ln, C);
      ContractionParams gp;
      gp.groups = 4;
      gp.rq.round = Round::half_up;
      gp.rq.shift = {16};
      const std::uint32_t a = op(g, Opcode::l2norm, {x}, L2normParams{42949}, C, Policy::derived);
      const std::uint32_t gm = op(g, Opcode::gram, {a, a}, gp, C);
      const std::uint32_t sm = op(g, Opcode::softmax, {gm}, std::monostate{}, C, Policy::derived);
      x = op(g, Opcode::apply, {sm, x}, gp, C);
    }
  }
  g.outputs = {x};
  return write_whg1(g);
}

void BM_CertifySynYSized(benchmark::State& state) {
  const std::vector<std::uint8_t> bytes = syn_y_sized();
  for (auto _ : state) {
    Certificate c = certify_graph("syn_y", bytes);
    benchmark::DoNotOptimize(c.json.data());
  }
  state.counters["graph_bytes"] = static_cast<double>(bytes.size());
}
BENCHMARK(BM_CertifySynYSized)->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace
