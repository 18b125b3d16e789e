// What each operator's lowering sees (ops::Operator::lower, and the elementwise lowering here): the
// node, its operands' axis names and extents, and the module being built.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "lower/elementwise_kernel.hpp"
#include "lower/fusion.hpp"
#include "graph/attributes.hpp"
#include "lower/module.hpp"

namespace loam::lower {

class LowerContext {
 public:
  LowerContext(const Model& model, const stage0::Stage0Result& st, const axes::AxisNaming& naming,
               std::string origin, LoweredModule& out)
      : model(model), st(st), naming(naming), origin(std::move(origin)), out(out) {}

  const Model& model;
  const stage0::Stage0Result& st;
  const axes::AxisNaming& naming;
  std::string origin;
  LoweredModule& out;
  const Node* node = nullptr;
  // The fusion plan's entry for the node being lowered, when it heads a fused contraction: the call
  // then defines fusion->result and reads the packed weight and bias the plan chose.
  const ProductFusion* fusion = nullptr;
  // The plan for the graph whose nodes are being lowered (the top-level graph's, or a branch's).
  const FusionPlan* plan = nullptr;
  // What the plans decide with (a branch's block is planned as its nodes are lowered).
  FusionOptions fusion_options;
  // Whether the node being lowered is one the plan inlines into its reader's kernel: its expression
  // then waits in `pending`, under the tensor it defines, for that reader.
  bool inline_into_reader = false;
  std::map<std::string, PendingExpression> pending;
  // The node being lowered, by index into the planned graph's nodes: each call records it.
  std::optional<std::size_t> graph_node;
  // A contraction's call waiting for its epilogue kernel, by the kernel's root node: the two become
  // one call where the kernel is lowered (attach_epilogue).
  std::map<std::size_t, KernelCall> deferred;

  std::string where() const;
  [[noreturn]] void error(const std::string& message) const;

  // The tensor as the module holds it (axes from naming; errors if it has none).
  TensorInfo info(const std::string& tensor) const;
  const stage0::ValueState& value(const std::string& tensor) const;
  // Input i of the node (required).
  const std::string& in(std::size_t i) const;
  bool has(std::size_t i) const;
  const std::string& out_name(std::size_t i = 0) const { return node->outputs.at(i); }

  // Attributes.
  NodeAttributes attributes() const;  // the node's, refusing through error()
  int64_t attr_int(const char* name, int64_t dflt) const;
  float attr_float(const char* name, float dflt) const;
  std::string attr_string(const char* name, const std::string& dflt) const;
  std::vector<int64_t> attr_ints(const char* name) const;
  // Input i as numbers known at build time; error naming `what` otherwise.
  std::vector<int64_t> folded_ints(std::size_t i, const std::string& what) const;
  // Input i's elements as extents the build knows (symbols allowed); error naming `what` otherwise.
  std::vector<Extent> known_extents(std::size_t i, const std::string& what) const;
  // Input i as floats known at build time, or nullopt.
  std::optional<std::vector<float>> folded_floats(std::size_t i) const;
  std::size_t norm_axis(int64_t axis, std::size_t rank) const;

  // Adds a call for the current node.
  void call(std::string kernel, std::vector<TypeArg> targs, std::vector<Arg> args,
            std::vector<std::string> results = {});
  // A tensor operand whose axes must be `to` (same rank): relabelled with `lift` where the layout
  // named an axis of 1 apart from the one it meets. Returns the argument to pass.
  Arg lifted(const std::string& tensor, const std::vector<AxisName>& to);
  // Aligns an operand at the end of `out_axes` and lifts any axis of 1 whose name differs and is
  // not fixed at 1; returns the argument to pass.
  Arg broadcast_operand(const std::string& tensor, const std::vector<AxisName>& out_axes);

  // The name a kernel reads `source` by in a prepared form (registered once in out.prepared).
  std::string prepared(PreparedWeight::Form form, const std::string& source, const TensorInfo& as, int64_t group = 1,
                       const std::optional<PreparedWeight::Normalization>& norm = std::nullopt);
  // The constant `bias` as a tensor of one axis, `axis` of `length` (regrouped at load unless it is
  // that already): the bias a contraction's kernel adds per output channel.
  Arg channel_bias(const std::string& bias, const AxisName& axis, const Extent& length);

  // The plan's epilogue for the kernel of the node being lowered, if a contraction runs it.
  const ProductEpilogue* epilogue() const;
  // Makes the call just added (the epilogue's generated kernel) the epilogue of the contraction's
  // deferred call, which then defines the kernel's result; `rows` are the product's rows.
  void attach_epilogue(const Extent& rows);

  // The C++ element type the kernels compute a tensor of `t` in.
  std::string compute_type(ElementType t) const;

  int fresh_counter = 0;
  std::map<std::string, TensorInfo> synthetic;  // locals lowering adds (relabelled operands)
};

// The elementwise lowering (elementwise.cpp): a generated kernel for an elementwise node, a row
// reduction its reader computes, a softmax or LayerNormalization along the last axis. False when the
// node is none of these; the operator's own lowering (ops::Operator::lower) then calls its kernels.
bool lower_elementwise(LowerContext& cx, const Node& n);

// The node loop, for the graph and for each branch's block: lowers every kernel node of `nodes`
// (indices into `g`'s nodes), first holding what each reads (`provide_tensor`).
void lower_nodes(LowerContext& cx, const Graph& g, const std::vector<stage0::NodeState>& nodes,
                 std::set<std::string>& defined);
// Holds a tensor a kernel reads that no kernel defines: a weight (cx.out.weights) or a folded tensor
// (cx.out.folded). Nothing for a tensor already in `defined`.
void provide_tensor(LowerContext& cx, const std::string& name, std::set<std::string>& defined);
// If (branch.cpp): one `if` over the condition with a block per branch.
void lower_if(LowerContext& cx, const Node& n, const stage0::IfBranches& branches, std::set<std::string>& defined);

}  // namespace loam::lower
