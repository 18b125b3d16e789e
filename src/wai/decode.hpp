// Decoding through a WHG1 graph (wai-ops/1 §4, §10.3): the run-time checks in their order, the
// run-time plan, evaluation with each tensor's policy, and the state carried across a sequence.
// The first refusal wins and nothing after it is computed; a refused decode changes no state.
#pragma once

#include "wai/ops.hpp"
#include "wai/whg1.hpp"

#include <optional>
#include <span>
#include <vector>

namespace loam::wai {

struct DecodeOutcome {
  std::optional<Refusal> refusal;  // set when the decode is refused; then outputs is empty
  std::vector<Tensor> outputs;     // in output-table order, after their policies
  bool completed() const { return !refusal.has_value(); }
};

class Decoder {
 public:
  // `graph` has passed read_whg1 (§10.5 steps 1-7). The decoder owns a copy.
  explicit Decoder(Whg1Graph graph);

  const Whg1Graph& graph() const { return graph_; }

  // One decode of the current sequence. `data_inputs` are the graph's data inputs in input-table
  // order (state inputs are never supplied: the sequence carries them); `scalars` are in
  // scalar-table order. A request that does not match the graph's tables (a count, or a tensor
  // whose data length is not C·H·W) is the caller's error and throws loam::Error; every refusal
  // of §4 is returned as a value.
  DecodeOutcome decode(std::span<const Tensor> data_inputs, std::span<const std::int64_t> scalars);
  // The same, taking the caller's input tensors over instead of copying them.
  DecodeOutcome decode(std::vector<Tensor>&& data_inputs, std::span<const std::int64_t> scalars);

  // Starts a new sequence: every state input is again its init tensor (§10.3).
  void start_sequence();

 private:
  Whg1Graph graph_;
  // The carried value of each state input (by input index), once a decode has completed.
  std::vector<std::optional<Tensor>> state_;
};

}  // namespace loam::wai
