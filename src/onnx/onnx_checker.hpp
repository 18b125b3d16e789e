// A model through ONNX's own checker (onnx::checker::check_model, from the ONNX library Loam links):
// what it refuses, Loam refuses, with its message on one line and the node it names. It runs after
// Loam's own schema and structure checks, whose messages are more precise, and catches what they do
// not state (a value info's type, a tensor's data against its type, a sparse tensor, a function).
// A model of a default-domain opset newer than the library's is checked as of the library's newest,
// its nodes of operators ONNX redefined since left to the schema check (which reads them against
// their own versions); one of a newer IR version is checked as the newest IR the library knows.
#pragma once

#include <string>

#include "graph/graph.hpp"

namespace onnx {
class ModelProto;
}

namespace loam {

// `read` is the model as converted from `model`: its node labels name the place of a refusal, and
// its initializers without data are the weights a checkpoint supplies.
void check_with_onnx_checker(const onnx::ModelProto& model, const Model& read, const std::string& origin);

}  // namespace loam
