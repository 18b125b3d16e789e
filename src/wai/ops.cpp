// Dispatch of the graph operators to their families, and the helpers they share.
#include "wai/ops.hpp"

#include "wai/fixed_point.hpp"

namespace loam::wai {

std::string to_string(const Shape& s) {
  return "[" + std::to_string(s.c) + ", " + std::to_string(s.h) + ", " + std::to_string(s.w) + "]";
}

std::string to_string_i128(i128 v) {
  if (v == 0) return "0";
  const bool neg = v < 0;
  u128 m = neg ? static_cast<u128>(0) - static_cast<u128>(v) : static_cast<u128>(v);
  std::string s;
  while (m != 0) {
    s.push_back(static_cast<char>('0' + static_cast<int>(m % 10)));
    m /= 10;
  }
  if (neg) s.push_back('-');
  return std::string(s.rbegin(), s.rend());
}

namespace detail {

std::string op_where(const Whg1Graph& g, std::size_t index) {
  return "operator " + std::to_string(index) + " (" + op_name(g.ops[index].opcode) + ")";
}

void shape_fail(const PlanContext& ctx, std::size_t index, const std::string& what) {
  refuse(ctx.stage == PlanStage::load ? RefusalCode::model_mismatch : RefusalCode::geometry_mismatch,
         op_where(ctx.graph, index) + ": " + what);
}

void size_cap(const PlanContext& ctx, std::size_t index, __int128 size, const std::string& what) {
  if (size > static_cast<__int128>(kMaxElemsCap)) {
    refuse(RefusalCode::too_large, op_where(ctx.graph, index) + ": " + what + " " +
                                       to_string_i128(size) + " is past 2^26");
  }
}

void uncertified(const Whg1Graph& g, std::size_t index, const std::string& what) {
  refuse(RefusalCode::model_mismatch,
         op_where(g, index) + ": " + what + " passes the width acc64 gives it; the graph does not meet acc64");
}

std::int64_t narrow(const Whg1Graph& g, std::size_t index, __int128 v, const char* key) {
  if (!fits_i64(v)) uncertified(g, index, std::string(key) + " " + to_string_i128(v));
  return static_cast<std::int64_t>(v);
}

}  // namespace detail

std::vector<Shape> plan_operator(const PlanContext& ctx, std::size_t index, std::span<const Shape> in) {
  switch (ctx.graph.ops[index].opcode) {
    case Opcode::conv: case Opcode::conv_transpose: case Opcode::rescale: case Opcode::chscale:
    case Opcode::mul: case Opcode::gram: case Opcode::apply:
      return detail::plan_linear(ctx, index, in);
    case Opcode::add: case Opcode::chunk_add: case Opcode::clamp: case Opcode::relu:
    case Opcode::leaky: case Opcode::abs: case Opcode::lut16:
      return detail::plan_elementwise(ctx, index, in);
    case Opcode::igdn: case Opcode::layernorm_c: case Opcode::l2norm: case Opcode::softmax:
    case Opcode::sigmoid: case Opcode::elu:
      return detail::plan_norm(ctx, index, in);
    default:
      return detail::plan_movement(ctx, index, in);
  }
}

void eval_operator(const EvalContext& ctx, std::size_t index, std::span<const Tensor* const> in,
                   std::span<Tensor> out) {
  switch (ctx.graph.ops[index].opcode) {
    case Opcode::conv: case Opcode::conv_transpose: case Opcode::rescale: case Opcode::chscale:
    case Opcode::mul: case Opcode::gram: case Opcode::apply:
      return detail::eval_linear(ctx, index, in, out);
    case Opcode::add: case Opcode::chunk_add: case Opcode::clamp: case Opcode::relu:
    case Opcode::leaky: case Opcode::abs: case Opcode::lut16:
      return detail::eval_elementwise(ctx, index, in, out);
    case Opcode::igdn: case Opcode::layernorm_c: case Opcode::l2norm: case Opcode::softmax:
    case Opcode::sigmoid: case Opcode::elu:
      return detail::eval_norm(ctx, index, in, out);
    default:
      return detail::eval_movement(ctx, index, in, out);
  }
}

}  // namespace loam::wai
