// Stage 0: settles at build time every extent a graph computes, evaluates the nodes whose operands
// the build knows (they emit no code), and leaves to the run only what a value decides — the owed
// conditions. Reads the Graph IR; the result refers to the model's nodes by index (it does not copy
// the graph, whose initializers may be large).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "graph/graph.hpp"
#include "options/options.hpp"
#include "stage0/extent.hpp"
#include "stage0/owed.hpp"

namespace loam::ops {
class OperatorTable;
}

namespace loam::stage0 {

struct Stage0Options {
  const ops::OperatorTable* operators = nullptr;    // the shape rules (ops::operators()); required
  std::map<std::string, int64_t> dims;              // dim_param (or a name inside a spelled one) -> extent
  std::set<std::string> ranged;                     // dim_params the `ranges` option bounds (each must be bound)
  std::optional<std::vector<std::string>> outputs;  // cut the graph to what these outputs read
  std::string origin;                               // the model's file name, prefixed to errors
  static Stage0Options from(const loam::Options& o, const ops::OperatorTable& operators, std::string origin = {});
};

// A tensor value the build knows. Integer and bool tensors hold Extents (bool as 0/1); float
// tensors (only from a Constant or what folded from one, never a float initializer) hold f32.
struct FoldedValue {
  enum class Kind : uint8_t { Integer, Float };
  Kind kind = Kind::Integer;
  std::vector<Extent> ints;   // Kind::Integer, row-major
  std::vector<float> floats;  // Kind::Float, row-major
  std::size_t size() const { return kind == Kind::Integer ? ints.size() : floats.size(); }
  bool all_constant() const;  // every integer element is a number (always true for floats)
};

struct ValueState {
  std::string name;
  ElementType elem = ElementType::Undefined;
  std::vector<Extent> dims;
  std::optional<FoldedValue> value;  // the build knows the elements
  enum class Source : uint8_t { Input, Initializer, Node } source = Source::Node;
  int64_t node = -1;                 // Source::Node: index into Model::graph.nodes
  // Source::Initializer: its data (the Model's, valid while it is), which a rule may read as a setting though
  // stage 0 folds no float initializer (Resize's scales).
  const TensorData* initializer = nullptr;
  std::string shape_string() const;  // "[B, min(S, 1024), 64]"
};

struct IfBranches;

struct NodeState {
  std::size_t index = 0;  // into the nodes of the graph holding it (Model::graph, or a branch's)
  bool folded = false;    // every output is known: the node emits no code
  // Not folded, but moves no element: a Reshape, Flatten, Squeeze, Unsqueeze or Identity of a value
  // the run computes — the same elements under new extents, so no kernel computes anything.
  bool regrouping = false;
  // An If: what stage 0 learned about each branch (its block of forward).
  std::shared_ptr<const IfBranches> branches;
};

// One branch of an If, as stage 0 checked it in a copy of the scope around it (WEP, "A Branch Is a
// Block of `forward`"). Its values are the ones it makes; it reads the scope around it.
struct IfBranch {
  std::string attribute;                               // "then_branch" or "else_branch"
  const Graph* graph = nullptr;                        // the subgraph (owned by the Model)
  std::vector<NodeState> nodes;                        // its kept nodes, indices into graph->nodes
  std::unordered_map<std::string, ValueState> values;  // the values the branch makes
  std::vector<std::string> outputs;                    // what it gives the node, in order
  std::vector<OwedCondition> owed;                     // checked at the top of its block, not of forward
};

struct IfBranches {
  IfBranch then_branch, else_branch;
  // A top-level If whose condition the build knows: the branch it takes (0 then, 1 else), the only
  // one stage 0 analysed; the pipeline replaces the node by that branch's nodes before going on.
  std::optional<std::size_t> taken;
  const IfBranch& at(std::size_t i) const { return i == 0 ? then_branch : else_branch; }
};

// How forward binds an input symbol: from `input`'s axis `axis`, whose spelled length is `spelling`;
// `alone` when the axis is the name alone, else the name is read back from that linear spelling.
struct SymbolBinding {
  std::string symbol;
  std::string input;
  std::size_t axis = 0;
  Extent spelling;
  bool alone = true;
};

struct Stage0Result {
  const ops::OperatorTable* operators = nullptr;        // the table stage 0 ran; the later passes ask it
  std::vector<NodeState> nodes;                         // the kept nodes, in graph order
  std::unordered_map<std::string, ValueState> values;   // every kept value by name
  std::vector<std::string> inputs;                      // kept graph inputs (not initializers), graph order
  std::vector<std::string> initializers;                // kept initializers
  std::vector<std::string> outputs;                     // outputs forward returns, in order
  std::vector<OwedCondition> owed;
  std::vector<SymbolBinding> bindings;                  // one per input symbol, in binding order

  const ValueState& value(const std::string& name) const;  // throws loam::Error if absent
  const ValueState* find(const std::string& name) const;
};

// The scope a branch's block sees: every value of `outer` and the branch's own, with the branch's
// nodes, outputs and owed conditions (a flattened copy, so a consumer looks a name up in one place;
// two branches may name their tensors alike).
Stage0Result branch_scope(const Stage0Result& outer, const IfBranch& branch);

// Runs stage 0. Throws loam::Error naming the file, node, tensor and axis where the build stops.
Stage0Result run_stage0(const loam::Model& model, const Stage0Options& options);

}  // namespace loam::stage0
