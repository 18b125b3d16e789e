// The operator interface stage 0 drives: one rule per (domain, op_type), holding the operator's shape
// rule and its build-time fold. Each family lives in one file of this room (elementwise.cpp,
// reshape.cpp, ...); a family's `register_*` function adds its rules to the table.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/attributes.hpp"
#include "graph/graph.hpp"
#include "stage0/extent.hpp"
#include "stage0/owed.hpp"
#include "stage0/stage0.hpp"

namespace loam::ops {

using stage0::Extent;
using stage0::FoldedValue;
using stage0::ValueState;

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

using InferFn = void (*)(OpContext&);

struct OpRule {
  std::string_view domain;  // "" or "loam"
  std::string_view op_type;
  InferFn infer;
};

// The rule for an operator, or nullptr.
const OpRule* find_rule(std::string_view domain, std::string_view op_type);

// Families.
void register_elementwise(std::vector<OpRule>& rules);
void register_unary(std::vector<OpRule>& rules);
void register_binary(std::vector<OpRule>& rules);
void register_shape_ops(std::vector<OpRule>& rules);
void register_reshape(std::vector<OpRule>& rules);
void register_slice(std::vector<OpRule>& rules);
void register_conv_pool(std::vector<OpRule>& rules);
void register_matmul(std::vector<OpRule>& rules);
void register_reduce(std::vector<OpRule>& rules);
void register_normalization(std::vector<OpRule>& rules);

// Shared helpers.
using IntFn = std::function<std::optional<Extent>(const std::vector<Extent>&)>;
using FloatFn = std::function<float(const std::vector<float>&)>;
// Folds an elementwise node over its inputs where the build knows them all: `ints` over Integer
// values (nullopt from it leaves the node to a kernel), `floats` over float values.
void fold_elementwise(OpContext& c, const std::vector<std::size_t>& inputs, const IntFn& ints, const FloatFn& floats,
                      bool float_output);
// Stops the build unless the inputs listed share one element type, naming the one that differs.
void require_same_types(OpContext& c, const std::vector<std::size_t>& inputs);
// Product of extents (checked).
Extent product(const std::vector<Extent>& dims, std::size_t from = 0, std::size_t to = SIZE_MAX);
// Row-major strides of a constant shape; nullopt if a dim is symbolic.
std::optional<std::vector<int64_t>> constant_shape(const std::vector<Extent>& dims);
// Whether an element type is an integer or bool type the build folds.
bool is_integer_type(ElementType t);
bool is_float_type(ElementType t);
// The value of input i as Extents regardless of kind, if it is integral (Integer kind, or Float
// holding whole numbers); nullopt otherwise.
std::optional<std::vector<Extent>> integral_values(const ValueState& v);
// For each element of `out` (row-major), the index of the element of `in` it reads under ONNX's
// right-aligned broadcast.
std::vector<std::size_t> broadcast_map(const std::vector<int64_t>& out, const std::vector<int64_t>& in);

}  // namespace loam::ops
