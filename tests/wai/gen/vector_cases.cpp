#include "vector_cases.hpp"

#include "wai/lowering_int_synth.hpp"

#include <string>

namespace loam::wai::vectors {

namespace {

constexpr std::int64_t I32MIN = INT32_MIN, I32MAX = INT32_MAX;

struct Lcg {
  std::uint64_t s;
  explicit Lcg(std::uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 1) {}
  std::uint64_t next() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return s >> 11;
  }
  // Uniform-ish in [lo, hi], ends included.
  std::int64_t in(std::int64_t lo, std::int64_t hi) {
    const unsigned __int128 span = static_cast<unsigned __int128>(static_cast<__int128>(hi) - lo) + 1;
    const unsigned __int128 r = (static_cast<unsigned __int128>(next()) << 53 | next()) % span;
    return static_cast<std::int64_t>(static_cast<__int128>(lo) + static_cast<__int128>(r));
  }
};

Tensor tensor(std::int64_t c, std::int64_t h, std::int64_t w, std::vector<std::int64_t> data) {
  Tensor t(Shape{c, h, w});
  t.data = std::move(data);
  return t;
}
Tensor constant(std::int64_t c, std::int64_t h, std::int64_t w, std::int64_t v) { return Tensor(Shape{c, h, w}, v); }
Tensor random(std::int64_t c, std::int64_t h, std::int64_t w, std::int64_t lo, std::int64_t hi, std::uint64_t seed) {
  Lcg r(seed);
  Tensor t(Shape{c, h, w});
  for (auto& v : t.data) v = r.in(lo, hi);
  return t;
}

struct Builder {
  Whg1Graph g;
  std::uint32_t tensor_(std::uint32_t ch, Policy p, std::int64_t lo, std::int64_t hi) {
    TensorRecord t;
    t.channels = ch;
    t.policy = p;
    t.lo = p == Policy::derived ? 0 : lo;
    t.hi = p == Policy::derived ? 0 : hi;
    g.tensors.push_back(t);
    return static_cast<std::uint32_t>(g.tensors.size() - 1);
  }
  std::uint32_t input(std::uint32_t ch, std::int64_t lo, std::int64_t hi, std::uint32_t mh = 0, std::uint32_t mw = 0,
                      Policy p = Policy::check) {
    InputRecord in;
    in.tensor = tensor_(ch, p, lo, hi);
    in.max_h = mh;
    in.max_w = mw;
    g.inputs.push_back(in);
    return in.tensor;
  }
  std::uint32_t state(std::uint32_t ch, std::int64_t lo, std::int64_t hi, std::uint32_t src, std::int64_t init,
                      std::uint32_t mh = 0, std::uint32_t mw = 0) {
    InputRecord in;
    in.tensor = tensor_(ch, Policy::check, lo, hi);
    in.kind = InputKind::state;
    in.src = src;
    in.init = init;
    in.max_h = mh;
    in.max_w = mw;
    g.inputs.push_back(in);
    return in.tensor;
  }
  std::uint32_t scalar(std::int64_t lo, std::int64_t hi) {
    g.scalars.push_back(ScalarRecord{lo, hi});
    return static_cast<std::uint32_t>(g.scalars.size() - 1);
  }
  std::vector<std::uint32_t> opn(Opcode code, std::vector<std::uint32_t> ins, OpParams p, std::uint32_t ch, int nout,
                                 Policy pol = Policy::derived, std::int64_t lo = 0, std::int64_t hi = 0) {
    Operator o;
    o.opcode = code;
    o.inputs = std::move(ins);
    for (int k = 0; k < nout; ++k) o.outputs.push_back(tensor_(ch, pol, lo, hi));
    o.params = std::move(p);
    g.ops.push_back(std::move(o));
    g.outputs = {g.ops.back().outputs[0]};
    return g.ops.back().outputs;
  }
  std::uint32_t op(Opcode code, std::vector<std::uint32_t> ins, OpParams p, std::uint32_t ch,
                   Policy pol = Policy::derived, std::int64_t lo = 0, std::int64_t hi = 0) {
    return opn(code, std::move(ins), std::move(p), ch, 1, pol, lo, hi)[0];
  }
  std::vector<std::uint8_t> bytes() const { return write_whg1(g); }
};

RqBlock rq(Round round, unsigned shift, std::optional<std::int64_t> mult = std::nullopt,
           BiasPlacement bias = BiasPlacement::none, std::vector<std::int64_t> bvals = {}) {
  RqBlock r;
  r.round = round;
  r.shift = {static_cast<std::uint8_t>(shift)};
  r.s_kind = 1;
  if (mult) {
    r.m_kind = 1;
    r.m_bytes = (*mult >= I32MIN && *mult <= I32MAX) ? 4 : 8;
    r.mult = {*mult};
  }
  r.bias = bias;
  if (bias != BiasPlacement::none) {
    r.bias_values = std::move(bvals);
    r.b_bytes = 4;
    for (std::int64_t b : r.bias_values)
      if (b < I32MIN || b > I32MAX) r.b_bytes = 8;
  }
  return r;
}

std::uint8_t wbytes(const std::vector<std::int64_t>& w) {
  std::int64_t m = 0;
  for (std::int64_t v : w) m = std::max(m, v < 0 ? -(v + 1) : v);
  return m < 128 ? 1 : m < 32768 ? 2 : m <= I32MAX ? 4 : 8;
}

ConvParams conv(std::uint32_t cout, std::uint32_t k, std::uint32_t s, std::uint32_t pad, std::uint32_t groups,
                std::vector<std::int64_t> w, RqBlock r, std::uint32_t kw = 0) {
  ConvParams p;
  p.cout = cout;
  p.kh = k;
  p.kw = kw ? kw : k;
  p.sh = p.sw = s;
  p.ph = p.pw = pad;
  p.groups = groups;
  p.w_bytes = wbytes(w);
  p.weights = std::move(w);
  p.rq = std::move(r);
  return p;
}

ConvTransposeParams convt(std::uint32_t cout, std::uint32_t k, std::uint32_t s, std::uint32_t pad, std::uint32_t opad,
                          std::vector<std::int64_t> w, RqBlock r) {
  ConvTransposeParams p;
  p.cout = cout;
  p.kh = p.kw = k;
  p.sh = p.sw = s;
  p.ph = p.pw = pad;
  p.oph = p.opw = opad;
  p.w_bytes = wbytes(w);
  p.weights = std::move(w);
  p.rq = std::move(r);
  return p;
}

std::vector<std::int64_t> weights(std::size_t n, std::int64_t span, std::uint64_t seed) {
  Lcg r(seed);
  std::vector<std::int64_t> w(n);
  for (auto& v : w) v = r.in(-span, span);
  return w;
}

struct Corpus {
  std::vector<Case> cases;
  void add(const std::string& file, const std::string& id, std::vector<std::uint8_t> bytes,
           std::vector<DecodeInput> decodes = {}) {
    cases.push_back(Case{file, id, std::move(bytes), std::move(decodes)});
  }
};

DecodeInput one(Tensor t, std::vector<std::int64_t> scalars = {}) { return DecodeInput{{std::move(t)}, std::move(scalars)}; }
DecodeInput two(Tensor a, Tensor b) { return DecodeInput{{std::move(a), std::move(b)}, {}}; }

const char* round_name(Round r) { return r == Round::floor ? "floor" : r == Round::half_up ? "half_up" : "half_even"; }

void linear(Corpus& c) {
  const std::string f = "vectors/conv.jsonl";
  {  // 3x3, pad 1, over [2, 4, 5], check [-128, 127]; inputs attaining each end of conv.acc
    Builder b;
    b.input(2, -128, 127, 4, 5);
    std::vector<std::int64_t> w = weights(3 * 2 * 9, 127, 1);
    b.op(Opcode::conv, {0}, conv(3, 3, 1, 1, 1, w, rq(Round::half_up, 3, std::nullopt, BiasPlacement::pre, {10, -20, 30})), 3);
    std::vector<DecodeInput> d = {one(random(2, 4, 5, -128, 127, 2)), one(constant(2, 4, 5, -128)),
                                  one(constant(2, 4, 5, 127)), one(random(2, 3, 3, -128, 127, 3))};
    // The sign pattern of channel 0's weights reaches the top (and its negation the bottom) of A.
    Tensor top(Shape{2, 4, 5}), bottom(Shape{2, 4, 5});
    for (std::int64_t ci = 0; ci < 2; ++ci)
      for (std::int64_t y = 0; y < 4; ++y)
        for (std::int64_t x = 0; x < 5; ++x) {
          const std::int64_t wc = w[static_cast<std::size_t>(ci * 9 + 4)];
          top.at(ci, y, x) = wc >= 0 ? 127 : -128;
          bottom.at(ci, y, x) = wc >= 0 ? -128 : 127;
        }
    d.push_back(one(top));
    d.push_back(one(bottom));
    Tensor past = constant(2, 4, 5, 0);
    past.data[7] = 128;
    d.push_back(one(past));  // one past the check range: field_range
    c.add(f, "conv_3x3_pad1", b.bytes(), d);
  }
  {  // stride larger than the kernel, odd sizes
    Builder b;
    b.input(1, -1000, 1000, 5, 7);
    b.op(Opcode::conv, {0}, conv(2, 1, 3, 0, 1, {3, -5}, rq(Round::floor, 1)), 2);
    c.add(f, "conv_stride_3_kernel_1", b.bytes(), {one(random(1, 5, 7, -1000, 1000, 4)), one(random(1, 1, 1, -1000, 1000, 5))});
  }
  {  // kernel larger than a small input: sizes per decode, refused at the run-time plan
    Builder b;
    b.input(1, -10, 10);
    b.op(Opcode::conv, {0}, conv(1, 5, 1, 0, 1, weights(25, 9, 6), rq(Round::floor, 0)), 1);
    c.add(f, "conv_kernel_larger_than_input", b.bytes(),
          {one(random(1, 3, 3, -10, 10, 7)), one(random(1, 5, 6, -10, 10, 8)), one(random(1, 1, 1, -10, 10, 9))});
  }
  {  // depthwise
    Builder b;
    b.input(2, -50, 50, 3, 3);
    b.op(Opcode::conv, {0}, conv(2, 3, 1, 1, 2, weights(18, 20, 10), rq(Round::half_even, 2)), 2);
    c.add(f, "conv_depthwise", b.bytes(), {one(random(2, 3, 3, -50, 50, 11))});
  }
  // Every rounding at shifts 0, 1, 31, 32, 62 and 63 (and 64, 127, acc64 only), with ties on
  // positive and negative products: a 1x1 conv of weight 1 passes the input to rq.
  for (Round r : {Round::floor, Round::half_up, Round::half_even})
    for (unsigned s : {0u, 1u, 31u, 32u, 62u, 63u, 64u, 127u}) {
      Builder b;
      b.input(1, INT64_MIN + 1, INT64_MAX - 1);
      b.op(Opcode::conv, {0}, conv(1, 1, 1, 0, 1, {1}, rq(r, s)), 1);
      std::vector<std::int64_t> v = {0, 1, -1, 2, -2, 3, -3, 5, -5, 7, -7, INT64_MAX - 1, INT64_MIN + 1};
      if (s >= 1 && s <= 62) {
        const std::int64_t h = std::int64_t{1} << (s - 1);
        for (std::int64_t k : {1, 3, 5, -1, -3, -5})
          if (s < 61) v.push_back(k * h);
        v.push_back(h);
        v.push_back(-h);
        v.push_back(3 * h > 0 && s < 62 ? 3 * h : h);
      }
      if (s == 63) {
        v.push_back(std::int64_t{1} << 62);
        v.push_back(-(std::int64_t{1} << 62));
      }
      c.add(f, std::string("conv_rq_") + round_name(r) + "_shift_" + std::to_string(s), b.bytes(),
            {one(tensor(1, 1, static_cast<std::int64_t>(v.size()), v))});
    }
  // The same roundings within acc32: inputs in i32 and a multiplier that fits i32, so that rq.p
  // (t·m, formed in 64 bits) reaches ties at shifts 31, 32, 62 and 63 on both signs.
  for (Round r : {Round::floor, Round::half_up, Round::half_even})
    for (unsigned s : {31u, 32u, 62u, 63u}) {
      const std::int64_t m = s == 31 ? (std::int64_t{1} << 30) : -(std::int64_t{1} << 31);
      Builder b;
      b.input(1, I32MIN + 1, I32MAX, 1, 8);
      b.op(Opcode::conv, {0}, conv(1, 1, 1, 0, 1, {1}, rq(r, s, m)), 1);
      // t·m: for s = 31 (m = 2^30) odd t give ties; for s = 32 (m = -2^31) odd t give ties; for
      // s = 62, t = ±2^30 gives ∓2^61; for s = 63, t = ±(2^31 - 1) is one unit short of ±2^62.
      std::vector<std::int64_t> v = {1, -1, 3, -3, std::int64_t{1} << 30, -(std::int64_t{1} << 30), I32MAX, I32MIN + 1};
      c.add(f, std::string("conv_rq_acc32_") + round_name(r) + "_shift_" + std::to_string(s), b.bytes(),
            {one(tensor(1, 1, 8, v))});
    }
  // acc32 limits: conv.acc at exactly 2^31 - 1 and -2^31, and one past them (acc64 only).
  for (std::int64_t extra : {0, 1}) {
    Builder b;
    b.input(2, -1, 1, 1, 1);
    b.op(Opcode::conv, {0}, conv(1, 1, 1, 0, 1, {1073741824, 1073741823 + extra}, rq(Round::floor, 0, std::nullopt, BiasPlacement::pre, {-1})), 1);
    c.add(f, extra ? "conv_acc_one_past_i32" : "conv_acc_at_i32_limits", b.bytes(),
          {one(tensor(2, 1, 1, {1, 1})), one(tensor(2, 1, 1, {-1, -1}))});
  }

  const std::string ft = "vectors/conv_transpose.jsonl";
  {
    Builder b;
    b.input(2, -100, 100, 3, 2);
    b.op(Opcode::conv_transpose, {0}, convt(2, 3, 2, 1, 1, weights(2 * 2 * 9, 50, 12), rq(Round::floor, 2, std::nullopt, BiasPlacement::pre, {3, -3})), 2);
    c.add(ft, "convT_k3_s2_p1_op1", b.bytes(), {one(random(2, 3, 2, -100, 100, 13)), one(constant(2, 3, 2, 100))});
  }
  {  // output padding at least the stride; a 1x1 plane
    Builder b;
    b.input(1, -100, 100, 1, 1);
    b.op(Opcode::conv_transpose, {0}, convt(1, 2, 2, 0, 3, {1, 2, 3, 4}, rq(Round::half_up, 0)), 1);
    c.add(ft, "convT_output_padding_past_stride", b.bytes(), {one(tensor(1, 1, 1, {7}))});
  }
  {  // each end of convT.acc attained (every weight positive, so [-100·Σw, 100·Σw]) on an odd plane
    Builder b;
    b.input(1, -100, 100, 3, 3);
    b.op(Opcode::conv_transpose, {0}, convt(1, 2, 1, 0, 0, {1, 2, 3, 4}, rq(Round::floor, 0)), 1);
    c.add(ft, "convT_acc_ends_odd_plane", b.bytes(), {one(constant(1, 3, 3, 100)), one(constant(1, 3, 3, -100))});
  }
  {  // stride larger than the kernel: positions no tap reaches hold rq(0)
    Builder b;
    b.input(1, -100, 100, 2, 3);
    b.op(Opcode::conv_transpose, {0}, convt(1, 1, 3, 0, 0, {-4}, rq(Round::floor, 1, std::nullopt, BiasPlacement::pre, {5})), 1);
    c.add(ft, "convT_stride_past_kernel", b.bytes(), {one(random(1, 2, 3, -100, 100, 14))});
  }

  const std::string fr = "vectors/rescale.jsonl";
  {
    Builder b;
    b.input(2, -100000, 100000, 2, 2);
    RqBlock r = rq(Round::half_even, 4);
    r.m_kind = 2;
    r.m_bytes = 4;
    r.mult = {-3, 7};
    r.bias = BiasPlacement::post;
    r.b_bytes = 4;
    r.bias_values = {100, -100};
    b.op(Opcode::rescale, {0}, RqParams{r}, 2);
    c.add(fr, "rescale_per_channel_mult_post_bias", b.bytes(), {one(random(2, 2, 2, -100000, 100000, 15))});
  }
  {  // q past 64 bits while y fits: refused at load under acc64
    Builder b;
    b.input(1, std::int64_t{1} << 62, std::int64_t{1} << 62, 1, 1);
    b.op(Opcode::rescale, {0}, RqParams{rq(Round::floor, 0, 2, BiasPlacement::post, {-(std::int64_t{1} << 62)})}, 1);
    c.add(fr, "rescale_q_past_i64", b.bytes());
  }

  const std::string fc = "vectors/chscale.jsonl";
  {
    Builder b;
    b.input(2, -1000, 1000, 2, 2);
    b.scalar(0, 2);
    ChscaleParams p;
    p.scalar = 0;
    p.n_rows = 3;
    p.round = Round::half_up;
    p.m_bytes = 4;
    p.shift = 3;
    p.m = {1, -2, 3, 4, -5, 6};
    b.op(Opcode::chscale, {0}, p, 2);
    const Tensor x = random(2, 2, 2, -1000, 1000, 16);
    c.add(fc, "chscale_rows", b.bytes(), {one(x, {0}), one(x, {2}), one(x, {3}), one(x, {-1})});
  }
  const std::string fm = "vectors/mul.jsonl";
  for (std::int64_t lo : {I32MIN, I32MIN - 1}) {
    Builder b;
    b.input(2, lo, I32MAX, 1, 2);
    b.input(1, 0, 1, 1, 2);
    b.op(Opcode::mul, {0, 1}, RqParams{rq(Round::floor, 0)}, 2);
    c.add(fm, lo == I32MIN ? "mul_at_i32_limits" : "mul_one_past_i32", b.bytes(),
          {two(tensor(2, 1, 2, {lo, I32MAX, 5, -7}), tensor(1, 1, 2, {1, 0})),
           two(tensor(2, 1, 2, {I32MAX, lo, 0, 1}), tensor(1, 1, 2, {0, 1}))});
  }
  const std::string fg = "vectors/gram.jsonl", fa = "vectors/apply.jsonl";
  {
    Builder b;
    b.input(4, -300, 300, 2, 3);
    ContractionParams p;
    p.groups = 2;
    p.rq = rq(Round::half_up, 4);
    b.op(Opcode::gram, {0, 0}, p, 4);
    c.add(fg, "gram_groups_2", b.bytes(), {one(random(4, 2, 3, -300, 300, 17))});
  }
  {
    Builder b;
    b.input(4, -300, 300, 1, 2);
    b.input(4, -300, 300, 2, 3);
    ContractionParams p;
    p.groups = 2;
    p.rq = rq(Round::half_up, 3);
    b.op(Opcode::apply, {0, 1}, p, 4);
    c.add(fa, "apply_groups_2", b.bytes(), {two(random(4, 1, 2, -300, 300, 18), random(4, 2, 3, -300, 300, 19))});
  }
  // gram.acc and apply.acc at exactly -2^31 and 2^31 - 1 (one term, the other operand in [0, 1]),
  // each end attained; with the first operand's range one below -2^31, acc64 only.
  for (std::int64_t lo : {I32MIN, I32MIN - 1}) {
    for (const bool gram : {true, false}) {
      Builder b;
      b.input(1, lo, I32MAX, 1, 1);
      b.input(1, 0, 1, 1, 1);
      ContractionParams p;
      p.groups = 1;
      p.rq = rq(Round::floor, 0);
      b.op(gram ? Opcode::gram : Opcode::apply, {0, 1}, p, 1);
      c.add(gram ? fg : fa, std::string(gram ? "gram" : "apply") + (lo == I32MIN ? "_acc_at_i32_limits" : "_acc_one_past_i32"),
            b.bytes(),
            {two(tensor(1, 1, 1, {lo}), tensor(1, 1, 1, {1})), two(tensor(1, 1, 1, {I32MAX}), tensor(1, 1, 1, {1})),
             two(tensor(1, 1, 1, {I32MAX}), tensor(1, 1, 1, {0}))});
    }
  }
}

void elementwise(Corpus& c) {
  {
    Builder b;
    // [-2^62, 2^62 - 1] twice: the sum's interval [-2^63, 2^63 - 2] just fits i64.
    b.input(2, -(std::int64_t{1} << 62), (std::int64_t{1} << 62) - 1, 2, 2);
    b.input(2, -(std::int64_t{1} << 62), (std::int64_t{1} << 62) - 1, 2, 2);
    b.op(Opcode::add, {0, 1}, std::monostate{}, 2);
    c.add("vectors/add.jsonl", "add_wide", b.bytes(),
          {two(random(2, 2, 2, -(std::int64_t{1} << 62), (std::int64_t{1} << 62) - 1, 20),
               random(2, 2, 2, -(std::int64_t{1} << 62), (std::int64_t{1} << 62) - 1, 21)),
           two(random(2, 2, 2, -9, 9, 22), random(2, 1, 2, -9, 9, 23))});  // sizes differ: run-time plan
  }
  {
    Builder b;
    b.input(4, -1000, 1000, 2, 3);
    b.op(Opcode::chunk_add, {0}, std::monostate{}, 2, Policy::clamp, -500, 500);
    c.add("vectors/chunk_add.jsonl", "chunk_add_clamp", b.bytes(), {one(random(4, 2, 3, -1000, 1000, 24))});
  }
  {
    Builder b;
    b.input(1, -100, 100, 1, 5);
    b.op(Opcode::clamp, {0}, ClampParams{-3, INT64_MAX}, 1);
    c.add("vectors/clamp.jsonl", "clamp_one_sided", b.bytes(), {one(tensor(1, 1, 5, {-100, -4, -3, 0, 100}))});
  }
  {
    Builder b;
    b.input(1, -100, 100, 1, 4);
    b.op(Opcode::relu, {0}, std::monostate{}, 1);
    c.add("vectors/relu.jsonl", "relu", b.bytes(), {one(tensor(1, 1, 4, {-100, -1, 0, 100}))});
  }
  {
    Builder b;
    b.input(1, INT64_MIN + 1, INT64_MAX, 1, 4);
    b.op(Opcode::abs, {0}, std::monostate{}, 1);
    c.add("vectors/abs.jsonl", "abs_extremes", b.bytes(), {one(tensor(1, 1, 4, {INT64_MIN + 1, -1, 0, INT64_MAX}))});
  }
  {  // negative values floor away from zero
    Builder b;
    b.input(1, -100, 100, 1, 6);
    b.op(Opcode::leaky, {0}, LeakyParams{3, 2}, 1);
    c.add("vectors/leaky.jsonl", "leaky_floor", b.bytes(), {one(tensor(1, 1, 6, {-100, -5, -1, 0, 1, 100}))});
  }
  {
    Builder b;
    b.input(1, -32767, 32767, 1, 5);
    Lut16Params p;
    p.table.resize(65536);
    for (std::size_t i = 1; i < p.table.size(); ++i) p.table[i] = static_cast<std::int16_t>((static_cast<int>(i) * 7919) % 65536 - 32768);
    p.table[0] = 0;
    b.op(Opcode::lut16, {0}, p, 1);
    c.add("vectors/lut16.jsonl", "lut16", b.bytes(), {one(tensor(1, 1, 5, {-32767, -1, 0, 1, 32767}))});
  }
}

void norms(Corpus& c) {
  {  // flooring each term differs from flooring the sum
    Builder b;
    b.input(2, -50, 50, 1, 3);
    IgdnParams p;
    p.gf = 1;
    p.frac = 2;
    p.g_bytes = 4;
    p.gamma = {1, 1, 1, 3};
    p.beta = {0, 5};
    b.op(Opcode::igdn, {0}, p, 2);
    c.add("vectors/igdn.jsonl", "igdn_floor_each_term", b.bytes(), {one(tensor(2, 1, 3, {1, 3, -50, 1, 5, 50}))});
  }
  // igdn.N's upper end at exactly 2^31 - 1 (β + 46340² with β = 88047), attained at x = ±46340; with
  // β one larger it passes i32 (acc64 only).
  for (std::int64_t beta : {88047, 88048}) {
    Builder b;
    b.input(1, -46340, 46340, 1, 3);
    IgdnParams p;
    p.gf = 0;
    p.frac = 16;
    p.g_bytes = 4;
    p.gamma = {1};
    p.beta = {beta};
    b.op(Opcode::igdn, {0}, p, 1);
    c.add("vectors/igdn.jsonl", beta == 88047 ? "igdn_n_at_i32_max" : "igdn_n_one_past_i32", b.bytes(),
          {one(tensor(1, 1, 3, {-46340, 0, 46340}))});
  }
  {  // odd C with a mean that is a half; and epsilon 2^64 - 1
    for (std::uint64_t eps : {std::uint64_t{42949}, ~std::uint64_t{0}}) {
      Builder b;
      b.input(3, -1000, 1000, 1, 2);
      LayernormParams p;
      p.eps = eps;
      p.g_bytes = 4;
      p.gamma = {65536, -65536, 131072};
      p.beta = {1, 2, 3};
      b.op(Opcode::layernorm_c, {0}, p, 3);
      c.add("vectors/layernorm_c.jsonl", eps == 42949 ? "layernorm_odd_c_half_mean" : "layernorm_eps_max", b.bytes(),
            {one(tensor(3, 1, 2, {0, 1000, 1, -1000, 0, 7}))});
    }
  }
  {
    Builder b;
    b.input(2, -1000, 1000, 2, 2);
    b.op(Opcode::l2norm, {0}, L2normParams{42949}, 2);
    c.add("vectors/l2norm.jsonl", "l2norm", b.bytes(), {one(random(2, 2, 2, -1000, 1000, 25))});
  }
  {  // rows that do not sum to 2^16; exp_neg_q16 at n = 62 and n = 63
    Builder b;
    b.input(1, -3000000, 100, 2, 3);
    b.op(Opcode::softmax, {0}, std::monostate{}, 1);
    c.add("vectors/softmax.jsonl", "softmax_rows", b.bytes(),
          {one(tensor(1, 2, 3, {0, 0, 0, 100, 100 - 45426 * 62, 100 - 45426 * 63}))});
  }
  for (std::int64_t lo : {INT64_MIN, INT64_MIN + 1}) {  // reaching -2^63 fails acc64 (exp.negx)
    Builder b;
    b.input(1, lo, INT64_MAX, 1, 4);
    b.op(Opcode::sigmoid, {0}, std::monostate{}, 1);
    c.add("vectors/sigmoid.jsonl", lo == INT64_MIN ? "sigmoid_reaches_min_i64" : "sigmoid_stops_above_min_i64", b.bytes(),
          {one(tensor(1, 1, 4, {INT64_MIN + 1, -1, 0, INT64_MAX}))});
  }
  for (std::int64_t lo : {INT64_MIN, INT64_MIN + 1}) {
    Builder b;
    b.input(1, lo, 1000, 1, 4);
    b.op(Opcode::elu, {0}, EluParams{65536}, 1);
    c.add("vectors/elu.jsonl", lo == INT64_MIN ? "elu_reaches_min_i64" : "elu_zero_and_negatives", b.bytes(),
          {one(tensor(1, 1, 4, {INT64_MIN + 1, -70000, 0, 1000}))});
  }
}

void movement(Corpus& c) {
  {
    Builder b;
    b.input(1, -9, 9, 2, 2);
    b.input(2, -9, 9, 2, 2);
    b.op(Opcode::concat, {0, 1}, std::monostate{}, 3);
    c.add("vectors/concat.jsonl", "concat", b.bytes(), {two(random(1, 2, 2, -9, 9, 26), random(2, 2, 2, -9, 9, 27))});
  }
  {
    Builder b;
    b.input(4, -9, 9, 2, 2);
    b.op(Opcode::split, {0}, SplitParams{1, 2}, 2);
    c.add("vectors/split.jsonl", "split", b.bytes(), {one(random(4, 2, 2, -9, 9, 28))});
  }
  {
    Builder b;
    b.input(8, -9, 9);
    b.op(Opcode::pixel_shuffle, {0}, ShuffleParams{2}, 2);
    c.add("vectors/pixel_shuffle.jsonl", "pixel_shuffle", b.bytes(), {one(random(8, 2, 3, -9, 9, 29))});
  }
  {
    Builder b;
    b.input(1, -9, 9);
    b.op(Opcode::pixel_unshuffle, {0}, ShuffleParams{2}, 4);
    c.add("vectors/pixel_unshuffle.jsonl", "pixel_unshuffle", b.bytes(),
          {one(random(1, 4, 2, -9, 9, 30)), one(random(1, 3, 2, -9, 9, 31))});  // odd height: refused
  }
  {
    Builder b;
    b.input(1, -9, 9, 3, 5);
    b.op(Opcode::pad_rep, {0}, PadRepParams{4}, 1);
    c.add("vectors/pad_rep.jsonl", "pad_rep", b.bytes(), {one(random(1, 3, 5, -9, 9, 32))});
  }
  {
    Builder b;
    b.input(2, -9, 9);
    b.input(1, -9, 9);
    b.op(Opcode::crop_to, {0, 1}, std::monostate{}, 2);
    c.add("vectors/crop_to.jsonl", "crop_to", b.bytes(),
          {two(random(2, 3, 3, -9, 9, 33), random(1, 2, 1, -9, 9, 34)),
           two(random(2, 1, 3, -9, 9, 35), random(1, 2, 1, -9, 9, 36))});  // ref taller: refused
  }
  {
    Builder b;
    b.input(1, -9, 9, 4, 4);
    b.scalar(-1, 3);
    b.scalar(1, 4);
    CropParams p;
    p.y0 = Operand{OperandKind::scalar, 0};
    p.x0 = Operand{OperandKind::constant, 1};
    p.h = Operand{OperandKind::scalar, 1};
    p.w = Operand{OperandKind::constant, 2};
    b.op(Opcode::crop, {0}, p, 1);
    const Tensor x = random(1, 4, 4, -9, 9, 37);
    c.add("vectors/crop.jsonl", "crop_scalar_operands", b.bytes(),
          {one(x, {1, 2}), one(x, {0, 4}), one(x, {-1, 2}), one(x, {3, 2}), one(x, {4, 1}), one(x, {0, 5})});
  }
  {
    Builder b;
    b.input(1, -9, 9, 4, 6);
    SubposParams p;
    p.order = {0, 3, 1, 2};
    b.opn(Opcode::subpos_split, {0}, p, 1, 4);
    b.g.outputs = {1, 2, 3, 4};
    c.add("vectors/subpos_split.jsonl", "subpos_split", b.bytes(), {one(random(1, 4, 6, -9, 9, 38))});
  }
  {
    Builder b;
    for (int k = 0; k < 4; ++k) b.input(1, -9, 9, 2, 2);
    SubposParams p;
    p.order = {0, 3, 1, 2};
    b.op(Opcode::subpos_merge, {0, 1, 2, 3}, p, 1);
    DecodeInput d;
    for (int k = 0; k < 4; ++k) d.inputs.push_back(random(1, 2, 2, -9, 9, 39 + k));
    c.add("vectors/subpos_merge.jsonl", "subpos_merge", b.bytes(), {d});
  }
  {
    Builder b;
    b.input(1, -9, 9, 2, 3);
    b.scalar(-5, 5);
    b.op(Opcode::fill, {0}, FillParams{OperandKind::scalar, 0}, 2);
    c.add("vectors/fill.jsonl", "fill_scalar", b.bytes(), {one(random(1, 2, 3, -9, 9, 43), {-5}), one(random(1, 2, 3, -9, 9, 44), {6})});
  }
}

// A run-time plan refusal (geometry_mismatch) for shape rules that sizes set per decode can break.
void run_plans(Corpus& c) {
  const std::string f = "graphs/run_plan_shapes.jsonl";
  {  // conv_transpose: Ho = (H - 1)·sh + kh + oph - 2·ph must be at least 1
    Builder b;
    b.input(1, -9, 9);
    b.op(Opcode::conv_transpose, {0}, convt(1, 1, 1, 1, 0, {2}, rq(Round::floor, 0)), 1);
    c.add(f, "convT_output_below_1", b.bytes(), {one(random(1, 1, 1, -9, 9, 60)), one(random(1, 3, 3, -9, 9, 61))});
  }
  {  // mul: b's sizes must be a's
    Builder b;
    b.input(2, -9, 9);
    b.input(1, -9, 9);
    b.op(Opcode::mul, {0, 1}, RqParams{rq(Round::floor, 0)}, 2);
    c.add(f, "mul_sizes_differ", b.bytes(),
          {two(random(2, 2, 2, -9, 9, 62), random(1, 2, 2, -9, 9, 63)), two(random(2, 2, 2, -9, 9, 64), random(1, 2, 1, -9, 9, 65))});
  }
  {  // concat: inputs share H and W
    Builder b;
    b.input(1, -9, 9);
    b.input(1, -9, 9);
    b.op(Opcode::concat, {0, 1}, std::monostate{}, 2);
    c.add(f, "concat_sizes_differ", b.bytes(),
          {two(random(1, 1, 3, -9, 9, 66), random(1, 1, 3, -9, 9, 67)), two(random(1, 1, 3, -9, 9, 68), random(1, 2, 3, -9, 9, 69))});
  }
  {  // subpos_split: H and W even
    Builder b;
    b.input(1, -9, 9);
    SubposParams p;
    b.opn(Opcode::subpos_split, {0}, p, 1, 4);
    b.g.outputs = {1, 2, 3, 4};
    c.add(f, "subpos_split_odd", b.bytes(), {one(random(1, 2, 2, -9, 9, 70)), one(random(1, 2, 3, -9, 9, 71))});
  }
  {  // subpos_merge: four inputs of one shape
    Builder b;
    for (int k = 0; k < 4; ++k) b.input(1, -9, 9);
    SubposParams p;
    b.op(Opcode::subpos_merge, {0, 1, 2, 3}, p, 1);
    DecodeInput ok, bad;
    for (int k = 0; k < 4; ++k) {
      ok.inputs.push_back(random(1, 1, 2, -9, 9, 72 + k));
      bad.inputs.push_back(random(1, 1, k == 3 ? 1 : 2, -9, 9, 76 + k));
    }
    c.add(f, "subpos_merge_shapes_differ", b.bytes(), {ok, bad});
  }
  {  // gram: A and B of one shape (sizes declared, so a smaller B is planned per decode)
    Builder b;
    b.input(2, -9, 9, 2, 2);
    b.input(2, -9, 9, 2, 2);
    ContractionParams p;
    p.groups = 1;
    p.rq = rq(Round::half_up, 1);
    b.op(Opcode::gram, {0, 1}, p, 2);
    c.add(f, "gram_shapes_differ", b.bytes(),
          {two(random(2, 2, 2, -9, 9, 80), random(2, 2, 2, -9, 9, 81)), two(random(2, 2, 2, -9, 9, 82), random(2, 1, 2, -9, 9, 83))});
  }
}

void graphs(Corpus& c) {
  {  // §9.3: the phase form set against conv_transpose (stride 2, kernel 2): both outputs agree
    Builder b;
    b.input(2, -100, 100, 3, 2);
    const std::vector<std::int64_t> w = weights(2 * 1 * 4, 60, 45);  // Wt[ci][o][i][j], cout 1
    const RqBlock r = rq(Round::floor, 2, std::nullopt, BiasPlacement::pre, {7});
    const std::uint32_t t = b.op(Opcode::conv_transpose, {0}, convt(1, 2, 2, 0, 0, w, r), 1);
    std::vector<std::uint32_t> phases;
    for (int ry = 0; ry < 2; ++ry)
      for (int rx = 0; rx < 2; ++rx)
        phases.push_back(b.op(Opcode::conv, {0}, conv(1, 1, 1, 0, 1, {w[static_cast<std::size_t>(ry * 2 + rx)], w[static_cast<std::size_t>(4 + ry * 2 + rx)]}, r), 1));
    const std::uint32_t cat = b.op(Opcode::concat, phases, std::monostate{}, 4);
    const std::uint32_t ps = b.op(Opcode::pixel_shuffle, {cat}, ShuffleParams{2}, 1);
    b.g.outputs = {t, ps};
    c.add("graphs/phase_form.jsonl", "phase_form_s2_k2", b.bytes(), {one(random(2, 3, 2, -100, 100, 46)), one(constant(2, 3, 2, -100))});
  }
  {  // a state carried across three decodes, from its init; a refused decode changes no state
    Builder b;
    b.input(1, -100, 100);
    b.state(1, -1000, 1000, 0, 5);
    b.op(Opcode::add, {0, 1}, std::monostate{}, 1, Policy::clamp, -1000, 1000);
    c.add("graphs/state.jsonl", "state_three_decodes", b.bytes(),
          {one(tensor(1, 1, 2, {1, 2})), one(tensor(1, 1, 2, {10, -20})), one(tensor(1, 1, 2, {101, 0})),
           one(tensor(1, 1, 2, {100, 100}))});
  }
  // Refusals at each load check of §10.5.
  Builder base;
  base.input(1, -9, 9, 2, 2);
  base.op(Opcode::relu, {0}, std::monostate{}, 1);
  const std::vector<std::uint8_t> ok = base.bytes();
  auto mutate = [&](const std::string& id, auto fn) {
    std::vector<std::uint8_t> b = ok;
    fn(b);
    c.add("graphs/load_refusals.jsonl", id, b);
  };
  mutate("load_1_magic", [](auto& b) { b[0] = 'X'; });
  mutate("load_1_version", [](auto& b) { b[4] = 2; });
  mutate("load_2_reserved", [](auto& b) { b[6] = 1; });
  mutate("load_3_counts", [](auto& b) { b.resize(b.size() - 5); });
  mutate("load_4_tensor_policy", [](auto& b) { b[32 + 32 + 4 + 5] = 3; });
  mutate("load_5_opcode", [](auto& b) { b[32 + 32 + 4 + 48] = 0x40; });
  mutate("load_5_parameter_length", [](auto& b) { b[32 + 32 + 4 + 48 + 12] = 1; b.push_back(0); });
  {
    Builder g;  // step 6: an operator reads a tensor defined after it
    g.input(1, -9, 9, 2, 2);
    g.op(Opcode::relu, {2}, std::monostate{}, 1);
    g.op(Opcode::relu, {0}, std::monostate{}, 1);
    c.add("graphs/load_refusals.jsonl", "load_6_order", g.bytes());
  }
  {
    Builder g;  // step 6: add's exponents differ
    g.input(1, -9, 9, 2, 2);
    g.input(1, -9, 9, 2, 2);
    g.g.tensors[1].exponent = 4;
    g.op(Opcode::add, {0, 1}, std::monostate{}, 1);
    c.add("graphs/load_refusals.jsonl", "load_6_exponent", g.bytes());
  }
  {
    Builder g;  // step 7: channel counts
    g.input(3, -9, 9, 2, 2);
    g.op(Opcode::chunk_add, {0}, std::monostate{}, 1);
    c.add("graphs/load_refusals.jsonl", "load_7_channels", g.bytes());
  }
  {
    Builder g;  // step 7: a size past max_elems
    g.input(1, -9, 9, 4, 4);
    g.g.max_elems = 20;
    g.op(Opcode::pixel_shuffle, {0}, ShuffleParams{1}, 1);
    g.op(Opcode::pad_rep, {1}, PadRepParams{5}, 1);
    c.add("graphs/load_refusals.jsonl", "load_7_too_large", g.bytes());
  }
  {
    Builder g;  // step 7: softmax without declared sizes
    g.input(1, -9, 9);
    g.op(Opcode::softmax, {0}, std::monostate{}, 1);
    c.add("graphs/load_refusals.jsonl", "load_7_sizes_undeclared", g.bytes());
  }
  {
    Builder g;  // step 8: an empty check interval
    g.input(1, -9, -1, 2, 2);
    g.op(Opcode::relu, {0}, std::monostate{}, 1, Policy::check, 1, 5);
    c.add("graphs/load_refusals.jsonl", "load_8_empty_check", g.bytes());
  }
  {
    Builder g;  // step 8: lut16's input interval passes ±32767 (§5.6)
    g.input(1, -32768, 0, 1, 1);
    Lut16Params p;
    p.table.resize(65536);
    g.op(Opcode::lut16, {0}, p, 1);
    c.add("graphs/load_refusals.jsonl", "load_8_lut16_range", g.bytes());
  }
  {
    Builder g;  // step 8: the verdict fails acc64 by one unit
    g.input(1, 0, INT64_MAX, 1, 1);
    g.op(Opcode::conv, {0}, conv(1, 1, 1, 0, 1, {1}, rq(Round::floor, 0, std::nullopt, BiasPlacement::pre, {1})), 1);
    c.add("graphs/load_refusals.jsonl", "load_8_acc64_one_unit", g.bytes());
  }
  // Refusals at each run step of §4.
  {
    Builder g;
    g.input(2, -9, 9, 3, 3);
    g.input(2, -9, 9, 3, 3);
    g.scalar(0, 3);
    g.op(Opcode::add, {0, 1}, std::monostate{}, 2, Policy::check, -5, 5);
    const Tensor a = random(2, 2, 2, -2, 2, 47);
    c.add("graphs/run_refusals.jsonl", "run_steps", g.bytes(),
          {DecodeInput{{a, a}, {1}},
           DecodeInput{{random(1, 2, 2, -2, 2, 48), a}, {1}},                 // 1: channel count
           DecodeInput{{random(2, 4, 2, -2, 2, 49), a}, {1}},                 // 1: past max_h
           DecodeInput{{a, a}, {4}},                                          // 2: scalar range
           DecodeInput{{a, random(2, 2, 3, -2, 2, 50)}, {1}},                 // 3: shapes differ
           DecodeInput{{constant(2, 2, 2, 3), constant(2, 2, 2, 3)}, {1}},    // 4: check fails
           DecodeInput{{constant(2, 2, 2, 10), a}, {1}}});                    // 4: input check fails
  }
  {
    Builder g;
    g.input(1, -9, 9);
    g.g.max_elems = 16;
    g.op(Opcode::pad_rep, {0}, PadRepParams{3}, 1);
    c.add("graphs/run_refusals.jsonl", "run_plan_too_large", g.bytes(),
          {one(random(1, 3, 3, -9, 9, 51)), one(random(1, 4, 4, -9, 9, 52))});
  }
  {  // int_synth/1 on a small set
    const std::string set =
        R"({"layers":[{"in_ch":2,"out_ch":2,"k":3,"stride":2,"pad":1,"out_pad":1,"shift":4,"relu":true,)"
        R"("weight":[[[[1,-2,3],[4,5,-6],[7,8,9]],[[-1,2,3],[4,-5,6],[7,8,-9]]],[[[2,2,2],[0,0,0],[-3,1,1]],[[5,5,-5],[1,0,1],[2,2,2]]]],)"
        R"("bias":[8,-8]},{"in_ch":2,"out_ch":3,"k":1,"stride":1,"pad":0,"weight":[[[[30]],[[40]],[[50]]],[[[-20]],[[10]],[[60]]]],"bias":[1,2,3],"shift":2}]})";
    const LoweredSet l = lower_int_synth(std::vector<std::uint8_t>(set.begin(), set.end()), 2);
    c.add("graphs/int_synth.jsonl", "int_synth_two_layers", l.graphs[0].bytes,
          {one(random(2, 2, 3, -128, 127, 53)), one(random(2, 1, 1, -128, 127, 54))});
  }
}

}  // namespace

std::vector<Case> all_cases() {
  Corpus c;
  linear(c);
  elementwise(c);
  norms(c);
  movement(c);
  run_plans(c);
  graphs(c);
  return std::move(c.cases);
}

}  // namespace loam::wai::vectors
