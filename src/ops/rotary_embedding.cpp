// RotaryEmbedding (opset 23): rotates the first rotary_embedding_dim channels of each head of its
// input by the angles whose cosines and sines the caches hold for each position, pair by pair
// (the two halves of those channels, or with `interleaved` each even channel with the odd one
// after it); the other channels pass as they are. The input is [batch, heads, sequence, head] or
// [batch, sequence, heads * head] with `num_heads`; the caches are [batch, sequence, rotary / 2],
// or [positions, rotary / 2] read at `position_ids` [batch, sequence]. A runtime kernel computes
// it; a position id outside the caches is refused when the run gives it.
#include "ops/op.hpp"

namespace loam::ops {

namespace {

// The axes of the input that are batch, sequence and head, and the head's extent.
struct RotaryLayout {
  Extent batch, sequence, head;
};

RotaryLayout rotary_layout(OpContext& c) {
  const auto& x = c.input(0);
  const auto heads = c.attr_int_opt("num_heads");
  if (x.dims.size() == 4) {
    if (heads && *heads != 0 && x.dims[1] != Extent(*heads))
      c.error("attribute 'num_heads' " + std::to_string(*heads) + " differs from the heads of " + c.tensor(0) + " (" + x.dims[1].to_string() + ")");
    return {x.dims[0], x.dims[2], x.dims[3]};
  }
  if (x.dims.size() != 3) c.error(c.tensor(0) + " " + x.shape_string() + " must be [batch, heads, sequence, head] or [batch, sequence, hidden]");
  if (!heads || *heads <= 0) c.error(c.tensor(0) + " is 3-D: it needs attribute 'num_heads', positive");
  const auto head = x.dims[2].divide_exactly(Extent(*heads));
  if (!head) c.error("the hidden extent of " + c.tensor(0) + " (" + x.dims[2].to_string() + ") is not a multiple of num_heads " + std::to_string(*heads));
  return {x.dims[0], x.dims[1], *head};
}

void rotary_embedding(OpContext& c) {
  const auto& x = c.input(0);
  if (!held_in_float(x.elem)) c.error("is computed in float, not " + std::string(element_type_name(x.elem)));
  const RotaryLayout layout = rotary_layout(c);
  const int64_t rotary = c.attr_int("rotary_embedding_dim", 0);
  if (rotary < 0) c.error("attribute 'rotary_embedding_dim' " + std::to_string(rotary) + " is negative");
  if (rotary % 2 != 0) c.error("attribute 'rotary_embedding_dim' " + std::to_string(rotary) + " is odd: its channels rotate in pairs");
  const auto& cos = c.input(1);
  const auto& sin = c.input(2);
  if (cos.dims != sin.dims) c.error("the cosine cache " + cos.shape_string() + " and the sine cache " + sin.shape_string() + " differ");
  if (cos.elem != x.elem || sin.elem != x.elem) c.error("the caches must be of the input's element type");
  const bool positions = c.has_input(3);
  if (positions) {
    const auto& p = c.input(3);
    if (p.elem != ElementType::I64) c.error("the position ids " + c.tensor(3) + " must be int64");
    if (p.dims.size() != 2) c.error("the position ids " + c.tensor(3) + " " + p.shape_string() + " must be [batch, sequence]");
    c.equal(p.dims[0], layout.batch, "the position ids' batch and the input's");
    c.equal(p.dims[1], layout.sequence, "the position ids' sequence and the input's");
    if (cos.dims.size() != 2) c.error("read at position ids, the caches " + cos.shape_string() + " must be [positions, rotary / 2]");
  } else {
    if (cos.dims.size() != 3) c.error("without position ids, the caches " + cos.shape_string() + " must be [batch, sequence, rotary / 2]");
    c.equal(cos.dims[0], layout.batch, "the caches' batch and the input's");
    c.equal(cos.dims[1], layout.sequence, "the caches' sequence and the input's");
  }
  // Half the rotated channels: the caches' last extent.
  const Extent& half = cos.dims.back();
  if (rotary == 0) {
    c.equal(half * Extent(2), layout.head, "twice the caches' last extent and the head (rotary_embedding_dim 0 rotates all of it)");
  } else {
    c.equal(half, Extent(rotary / 2), "the caches' last extent and half of rotary_embedding_dim");
    if (const auto head = layout.head.constant(); head && rotary > *head)
      c.error("attribute 'rotary_embedding_dim' " + std::to_string(rotary) + " is larger than the head (" + std::to_string(*head) + ")");
  }
  c.set_output(0, x.elem, x.dims);
}

void lower_rotary_embedding(LowerContext& cx, const Node&) {
  std::vector<Arg> args = {Arg::of_tensor(cx.in(0)), Arg::of_tensor(cx.in(1)), Arg::of_tensor(cx.in(2))};
  if (cx.has(3)) args.push_back(Arg::of_tensor(cx.in(3)));
  args.push_back(Arg::of_flag(cx.attr_int("interleaved", 0) != 0, "interleaved"));
  args.push_back(Arg::of_index(cx.attr_int("num_heads", 0), "heads"));
  if (cx.has(3)) args.push_back(quoted_name(cx.info(cx.in(3)).name));
  cx.call(cx.has(3) ? "rotary_embedding_at" : "rotary_embedding", {}, std::move(args));
}

}  // namespace

void register_rotary_embedding(std::vector<Operator>& r) {
  r.push_back({.op_type = "RotaryEmbedding", .infer = rotary_embedding, .name_axes = name_like_input, .lower = lower_rotary_embedding,
               .in_scope = true});
}

}  // namespace loam::ops
