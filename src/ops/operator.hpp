// What Loam knows about an operator, in one record: its shape rule and build-time fold (stage 0), its
// axis-naming rule, which operands a kernel reads as tensors, its lowering, and the facts fusion,
// range checking and `test-case` ask. Each family's file in this room fills the records of its
// operators (`register_*` in op.hpp); `operators()` is the table they make.
//
// The passes read the table through the pointer stage 0's options carry (and its result passes on),
// never through a library call, so stage 0, axis naming and lowering do not depend on the operators
// they drive: the operators depend on the passes' contexts, as rules depend on the engine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "graph/graph.hpp"

namespace loam::stage0 {
class OpContext;
}
namespace loam::axes {
class NodeNaming;
}
namespace loam::lower {
class LowerContext;
class Expression;
enum class RowNormalisation : std::uint8_t;
}
namespace loam::stage0 {
struct Stage0Result;
}

namespace loam::ops {

struct UnaryOp;
struct BinaryOp;

// A node's part in fusion (src/lower/fusion.cpp), which its operator decides for that node.
enum class FusionRole : std::uint8_t {
  None,             // computed by its own lowering's call; fusion computes none of it elsewhere
  Elementwise,      // one value per element: a generated kernel's expression, fused into its reader's
  RowReduction,     // a float reduction along the last axis: a scalar of the row of its reader's kernel
  RowNormaliser,    // Softmax or LogSoftmax along the last axis: a row kernel, or two reductions in its reader's
  LayerNormaliser,  // LayerNormalization or RMSNormalization along the last axis: a row kernel of reductions
  Contraction,      // Conv, MatMul, Gemm: a packed weight, a bias and Relu in its store, an epilogue kernel
};

struct Operator {
  std::string_view domain;  // "" or "loam"
  std::string_view op_type;
  // Stage 0: the result's element type and extents, and its value where the build knows the inputs.
  void (*infer)(stage0::OpContext&) = nullptr;
  // The axes of every output (nullptr: the build stops at this operator, naming it).
  void (*name_axes)(axes::NodeNaming&) = nullptr;
  // The inputs a kernel reads as tensors (nullptr: every input given); the rest the build reads.
  std::vector<std::size_t> (*data_operands)(const Node&) = nullptr;
  // The calls computing the node where no generated kernel does (its role is None, or a row
  // reduction no kernel has the row of); nullptr for an operator no kernel computes.
  void (*lower)(lower::LowerContext&, const Node&) = nullptr;
  // Its fusion role for a node (nullptr: None), decided per node: a Softmax along another axis, a
  // Cast between types held alike, a float ReduceMean over several axes have none.
  FusionRole (*fusion_role)(const Node&, const stage0::Stage0Result&) = nullptr;
  // How a node whose role is not None joins a generated kernel: its values over its operands,
  // written with the lowering's expression builder (lower/expression.hpp); the normalisation the
  // kernel applies along its row when the node is the kernel's own (a Softmax's), else None.
  lower::RowNormalisation (*compose)(lower::Expression&, const Node&) = nullptr;
  // Whether input i (given) is a number the build knows that the generated kernel takes as a
  // constant rather than a tensor it reads (nullptr: none is).
  bool (*constant_operand)(const Node&, std::size_t i, const stage0::Stage0Result&) = nullptr;
  // A result that only regroups its input's elements (Reshape, Flatten, Squeeze, Unsqueeze,
  // Identity, Dropout): no copy, and fusion looks through it.
  bool regrouping = false;
  // A narrow integer result stays in its type's range as lowered: the operator moves, selects or
  // compares elements, or its lowering wraps where the definition leaves the range.
  bool keeps_narrow_range = false;
  // Its kernels are templates over the element type that take double too (the rest compute in
  // float, and the lowering refuses a double operand or result by name).
  bool computes_double = false;
  // `test-case` runs backend cases of this operator (its kernels are whole: every form ONNX defines).
  bool in_scope = false;
  const UnaryOp* unary = nullptr;    // the unary elementwise record (unary.hpp)
  const BinaryOp* binary = nullptr;  // the binary and variadic elementwise record (binary.hpp)

  FusionRole role(const Node& n, const stage0::Stage0Result& st) const { return fusion_role ? fusion_role(n, st) : FusionRole::None; }

  // The inputs of `n` a kernel reads as tensors.
  std::vector<std::size_t> tensor_inputs(const Node& n) const {
    if (data_operands) return data_operands(n);
    std::vector<std::size_t> all;
    for (std::size_t i = 0; i < n.inputs.size(); ++i)
      if (!n.inputs[i].empty()) all.push_back(i);
    return all;
  }
};

class OperatorTable {
 public:
  explicit OperatorTable(std::vector<Operator> operators) : operators_(std::move(operators)) {
    for (std::size_t i = 0; i < operators_.size(); ++i) index_.emplace(key(operators_[i].domain, operators_[i].op_type), i);
  }
  // The record of (domain, op_type), or nullptr.
  const Operator* find(std::string_view domain, std::string_view op_type) const {
    auto it = index_.find(key(domain, op_type));
    return it == index_.end() ? nullptr : &operators_[it->second];
  }
  const Operator* find(const Node& n) const { return find(n.domain, n.op_type); }
  const std::vector<Operator>& all() const { return operators_; }

 private:
  static std::string key(std::string_view domain, std::string_view op_type) {
    std::string k(domain);
    k += '.';
    k += op_type;
    return k;
  }
  std::vector<Operator> operators_;
  std::unordered_map<std::string, std::size_t> index_;  // "domain.op_type" -> position
};

// Every operator Loam knows (ops/op.cpp: each family's register_* in turn).
const OperatorTable& operators();

}  // namespace loam::ops
