// A model against ONNX's own operator schemas (the ONNX library Loam links), before any pass reads
// it: the IR version and opset imports ONNX defines, a graph that returns something, and each node
// of the default domain with the attributes its operator has (none twice, each of its kind, the
// required ones present) and an input and output count its schema allows. The library (Debian's
// ONNX 1.12) knows opsets up to 17; for opsets 18 to kLastOpset a node is read against the
// operator's newest version there, from ONNX 1.23's schemas (newer_schemas.inc, written by
// make_newer_schemas.py), or against the library's when the operator has not changed since. A node
// of an operator the opset lacks is left to the passes after, which refuse it by name. Each
// refusal names the file and the node.
#pragma once

#include <string>

#include "graph/graph.hpp"

namespace loam {

void check_against_schemas(const Model& model, const std::string& origin);

// The newest default-domain opset whose schemas the linked ONNX library holds (17 for Debian's 1.12).
int library_opset();

// Whether ONNX redefined default-domain operator `op` in an opset past the library's schemas, at or
// below `version`: the library's schema for it no longer describes such a node.
bool redefined_past_library(const std::string& op, int64_t version);

}  // namespace loam
