// The graph operators of wai-ops/1 §5: each operator's shape rule (planning, §4) and its exact
// definition (evaluation). One family per file: ops_linear.cpp (conv, conv_transpose, rescale,
// chscale, mul, gram, apply), ops_elementwise.cpp (add, chunk_add, clamp, relu, leaky, abs, lut16),
// ops_norm.cpp (igdn, layernorm_c, l2norm, softmax, sigmoid, elu), ops_movement.cpp (concat,
// split, pixel_shuffle, pixel_unshuffle, pad_rep, crop_to, crop, subpos_split, subpos_merge, fill).
// ops.cpp dispatches on the opcode.
#pragma once

#include "wai/whg1.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace loam::wai {

struct Shape {
  std::int64_t c = 1, h = 1, w = 1;
  friend bool operator==(const Shape&, const Shape&) = default;
};
std::string to_string(const Shape& s);  // "[C, H, W]"

// A tensor's values, CHW order (§3). Every value of a graph that meets acc64 fits i64.
struct Tensor {
  Shape shape;
  std::vector<std::int64_t> data;

  Tensor() = default;
  explicit Tensor(Shape s, std::int64_t fill = 0)
      : shape(s), data(static_cast<std::size_t>(s.c * s.h * s.w), fill) {}
  std::int64_t& at(std::int64_t c, std::int64_t y, std::int64_t x) {
    return data[static_cast<std::size_t>((c * shape.h + y) * shape.w + x)];
  }
  std::int64_t at(std::int64_t c, std::int64_t y, std::int64_t x) const {
    return data[static_cast<std::size_t>((c * shape.h + y) * shape.w + x)];
  }
};

// Where a plan runs, which decides the code of a broken shape rule: model_mismatch at load,
// geometry_mismatch at run time (§4). A size past a cap is too_large in both.
enum class PlanStage { load, run };

struct PlanContext {
  const Whg1Graph& graph;
  PlanStage stage = PlanStage::run;
  // False at load for the channel walk (§10.5 step 7, first part): H and W are unknown, only the
  // channel rules apply and the shapes' h and w are meaningless.
  bool sizes_known = true;
  // The scalar values of this decode (run only; empty at load).
  std::span<const std::int64_t> scalar_values;
};

// Plans operator `index` on its input shapes: the sizes it forms before its shape rule (too_large),
// then its shape rule. Returns its output shapes (each output's C·H·W against max_elems is the
// caller's, §4 run step 3). Throws RefusalError with the stage's code; the message names the
// operator.
std::vector<Shape> plan_operator(const PlanContext& ctx, std::size_t index,
                                 std::span<const Shape> in);

struct EvalContext {
  const Whg1Graph& graph;
  std::span<const std::int64_t> scalar_values;
};

// Evaluates operator `index` into `out`, whose shapes plan_operator gave (data allocated by the
// callee). The output tensors' policies are the caller's. Throws RefusalError(model_mismatch)
// only for a value the graph could not have formed had it met acc64 (a value past its class's
// 128-bit or 64-bit width), which a certified graph never does: nothing ever wraps.
void eval_operator(const EvalContext& ctx, std::size_t index, std::span<const Tensor* const> in,
                   std::span<Tensor> out);

// ----- internal: one entry pair per family, called by ops.cpp -----
namespace detail {
// The message prefix naming an operator: "operator 3 (conv)".
std::string op_where(const Whg1Graph& g, std::size_t index);
[[noreturn]] void shape_fail(const PlanContext& ctx, std::size_t index, const std::string& what);
// A size formed before a shape rule, checked against 2^26 (too_large).
void size_cap(const PlanContext& ctx, std::size_t index, __int128 size, const std::string& what);
[[noreturn]] void uncertified(const Whg1Graph& g, std::size_t index, const std::string& what);
// Narrows a producer result to i64 storage; refuses a value no acc64 graph forms.
std::int64_t narrow(const Whg1Graph& g, std::size_t index, __int128 v, const char* key);

std::vector<Shape> plan_linear(const PlanContext&, std::size_t, std::span<const Shape>);
std::vector<Shape> plan_elementwise(const PlanContext&, std::size_t, std::span<const Shape>);
std::vector<Shape> plan_norm(const PlanContext&, std::size_t, std::span<const Shape>);
std::vector<Shape> plan_movement(const PlanContext&, std::size_t, std::span<const Shape>);
void eval_linear(const EvalContext&, std::size_t, std::span<const Tensor* const>, std::span<Tensor>);
void eval_elementwise(const EvalContext&, std::size_t, std::span<const Tensor* const>,
                      std::span<Tensor>);
void eval_norm(const EvalContext&, std::size_t, std::span<const Tensor* const>, std::span<Tensor>);
void eval_movement(const EvalContext&, std::size_t, std::span<const Tensor* const>,
                   std::span<Tensor>);
}  // namespace detail

}  // namespace loam::wai
