// Attention (opsets 23 to 25): Y = softmax(Q K^T * scale + bias) V per query head, Q, K and V
// 4-D [batch, heads, sequence, head] or 3-D [batch, sequence, heads * head] with q_num_heads and
// kv_num_heads; each kv head serves heads / kv heads query heads in turn (grouped queries). The
// bias is an attention mask (bool, or float added; rank 1 to 4, broadcast from the right, its
// last axis at most the keys), a causal frontier, a sliding window (opset 25) and the keys each
// batch holds (nonpad_kv_seqlen, opset 24); softcap bounds the scores first. past_key and
// past_value precede K and V in the caches, which are outputs 1 and 2; output 3 holds the scores
// qk_matmul_output_mode chooses. Runtime kernels compute it (runtime/loam/cpu_attention.inc.hpp).
#include <cmath>

#include "ops/op.hpp"

namespace loam::ops {

namespace {

bool given(const Node& n, std::size_t k) { return k < n.outputs.size() && !n.outputs[k].empty(); }

// Q, K and V as [batch, heads, sequence, head] sees them.
struct AttentionShape {
  Extent batch, q_heads, kv_heads, sequence, kv_sequence, head, v_head;
  bool three_d = false;
};

AttentionShape attention_shape(OpContext& c) {
  const auto& q = c.input(0);
  const auto& k = c.input(1);
  const auto& v = c.input(2);
  // float16 and bfloat16 compute in float, as every float kernel does.
  if (!held_in_float(q.elem))
    c.error("is computed in float, not " + std::string(element_type_name(q.elem)));
  require_same_types(c, {0, 1, 2});
  const std::size_t rank = q.dims.size();
  if ((rank != 3 && rank != 4) || k.dims.size() != rank || v.dims.size() != rank)
    c.error("Q " + q.shape_string() + ", K " + k.shape_string() + " and V " + v.shape_string() +
            " must all be [batch, heads, sequence, head] or all [batch, sequence, hidden]");
  const auto q_heads = c.attr_int_opt("q_num_heads"), kv_heads = c.attr_int_opt("kv_num_heads");
  AttentionShape s;
  s.three_d = rank == 3;
  s.batch = q.dims[0];
  c.equal(k.dims[0], s.batch, "the batch of K and Q");
  c.equal(v.dims[0], s.batch, "the batch of V and Q");
  if (rank == 4) {
    if (q_heads && Extent(*q_heads) != q.dims[1])
      c.error("attribute 'q_num_heads' " + std::to_string(*q_heads) + " differs from the heads of " + c.tensor(0));
    if (kv_heads && Extent(*kv_heads) != k.dims[1])
      c.error("attribute 'kv_num_heads' " + std::to_string(*kv_heads) + " differs from the heads of " + c.tensor(1));
    s.q_heads = q.dims[1];
    s.sequence = q.dims[2];
    s.head = q.dims[3];
    s.kv_heads = k.dims[1];
    s.kv_sequence = k.dims[2];
    s.v_head = v.dims[3];
    c.equal(k.dims[3], s.head, "the head size of K and Q");
    c.equal(v.dims[1], s.kv_heads, "the heads of V and K");
    c.equal(v.dims[2], s.kv_sequence, "the sequence of V and K");
  } else {
    if (!q_heads || *q_heads <= 0 || !kv_heads || *kv_heads <= 0)
      c.error("Q, K and V are 3-D: they need attributes 'q_num_heads' and 'kv_num_heads', positive");
    s.q_heads = Extent(*q_heads);
    s.kv_heads = Extent(*kv_heads);
    s.sequence = q.dims[1];
    s.kv_sequence = k.dims[1];
    c.equal(v.dims[1], s.kv_sequence, "the sequence of V and K");
    const auto split = [&](std::size_t i, const Extent& heads, const char* attr) {
      const auto& d = c.input(i).dims[2];
      auto per = d.divide_exactly(heads);
      if (!per) c.error("the hidden extent of " + c.tensor(i) + " (" + d.to_string() + ") is not a multiple of " + attr + " " + heads.to_string());
      return *per;
    };
    s.head = split(0, s.q_heads, "q_num_heads");
    c.equal(split(1, s.kv_heads, "kv_num_heads"), s.head, "the head size of K and Q");
    s.v_head = split(2, s.kv_heads, "kv_num_heads");
  }
  const auto qh = s.q_heads.constant(), kvh = s.kv_heads.constant();
  if (!qh || !kvh) c.error("the heads of Q (" + s.q_heads.to_string() + ") and of K (" + s.kv_heads.to_string() + ") must be known at build time");
  if (*kvh <= 0 || *qh % *kvh != 0)
    c.error("Q's " + std::to_string(*qh) + " heads are not a multiple of K's " + std::to_string(*kvh) + ": each kv head serves a whole group of query heads");
  return s;
}

void attention(OpContext& c) {
  const AttentionShape s = attention_shape(c);
  const bool past = c.has_input(4) || c.has_input(5);
  Extent before(0);
  if (past) {
    if (!c.has_input(4) || !c.has_input(5)) c.error("past_key and past_value come together");
    if (c.has_input(6)) c.error("nonpad_kv_seqlen describes an external cache: it is not given with past_key and past_value");
    const auto& pk = c.input(4);
    const auto& pv = c.input(5);
    if (pk.dims.size() != 4 || pv.dims.size() != 4)
      c.error("the past caches " + pk.shape_string() + " and " + pv.shape_string() + " must be [batch, kv heads, past, head]");
    if (pk.elem != c.input(0).elem || pv.elem != c.input(0).elem) c.error("the past caches must be of Q's element type");
    c.equal(pk.dims[0], s.batch, "the batch of past_key and Q");
    c.equal(pk.dims[1], s.kv_heads, "the heads of past_key and K");
    c.equal(pk.dims[3], s.head, "the head size of past_key and K");
    c.equal(pv.dims[0], s.batch, "the batch of past_value and Q");
    c.equal(pv.dims[1], s.kv_heads, "the heads of past_value and V");
    c.equal(pv.dims[2], pk.dims[2], "the past of past_value and past_key");
    c.equal(pv.dims[3], s.v_head, "the head size of past_value and V");
    before = pk.dims[2];
  }
  const Extent keys = before + s.kv_sequence;
  if (c.has_input(6)) {
    const auto& np = c.input(6);
    if (np.elem != ElementType::I64) c.error("nonpad_kv_seqlen " + c.tensor(6) + " must be int64");
    if (np.dims.size() != 1) c.error("nonpad_kv_seqlen " + c.tensor(6) + " " + np.shape_string() + " must be [batch]");
    c.equal(np.dims[0], s.batch, "the batch of nonpad_kv_seqlen and Q");
  }
  if (c.has_input(3)) {
    const auto& m = c.input(3);
    if (m.elem != ElementType::Bool && m.elem != c.input(0).elem) c.error("the mask " + c.tensor(3) + " must be bool or of Q's element type");
    const std::size_t r = m.dims.size();
    if (r < 1 || r > 4) c.error("the mask " + c.tensor(3) + " " + m.shape_string() + " must have rank 1 to 4");
    const Extent target[4] = {s.batch, s.q_heads, s.sequence, keys};
    for (std::size_t k = 0; k + 1 < r; ++k) {
      const Extent& d = m.dims[k];
      const Extent& t = target[4 - r + k];
      if (d.constant() && t.constant() && *d.constant() != 1 && d != t)
        c.error("axis " + std::to_string(k) + " of the mask " + c.tensor(3) + " " + m.shape_string() + " broadcasts to neither 1 nor " + t.to_string());
    }
    if (const auto last = m.dims.back().constant(), total = keys.constant(); last && total && *last > *total)
      c.error("the mask " + c.tensor(3) + " " + m.shape_string() + " covers " + std::to_string(*last) + " keys, more than the " +
              std::to_string(*total) + " there are");
  }
  const int64_t mode = c.attr_int("qk_matmul_output_mode", 0);
  if (mode < 0 || mode > 3) c.error("attribute 'qk_matmul_output_mode' " + std::to_string(mode) + " is none of 0, 1, 2 and 3");
  if (const auto precision = c.attr_int_opt("softmax_precision"); precision && *precision != 1 && *precision != 10 && *precision != 11 && *precision != 16)
    c.error("attribute 'softmax_precision' " + std::to_string(*precision) + " is none of FLOAT, FLOAT16, DOUBLE and BFLOAT16");
  for (const char* w : {"left_window_size", "right_window_size"})
    if (c.attr_int(w, -1) < -1) c.error(std::string("attribute '") + w + "' " + std::to_string(c.attr_int(w, -1)) + " is below -1");
  if (!c.attr("scale", Attribute::Kind::Float) && !s.head.constant())
    c.error("the head size " + s.head.to_string() + " must be known at build time for the default scale 1 / sqrt(head size)");
  const ElementType f = c.input(0).elem;
  if (s.three_d) c.set_output(0, f, {s.batch, s.sequence, s.q_heads * s.v_head});
  else c.set_output(0, f, {s.batch, s.q_heads, s.sequence, s.v_head});
  if (given(c.node, 1)) c.set_output(1, f, {s.batch, s.kv_heads, keys, s.head});
  if (given(c.node, 2)) c.set_output(2, f, {s.batch, s.kv_heads, keys, s.v_head});
  if (given(c.node, 3)) c.set_output(3, f, {s.batch, s.q_heads, s.sequence, keys});
}

// The batch is one axis throughout; Q's head size K's; K's heads and sequence V's; Q's heads K's
// where there are as many. Y keeps Q's axes but the head size, which is V's; the caches K's and
// V's but the sequence, which is the keys' (K's with no past).
void name_attention(axes::NodeNaming& x) {
  const auto& q = x.axes_of(0);
  const auto& k = x.axes_of(1);
  const auto& v = x.axes_of(2);
  if (q.size() != k.size() || q.size() != v.size() || (q.size() != 3 && q.size() != 4)) x.error("Q, K and V must all be 3-D or all 4-D");
  x.meet(q[0], k[0], "the batch of '" + x.in(0) + "' and '" + x.in(1) + "'");
  x.meet(k[0], v[0], "the batch of '" + x.in(1) + "' and '" + x.in(2) + "'");
  const bool past = x.has(4);
  axes::Partial y(q.begin(), q.end()), key_cache(4), value_cache(4), scores(4);
  key_cache[0] = value_cache[0] = scores[0] = q[0];
  if (q.size() == 4) {
    x.meet(q[3], k[3], "the head size of '" + x.in(0) + "' and '" + x.in(1) + "'");
    x.meet(k[1], v[1], "the heads of '" + x.in(1) + "' and '" + x.in(2) + "'");
    x.meet(k[2], v[2], "the sequence of '" + x.in(1) + "' and '" + x.in(2) + "'");
    if (x.input_dims(0)[1] == x.input_dims(1)[1]) x.meet(q[1], k[1], "the heads of '" + x.in(0) + "' and '" + x.in(1) + "'");
    y[3] = v[3];
    key_cache = {q[0], k[1], past ? std::nullopt : std::optional(k[2]), k[3]};
    value_cache = {q[0], v[1], past ? std::nullopt : std::optional(v[2]), v[3]};
    scores = {q[0], q[1], q[2], past ? std::nullopt : std::optional(k[2])};
  } else {
    x.meet(k[1], v[1], "the sequence of '" + x.in(1) + "' and '" + x.in(2) + "'");
    if (!(x.input_dims(2)[2] == x.input_dims(0)[2])) y[2].reset();
    else y[2] = q[2];
    scores[2] = q[1];
    if (!past) key_cache[2] = value_cache[2] = scores[3] = k[1];
  }
  if (past) {
    x.meet(x.axes_of(4)[2], x.axes_of(5)[2], "the past of '" + x.in(4) + "' and '" + x.in(5) + "'");
  }
  x.complete(0, y);
  if (given(x.node, 1)) x.complete(1, key_cache);
  if (given(x.node, 2)) x.complete(2, value_cache);
  if (given(x.node, 3)) x.complete(3, scores);
}

void lower_attention(LowerContext& cx, const Node& n) {
  const TensorInfo q = cx.info(cx.in(0));
  const bool three_d = q.dims.size() == 3;
  const bool past = cx.has(4);
  const int64_t q_heads = three_d ? cx.attr_int("q_num_heads", 0) : *q.dims[1].constant();
  const int64_t kv_heads = three_d ? cx.attr_int("kv_num_heads", 0) : 0;
  // The caches the graph reads, as the kernel sees them: the past ones followed by K and V.
  for (std::size_t k = 0; k < 2; ++k)
    if (given(n, 1 + k))
      cx.call("attention_cache", {TypeArg::of_axes(cx.info(n.outputs[1 + k]).axes)},
              {past ? Arg::of_tensor(cx.in(4 + k)) : Arg::of_code("nullptr"), Arg::of_tensor(cx.in(1 + k)), Arg::of_index(kv_heads, "kv_heads")},
              {n.outputs[1 + k]});
  float scale = cx.attr_float("scale", 0.0f);
  if (!n.attr("scale")) {
    const TensorInfo k = cx.info(cx.in(1));
    const int64_t head = three_d ? *k.dims[2].constant() / kv_heads : *k.dims[3].constant();
    scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(head)));
  }
  const float softcap = cx.attr_float("softcap", 0.0f);
  const bool causal = cx.attr_int("is_causal", 0) != 0;
  const int64_t left = cx.attr_int("left_window_size", -1), right = cx.attr_int("right_window_size", -1);
  const int64_t mode = cx.attr_int("qk_matmul_output_mode", 0);
  const bool in_double = cx.attr_int("softmax_precision", 1) == 11;
  const std::string params = "AttentionParams{" + float_literal(scale) + ", " + float_literal(softcap) + ", " + (causal ? "true" : "false") +
                             ", " + std::to_string(q_heads) + ", " + std::to_string(kv_heads) + ", " + std::to_string(left) + ", " + std::to_string(right) + ", " +
                             std::to_string(mode) + ", " + (in_double ? "true" : "false") + "}";
  const std::vector<CallConstant> constants = {{loom::Scalar::F32, loom::float_bits(scale, loom::Scalar::F32), "scale"},
                                               {loom::Scalar::F32, loom::float_bits(softcap, loom::Scalar::F32), "softcap"},
                                               {loom::Scalar::I1, causal ? 1u : 0u, "causal"},
                                               {loom::Scalar::Index, static_cast<uint64_t>(q_heads), "heads"},
                                               {loom::Scalar::Index, static_cast<uint64_t>(kv_heads), "kv_heads"},
                                               {loom::Scalar::Index, static_cast<uint64_t>(left), "left_window"},
                                               {loom::Scalar::Index, static_cast<uint64_t>(right), "right_window"},
                                               {loom::Scalar::Index, static_cast<uint64_t>(mode), "scores_mode"},
                                               {loom::Scalar::I1, in_double ? 1u : 0u, "softmax_in_double"}};
  const auto optional = [&](std::size_t i) { return cx.has(i) ? Arg::of_tensor(cx.in(i)) : Arg::of_code("nullptr"); };
  std::vector<Arg> args = {Arg::of_tensor(cx.in(0)), Arg::of_tensor(cx.in(1)), Arg::of_tensor(cx.in(2)), optional(4), optional(5),
                           optional(3), optional(6), Arg::of_code(params, constants),
                           cx.has(3) ? quoted_name(cx.in(3)) : Arg::of_code("\"attn_mask\""),
                           cx.has(6) ? quoted_name(cx.in(6)) : Arg::of_code("\"nonpad_kv_seqlen\"")};
  const TensorInfo y = cx.info(n.outputs.at(0));
  if (given(n, 3))
    cx.call("attention_scores", {TypeArg::of_axes(y.axes), TypeArg::of_axes(cx.info(n.outputs[3]).axes)}, std::move(args),
            {n.outputs[0], n.outputs[3]});
  else
    cx.call("attention", {TypeArg::of_axes(y.axes)}, std::move(args));
}

}  // namespace

void register_attention(std::vector<Operator>& r) {
  r.push_back({.op_type = "Attention", .infer = attention, .name_axes = name_attention, .lower = lower_attention, .in_scope = true});
}

}  // namespace loam::ops
