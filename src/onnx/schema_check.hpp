// A model against ONNX's own operator schemas (the ONNX library Loam links), before any pass reads
// it: the IR version and opset imports ONNX defines, a graph that returns something, and each node
// of the default domain with the attributes its operator has (none twice, each of its kind, the
// required ones present) and an input and output count its schema allows. A node of an opset
// newer than the library's schemas, or of an operator the opset lacks, is left to the passes after,
// which refuse it by name. Each refusal names the file and the node.
#pragma once

#include <string>

#include "graph/graph.hpp"

namespace loam {

void check_against_schemas(const Model& model, const std::string& origin);

}  // namespace loam
