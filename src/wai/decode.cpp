#include "wai/decode.hpp"

#include "wai/whg1_plan.hpp"

#include <algorithm>

namespace loam::wai {

Decoder::Decoder(Whg1Graph graph) : graph_(std::move(graph)), state_(graph_.inputs.size()) {}

void Decoder::start_sequence() {
  for (auto& s : state_) s.reset();
}

namespace {

// The first element of `t` outside [lo, hi], as a field_range refusal; nullopt if none.
std::optional<Refusal> check_range(const Tensor& t, std::int64_t lo, std::int64_t hi, const std::string& where) {
  for (std::size_t i = 0; i < t.data.size(); ++i) {
    const std::int64_t v = t.data[i];
    if (v < lo || v > hi) {
      const std::int64_t hw = t.shape.h * t.shape.w, k = static_cast<std::int64_t>(i);
      return Refusal{RefusalCode::field_range,
                     where + ": element (" + std::to_string(k / hw) + ", " + std::to_string((k % hw) / t.shape.w) +
                         ", " + std::to_string(k % t.shape.w) + ") = " + std::to_string(v) +
                         " is outside its check range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]"};
    }
  }
  return std::nullopt;
}

void clamp_all(Tensor& t, std::int64_t lo, std::int64_t hi) {
  for (auto& v : t.data) v = std::clamp(v, lo, hi);
}

// Applies a tensor's policy (§3) to a value just produced or supplied.
std::optional<Refusal> apply_policy(const TensorRecord& r, Tensor& t, const std::string& where) {
  if (r.policy == Policy::clamp) clamp_all(t, r.lo, r.hi);
  if (r.policy == Policy::check) return check_range(t, r.lo, r.hi, where);
  return std::nullopt;
}

}  // namespace

DecodeOutcome Decoder::decode(std::span<const Tensor> data_inputs, std::span<const std::int64_t> scalars) {
  return decode(std::vector<Tensor>(data_inputs.begin(), data_inputs.end()), scalars);
}

DecodeOutcome Decoder::decode(std::vector<Tensor>&& data_inputs, std::span<const std::int64_t> scalars) {
  const Whg1Graph& g = graph_;
  std::size_t n_data = 0;
  for (const auto& in : g.inputs) n_data += in.kind == InputKind::data ? 1 : 0;
  if (data_inputs.size() != n_data) {
    fail("decode: " + std::to_string(data_inputs.size()) + " data inputs supplied, the graph has " + std::to_string(n_data));
  }
  if (scalars.size() != g.scalars.size()) {
    fail("decode: " + std::to_string(scalars.size()) + " scalars supplied, the graph has " + std::to_string(g.scalars.size()));
  }
  for (std::size_t i = 0; i < data_inputs.size(); ++i) {
    const Shape& s = data_inputs[i].shape;
    const __int128 n = static_cast<__int128>(s.c) * s.h * s.w;
    if (s.c < 0 || s.h < 0 || s.w < 0 || n != static_cast<__int128>(data_inputs[i].data.size())) {
      fail("decode: data input " + std::to_string(i) + " has shape " + to_string(s) + " and " +
           std::to_string(data_inputs[i].data.size()) + " values");
    }
  }

  DecodeOutcome result;
  auto refused = [&](Refusal r) {
    result.refusal = std::move(r);
    result.outputs.clear();
    return result;
  };

  // Step 1: each input in input-table order, state inputs included.
  std::vector<Tensor> inputs(g.inputs.size());
  std::vector<Shape> input_shapes(g.inputs.size());
  {
    std::size_t d = 0;
    for (std::size_t i = 0; i < g.inputs.size(); ++i) {
      const InputRecord& rec = g.inputs[i];
      const TensorRecord& tr = g.tensors[rec.tensor];
      const std::string where = "input " + std::to_string(i) + " (tensor " + std::to_string(rec.tensor) + ")";
      if (rec.kind == InputKind::data) {
        inputs[i] = std::move(data_inputs[d++]);
      } else if (state_[i]) {
        inputs[i] = *state_[i];
      } else {
        // Before a decode of the sequence completes: [channels, H, W] of init, with input 0's H and W.
        inputs[i].shape = Shape{tr.channels, inputs[0].shape.h, inputs[0].shape.w};
      }
      const Shape& s = inputs[i].shape;
      if (s.c != static_cast<std::int64_t>(tr.channels)) {
        return refused({RefusalCode::model_mismatch, where + ": " + std::to_string(s.c) + " channels, the tensor record has " + std::to_string(tr.channels)});
      }
      if (s.h < 1 || s.w < 1) {
        return refused({RefusalCode::model_mismatch, where + ": shape " + to_string(s) + " has an empty side"});
      }
      if (rec.declares_sizes() && (s.h > rec.max_h || s.w > rec.max_w)) {
        return refused({RefusalCode::too_large, where + ": " + std::to_string(s.h) + "×" + std::to_string(s.w) +
                                                    " is larger than the declared " + std::to_string(rec.max_h) + "×" + std::to_string(rec.max_w)});
      }
      if (static_cast<__int128>(s.c) * s.h * s.w > g.max_elems) {
        return refused({RefusalCode::too_large, where + ": " + to_string(s) + " has more than max_elems " + std::to_string(g.max_elems) + " elements"});
      }
      if (rec.kind == InputKind::state && !state_[i]) inputs[i] = Tensor(s, rec.init);
      input_shapes[i] = s;
    }
  }
  // Step 2: each scalar against its range.
  for (std::size_t k = 0; k < g.scalars.size(); ++k) {
    if (scalars[k] < g.scalars[k].lo || scalars[k] > g.scalars[k].hi) {
      return refused({RefusalCode::field_range, "scalar " + std::to_string(k) + ": " + std::to_string(scalars[k]) + " is outside [" +
                                                    std::to_string(g.scalars[k].lo) + ", " + std::to_string(g.scalars[k].hi) + "]"});
    }
  }
  // Step 3: the run-time plan.
  try {
    (void)plan_at_run(g, input_shapes, scalars);
  } catch (const RefusalError& e) {
    return refused(e.refusal());
  }
  // Step 4: evaluation.
  std::vector<Tensor> values(g.tensors.size());
  for (std::size_t i = 0; i < g.inputs.size(); ++i) {
    const InputRecord& rec = g.inputs[i];
    Tensor& t = values[rec.tensor];
    t = std::move(inputs[i]);
    if (auto r = apply_policy(g.tensors[rec.tensor], t, "input " + std::to_string(i) + " (tensor " + std::to_string(rec.tensor) + ")")) {
      return refused(std::move(*r));
    }
  }
  const EvalContext ctx{g, scalars};
  std::vector<const Tensor*> in;
  std::vector<Tensor> out;
  for (std::size_t k = 0; k < g.ops.size(); ++k) {
    const Operator& op = g.ops[k];
    in.clear();
    for (auto t : op.inputs) in.push_back(&values[t]);
    out.assign(op.outputs.size(), Tensor{});
    try {
      eval_operator(ctx, k, in, out);
    } catch (const RefusalError& e) {
      return refused(e.refusal());
    }
    for (std::size_t j = 0; j < op.outputs.size(); ++j) {
      const auto t = op.outputs[j];
      if (auto r = apply_policy(g.tensors[t], out[j], detail::op_where(g, k) + ": output tensor " + std::to_string(t))) {
        return refused(std::move(*r));
      }
      values[t] = std::move(out[j]);
    }
  }
  // Completed: outputs, then the state the next decode reads.
  for (std::size_t k = 0; k < g.outputs.size(); ++k) {
    // Moved out unless a later output names the same tensor.
    const auto t = g.outputs[k];
    const bool again = std::find(g.outputs.begin() + static_cast<std::ptrdiff_t>(k) + 1, g.outputs.end(), t) != g.outputs.end();
    result.outputs.push_back(again ? values[t] : std::move(values[t]));
  }
  for (std::size_t i = 0; i < g.inputs.size(); ++i) {
    if (g.inputs[i].kind == InputKind::state) state_[i] = result.outputs[g.inputs[i].src];
  }
  return result;
}

}  // namespace loam::wai
