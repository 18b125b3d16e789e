// What an operator's `compose` (ops::Operator) writes a node with: the expression of the generated
// kernel that computes it (elementwise_kernel.hpp), over the kernel's operands. Values are numbered
// in order; a tensor read twice is one value, and a value computed twice (GELU's x, a LayerNorm's
// x - mean, spliced once per reader) is computed once. A node the fusion plan computes in its
// reader's kernel leaves its expression for that reader (`inlined()`); the reader splices it in
// where it reads the node's result.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "lower/context.hpp"
#include "lower/elementwise_kernel.hpp"

namespace loam::ops {
struct ElementwiseAttribute;
}

namespace loam::lower {

class Expression {
 public:
  explicit Expression(LowerContext& cx) : cx_(cx) {}

  LowerContext& context() const { return cx_; }
  // Whether the plan computes this node in its reader's kernel (its values then wait for it).
  bool inlined() const { return cx_.inline_into_reader; }

  // A tensor operand: lifted to the result's axes where a layout named an axis of 1 apart. A
  // tensor the plan inlines is its pending expression, computed here; a tensor read twice is one
  // value.
  int operand(const std::string& tensor, const std::vector<AxisName>& out_axes);
  // Input i of the node, folded to a constant when the build knows it, else an operand.
  int input(std::size_t i, const std::vector<AxisName>& out_axes, ElementType constant_type);
  // The one element of input i the build knows, as a constant of `type`.
  int constant(std::size_t i, ElementType type);
  // A number the lowering chooses (Mean's 1/n), as a constant of `type`.
  int number(double value, ElementType type);
  // An ONNX elementwise operator (Add, Relu, Where, ...; its record's form where it has one),
  // "Cast" to `type`, "Identity", or "Wrap" (p bits, q = 1 if signed) of earlier values.
  int op(const std::string& name, std::vector<int> args, ElementType type, double p = 0, double q = 0);
  // `reduction` (ReduceSum, ReduceMean, ReduceMax, ReduceMin) of a float value along the row.
  int reduce(const std::string& reduction, int value);
  // The result as a narrow integer's: wrapped into its range.
  int wrapped(int value, ElementType narrow);

  ElementType type_of(int value) const { return values_.at(static_cast<std::size_t>(value)).type; }
  // The float number a value is, when it is a constant.
  std::optional<double> float_constant(int value) const;
  // The module's compute type of an element type: F32, I64 or Bool (refused by name otherwise).
  ElementType compute_of(ElementType t) const;
  // A table operator's attribute on the node, or ONNX's default: what its Loom form reads as p or q.
  double attribute(const ops::ElementwiseAttribute& a) const;

  // Writes the kernel and the call that runs it, defining the node's first output (a contraction's
  // epilogue: the contraction's call); or, for a node the plan inlines into its reader, leaves the
  // expression for that reader.
  void finish(const TensorInfo& out, RowNormalisation normalise = RowNormalisation::None);

 private:
  int add_operand(const ElementwiseOperand& o);
  int load(int k);
  int splice(const PendingExpression& p);
  int push(const ExprValue& v);
  void make_first(const std::string& tensor);

  LowerContext& cx_;
  std::vector<ElementwiseOperand> operands_;
  std::vector<Arg> args_;
  std::vector<ExprValue> values_;
  std::map<std::string, int> read_;  // tensor -> the value reading it
  std::map<std::tuple<ExprValue::Kind, ElementType, int, std::uint64_t, std::int64_t, std::string, std::vector<int>, std::uint64_t,
                      std::uint64_t>,
           int>
      index_;  // each value computed, by what it computes
  std::map<std::size_t, std::string> ops_;  // the operators computed, by node index
};

}  // namespace loam::lower
