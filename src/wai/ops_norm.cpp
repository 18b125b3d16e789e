// §5.7 and §5.8: igdn, layernorm_c, l2norm, softmax, sigmoid, elu. Every wide intermediate is a
// 128-bit value formed with checked arithmetic: a certified (acc64) graph never trips a check, and
// an uncertified one is refused rather than wrapped.
#include "wai/fixed_point.hpp"
#include "wai/ops.hpp"

#include <algorithm>

namespace loam::wai::detail {

std::vector<Shape> plan_norm(const PlanContext&, std::size_t, std::span<const Shape> in) {
  return {in[0]};  // every operator of this family keeps its input's shape
}

namespace {

struct Checked {
  const Whg1Graph& g;
  std::size_t index;
  i128 add(i128 a, i128 b, const char* key) const {
    i128 r;
    if (!checked_add(a, b, r)) uncertified(g, index, key);
    return r;
  }
  i128 sub(i128 a, i128 b, const char* key) const {
    i128 r;
    if (!checked_sub(a, b, r)) uncertified(g, index, key);
    return r;
  }
  i128 mul(i128 a, i128 b, const char* key) const {
    i128 r;
    if (!checked_mul(a, b, r)) uncertified(g, index, key);
    return r;
  }
};

void igdn(const Checked& k, const IgdnParams& p, const Tensor& x, Tensor& out) {
  const std::int64_t C = x.shape.c, HW = x.shape.h * x.shape.w;
  out = Tensor(x.shape);
  std::vector<i128> x2(static_cast<std::size_t>(C));
  for (std::int64_t pos = 0; pos < HW; ++pos) {
    for (std::int64_t j = 0; j < C; ++j) {
      const i128 v = x.data[static_cast<std::size_t>(j * HW + pos)];
      x2[static_cast<std::size_t>(j)] = v * v;  // igdn.x2 <= 2^126
    }
    for (std::int64_t i = 0; i < C; ++i) {
      i128 n = p.beta[static_cast<std::size_t>(i)];
      for (std::int64_t j = 0; j < C; ++j) {
        const i128 gx2 = k.mul(p.gamma[static_cast<std::size_t>(i * C + j)], x2[static_cast<std::size_t>(j)], "igdn.gx2");
        n = k.add(n, floor_shift(gx2, p.gf), "igdn.N");  // each term floored, then summed
      }
      const u128 r = isqrt_u128(n > 0 ? static_cast<u128>(n) : 0);  // igdn.r <= 2^63.5
      const i128 xi = x.data[static_cast<std::size_t>(i * HW + pos)];
      if (r > static_cast<u128>(kI128Max)) uncertified(k.g, k.index, "igdn.r");
      const i128 xr = k.mul(xi, static_cast<i128>(r), "igdn.xr");
      out.data[static_cast<std::size_t>(i * HW + pos)] = narrow(k.g, k.index, floor_shift(xr, p.frac), "igdn");
    }
  }
}

void layernorm(const Checked& k, const LayernormParams& p, const Tensor& x, Tensor& out) {
  const std::int64_t C = x.shape.c, HW = x.shape.h * x.shape.w;
  out = Tensor(x.shape);
  std::vector<i128> d(static_cast<std::size_t>(C));
  for (std::int64_t pos = 0; pos < HW; ++pos) {
    i128 S = 0;  // |S| <= 2^32·2^63
    for (std::int64_t c = 0; c < C; ++c) S += x.data[static_cast<std::size_t>(c * HW + pos)];
    const i128 sgn = S > 0 ? 1 : S < 0 ? -1 : 0;
    const i128 M = S + (C / 2) * sgn;     // ln.m
    const i128 m = M / C;                 // trunc(M / C): C++ division truncates
    i128 T = 0;
    for (std::int64_t c = 0; c < C; ++c) {
      const i128 dc = x.data[static_cast<std::size_t>(c * HW + pos)] - m;  // ln.d, fits i66
      d[static_cast<std::size_t>(c)] = dc;
      T = k.add(T, k.mul(dc, dc, "ln.T"), "ln.T");
    }
    const i128 V = T / C;  // T >= 0
    const i128 U = k.add(V, static_cast<i128>(p.eps), "ln.v");
    const i128 kk = rsqrt_q16(static_cast<u128>(U));  // U >= 1
    for (std::int64_t c = 0; c < C; ++c) {
      const i128 n = floor_shift(k.mul(d[static_cast<std::size_t>(c)], kk, "ln.dk"), 16);
      const i128 ng = k.mul(n, p.gamma[static_cast<std::size_t>(c)], "ln.ng");
      out.data[static_cast<std::size_t>(c * HW + pos)] =
          narrow(k.g, k.index, k.add(floor_shift(ng, 16), p.beta[static_cast<std::size_t>(c)], "layernorm_c"), "layernorm_c");
    }
  }
}

void l2norm(const Checked& k, const L2normParams& p, const Tensor& x, Tensor& out) {
  const std::int64_t C = x.shape.c, HW = x.shape.h * x.shape.w;
  out = Tensor(x.shape);
  for (std::int64_t c = 0; c < C; ++c) {
    const std::int64_t* v = x.data.data() + c * HW;
    i128 T = 0;
    for (std::int64_t i = 0; i < HW; ++i) T = k.add(T, static_cast<i128>(v[i]) * v[i], "l2.T");
    const i128 U = k.add(T, static_cast<i128>(p.eps), "l2.T");
    const i128 kk = rsqrt_q16(static_cast<u128>(U));
    for (std::int64_t i = 0; i < HW; ++i) {
      out.data[static_cast<std::size_t>(c * HW + i)] = narrow(k.g, k.index, floor_shift(k.mul(v[i], kk, "l2.vk"), 16), "l2norm");
    }
  }
}

void softmax(const Tensor& x, Tensor& out) {
  const std::int64_t rows = x.shape.c * x.shape.h, W = x.shape.w;
  out = Tensor(x.shape);
  std::vector<std::int64_t> e(static_cast<std::size_t>(W));
  for (std::int64_t row = 0; row < rows; ++row) {
    const std::int64_t* v = x.data.data() + row * W;
    const std::int64_t m = *std::max_element(v, v + W);
    std::int64_t sum = 0;  // <= 2^26·65553 < 2^43
    for (std::int64_t i = 0; i < W; ++i) {
      e[static_cast<std::size_t>(i)] = exp_neg_q16(static_cast<i128>(v[i]) - m);  // sm.diff <= 0
      sum += e[static_cast<std::size_t>(i)];
    }
    for (std::int64_t i = 0; i < W; ++i) {
      const std::int64_t num = (e[static_cast<std::size_t>(i)] << 16) + sum / 2;  // sm.num < 2^44
      out.data[static_cast<std::size_t>(row * W + i)] = num / sum;                  // both > 0
    }
  }
}

}  // namespace

void eval_norm(const EvalContext& ctx, std::size_t index, std::span<const Tensor* const> in,
               std::span<Tensor> out) {
  const Whg1Graph& g = ctx.graph;
  const Operator& op = g.ops[index];
  const Tensor& x = *in[0];
  const Checked k{g, index};
  switch (op.opcode) {
    case Opcode::igdn: return igdn(k, std::get<IgdnParams>(op.params), x, out[0]);
    case Opcode::layernorm_c: return layernorm(k, std::get<LayernormParams>(op.params), x, out[0]);
    case Opcode::l2norm: return l2norm(k, std::get<L2normParams>(op.params), x, out[0]);
    case Opcode::softmax: return softmax(x, out[0]);
    case Opcode::sigmoid:
      out[0] = Tensor(x.shape);
      for (std::size_t i = 0; i < x.data.size(); ++i) {
        const std::int64_t v = x.data[i];
        if (v >= 0) {
          const std::int64_t e = exp_neg_q16(-static_cast<i128>(v));
          out[0].data[i] = (std::int64_t{1} << 32) / ((std::int64_t{1} << 16) + e);
        } else {
          const std::int64_t e = exp_neg_q16(v);
          out[0].data[i] = (e << 16) / ((std::int64_t{1} << 16) + e);  // sig.num = e·2^16
        }
      }
      return;
    case Opcode::elu: {
      const std::int64_t alpha = std::get<EluParams>(op.params).alpha;
      out[0] = Tensor(x.shape);
      for (std::size_t i = 0; i < x.data.size(); ++i) {
        const std::int64_t v = x.data[i];
        if (v > 0) {
          out[0].data[i] = v;
        } else {
          const i128 p = static_cast<i128>(alpha) * (exp_neg_q16(v) - 65536);  // elu.p, < 2^80
          out[0].data[i] = narrow(g, index, floor_shift(p, 16), "elu");
        }
      }
      return;
    }
    default:
      return;
  }
}

}  // namespace loam::wai::detail
