// The tensors of ONNX's backend-test data sets (`test_data_set_*/input_*.pb`, `output_*.pb`): one
// serialized TensorProto each, read through ONNX's own proto types.
#pragma once

#include <filesystem>
#include <string>

#include "graph/graph.hpp"

namespace loam::testcase {

// Reads one TensorProto file into a TensorData (elements packed little-endian in the stored type).
// Throws loam::Error naming the file for unreadable, malformed or external-data tensors.
TensorData read_tensor_proto_file(const std::filesystem::path& file);

}  // namespace loam::testcase
