// What an operator's axis-naming rule sees (ops::Operator::name_axes): the node, the axes its
// inputs carry, and the means to give its outputs theirs. A rule decides what it can; a position it
// leaves undetermined is named by the layout rule reaching the output (or, in `loam layout`,
// becomes a name to propose).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "axes/naming.hpp"
#include "graph/attributes.hpp"

namespace loam::axes {

class Namer;

// Axis names of one value, a position left undetermined where the operator decides nothing.
using Partial = std::vector<std::optional<AxisName>>;

// Whether an extent is the number 1 (an axis of 1 broadcasts to any other).
bool is_one(const stage0::Extent& e);

// `axes` without the positions in `gone`.
Partial drop(const std::vector<AxisName>& axes, const std::set<std::size_t>& gone);

class NodeNaming {
 public:
  NodeNaming(Namer& namer, const Node& node) : node(node), namer_(namer) {}
  const Node& node;

  [[noreturn]] void error(const std::string& message) const;  // names the file and the node

  // Inputs.
  const std::string& in(std::size_t i) const { return node.inputs.at(i); }
  bool has(std::size_t i) const { return i < node.inputs.size() && !node.inputs[i].empty(); }
  const std::vector<AxisName>& axes_of(std::size_t i) const;  // of input i
  const std::vector<AxisName>& axes_of(const std::string& tensor) const;
  const std::vector<stage0::Extent>& dims_of(const std::string& tensor) const;
  const std::vector<stage0::Extent>& input_dims(std::size_t i) const { return dims_of(in(i)); }
  std::size_t out_rank(std::size_t k = 0) const { return dims_of(node.outputs.at(k)).size(); }
  // Input i's elements, which the build must know as numbers.
  std::vector<int64_t> folded_ints(std::size_t i) const;
  // The inputs a kernel reads as tensors (no folded scalar among them).
  std::vector<std::size_t> tensor_operands() const;

  // Attributes, refusing through error().
  NodeAttributes attributes() const;
  int64_t int_attr(const char* name, int64_t fallback) const { return attributes().integer(name, fallback); }
  std::size_t norm_axis(int64_t axis, std::size_t rank) const { return attributes().axis(axis, rank); }

  // Two axes the operator meets as one (`what` names the meeting in the error).
  void meet(const AxisName& a, const AxisName& b, const std::string& what);
  // Names output k: the positions `partial` leaves open from the layout.
  void complete(std::size_t k, const Partial& partial);
  // Output k carries input 0's axes.
  void same_as_input(std::size_t k = 0);
  // ONNX's multidirectional broadcast of the listed tensors to `rank` axes.
  Partial broadcast(const std::vector<std::string>& operands, std::size_t rank);
  // A regrouping of `tensor` to `out_dims`: each output axis named by the run of input parts whose
  // extents multiply to its own.
  Partial regroup(const std::string& tensor, const std::vector<stage0::Extent>& out_dims);

 private:
  Namer& namer_;
};

}  // namespace loam::axes
