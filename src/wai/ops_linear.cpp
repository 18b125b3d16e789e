// §5.2-§5.4 and §5.9: conv, conv_transpose, rescale, chscale, mul, gram, apply, each followed by
// its rq epilogue (rq.hpp).
//
// conv sums exactly in one of three widths, chosen per call from the values at hand: every partial
// sum of output channel o, in any order, is at most Σ|Wt[o]|·max|x| in magnitude (the same
// argument as §8.2's partial-sum interval, on the actual input), so when that bound fits i32 the
// sums are formed in i32 (vectorisable), when it fits i64 in unchecked i64, and otherwise in i64
// with every step checked (a step that overflows means the graph does not meet acc64). The three
// give the same integers wherever they are used; nothing wraps.
#include "wai/ops_conv_kernel.hpp"
#include "wai/fixed_point.hpp"
#include "wai/ops.hpp"
#include "wai/rq.hpp"

#include <algorithm>

namespace loam::wai::detail {

std::vector<Shape> plan_linear(const PlanContext& ctx, std::size_t index, std::span<const Shape> in) {
  const Operator& op = ctx.graph.ops[index];
  const Shape& x = in[0];
  const bool sized = ctx.sizes_known;
  switch (op.opcode) {
    case Opcode::conv: {
      const auto& p = std::get<ConvParams>(op.params);
      if (x.c % p.groups != 0 || p.cout % p.groups != 0) {
        shape_fail(ctx, index, "input channels " + std::to_string(x.c) + " and cout " + std::to_string(p.cout) +
                                   " are not both multiples of groups " + std::to_string(p.groups));
      }
      if (!sized) return {Shape{p.cout, 1, 1}};
      const i128 hp = static_cast<i128>(x.h) + 2 * static_cast<i128>(p.ph);
      const i128 wp = static_cast<i128>(x.w) + 2 * static_cast<i128>(p.pw);
      size_cap(ctx, index, hp, "padded height H + 2ph");
      size_cap(ctx, index, wp, "padded width W + 2pw");
      if (hp < p.kh || wp < p.kw) {
        shape_fail(ctx, index, "kernel " + std::to_string(p.kh) + "×" + std::to_string(p.kw) +
                                   " is larger than the padded input " + to_string_i128(hp) + "×" + to_string_i128(wp));
      }
      return {Shape{p.cout, static_cast<std::int64_t>((hp - p.kh) / p.sh + 1),
                    static_cast<std::int64_t>((wp - p.kw) / p.sw + 1)}};
    }
    case Opcode::conv_transpose: {
      const auto& p = std::get<ConvTransposeParams>(op.params);
      if (!sized) return {Shape{p.cout, 1, 1}};
      const i128 uh = static_cast<i128>(x.h - 1) * p.sh + p.kh + p.oph;
      const i128 uw = static_cast<i128>(x.w - 1) * p.sw + p.kw + p.opw;
      size_cap(ctx, index, uh, "uncropped height (H-1)·sh + kh + oph");
      size_cap(ctx, index, uw, "uncropped width (W-1)·sw + kw + opw");
      size_cap(ctx, index, uh * uw * p.cout, "uncropped output cout·uh·uw");
      const i128 ho = uh - 2 * static_cast<i128>(p.ph), wo = uw - 2 * static_cast<i128>(p.pw);
      if (ho < 1 || wo < 1) {
        shape_fail(ctx, index, "output " + to_string_i128(ho) + "×" + to_string_i128(wo) +
                                   " after padding is empty");
      }
      return {Shape{p.cout, static_cast<std::int64_t>(ho), static_cast<std::int64_t>(wo)}};
    }
    case Opcode::mul: {
      const Shape& b = in[1];
      if (b.c != x.c && b.c != 1) {
        shape_fail(ctx, index, "b has " + std::to_string(b.c) + " channels; mul needs " + std::to_string(x.c) + " or 1");
      }
      if (sized && (b.h != x.h || b.w != x.w)) {
        shape_fail(ctx, index, "a is " + to_string(x) + ", b " + to_string(b) + "; mul needs one H and W");
      }
      return {x};
    }
    case Opcode::gram: {
      const std::int64_t groups = std::get<ContractionParams>(op.params).groups;
      const Shape& b = in[1];
      if (b.c != x.c) shape_fail(ctx, index, "A has " + std::to_string(x.c) + " channels, B " + std::to_string(b.c));
      if (x.c % groups != 0) {
        shape_fail(ctx, index, "channels " + std::to_string(x.c) + " are not a multiple of groups " + std::to_string(groups));
      }
      if (sized && !(b == x)) shape_fail(ctx, index, "A is " + to_string(x) + ", B " + to_string(b));
      return {Shape{x.c, 1, x.c / groups}};
    }
    case Opcode::apply: {
      const std::int64_t groups = std::get<ContractionParams>(op.params).groups;
      const Shape& v = in[1];
      if (v.c != x.c) shape_fail(ctx, index, "A has " + std::to_string(x.c) + " channels, V " + std::to_string(v.c));
      if (x.c % groups != 0) {
        shape_fail(ctx, index, "channels " + std::to_string(x.c) + " are not a multiple of groups " + std::to_string(groups));
      }
      if (sized && (x.h != 1 || x.w != x.c / groups)) {
        shape_fail(ctx, index, "A is " + to_string(x) + ", apply needs [C, 1, C/groups] = [" + std::to_string(x.c) +
                                   ", 1, " + std::to_string(x.c / groups) + "]");
      }
      return {v};
    }
    default:  // rescale, chscale
      return {x};
  }
}

namespace {

void rq_store(const Whg1Graph& g, std::size_t index, const RqBlock& rq, std::size_t o, i128 v, std::int64_t& out) {
  i128 y;
  if (!rq_apply(rq, o, v, y)) uncertified(g, index, "rq.p");
  out = narrow(g, index, y, "rq.y");
}

void conv(const Whg1Graph& g, std::size_t index, const ConvParams& p, const Tensor& x, Tensor& out) {
  const std::int64_t cin = x.shape.c, H = x.shape.h, W = x.shape.w;
  const std::int64_t Ho = (H + 2 * p.ph - p.kh) / p.sh + 1, Wo = (W + 2 * p.pw - p.kw) / p.sw + 1;
  out.shape = Shape{p.cout, Ho, Wo};
  ConvGeometry geo{cin, H, W, p.cout, p.kh, p.kw, p.sh, p.sw, p.ph, p.pw, p.groups, Ho, Wo};
  // The bound of every partial sum of every channel.
  std::int64_t xlo = 0, xhi = 0;
  for (auto v : x.data) {
    xlo = std::min(xlo, v);
    xhi = std::max(xhi, v);
  }
  const u128 xmax = std::max<u128>(static_cast<u128>(-static_cast<i128>(xlo)), static_cast<u128>(xhi));
  const std::size_t taps = static_cast<std::size_t>((cin / p.groups) * p.kh * p.kw);
  u128 bound = 0;
  bool huge = false;
  for (std::int64_t o = 0; o < p.cout; ++o) {
    u128 s = 0;
    for (std::size_t t = 0; t < taps; ++t) {
      const std::int64_t w = p.weights[static_cast<std::size_t>(o) * taps + t];
      s += w < 0 ? static_cast<u128>(0) - static_cast<u128>(static_cast<i128>(w)) : static_cast<u128>(w);  // < 2^96
    }
    if (xmax != 0 && s > (static_cast<u128>(1) << 63) / xmax) huge = true;
    else bound = std::max(bound, s * xmax);
  }
  std::vector<std::int64_t> acc(static_cast<std::size_t>(p.cout * Ho * Wo));
  // The fast kernels materialise the padded input; a padding far larger than the data (legal: only
  // each padded side is capped) takes the gather form, which never allocates it.
  const i128 padded = static_cast<i128>(cin) * (H + 2 * static_cast<i128>(p.ph)) * (W + 2 * static_cast<i128>(p.pw));
  const bool gather = padded > 4 * static_cast<i128>(x.data.size() + acc.size()) + 4096;
  if (gather) {
    if (!conv_acc_checked(geo, x.data.data(), p.weights.data(), acc.data())) uncertified(g, index, "conv.acc");
  } else if (!huge && bound <= INT32_MAX) {
    const bool x16 = xlo >= -32768 && xhi <= 32767;
    const bool w16 = std::all_of(p.weights.begin(), p.weights.end(), [](std::int64_t v) { return v >= -32768 && v <= 32767; });
    if (!(x16 && w16 && conv_acc_i16_pairs(geo, x.data.data(), p.weights.data(), acc.data()))) {
      conv_acc_i32(geo, x.data.data(), p.weights.data(), acc.data());
    }
  } else if (!huge && bound <= static_cast<u128>(INT64_MAX)) {
    conv_acc_i64(geo, x.data.data(), p.weights.data(), acc.data());
  } else if (!conv_acc_checked(geo, x.data.data(), p.weights.data(), acc.data())) {
    uncertified(g, index, "conv.acc");
  }
  // The epilogue, in place. Where every value of a channel's rq provably stays within 2^62
  // (|t|·|mult| from the partial-sum bound), it is formed in i64; otherwise in i128 (rq.hpp).
  const std::size_t plane = static_cast<std::size_t>(Ho * Wo);
  const RqBlock& rq = p.rq;
  for (std::int64_t o = 0; o < p.cout; ++o) {
    std::int64_t* a = acc.data() + static_cast<std::size_t>(o) * plane;
    const std::size_t oc = static_cast<std::size_t>(o);
    const std::int64_t pre = rq.pre_bias_of(oc), post = rq.post_bias_of(oc), m = rq.mult_of(oc);
    const unsigned sh = rq.shift_of(oc);
    const u128 tmax = bound + static_cast<u128>(pre < 0 ? -static_cast<i128>(pre) : static_cast<i128>(pre));
    const u128 mabs = static_cast<u128>(m < 0 ? -static_cast<i128>(m) : static_cast<i128>(m));
    const u128 lim = static_cast<u128>(1) << 62;
    const bool narrow64 = !huge && !gather && sh <= 62 && tmax < lim && (mabs == 0 || tmax <= lim / mabs) &&
                          post > -(std::int64_t{1} << 62) && post < (std::int64_t{1} << 62);
    if (narrow64) {
      const std::int64_t half = sh == 0 ? 0 : std::int64_t{1} << (sh - 1);
      const std::int64_t mask = (std::int64_t{1} << sh) - 1;
      for (std::size_t i = 0; i < plane; ++i) {
        const std::int64_t pp = (a[i] + pre) * m;  // |pp| < 2^62
        std::int64_t q = pp >> sh;
        if (sh != 0 && rq.round != Round::floor) {
          const std::int64_t r = pp & mask;
          if (rq.round == Round::half_up ? r >= half : (r > half || (r == half && (q & 1) != 0))) ++q;
        }
        a[i] = q + post;
      }
    } else {
      for (std::size_t i = 0; i < plane; ++i) rq_store(g, index, rq, oc, a[i], a[i]);
    }
  }
  out.data = std::move(acc);
}

void conv_transpose(const Whg1Graph& g, std::size_t index, const ConvTransposeParams& p, const Tensor& x, Tensor& out) {
  const std::int64_t cin = x.shape.c, H = x.shape.h, W = x.shape.w;
  const std::int64_t uh = (H - 1) * p.sh + p.kh + p.oph, uw = (W - 1) * p.sw + p.kw + p.opw;  // <= 2^26 (planned)
  const std::int64_t Ho = uh - 2 * static_cast<std::int64_t>(p.ph), Wo = uw - 2 * static_cast<std::int64_t>(p.pw);
  out = Tensor(Shape{p.cout, Ho, Wo});
  // The scatter form (§5.3, informative): the same set of products, each added at its position in
  // the uncropped plane, (u·sh + i, v·sw + j), kept only when it falls in the cropped output. One
  // output position reads the taps of one residue, so its partial sums are those of §5.3's sum.
  // Only the cropped plane is held: the uncropped one can pass max_elems.
  std::vector<std::int64_t> plane(static_cast<std::size_t>(Ho * Wo));
  for (std::int64_t o = 0; o < p.cout; ++o) {
    std::fill(plane.begin(), plane.end(), 0);
    for (std::int64_t ci = 0; ci < cin; ++ci) {
      for (std::int64_t i = 0; i < p.kh; ++i) {
        for (std::int64_t j = 0; j < p.kw; ++j) {
          const std::int64_t w = p.weights[static_cast<std::size_t>(((ci * p.cout + o) * p.kh + i) * p.kw + j)];
          if (w == 0) continue;
          for (std::int64_t u = 0; u < H; ++u) {
            const std::int64_t y = u * p.sh + i - p.ph;
            if (y < 0 || y >= Ho) continue;
            const std::int64_t* xr = x.data.data() + (ci * H + u) * W;
            std::int64_t* row = plane.data() + y * Wo;
            for (std::int64_t v = 0; v < W; ++v) {
              const std::int64_t xx = v * p.sw + j - p.pw;
              if (xx < 0 || xx >= Wo) continue;
              std::int64_t t;
              if (__builtin_mul_overflow(w, xr[v], &t) || __builtin_add_overflow(row[xx], t, &row[xx])) {
                uncertified(g, index, "convT.acc");
              }
            }
          }
        }
      }
    }
    for (std::int64_t y = 0; y < Ho; ++y)
      for (std::int64_t xx = 0; xx < Wo; ++xx)
        rq_store(g, index, p.rq, static_cast<std::size_t>(o), plane[static_cast<std::size_t>(y * Wo + xx)], out.at(o, y, xx));
  }
}

}  // namespace

void eval_linear(const EvalContext& ctx, std::size_t index, std::span<const Tensor* const> in,
                 std::span<Tensor> out) {
  const Whg1Graph& g = ctx.graph;
  const Operator& op = g.ops[index];
  const Tensor& x = *in[0];
  const std::int64_t C = x.shape.c, HW = x.shape.h * x.shape.w;
  switch (op.opcode) {
    case Opcode::conv: return conv(g, index, std::get<ConvParams>(op.params), x, out[0]);
    case Opcode::conv_transpose: return conv_transpose(g, index, std::get<ConvTransposeParams>(op.params), x, out[0]);
    case Opcode::rescale: {
      const RqBlock& rq = std::get<RqParams>(op.params).rq;
      out[0] = Tensor(x.shape);
      for (std::int64_t c = 0; c < C; ++c)
        for (std::int64_t i = 0; i < HW; ++i) {
          const auto k = static_cast<std::size_t>(c * HW + i);
          rq_store(g, index, rq, static_cast<std::size_t>(c), x.data[k], out[0].data[k]);
        }
      return;
    }
    case Opcode::chscale: {
      const auto& p = std::get<ChscaleParams>(op.params);
      const std::int64_t r = ctx.scalar_values[p.scalar];  // within [0, n_rows - 1] by the load check
      out[0] = Tensor(x.shape);
      for (std::int64_t c = 0; c < C; ++c) {
        const std::int64_t m = p.m[static_cast<std::size_t>(r * C + c)];
        for (std::int64_t i = 0; i < HW; ++i) {
          const auto k = static_cast<std::size_t>(c * HW + i);
          i128 y;
          if (!rq_core(x.data[k], 0, m, p.shift, p.round, 0, y)) uncertified(g, index, "rq.p");
          out[0].data[k] = narrow(g, index, y, "rq.y");
        }
      }
      return;
    }
    case Opcode::mul: {
      const RqBlock& rq = std::get<RqParams>(op.params).rq;
      const Tensor& b = *in[1];
      const bool one = b.shape.c == 1;
      out[0] = Tensor(x.shape);
      for (std::int64_t c = 0; c < C; ++c)
        for (std::int64_t i = 0; i < HW; ++i) {
          const auto k = static_cast<std::size_t>(c * HW + i);
          const i128 prod = static_cast<i128>(x.data[k]) * b.data[static_cast<std::size_t>((one ? 0 : c) * HW + i)];  // mul.p
          rq_store(g, index, rq, static_cast<std::size_t>(c), prod, out[0].data[k]);
        }
      return;
    }
    case Opcode::gram: {
      const auto& p = std::get<ContractionParams>(op.params);
      const Tensor& B = *in[1];
      const std::int64_t d = C / p.groups;
      out[0] = Tensor(Shape{C, 1, d});
      for (std::int64_t gi = 0; gi < p.groups; ++gi)
        for (std::int64_t i = 0; i < d; ++i)
          for (std::int64_t j = 0; j < d; ++j) {
            const std::int64_t* a = x.data.data() + (gi * d + i) * HW;
            const std::int64_t* bb = B.data.data() + (gi * d + j) * HW;
            i128 s = 0;
            for (std::int64_t k = 0; k < HW; ++k) {
              if (!checked_add(s, static_cast<i128>(a[k]) * bb[k], s)) uncertified(g, index, "gram.acc");
            }
            rq_store(g, index, p.rq, 0, s, out[0].at(gi * d + i, 0, j));
          }
      return;
    }
    case Opcode::apply: {
      const auto& p = std::get<ContractionParams>(op.params);
      const Tensor& V = *in[1];
      const std::int64_t d = C / p.groups, VHW = V.shape.h * V.shape.w;
      out[0] = Tensor(V.shape);
      for (std::int64_t gi = 0; gi < p.groups; ++gi)
        for (std::int64_t i = 0; i < d; ++i)
          for (std::int64_t pos = 0; pos < VHW; ++pos) {
            i128 s = 0;
            for (std::int64_t j = 0; j < d; ++j) {
              const i128 t = static_cast<i128>(x.at(gi * d + i, 0, j)) * V.data[static_cast<std::size_t>((gi * d + j) * VHW + pos)];
              if (!checked_add(s, t, s)) uncertified(g, index, "apply.acc");
            }
            rq_store(g, index, p.rq, 0, s, out[0].data[static_cast<std::size_t>((gi * d + i) * VHW + pos)]);
          }
      return;
    }
    default:
      return;
  }
}

}  // namespace loam::wai::detail
