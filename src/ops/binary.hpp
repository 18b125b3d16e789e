// The binary and variadic elementwise operators (arithmetic, comparisons, logic: Add, Pow, Mod,
// Less, And, Sum, PRelu, ...), each defined once in binary.cpp: the attribute it reads, its result
// type, its Loom forms on float, i64 and i1 lanes, and its value at build time. Stage 0's shape rule
// and fold, axis naming, the lowering to a generated kernel, the kernel's Loom code and
// `test-case`'s scope all read this table, as they read unary.hpp's.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph.hpp"
#include "loom/lanes.hpp"
#include "ops/unary.hpp"
#include "stage0/extent.hpp"

namespace loam::ops {

struct BinaryOp {
  // The Loom form over two lane values (scalars or vectors: `lanes` builds in its form); `p` is
  // the attribute's value.
  using Form = std::function<loom::Value*(const loom::Lanes& lanes, loom::Value* x, loom::Value* y, double p)>;
  // Its value over extents where the build knows the operands (nullopt: the kernel's); `refuse`
  // stops the build naming the node (an integer division by zero).
  using Refuse = std::function<void(const std::string& why)>;
  using IntFold = std::function<std::optional<stage0::Extent>(const stage0::Extent& x, const stage0::Extent& y, double p,
                                                              const Refuse& refuse)>;

  enum class Family : std::uint8_t {
    Arithmetic,  // the operands' type
    Comparison,  // a bool of each element pair
    Logic,       // bool operands, a bool result
  };

  std::string_view name;
  Family family = Family::Arithmetic;
  std::vector<ElementwiseAttribute> attributes;  // at most one, reaching the forms as p (Mod's fmod)
  bool variadic = false;       // Sum, Mean, Max, Min: one or more operands, applied left to right
  bool mean = false;           // Mean: the sum times 1/n
  bool leaves_range = false;   // an integer result can leave a narrow type's range (Add, Mul, Pow)
  bool own_exponent = false;   // Pow: the second operand may have another element type (ONNX's T1)
  bool shape_of_first = false; // PRelu: the second broadcasts to the first, whose shape the result has
  Form real, i64, i1;          // on float (f32 or f64: the lanes' float format), integer and bool lanes where ONNX defines them
  std::function<float(float x, float y, double p)> fold_f32;
  IntFold fold_i64;

  bool bool_result() const { return family != Family::Arithmetic; }
  // The form computing in compute type t (f32, f64, i64 or bool); empty where ONNX defines none.
  const Form& form(ElementType t) const { return t == ElementType::I64 ? i64 : t == ElementType::Bool ? i1 : real; }
};

// The operator of the default domain named `op`, or nullptr.
const BinaryOp* find_binary(std::string_view op);
const std::vector<BinaryOp>& binary_ops();

}  // namespace loam::ops
