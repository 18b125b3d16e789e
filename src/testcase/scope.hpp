// The operator set the typed-module path covers (the records of ops::operators() marked in_scope): a
// backend-test case whose every node (If branches included) is one of these is in scope for the
// conformance run; any other is counted out of scope.
#pragma once

#include <filesystem>
#include <string>

#include "graph/graph.hpp"

namespace loam::testcase {

// The first operator of `graph` (or a subgraph) outside the set, as "domain.Op" or "Op"; "" if none.
std::string first_out_of_scope(const Graph& graph);

// Why a model file lies outside the typed-module set before any operator is looked at, read from
// its proto: a value of sequence, optional or map type (a typed module holds tensors only), a node of
// a domain other than ONNX's default one (such as ai.onnx.preview.training), or a
// BatchNormalization asked for its training outputs. "" when none applies or the file does not parse
// (the reader then reports why, as an attempted case).
std::string model_out_of_scope(const std::filesystem::path& model_file);

}  // namespace loam::testcase
