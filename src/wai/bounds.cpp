// The §8.3 rules, one operator family after another. Every primitive goes through SatArith, so
// the node's `saturated` flag records any change by sat (§8.1). conv and conv_transpose read each
// weight once and keep a few sums per channel (§8.2, informative form); where a term or a sum
// would pass 2^255 they fold term by term instead, which gives the same integers and flag.
#include "wai/bounds.hpp"

#include <algorithm>
#include <map>
#include <string_view>

namespace loam::wai {

namespace {

struct KeyClass {
  std::string_view key;
  WidthClass cls;
};

constexpr KeyClass kClasses[] = {
    {"conv.term", WidthClass::acc},   {"conv.acc", WidthClass::acc},
    {"convT.term", WidthClass::acc},  {"convT.acc", WidthClass::acc},
    {"rq.t", WidthClass::acc},        {"rq.p", WidthClass::product},
    {"rq.q", WidthClass::acc},        {"rq.y", WidthClass::acc},
    {"mul.p", WidthClass::acc},       {"gram.term", WidthClass::acc},
    {"gram.acc", WidthClass::acc},    {"apply.term", WidthClass::acc},
    {"apply.acc", WidthClass::acc},   {"leaky.p", WidthClass::acc},
    {"igdn.x2", WidthClass::wide},    {"igdn.gx2", WidthClass::product},
    {"igdn.term", WidthClass::wide},  {"igdn.N", WidthClass::wide},
    {"igdn.r", WidthClass::acc},      {"igdn.xr", WidthClass::wide},
    {"ln.S", WidthClass::wide},       {"ln.m", WidthClass::wide},
    {"ln.d", WidthClass::acc},        {"ln.T", WidthClass::wide},
    {"ln.v", WidthClass::wide},       {"rsq.num", WidthClass::acc},
    {"ln.k", WidthClass::acc},        {"ln.dk", WidthClass::wide},
    {"ln.n", WidthClass::acc},        {"ln.ng", WidthClass::wide},
    {"l2.T", WidthClass::wide},       {"l2.k", WidthClass::acc},
    {"l2.vk", WidthClass::wide},      {"sm.diff", WidthClass::acc},
    {"exp.negx", WidthClass::acc},    {"exp.nl", WidthClass::acc},
    {"exp.t2", WidthClass::acc},      {"exp.c", WidthClass::acc},
    {"sm.sum", WidthClass::acc},      {"sm.num", WidthClass::acc},
    {"sig.num", WidthClass::acc},     {"elu.p", WidthClass::wide},
};

Big big(std::int64_t v) { return Big(v); }
Big bigu(std::uint64_t v) { return Big(v); }

Interval hull_of(const std::vector<Interval>& v) {
  Interval h = v.front();
  for (const Interval& i : v) h = hull(h, i);
  return h;
}

std::string where(const std::string& source, const Whg1Graph& g, std::size_t index) {
  return source + ": operator " + std::to_string(index) + " (" + op_name(g.ops[index].opcode) + ")";
}

// Literal A(K, b) of §8.2: left folds from the bias's end, in the terms' index order.
Interval partial_sum_fold(SatArith& S, const std::vector<Interval>& terms, const Big& b) {
  Big lo = std::min(Big(0), b), hi = std::max(Big(0), b);
  for (const Interval& t : terms) {
    lo = S.add(lo, std::min(Big(0), t.lo));
    hi = S.add(hi, std::max(Big(0), t.hi));
  }
  return Interval{lo, hi};
}

// The few sums of one set of weights (§8.2, informative).
struct WeightSums {
  __int128 pos = 0, neg = 0;  // S⁺ and S⁻; at most 2^32 weights of magnitude <= 2^63
  std::int64_t wmin = 0, wmax = 0;
  std::size_t count = 0;
  void add(std::int64_t w) {
    if (count == 0) wmin = wmax = w;
    wmin = std::min(wmin, w);
    wmax = std::max(wmax, w);
    if (w > 0) pos += w;
    if (w < 0) neg += w;
    ++count;
  }
};

Big big128(__int128 v) {
  const bool negative = v < 0;
  unsigned __int128 m = negative ? static_cast<unsigned __int128>(0) - static_cast<unsigned __int128>(v)
                                 : static_cast<unsigned __int128>(v);
  Big r = Big(static_cast<std::uint64_t>(m >> 64));
  r <<= 64;
  r += Big(static_cast<std::uint64_t>(m));
  return negative ? Big(-r) : r;
}

// A(K, b) from the sums when nothing passes 2^255; nullopt when the caller must fold instead.
std::optional<Interval> partial_sum_fast(const WeightSums& s, const Interval& x, const Big& b) {
  const Big& limit = sat_limit();
  const Big wabs = std::max(Big(s.wmax < 0 ? -big(s.wmax) : big(s.wmax)),
                            Big(s.wmin < 0 ? -big(s.wmin) : big(s.wmin)));
  const Big xabs = std::max(Big(x.lo < 0 ? Big(-x.lo) : x.lo), Big(x.hi < 0 ? Big(-x.hi) : x.hi));
  if (wabs * xabs > limit) return std::nullopt;  // some term saturates
  const Big l0 = std::min(Big(0), x.lo), h0 = std::max(Big(0), x.hi);
  const Big sp = big128(s.pos), sn = big128(s.neg);
  Interval a{std::min(Big(0), b) + l0 * sp + h0 * sn, std::max(Big(0), b) + h0 * sp + l0 * sn};
  if (a.lo < -limit || a.hi > limit) return std::nullopt;
  return a;
}

// §8.3 rq.p, rq.q, rq.y over per-channel rq.t intervals; appends the four hulls.
void rq_rules(SatArith& S, const RqBlock& rq, const std::vector<Interval>& ts, NodeBounds& nb) {
  std::vector<Interval> ps, qs, ys;
  ps.reserve(ts.size());
  for (std::size_t o = 0; o < ts.size(); ++o) {
    const Big m = big(rq.mult_of(o));
    const unsigned s = rq.shift_of(o);
    const Big a = S.mul(ts[o].lo, m), b = S.mul(ts[o].hi, m);
    const Interval P{std::min(a, b), std::max(a, b)};
    const Big addend = (rq.round != Round::floor && s >= 1) ? pow2(s - 1) : Big(0);
    ps.push_back(Interval{P.lo, S.add(P.hi, addend)});
    const Interval q{S.round_shift(P.lo, s, rq.round), S.round_shift(P.hi, s, rq.round)};
    qs.push_back(q);
    const Big post = big(rq.post_bias_of(o));
    ys.push_back(Interval{S.add(q.lo, post), S.add(q.hi, post)});
  }
  nb.intermediates.push_back({"rq.t", hull_of(ts)});
  nb.intermediates.push_back({"rq.p", hull_of(ps)});
  nb.intermediates.push_back({"rq.q", hull_of(qs)});
  nb.intermediates.push_back({"rq.y", hull_of(ys)});
  nb.results.push_back(hull_of(ys));
}

void exp_rule(SatArith& S, const Interval& u, NodeBounds& nb) {
  const Big k(45426);
  nb.intermediates.push_back({"exp.negx", u});
  nb.intermediates.push_back({"exp.nl", Interval{S.mul(k, S.floor_div(u.lo, k)), S.mul(k, S.floor_div(u.hi, k))}});
  nb.intermediates.push_back({"exp.t2", Interval{S.mul(43245, 43245), S.mul(88670, 88670)}});
  nb.intermediates.push_back(
      {"exp.c", Interval{0, S.mul(23495, S.floor_shift(S.mul(88670, 88670), 16))}});
}

Interval abs_image(SatArith& S, const Interval& x) {
  if (x.lo >= 0) return x;
  if (x.hi <= 0) return Interval{S.neg(x.hi), S.neg(x.lo)};
  return Interval{0, std::max(S.neg(x.lo), x.hi)};
}

Interval clamp_iv(const Interval& x, const Big& lo, const Big& hi) {
  return Interval{std::min(std::max(x.lo, lo), hi), std::min(std::max(x.hi, lo), hi)};
}

void conv_rule(SatArith& S, const Whg1Graph& g, const Operator& op, const ConvParams& p,
               const Interval& x, NodeBounds& nb) {
  const std::uint32_t cin = g.tensors[op.inputs[0]].channels;
  const std::size_t per = static_cast<std::size_t>(cin / p.groups) * p.kh * p.kw;
  std::vector<Interval> terms(p.cout), accs(p.cout);
  for (std::uint32_t o = 0; o < p.cout; ++o) {
    const std::int64_t* w = p.weights.data() + o * per;
    WeightSums s;
    for (std::size_t k = 0; k < per; ++k) s.add(w[k]);
    const Big b = big(p.rq.pre_bias_of(o));
    std::optional<Interval> a = partial_sum_fast(s, x, b);
    if (a) {
      terms[o] = S.corner(Interval{big(s.wmin), big(s.wmax)}, x);
      accs[o] = *a;
    } else {
      std::vector<Interval> t(per);
      for (std::size_t k = 0; k < per; ++k) t[k] = S.term(big(w[k]), x);
      terms[o] = hull_of(t);
      accs[o] = partial_sum_fold(S, t, b);
    }
  }
  nb.intermediates.push_back({"conv.term", hull_of(terms)});
  nb.intermediates.push_back({"conv.acc", hull_of(accs)});
  rq_rules(S, p.rq, accs, nb);
}

void conv_transpose_rule(SatArith& S, const Whg1Graph& g, const Operator& op,
                         const ConvTransposeParams& p, const Interval& x, NodeBounds& nb) {
  const std::uint32_t cin = g.tensors[op.inputs[0]].channels;
  const std::uint32_t ry = std::min(p.sh, p.kh), rx = std::min(p.sw, p.kw);  // residues with taps
  const bool empty_residue = static_cast<std::uint64_t>(p.sh) * p.sw > static_cast<std::uint64_t>(ry) * rx;
  const std::size_t nres = static_cast<std::size_t>(ry) * rx;
  // One pass over Wt[ci][o][i][j]: sums per (o, residue), and per o over all taps.
  std::vector<WeightSums> sums(static_cast<std::size_t>(p.cout) * nres), all(p.cout);
  std::size_t k = 0;
  for (std::uint32_t ci = 0; ci < cin; ++ci)
    for (std::uint32_t o = 0; o < p.cout; ++o)
      for (std::uint32_t i = 0; i < p.kh; ++i)
        for (std::uint32_t j = 0; j < p.kw; ++j) {
          const std::int64_t w = p.weights[k++];
          sums[o * nres + (i % p.sh) * rx + (j % p.sw)].add(w);
          all[o].add(w);
        }
  std::vector<Interval> terms(p.cout), accs(p.cout);
  for (std::uint32_t o = 0; o < p.cout; ++o) {
    const Big b = big(p.rq.pre_bias_of(o));
    bool fast = true;
    std::vector<Interval> res;
    for (std::size_t r = 0; r < nres && fast; ++r) {
      std::optional<Interval> a = partial_sum_fast(sums[o * nres + r], x, b);
      if (a) res.push_back(*a);
      else fast = false;
    }
    if (fast) {
      terms[o] = S.corner(Interval{big(all[o].wmin), big(all[o].wmax)}, x);
    } else {
      // Fold term by term, per residue, in the taps' index order.
      res.clear();
      std::vector<std::vector<Interval>> per_res(nres);
      std::vector<Interval> tl;
      for (std::uint32_t ci = 0; ci < cin; ++ci)
        for (std::uint32_t i = 0; i < p.kh; ++i)
          for (std::uint32_t j = 0; j < p.kw; ++j) {
            const std::size_t idx = ((static_cast<std::size_t>(ci) * p.cout + o) * p.kh + i) * p.kw + j;
            const Interval t = S.term(big(p.weights[idx]), x);
            tl.push_back(t);
            per_res[(i % p.sh) * rx + (j % p.sw)].push_back(t);
          }
      terms[o] = hull_of(tl);
      for (const auto& ts : per_res) res.push_back(partial_sum_fold(S, ts, b));
    }
    if (empty_residue) res.push_back(Interval{std::min(Big(0), b), std::max(Big(0), b)});
    accs[o] = hull_of(res);
  }
  nb.intermediates.push_back({"convT.term", hull_of(terms)});
  nb.intermediates.push_back({"convT.acc", hull_of(accs)});
  rq_rules(S, p.rq, accs, nb);
}

void igdn_rule(SatArith& S, std::uint32_t C, const IgdnParams& p, const Interval& x, NodeBounds& nb) {
  const Big l2 = S.mul(x.lo, x.lo), h2 = S.mul(x.hi, x.hi);
  const Interval x2 = (x.lo <= 0 && 0 <= x.hi) ? Interval{0, std::max(l2, h2)}
                                               : Interval{std::min(l2, h2), std::max(l2, h2)};
  std::optional<Interval> gx2h, termh, Nh, rh, xrh, outh;
  auto acc = [](std::optional<Interval>& h, const Interval& v) { h = h ? hull(*h, v) : v; };
  const Big two_gf = pow2(p.gf), two_frac = pow2(p.frac);
  std::vector<Interval> terms(C);
  for (std::uint32_t i = 0; i < C; ++i) {
    for (std::uint32_t j = 0; j < C; ++j) {
      const Big gm = big(p.gamma[static_cast<std::size_t>(i) * C + j]);
      const Interval gx2 = S.corner(point(gm), x2);
      acc(gx2h, gx2);
      terms[j] = Interval{S.floor_div(gx2.lo, two_gf), S.floor_div(gx2.hi, two_gf)};
      acc(termh, terms[j]);
    }
    const Big beta = big(p.beta[i]);
    acc(Nh, partial_sum_fold(S, terms, beta));
    Big nlo = beta, nhi = beta;
    for (std::uint32_t j = 0; j < C; ++j) nlo = S.add(nlo, terms[j].lo);
    for (std::uint32_t j = 0; j < C; ++j) nhi = S.add(nhi, terms[j].hi);
    const Interval r{S.isqrt(std::max(Big(0), nlo)), S.isqrt(std::max(Big(0), nhi))};
    acc(rh, r);
    const Interval xr = S.corner(x, r);
    acc(xrh, xr);
    acc(outh, Interval{S.floor_div(xr.lo, two_frac), S.floor_div(xr.hi, two_frac)});
  }
  nb.intermediates.push_back({"igdn.x2", x2});
  nb.intermediates.push_back({"igdn.gx2", *gx2h});
  nb.intermediates.push_back({"igdn.term", *termh});
  nb.intermediates.push_back({"igdn.N", *Nh});
  nb.intermediates.push_back({"igdn.r", *rh});
  nb.intermediates.push_back({"igdn.xr", *xrh});
  nb.results.push_back(*outh);
}

void layernorm_rule(SatArith& S, std::uint32_t channels, const LayernormParams& p, const Interval& x,
                    NodeBounds& nb) {
  const Big C(channels);
  const Big eps = bigu(p.eps);
  const Big half = S.floor_div(C, 2);
  nb.intermediates.push_back({"ln.S", Interval{S.mul(C, std::min(Big(0), x.lo)), S.mul(C, std::max(Big(0), x.hi))}});
  nb.intermediates.push_back({"ln.m", Interval{S.sub(S.mul(C, x.lo), half), S.add(S.mul(C, x.hi), half)}});
  const Big hl = S.sub(x.hi, x.lo);
  nb.intermediates.push_back({"ln.d", Interval{S.sub(x.lo, x.hi), hl}});
  const Big sq = S.mul(hl, hl);
  nb.intermediates.push_back({"ln.T", Interval{0, S.mul(C, sq)}});
  nb.intermediates.push_back({"ln.v", Interval{eps, S.add(sq, eps)}});
  const Big two32 = pow2(32);
  nb.intermediates.push_back({"rsq.num", point(two32)});
  const Big r0 = S.isqrt(eps);
  const Big k = S.floor_div(two32, r0);
  nb.intermediates.push_back({"ln.k", Interval{0, k}});
  const Big ic = S.isqrt_ceil(C);
  const Big D = std::min(S.mul(hl, k), S.ceil_div(S.mul(S.mul(ic, two32), S.add(r0, 1)), r0));
  nb.intermediates.push_back({"ln.dk", Interval{S.neg(D), D}});
  const Big nmax = S.add(S.floor_div(S.mul(S.mul(ic, pow2(16)), S.add(r0, 1)), r0), 1);
  const Big N = std::min(S.add(S.floor_shift(S.mul(hl, k), 16), 1), nmax);
  const Interval n{S.neg(N), N};
  nb.intermediates.push_back({"ln.n", n});
  std::optional<Interval> ngh, outh;
  for (std::uint32_t c = 0; c < channels; ++c) {
    const Interval ng = S.corner(n, point(big(p.gamma[c])));
    ngh = ngh ? hull(*ngh, ng) : ng;
    const Big beta = big(p.beta[c]);
    const Interval out{S.add(S.floor_shift(ng.lo, 16), beta), S.add(S.floor_shift(ng.hi, 16), beta)};
    outh = outh ? hull(*outh, out) : out;
  }
  nb.intermediates.push_back({"ln.ng", *ngh});
  nb.results.push_back(*outh);
}

const Shape& shape_of(const std::optional<std::vector<Shape>>& shapes, std::uint32_t t,
                      const std::string& where_) {
  if (!shapes) refuse(RefusalCode::model_mismatch, where_ + ": the inputs declare no sizes");
  return (*shapes)[t];
}

}  // namespace

WidthClass class_of(std::string_view key) {
  for (const KeyClass& kc : kClasses)
    if (kc.key == key) return kc.cls;
  return WidthClass::tensor;
}

Interval apply_policy(const TensorRecord& t, const Interval& r, bool& empty) {
  empty = false;
  switch (t.policy) {
    case Policy::derived:
      return r;
    case Policy::clamp:
      return clamp_iv(r, big(t.lo), big(t.hi));
    case Policy::check: {
      Interval v{std::max(r.lo, big(t.lo)), std::min(r.hi, big(t.hi))};
      empty = v.lo > v.hi;
      return v;
    }
  }
  return r;
}

NodeBounds node_bounds(const Whg1Graph& g, std::size_t index,
                       const std::optional<std::vector<Shape>>& shapes,
                       std::span<const Interval> tv, const std::string& source) {
  const Operator& op = g.ops[index];
  NodeBounds nb;
  SatArith S;
  const Interval x = tv[op.inputs[0]];
  const std::uint32_t C = g.tensors[op.inputs[0]].channels;
  const std::string at = where(source, g, index);
  switch (op.opcode) {
    case Opcode::conv:
      conv_rule(S, g, op, std::get<ConvParams>(op.params), x, nb);
      break;
    case Opcode::conv_transpose:
      conv_transpose_rule(S, g, op, std::get<ConvTransposeParams>(op.params), x, nb);
      break;
    case Opcode::rescale: {
      const RqBlock& rq = std::get<RqParams>(op.params).rq;
      std::vector<Interval> ts(C);
      for (std::uint32_t c = 0; c < C; ++c) {
        const Big b = big(rq.pre_bias_of(c));
        ts[c] = Interval{S.add(x.lo, b), S.add(x.hi, b)};
      }
      rq_rules(S, rq, ts, nb);
      break;
    }
    case Opcode::chscale: {
      const auto& p = std::get<ChscaleParams>(op.params);
      const ScalarRecord& sc = g.scalars[p.scalar];
      std::optional<Interval> ph, qh;
      const Big addend = (p.round != Round::floor && p.shift >= 1) ? pow2(p.shift - 1) : Big(0);
      for (std::uint32_t c = 0; c < C; ++c)
        for (std::int64_t r = sc.lo; r <= sc.hi; ++r) {
          const Big m = big(p.m[static_cast<std::size_t>(r) * C + c]);
          const Big a = S.mul(x.lo, m), b = S.mul(x.hi, m);
          const Interval P{std::min(a, b), std::max(a, b)};
          const Interval pp{P.lo, S.add(P.hi, addend)};
          const Interval q{S.round_shift(P.lo, p.shift, p.round), S.round_shift(P.hi, p.shift, p.round)};
          ph = ph ? hull(*ph, pp) : pp;
          qh = qh ? hull(*qh, q) : q;
        }
      nb.intermediates.push_back({"rq.t", x});
      nb.intermediates.push_back({"rq.p", *ph});
      nb.intermediates.push_back({"rq.q", *qh});
      nb.intermediates.push_back({"rq.y", *qh});
      nb.results.push_back(*qh);
      break;
    }
    case Opcode::mul: {
      const Interval mp = S.corner(x, tv[op.inputs[1]]);
      nb.intermediates.push_back({"mul.p", mp});
      rq_rules(S, std::get<RqParams>(op.params).rq, std::vector<Interval>(C, mp), nb);
      break;
    }
    case Opcode::gram:
    case Opcode::apply: {
      const auto& p = std::get<ContractionParams>(op.params);
      const Interval term = S.corner(x, tv[op.inputs[1]]);
      Big L;
      if (op.opcode == Opcode::gram) {
        const Shape& s = shape_of(shapes, op.inputs[0], at);
        L = Big(s.h) * Big(s.w);
      } else {
        L = Big(C / p.groups);
      }
      const Interval acc{S.mul(L, std::min(Big(0), term.lo)), S.mul(L, std::max(Big(0), term.hi))};
      const bool gram = op.opcode == Opcode::gram;
      nb.intermediates.push_back({gram ? "gram.term" : "apply.term", term});
      nb.intermediates.push_back({gram ? "gram.acc" : "apply.acc", acc});
      rq_rules(S, p.rq, std::vector<Interval>(C, acc), nb);
      break;
    }
    case Opcode::add: {
      const Interval& y = tv[op.inputs[1]];
      nb.results.push_back(Interval{S.add(x.lo, y.lo), S.add(x.hi, y.hi)});
      break;
    }
    case Opcode::chunk_add:
      nb.results.push_back(Interval{S.mul(2, x.lo), S.mul(2, x.hi)});
      break;
    case Opcode::clamp: {
      const auto& p = std::get<ClampParams>(op.params);
      nb.results.push_back(clamp_iv(x, big(p.lo), big(p.hi)));
      break;
    }
    case Opcode::relu:
      nb.results.push_back(Interval{std::max(x.lo, Big(0)), std::max(x.hi, Big(0))});
      break;
    case Opcode::abs:
      nb.results.push_back(abs_image(S, x));
      break;
    case Opcode::leaky: {
      const auto& p = std::get<LeakyParams>(op.params);
      std::optional<Interval> out;
      if (x.lo < 0) {
        const Interval lp = S.corner(Interval{x.lo, std::min(x.hi, Big(-1))}, point(big(p.a)));
        nb.intermediates.push_back({"leaky.p", lp});
        out = Interval{S.floor_shift(lp.lo, p.f), S.floor_shift(lp.hi, p.f)};
      } else {
        nb.intermediates.push_back({"leaky.p", Interval{0, 0}});
      }
      if (x.hi >= 0) {
        const Interval nonneg{std::max(x.lo, Big(0)), x.hi};
        out = out ? hull(*out, nonneg) : nonneg;
      }
      nb.results.push_back(*out);
      break;
    }
    case Opcode::lut16: {
      const auto& p = std::get<Lut16Params>(op.params);
      if (x.lo < -32767 || x.hi > 32767)
        refuse(RefusalCode::model_mismatch,
               at + ": the input's certified range [" + to_decimal(x.lo) + ", " + to_decimal(x.hi) +
                   "] is not within [-32767, 32767]");
      const int lo = static_cast<int>(x.lo) + 32768, hi = static_cast<int>(x.hi) + 32768;
      const auto [mn, mx] = std::minmax_element(p.table.begin() + lo, p.table.begin() + hi + 1);
      nb.results.push_back(Interval{Big(*mn), Big(*mx)});
      break;
    }
    case Opcode::igdn:
      igdn_rule(S, C, std::get<IgdnParams>(op.params), x, nb);
      break;
    case Opcode::layernorm_c:
      layernorm_rule(S, C, std::get<LayernormParams>(op.params), x, nb);
      break;
    case Opcode::l2norm: {
      const auto& p = std::get<L2normParams>(op.params);
      const Shape& s = shape_of(shapes, op.inputs[0], at);
      const Big L = Big(s.h) * Big(s.w);
      const Big X = std::max(abs(x.lo), abs(x.hi));
      const Big eps = bigu(p.eps);
      nb.intermediates.push_back({"l2.T", Interval{0, S.add(S.mul(L, S.mul(X, X)), eps)}});
      nb.intermediates.push_back({"rsq.num", point(pow2(32))});
      nb.intermediates.push_back({"l2.k", Interval{0, S.floor_div(pow2(32), S.isqrt(eps))}});
      nb.intermediates.push_back({"l2.vk", Interval{-pow2(32), pow2(32)}});
      nb.results.push_back(Interval{-pow2(16), pow2(16)});
      break;
    }
    case Opcode::softmax: {
      const Big Wm = Big(shape_of(shapes, op.inputs[0], at).w);
      nb.intermediates.push_back({"sm.diff", Interval{S.sub(x.lo, x.hi), 0}});
      exp_rule(S, Interval{0, S.sub(x.hi, x.lo)}, nb);
      nb.intermediates.push_back({"sm.sum", Interval{0, S.mul(Wm, 65553)}});
      nb.intermediates.push_back(
          {"sm.num", Interval{0, S.add(S.mul(65553, pow2(16)), S.floor_div(S.mul(Wm, 65553), 2))}});
      nb.results.push_back(Interval{0, pow2(16)});
      break;
    }
    case Opcode::sigmoid:
      exp_rule(S, abs_image(S, x), nb);
      nb.intermediates.push_back({"sig.num", Interval{0, S.mul(65553, pow2(16))}});
      nb.results.push_back(Interval{0, pow2(16)});
      break;
    case Opcode::elu: {
      const Big a = big(std::get<EluParams>(op.params).alpha);
      exp_rule(S, Interval{std::max(Big(0), S.neg(x.hi)), std::max(Big(0), S.neg(x.lo))}, nb);
      const Interval ep = S.corner(point(a), Interval{-pow2(16), 17});
      nb.intermediates.push_back({"elu.p", ep});
      std::optional<Interval> out;
      if (x.hi > 0) out = Interval{std::max(x.lo, Big(1)), x.hi};
      if (x.lo <= 0) {
        const Interval neg{S.floor_shift(ep.lo, 16), S.floor_shift(ep.hi, 16)};
        out = out ? hull(*out, neg) : neg;
      }
      nb.results.push_back(*out);
      break;
    }
    case Opcode::concat:
    case Opcode::subpos_merge: {
      Interval h = x;
      for (std::uint32_t t : op.inputs) h = hull(h, tv[t]);
      nb.results.push_back(h);
      break;
    }
    case Opcode::subpos_split:
      nb.results.assign(4, x);
      break;
    case Opcode::fill: {
      const auto& p = std::get<FillParams>(op.params);
      if (p.kind == OperandKind::constant) {
        nb.results.push_back(point(big(p.value)));
      } else {
        const ScalarRecord& sc = g.scalars[static_cast<std::size_t>(p.value)];
        nb.results.push_back(Interval{big(sc.lo), big(sc.hi)});
      }
      break;
    }
    case Opcode::split:
    case Opcode::pixel_shuffle:
    case Opcode::pixel_unshuffle:
    case Opcode::pad_rep:
    case Opcode::crop_to:
    case Opcode::crop:
      nb.results.push_back(x);
      break;
  }
  nb.saturated = S.saturated();
  return nb;
}

GraphBounds bounds_pass(const Whg1Graph& g, const std::optional<std::vector<Shape>>& shapes,
                        const std::string& source) {
  GraphBounds gb;
  gb.tensors.assign(g.tensors.size(), Interval{});
  for (const InputRecord& in : g.inputs) {
    const TensorRecord& t = g.tensors[in.tensor];
    gb.tensors[in.tensor] = Interval{big(t.lo), big(t.hi)};
  }
  gb.nodes.reserve(g.ops.size());
  for (std::size_t i = 0; i < g.ops.size(); ++i) {
    NodeBounds nb = node_bounds(g, i, shapes, gb.tensors, source);
    const Operator& op = g.ops[i];
    for (std::size_t k = 0; k < op.outputs.size(); ++k) {
      const TensorRecord& t = g.tensors[op.outputs[k]];
      bool empty = false;
      Interval after = apply_policy(t, nb.results[k], empty);
      if (empty)
        refuse(RefusalCode::model_mismatch,
               where(source, g, i) + ": tensor " + std::to_string(op.outputs[k]) + "'s check range [" +
                   std::to_string(t.lo) + ", " + std::to_string(t.hi) +
                   "] holds no value its producer gives [" + to_decimal(nb.results[k].lo) + ", " +
                   to_decimal(nb.results[k].hi) + "]");
      gb.tensors[op.outputs[k]] = after;
      nb.outputs.push_back(after);
    }
    gb.nodes.push_back(std::move(nb));
  }
  return gb;
}

}  // namespace loam::wai
