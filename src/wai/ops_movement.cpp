// §5.10 data movement: concat, split, pixel_shuffle, pixel_unshuffle, pad_rep, crop_to, crop,
// subpos_split, subpos_merge, fill. Values are copied, never computed.
#include "wai/fixed_point.hpp"
#include "wai/ops.hpp"

#include <algorithm>

namespace loam::wai::detail {

namespace {

// A crop operand's value at run time (scalar values known).
std::int64_t operand_value(const PlanContext& ctx, const Operand& o) {
  if (o.kind == OperandKind::constant) return o.value;
  return ctx.scalar_values[o.value];
}

// One side of a crop (§5.10): start s0 and length n within a side of size S.
void crop_side(const PlanContext& ctx, std::size_t index, const Operand& start, const Operand& len,
               std::int64_t S, const char* side, std::int64_t& s0, std::int64_t& n) {
  if (ctx.stage == PlanStage::load) {
    // Planned on the smallest start and the largest length within the input.
    s0 = start.kind == OperandKind::constant ? static_cast<std::int64_t>(start.value) : 0;
    n = len.kind == OperandKind::constant
            ? static_cast<std::int64_t>(len.value)
            : std::min<std::int64_t>(ctx.graph.scalars[len.value].hi, S - s0);
  } else {
    s0 = operand_value(ctx, start);
    n = operand_value(ctx, len);
  }
  if (s0 < 0) shape_fail(ctx, index, std::string(side) + " start " + std::to_string(s0) + " is negative");
  if (n < 1) shape_fail(ctx, index, std::string(side) + " length " + std::to_string(n) + " is below 1");
  if (static_cast<i128>(s0) + n > S) {
    shape_fail(ctx, index, std::string(side) + " start " + std::to_string(s0) + " + length " +
                               std::to_string(n) + " passes the input's " + std::to_string(S));
  }
}

}  // namespace

std::vector<Shape> plan_movement(const PlanContext& ctx, std::size_t index, std::span<const Shape> in) {
  const Whg1Graph& g = ctx.graph;
  const Operator& op = g.ops[index];
  const Shape& x = in[0];
  const bool sized = ctx.sizes_known;
  switch (op.opcode) {
    case Opcode::concat: {
      std::int64_t c = 0;
      for (std::size_t i = 0; i < in.size(); ++i) {
        if (sized && (in[i].h != x.h || in[i].w != x.w)) {
          shape_fail(ctx, index, "input " + std::to_string(i) + " is " + to_string(in[i]) +
                                     ", input 0 " + to_string(x) + "; concat needs one H and W");
        }
        c += in[i].c;  // at most 255 · (2^32 - 1)
      }
      return {Shape{c, x.h, x.w}};
    }
    case Opcode::split: {
      const auto& p = std::get<SplitParams>(op.params);
      if (static_cast<std::int64_t>(p.start) + p.count > x.c) {
        shape_fail(ctx, index, "start " + std::to_string(p.start) + " + count " + std::to_string(p.count) +
                                   " passes the input's " + std::to_string(x.c) + " channels");
      }
      return {Shape{p.count, x.h, x.w}};
    }
    case Opcode::pixel_shuffle: {
      const std::int64_t r = std::get<ShuffleParams>(op.params).r;
      if (sized) {
        size_cap(ctx, index, static_cast<i128>(x.h) * r, "output height H·r");
        size_cap(ctx, index, static_cast<i128>(x.w) * r, "output width W·r");
      }
      const i128 r2 = static_cast<i128>(r) * r;
      if (x.c % r2 != 0) {
        shape_fail(ctx, index, "input channels " + std::to_string(x.c) + " are not a multiple of r² = " + to_string_i128(r2));
      }
      return {Shape{static_cast<std::int64_t>(x.c / r2), x.h * r, x.w * r}};
    }
    case Opcode::pixel_unshuffle: {
      const std::int64_t r = std::get<ShuffleParams>(op.params).r;
      if (sized && (x.h % r != 0 || x.w % r != 0)) {
        shape_fail(ctx, index, "input " + to_string(x) + " sides are not multiples of r = " + std::to_string(r));
      }
      const i128 c = static_cast<i128>(x.c) * r * r;
      if (c > UINT32_MAX) shape_fail(ctx, index, "output channels C·r² = " + to_string_i128(c) + " pass 2^32 - 1");
      return {Shape{static_cast<std::int64_t>(c), x.h / r, x.w / r}};
    }
    case Opcode::pad_rep: {
      const std::int64_t m = std::get<PadRepParams>(op.params).m;
      const i128 h = (static_cast<i128>(x.h) + m - 1) / m * m, w = (static_cast<i128>(x.w) + m - 1) / m * m;
      if (sized) {
        size_cap(ctx, index, h, "output height ⌈H/m⌉·m");
        size_cap(ctx, index, w, "output width ⌈W/m⌉·m");
      }
      return {Shape{x.c, static_cast<std::int64_t>(h), static_cast<std::int64_t>(w)}};
    }
    case Opcode::crop_to: {
      const Shape& ref = in[1];
      if (sized && (ref.h > x.h || ref.w > x.w)) {
        shape_fail(ctx, index, "ref " + to_string(ref) + " is larger than the input " + to_string(x));
      }
      return {Shape{x.c, ref.h, ref.w}};
    }
    case Opcode::crop: {
      if (!sized) return {x};
      const auto& p = std::get<CropParams>(op.params);
      std::int64_t y0, h, x0, w;
      crop_side(ctx, index, p.y0, p.h, x.h, "row", y0, h);
      crop_side(ctx, index, p.x0, p.w, x.w, "column", x0, w);
      return {Shape{x.c, h, w}};
    }
    case Opcode::subpos_split:
      if (sized && (x.h % 2 != 0 || x.w % 2 != 0)) {
        shape_fail(ctx, index, "input " + to_string(x) + " sides are not even");
      }
      return std::vector<Shape>(4, Shape{x.c, x.h / 2, x.w / 2});
    case Opcode::subpos_merge: {
      if (sized) {
        size_cap(ctx, index, 2 * static_cast<i128>(x.h), "output height 2H");
        size_cap(ctx, index, 2 * static_cast<i128>(x.w), "output width 2W");
      }
      for (std::size_t i = 1; i < 4; ++i) {
        if (in[i].c != x.c || (sized && !(in[i] == x))) {
          shape_fail(ctx, index, "input " + std::to_string(i) + " is " + to_string(in[i]) + ", input 0 " + to_string(x));
        }
      }
      return {Shape{x.c, 2 * x.h, 2 * x.w}};
    }
    case Opcode::fill:
      return {Shape{g.tensors[op.outputs[0]].channels, x.h, x.w}};
    default:
      return {x};
  }
}

void eval_movement(const EvalContext& ctx, std::size_t index, std::span<const Tensor* const> in,
                   std::span<Tensor> out) {
  const Whg1Graph& g = ctx.graph;
  const Operator& op = g.ops[index];
  const Tensor& x = *in[0];
  const std::int64_t C = x.shape.c, H = x.shape.h, W = x.shape.w;
  switch (op.opcode) {
    case Opcode::concat: {
      std::int64_t c = 0;
      for (const Tensor* t : in) c += t->shape.c;
      out[0] = Tensor(Shape{c, H, W});
      auto it = out[0].data.begin();
      for (const Tensor* t : in) it = std::copy(t->data.begin(), t->data.end(), it);
      return;
    }
    case Opcode::split: {
      const auto& p = std::get<SplitParams>(op.params);
      out[0] = Tensor(Shape{p.count, H, W});
      const auto first = x.data.begin() + static_cast<std::ptrdiff_t>(p.start * H * W);
      std::copy(first, first + static_cast<std::ptrdiff_t>(p.count * H * W), out[0].data.begin());
      return;
    }
    case Opcode::pixel_shuffle: {
      const std::int64_t r = std::get<ShuffleParams>(op.params).r;
      out[0] = Tensor(Shape{C / (r * r), H * r, W * r});
      for (std::int64_t c = 0; c < C / (r * r); ++c)
        for (std::int64_t i = 0; i < r; ++i)
          for (std::int64_t j = 0; j < r; ++j)
            for (std::int64_t h = 0; h < H; ++h)
              for (std::int64_t w = 0; w < W; ++w) out[0].at(c, h * r + i, w * r + j) = x.at(c * r * r + i * r + j, h, w);
      return;
    }
    case Opcode::pixel_unshuffle: {
      const std::int64_t r = std::get<ShuffleParams>(op.params).r;
      out[0] = Tensor(Shape{C * r * r, H / r, W / r});
      for (std::int64_t c = 0; c < C; ++c)
        for (std::int64_t i = 0; i < r; ++i)
          for (std::int64_t j = 0; j < r; ++j)
            for (std::int64_t h = 0; h < H / r; ++h)
              for (std::int64_t w = 0; w < W / r; ++w) out[0].at(c * r * r + i * r + j, h, w) = x.at(c, h * r + i, w * r + j);
      return;
    }
    case Opcode::pad_rep: {
      const std::int64_t m = std::get<PadRepParams>(op.params).m;
      const Shape s{C, (H + m - 1) / m * m, (W + m - 1) / m * m};
      out[0] = Tensor(s);
      for (std::int64_t c = 0; c < C; ++c)
        for (std::int64_t y = 0; y < s.h; ++y)
          for (std::int64_t xx = 0; xx < s.w; ++xx) out[0].at(c, y, xx) = x.at(c, std::min(y, H - 1), std::min(xx, W - 1));
      return;
    }
    case Opcode::crop_to:
    case Opcode::crop: {
      std::int64_t y0 = 0, x0 = 0, h, w;
      if (op.opcode == Opcode::crop_to) {
        h = in[1]->shape.h;
        w = in[1]->shape.w;
      } else {
        const auto& p = std::get<CropParams>(op.params);
        auto val = [&](const Operand& o) -> std::int64_t {
          return o.kind == OperandKind::constant ? static_cast<std::int64_t>(o.value) : ctx.scalar_values[o.value];
        };
        y0 = val(p.y0); x0 = val(p.x0); h = val(p.h); w = val(p.w);
      }
      out[0] = Tensor(Shape{C, h, w});
      for (std::int64_t c = 0; c < C; ++c)
        for (std::int64_t y = 0; y < h; ++y)
          for (std::int64_t xx = 0; xx < w; ++xx) out[0].at(c, y, xx) = x.at(c, y0 + y, x0 + xx);
      return;
    }
    case Opcode::subpos_split: {
      const auto& p = std::get<SubposParams>(op.params);
      for (int k = 0; k < 4; ++k) {
        const std::int64_t a = p.order[k] >> 1, b = p.order[k] & 1;
        out[k] = Tensor(Shape{C, H / 2, W / 2});
        for (std::int64_t c = 0; c < C; ++c)
          for (std::int64_t y = 0; y < H / 2; ++y)
            for (std::int64_t xx = 0; xx < W / 2; ++xx) out[k].at(c, y, xx) = x.at(c, 2 * y + a, 2 * xx + b);
      }
      return;
    }
    case Opcode::subpos_merge: {
      const auto& p = std::get<SubposParams>(op.params);
      out[0] = Tensor(Shape{C, 2 * H, 2 * W});
      for (int k = 0; k < 4; ++k) {
        const std::int64_t a = p.order[k] >> 1, b = p.order[k] & 1;
        for (std::int64_t c = 0; c < C; ++c)
          for (std::int64_t y = 0; y < H; ++y)
            for (std::int64_t xx = 0; xx < W; ++xx) out[0].at(c, 2 * y + a, 2 * xx + b) = in[k]->at(c, y, xx);
      }
      return;
    }
    case Opcode::fill: {
      const auto& p = std::get<FillParams>(op.params);
      const std::int64_t v = p.kind == OperandKind::constant ? p.value : ctx.scalar_values[static_cast<std::size_t>(p.value)];
      out[0] = Tensor(Shape{g.tensors[op.outputs[0]].channels, H, W}, v);
      return;
    }
    default:
      return;
  }
}

}  // namespace loam::wai::detail
