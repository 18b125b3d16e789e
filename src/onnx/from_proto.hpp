// The one conversion from ONNX's ModelProto to the Graph IR. Both readers end here: the protobuf
// reader parses bytes into a ModelProto, the text reader has ONNX's parser build one.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>

#include "graph/graph.hpp"

namespace loam::onnx_front {

// Converts as written (no normalisation). Throws loam::Error starting with `origin` on anything the
// IR cannot carry or that is malformed: data whose size disagrees with its dims, an initializer
// with external data, a non-tensor type, a sparse tensor, a model-local function.
Model model_from_proto(const onnx::ModelProto& proto, const std::string& origin);

}  // namespace loam::onnx_front
