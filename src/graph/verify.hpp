// Structural refusals every reader applies before a Graph leaves it: each names the node and tensor.
//
// - an initializer that names its own data file (ONNX external_data / text `location`) — reported
//   by the readers while converting, since the Graph IR does not carry the location;
// - a node of a domain the model does not import, or one Loam does not read ("" / "ai.onnx" and
//   "loam" are read);
// - a node input that no graph input, initializer or earlier node output defines (a subgraph may
//   read names of the graphs around it);
// - a name defined twice (two node outputs, an output and an initializer, ...);
// - a cycle (nodes are accepted in any order; the graph must be a DAG);
// - a tensor element type Loam does not handle (complex, string as computed data, undefined, or a
//   number outside ONNX's list).
#pragma once

#include <string>

#include "graph/graph.hpp"

namespace loam {

void verify_graph(const Model& model, const std::string& origin);

}  // namespace loam
