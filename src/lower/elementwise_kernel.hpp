// An elementwise computation as a Loom kernel: the expression (a DAG over operand tensors and
// constants, in ONNX's terms: Add, Relu, Where, Cast, ...) over a result every operand broadcasts
// to, written into the lowered module's Loom module as one kernel.def.
//
// The kernel runs one work item per row of the result: the result's axes are merged where every
// operand steps through them alike (an operand spans an axis or broadcasts along it), the last
// merged axis is the row, computed in vectors of `lanes` with a scalar tail, and each operand is a
// strided view whose broadcast axes have stride 0, so nothing is copied to broadcast. Extents the
// build knows are constants of the kernel; the others are its parameters.
//
// A kernel whose expression reduces along the row (a LayerNorm's means, written as ReduceMean nodes
// or as LayerNormalization) keeps the last axis as its row, unmerged: each reduction is one loop
// over the row, and a value computed from reductions and constants alone (the variance plus
// epsilon, its square root) is a scalar of the row, computed once between the loops; the result's
// loop reads them. A kernel that normalises rows (Softmax, LogSoftmax over the last axis) keeps its
// row too and computes the expression three times along it: the row's maximum, the sum of the
// exponentials (Softmax stores them), then the result. The expression before the normaliser (an
// attention score's scale and mask) is computed in its loops and never stored.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "graph/graph.hpp"
#include "loom/ir.hpp"
#include "stage0/extent.hpp"

namespace loam::ops {
struct UnaryOp;
struct BinaryOp;
}  // namespace loam::ops

namespace loam::lower {

// One value of the expression. Types are the compute types the module holds tensors in: F32, I64
// or Bool.
struct ExprValue {
  // Reduce: `op` ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin") of args[0] along the row, a
  // scalar of the row.
  enum class Kind : std::uint8_t { Operand, Constant, Op, Reduce };
  Kind kind = Kind::Op;
  ElementType type = ElementType::F32;
  int operand = 0;       // Operand: which of the kernel's operands
  double number = 0;     // Constant: a float's value
  std::int64_t integer = 0;  // Constant: an integer's (or bool's) value
  // Op: an ONNX elementwise operator ("Add", "Relu", "Where", ...), "Cast" (to `type`), or "Wrap"
  // (an int64 taken into the range of a narrower integer: p bits, q = 1 if signed).
  std::string op;
  const ops::UnaryOp* unary = nullptr;    // the operator's record, when it is a unary elementwise one
  const ops::BinaryOp* binary = nullptr;  // or a binary or variadic one
  std::vector<int> args;  // earlier values
  double p = 0, q = 0;    // the operator's attributes (LeakyRelu's alpha, Clip's bounds, ...)

  static ExprValue load(int operand, ElementType type) {
    ExprValue v;
    v.kind = Kind::Operand;
    v.type = type;
    v.operand = operand;
    return v;
  }
  static ExprValue constant(double number, ElementType type) {
    ExprValue v;
    v.kind = Kind::Constant;
    v.type = type;
    v.number = number;
    v.integer = static_cast<std::int64_t>(number);
    return v;
  }
  static ExprValue reduce(std::string op, int arg) {
    ExprValue v;
    v.kind = Kind::Reduce;
    v.op = std::move(op);
    v.args = {arg};
    return v;
  }
  static ExprValue apply(std::string op, std::vector<int> args, ElementType type, double p = 0, double q = 0) {
    ExprValue v;
    v.type = type;
    v.op = std::move(op);
    v.args = std::move(args);
    v.p = p;
    v.q = q;
    return v;
  }
};

struct ElementwiseOperand {
  std::string tensor;
  ElementType type = ElementType::F32;
  std::vector<stage0::Extent> dims;  // its own extents, aligned at the end of the result's
};

// What the kernel makes of the expression's values along the result's last axis.
enum class RowNormalisation : std::uint8_t {
  None,        // each value is the result's element
  Softmax,     // exp(x - max) / sum exp(x - max)
  LogSoftmax,  // x - max - log(sum exp(x - max))
};

struct ElementwiseKernel {
  std::string symbol;  // the kernel.def's name
  RowNormalisation normalise = RowNormalisation::None;
  ElementType out_type = ElementType::F32;
  std::vector<stage0::Extent> out_dims;
  std::vector<ElementwiseOperand> operands;
  std::vector<ExprValue> values;  // in order; the last is the result
  // A product's epilogue (RowEpilogue in the runtime): the result's axes from `row_axis` on are the
  // row, one merged axis whatever the operands do along it, and the axes before it the work items,
  // which are the product's rows; the kernel takes two more extent parameters, the first row a run
  // computes and how many, and reads the product as its first operand.
  std::optional<std::size_t> row_axis;
};

// An expression the lowering holds for a node the fusion plan inlines into its reader: the reader's
// kernel reads these operands and computes these values (the last is the node's result) in its own
// loop. `ops` names the nodes' operators by node index, for the comment above the call ("Add + Relu").
struct PendingExpression {
  std::vector<ElementwiseOperand> operands;
  std::vector<ExprValue> values;
  std::map<std::size_t, std::string> ops;
};

// The lanes of a kernel's vectors: 16 fill a 512-bit register with f32; 8 fill a 256-bit one, as
// wide as a machine without AVX-512 has (GCC splits a 512-bit generic vector there, but through the
// stack, lane by lane, in its selects and compares: PaddleOCR's classifier ran 3.4x slower on AVX2
// at 16 lanes). A module holds its kernels at both widths and the compiler's target picks one.
inline constexpr int kWideLanes = 16;
inline constexpr int kNarrowLanes = 8;

// Writes the kernel into `module` and gives the extents its call passes, in order: the result's
// extents that are not constants (once each, by polynomial), as its configuration parameters and
// again as its launch parameters, before the result's buffer and each operand's. An epilogue's
// kernel takes the rows of a run after them (first, count), which the product supplies.
std::vector<stage0::Extent> build_elementwise_kernel(loom::Module& module, const ElementwiseKernel& kernel, int lanes = kWideLanes);

// Whether the kernel's expression reduces along the row (its row is then the last axis, alone).
bool has_reduction(const ElementwiseKernel& kernel);

// The Loom scalar a compute type is held in (F32 f32, I64 i64, Bool i1).
loom::Scalar loom_scalar(ElementType t);

}  // namespace loam::lower
