// Axis naming: the axis identity of every value a generated module holds, exactly as the WEP
// decides ("Axis Identity Is a Type", "A Regrouped Axis Is Named by Its Parts"):
//
// - graph inputs and initializers take their axes from `layout`;
// - every other value takes its axes from the operator that produced it;
// - a regrouping (Reshape, Flatten) names each output axis by the consecutive run of input parts
//   whose extents multiply to its own: one part keeps its name, several make `Merged<C, H, W>`;
//   extent-1 parts hold no elements and are dropped from merges;
// - an axis no operator determines (Unsqueeze's inserted axis, Concat's joined axis, a window's
//   spatial output, the split of an axis never merged, a folded tensor's axes) is named by the
//   layout rule that reaches the node's output tensor name, or the build stops naming the tensor;
// - two names never meet silently: where an operator meets two axes (a contraction, a broadcast,
//   Concat's other axes, Conv's channels) they must carry one name, except that an axis of 1 may
//   broadcast to any other.
//
// The same pass, run in proposal mode, is `loam layout`: every name the layout would have to give
// becomes a variable, every meeting unifies two variables, and the result is written as layout
// rules with readable generated names for the user to review.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "graph/graph.hpp"
#include "options/options.hpp"
#include "stage0/stage0.hpp"

namespace loam::axes {

// One axis's identity: a plain marker (one part) or a merge of two or more plain parts.
struct AxisName {
  std::vector<std::string> parts;
  bool merged() const { return parts.size() > 1; }
  std::string text() const;  // "Batch" or "(C H W)"
  bool operator==(const AxisName&) const = default;
  bool operator<(const AxisName& o) const { return parts < o.parts; }
};

// A tensor of the scope around an If that a branch's block reads under other axes than that scope
// gives it (a layout rule naming the branch's graph reaches it first): the block relabels it.
struct AxisRelabel {
  std::string tensor;
  std::vector<AxisName> from, to;
};

struct AxisNaming {
  // Axis names of every value the module holds as a tensor (inputs, outputs, weights, values a
  // kernel reads or writes, folded tensors a kernel reads), by tensor name.
  std::map<std::string, std::vector<AxisName>> values;
  // Every plain axis name, in order of first appearance.
  std::vector<std::string> axes;
  // The length of a plain axis where every value carrying it has one and the same number.
  std::map<std::string, int64_t> fixed_extent;
  // Each If's blocks, then and else: every value a block holds (those of the scope around it
  // included, under the axes the block reads them with), the relabels of what it reads, and the
  // blocks of the Ifs inside it. `axes` and `fixed_extent` are the module's, kept at the top only.
  std::map<const Node*, std::vector<AxisNaming>> branches;
  std::vector<AxisRelabel> relabels;
};

// Names every value. Throws loam::Error naming the file, node, tensor and axis where the build
// stops (no layout rule, two names meeting, an operator with no naming rule).
AxisNaming name_axes(const Model& model, const stage0::Stage0Result& analysed,
                     const std::vector<LayoutRule>& layout, const std::string& origin);

// The naming as text: the axes (with lengths every value fixes), then each value's axis names.
std::string print_naming(const AxisNaming& naming);

// Proposes a layout for a model that has none: one rule per graph input and initializer the module
// holds, and one per node output with an axis no operator determines. Axes the operators make meet
// share one name; names are generated from extents (D28, D28_2, One, ...) or from dim_params.
std::vector<LayoutRule> propose_layout(const Model& model, const stage0::Stage0Result& analysed,
                                       const std::string& origin);

// `layout` followed by a rule for each tensor it leaves unnamed, as propose_layout would write it,
// except that an axis the operators meet with one `layout` names takes that name. What an
// architecture table names, completed through the operators (the generated names, One_2 or D8,
// are printed by --emit=axes). The naming that then reads it still refuses two names meeting.
std::vector<LayoutRule> complete_layout(const Model& model, const stage0::Stage0Result& analysed,
                                        const std::vector<LayoutRule>& layout, const std::string& origin);

// The indices of a node's inputs that a kernel reads as tensors (the rest are read at build time:
// a Reshape target, Slice bounds, Squeeze axes, ...).
std::vector<std::size_t> data_operands(const Node& node, const stage0::Stage0Result& analysed);

// Whether input i of `node` is a one-element float the build knows, read by a binary elementwise
// operator beside a tensor: it folds into the operator's expression as a constant and is never a
// tensor of the module (WEP, "The Graph Is ONNX"). Likewise a Clip bound the build knows.
bool is_folded_scalar_operand(const Node& node, std::size_t i, const stage0::Stage0Result& analysed);

// The tensors of `scope` (the scope around an If) that a branch's block reads as tensors: the data
// operands of its nodes that are not folded scalars, those of the Ifs inside it, and what it gives
// the node, less what the branch makes. In order of first reading.
std::vector<std::string> branch_reads(const stage0::Stage0Result& scope, const stage0::IfBranch& branch);

// A layout pattern matching exactly `name` (wildcard characters escaped).
std::string exact_pattern(const std::string& name);

}  // namespace loam::axes
