// What an operator's shape rule sees in stage 0: the node, its inputs' analysed states, the owed
// conditions it may add to, and the outputs it fills. The rules themselves are the operators'
// (src/ops/); stage 0 runs each through the table its options carry.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/attributes.hpp"
#include "graph/graph.hpp"
#include "stage0/extent.hpp"
#include "stage0/owed.hpp"
#include "stage0/stage0.hpp"
#include "support/error.hpp"

namespace loam::stage0 {

// A value a shape rule must know that the run computes or the caller gives (Reshape's shape, Resize's
// scales): it names the tensor, so a caller that can supply its value at build time may
// (`loam test-case` binds a graph input from its data sets).
class ValueRequired : public Error {
 public:
  ValueRequired(const std::string& message, std::string tensor) : Error(message), tensor_(std::move(tensor)) {}
  const std::string& tensor() const { return tensor_; }

 private:
  std::string tensor_;
};

// A fold yields no value past this many elements: a large result is a kernel's to compute.
inline constexpr int64_t kFoldLimit = int64_t(1) << 16;

class OpContext {
 public:
  OpContext(const Node& node, std::string where, std::vector<const ValueState*> in,
            stage0::OwedConditions& owed);

  const Node& node;
  std::string where;  // "model.onnx: node 'x' (Op)" — prefix of every error
  std::vector<const ValueState*> in;  // nullptr where an optional input is omitted
  std::vector<ValueState> out;        // one per node output; the rule fills elem, dims, value
  stage0::OwedConditions& owed;

  [[noreturn]] void error(const std::string& message) const;

  // Inputs.
  std::size_t input_count() const { return in.size(); }
  bool has_input(std::size_t i) const { return i < in.size() && in[i] != nullptr; }
  const ValueState& input(std::size_t i) const;  // required; error naming the position if absent
  std::string tensor(std::size_t i) const;        // "input 0 'x'"
  std::size_t rank(std::size_t i) const { return input(i).dims.size(); }
  // The known integer elements of input i, or nullptr.
  const std::vector<Extent>* ints(std::size_t i) const;
  // The known elements of input i as numbers; error naming `what` if unknown or symbolic.
  std::vector<int64_t> constant_ints(std::size_t i, const std::string& what) const;
  // The known elements of input i as Extents; error naming `what` if unknown.
  const std::vector<Extent>& known_ints(std::size_t i, const std::string& what) const;
  // The elements of input i as numbers: its folded value, or the data of the f32 or f64
  // initializer behind it; error naming `what` if the build does not know them.
  std::vector<double> constant_floats(std::size_t i, const std::string& what) const;

  // Attributes (checked for kind: an attribute of the wrong kind stops the build).
  const Attribute* attr(std::string_view name, Attribute::Kind kind) const;
  // The node's attributes, refusing through error().
  NodeAttributes attributes() const;
  int64_t attr_int(std::string_view name, int64_t fallback) const;
  std::optional<int64_t> attr_int_opt(std::string_view name) const;
  float attr_float(std::string_view name, float fallback) const;
  std::string attr_string(std::string_view name, const std::string& fallback) const;
  std::optional<std::vector<int64_t>> attr_ints(std::string_view name) const;

  // An axis attribute or operand in [-rank, rank) made non-negative; error naming `what`.
  std::size_t axis(int64_t a, std::size_t rank, const std::string& what) const;

  // Two lengths that must be one axis (EqualityRule::Axis); `what` names them.
  void equal(const Extent& a, const Extent& b, const std::string& what);
  // Multidirectional broadcast of the inputs' shapes (ONNX's numpy rule). Where a 1 meets a derived
  // symbol reading as 1, the result keeps the 1 and the inputs owe the reading.
  std::vector<Extent> broadcast(const std::vector<std::size_t>& inputs);
  std::vector<Extent> broadcast_shapes(const std::vector<std::vector<Extent>>& shapes,
                                       const std::vector<std::string>& names);

  // Outputs.
  ValueState& set_output(std::size_t i, ElementType elem, std::vector<Extent> dims);
  // Records a folded integer value for output i (dropped past kFoldLimit or on a symbolic shape).
  void fold_ints(std::size_t i, std::vector<Extent> values);
  void fold_floats(std::size_t i, std::vector<float> values);
  // Records output `out` as the elements of input `input`'s folded value at the positions `map`
  // lists, in order: what every operator that only moves elements folds to.
  void fold_picked(std::size_t input, const std::vector<std::size_t>& map, std::size_t out = 0);
  // Element count of output i if it is a number within kFoldLimit.
  std::optional<int64_t> foldable_count(std::size_t i) const;

  // Whether every listed input (or all when empty) has a known value.
  bool known(std::initializer_list<std::size_t> inputs = {}) const;
};

// Product of extents (checked), over dims[from, to).
Extent product(const std::vector<Extent>& dims, std::size_t from = 0, std::size_t to = SIZE_MAX);

}  // namespace loam::stage0
