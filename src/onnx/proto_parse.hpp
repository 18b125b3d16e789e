// The readers' first half: bytes or text into ONNX's own ModelProto, bounded and with every
// refusal naming where the input is damaged. read_onnx_proto and read_onnx_text convert what these
// return; read_model_bytes also hands it to ONNX's checker.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>
#include <string_view>

namespace loam {

onnx::ModelProto parse_onnx_proto(std::string_view bytes, const std::string& origin);
onnx::ModelProto parse_onnx_text(std::string_view text, const std::string& origin);

}  // namespace loam
