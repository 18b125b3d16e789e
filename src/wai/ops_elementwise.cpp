// §5.5 and §5.6: add, chunk_add, clamp, relu, leaky, abs, lut16.
#include "wai/fixed_point.hpp"
#include "wai/ops.hpp"

#include <algorithm>

namespace loam::wai::detail {

std::vector<Shape> plan_elementwise(const PlanContext& ctx, std::size_t index, std::span<const Shape> in) {
  const Operator& op = ctx.graph.ops[index];
  switch (op.opcode) {
    case Opcode::add:
      if (in[0].c != in[1].c) {
        shape_fail(ctx, index, "a has " + std::to_string(in[0].c) + " channels, b " + std::to_string(in[1].c));
      }
      if (ctx.sizes_known && !(in[0] == in[1])) {
        shape_fail(ctx, index, "a is " + to_string(in[0]) + ", b " + to_string(in[1]) + "; add needs one shape");
      }
      return {in[0]};
    case Opcode::chunk_add:
      if (in[0].c % 2 != 0) shape_fail(ctx, index, "input channels " + std::to_string(in[0].c) + " are odd");
      return {Shape{in[0].c / 2, in[0].h, in[0].w}};
    default:
      return {in[0]};
  }
}

void eval_elementwise(const EvalContext& ctx, std::size_t index, std::span<const Tensor* const> in,
                      std::span<Tensor> out) {
  const Whg1Graph& g = ctx.graph;
  const Operator& op = g.ops[index];
  const Tensor& x = *in[0];
  switch (op.opcode) {
    case Opcode::add: {
      const Tensor& b = *in[1];
      out[0] = Tensor(x.shape);
      for (std::size_t i = 0; i < x.data.size(); ++i) {
        out[0].data[i] = narrow(g, index, static_cast<i128>(x.data[i]) + b.data[i], "add");
      }
      return;
    }
    case Opcode::chunk_add: {
      const Shape s{x.shape.c / 2, x.shape.h, x.shape.w};
      out[0] = Tensor(s);
      const std::size_t half = out[0].data.size();
      for (std::size_t i = 0; i < half; ++i) {
        out[0].data[i] = narrow(g, index, static_cast<i128>(x.data[i]) + x.data[i + half], "chunk_add");
      }
      return;
    }
    case Opcode::clamp: {
      const auto& p = std::get<ClampParams>(op.params);
      out[0] = Tensor(x.shape);
      for (std::size_t i = 0; i < x.data.size(); ++i) out[0].data[i] = std::clamp(x.data[i], p.lo, p.hi);
      return;
    }
    case Opcode::relu:
      out[0] = Tensor(x.shape);
      for (std::size_t i = 0; i < x.data.size(); ++i) out[0].data[i] = std::max<std::int64_t>(x.data[i], 0);
      return;
    case Opcode::leaky: {
      const auto& p = std::get<LeakyParams>(op.params);
      out[0] = Tensor(x.shape);
      for (std::size_t i = 0; i < x.data.size(); ++i) {
        const std::int64_t v = x.data[i];
        // leaky.p = v·a fits i128 for any two i64; the floor shift is exact.
        out[0].data[i] = v >= 0 ? v : narrow(g, index, floor_shift(static_cast<i128>(v) * p.a, p.f), "leaky");
      }
      return;
    }
    case Opcode::abs:
      out[0] = Tensor(x.shape);
      for (std::size_t i = 0; i < x.data.size(); ++i) {
        const i128 v = x.data[i];
        out[0].data[i] = narrow(g, index, v < 0 ? -v : v, "abs");
      }
      return;
    case Opcode::lut16: {
      const auto& p = std::get<Lut16Params>(op.params);
      out[0] = Tensor(x.shape);
      for (std::size_t i = 0; i < x.data.size(); ++i) {
        const std::int64_t v = x.data[i];
        // §5.6 certifies v within [-32767, 32767]; any other value is outside the table's domain.
        if (v < -32768 || v > 32767) uncertified(g, index, "lut16 input " + std::to_string(v));
        out[0].data[i] = p.table[static_cast<std::size_t>(v + 32768)];
      }
      return;
    }
    default:
      return;
  }
}

}  // namespace loam::wai::detail
