// The two ONNX readers. `.onnx` is read through ONNX's own protobuf types, `.onnxtext` through
// ONNX's own textual parser into the same ModelProto; one conversion turns either into the Graph IR,
// so nothing after a reader knows which form a model came from.
//
// Both readers are bounded: the protobuf message size and nesting depth are capped before parsing,
// and every tensor's data size is checked against its dims (naming the tensor) before it is copied.
// Malformed input is a loam::Error whose message starts with `origin`; never a crash.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "graph/graph.hpp"

namespace loam {

// Largest serialized model either reader accepts (protobuf's own 2 GiB cap, minus headroom).
inline constexpr std::size_t kMaxModelBytes = std::size_t{2000} * 1024 * 1024;
// Deepest message nesting the protobuf reader accepts (a graph inside an If inside a graph ...).
inline constexpr int kMaxProtoDepth = 64;

// Reads a serialized ModelProto. Converts only: no structural checks, no opset normalisation.
Model read_onnx_proto(std::string_view bytes, const std::string& origin);

// Reads ONNX's textual form (what onnx.parser reads and onnx.printer writes). Inline values are
// read as ONNX's parser reads them: a float16/bfloat16 element is its integer bit pattern, `1.` is a
// float, `.5` is not, and nan / inf / infinity (any case, optional minus) are float words. A name
// may be quoted ("input.1") where an identifier is expected. Converts only, like read_onnx_proto.
Model read_onnx_text(std::string_view text, const std::string& origin);

enum class ModelForm { Proto, Text };

// Reads a model in either form and checks it before anything else reads it: against ONNX's
// operator schemas (check_against_schemas), its own structure (verify_graph), then through ONNX's
// own checker (check_with_onnx_checker). The model as written: no opset normalisation.
Model read_model_bytes(std::string_view bytes, ModelForm form, const std::string& origin);

// Reads a model file, choosing the form by extension (.onnx / .onnxtext), checks it as
// read_model_bytes does, and restates every node in the current opset (normalize_opsets).
// Every error message starts with the file name.
Model read_model_file(const std::filesystem::path& file);

// As read_model_file, without opset normalisation: the model as its file states it, checked.
// `loam inspect` reports this form.
Model read_model_file_as_written(const std::filesystem::path& file);

}  // namespace loam
