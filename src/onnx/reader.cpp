#include "onnx/reader.hpp"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <fstream>
#include <iterator>

#include "graph/verify.hpp"
#include "onnx/from_proto.hpp"
#include "onnx/normalize.hpp"
#include "support/error.hpp"

namespace loam {

Model read_onnx_proto(std::string_view bytes, const std::string& origin) {
  if (bytes.size() > kMaxModelBytes)
    fail(origin + ": " + std::to_string(bytes.size()) + " bytes is larger than the " +
         std::to_string(kMaxModelBytes) + "-byte limit for a protobuf model");
  if (bytes.empty()) fail(origin + ": empty file, not an ONNX model");
  onnx::ModelProto proto;
  {
    // Bounded parse: a size cap and a nesting cap, so a hostile file cannot exhaust memory or stack.
    google::protobuf::io::ArrayInputStream raw(bytes.data(), static_cast<int>(bytes.size()));
    google::protobuf::io::CodedInputStream in(&raw);
    in.SetTotalBytesLimit(static_cast<int>(kMaxModelBytes));
    in.SetRecursionLimit(kMaxProtoDepth);
    if (!proto.ParseFromCodedStream(&in) || !in.ConsumedEntireMessage()) {
      fail(origin + ": not a valid ONNX protobuf model (truncated or garbled at or before byte " +
           std::to_string(in.CurrentPosition()) + " of " + std::to_string(bytes.size()) + ")");
    }
  }
  if (!proto.has_graph() && proto.opset_import_size() == 0)
    fail(origin + ": not an ONNX model (no graph and no opset import)");
  return onnx_front::model_from_proto(proto, origin);
}

Model read_model_file_as_written(const std::filesystem::path& file) {
  const std::string origin = file.string();
  const std::string ext = file.extension().string();
  if (ext != ".onnx" && ext != ".onnxtext")
    fail(origin + ": unknown model extension '" + ext + "' (expected .onnx or .onnxtext)");
  std::error_code ec;
  auto size = std::filesystem::file_size(file, ec);
  if (ec) fail(origin + ": cannot read: " + ec.message());
  if (size > kMaxModelBytes)
    fail(origin + ": " + std::to_string(size) + " bytes is larger than the model size limit");
  std::ifstream in(file, std::ios::binary);
  if (!in) fail(origin + ": cannot open");
  std::string bytes(static_cast<std::size_t>(size), '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(size));
  if (static_cast<std::size_t>(in.gcount()) != size) fail(origin + ": short read");
  Model m = ext == ".onnx" ? read_onnx_proto(bytes, origin) : read_onnx_text(bytes, origin);
  verify_graph(m, origin);
  return m;
}

Model read_model_file(const std::filesystem::path& file) {
  Model m = read_model_file_as_written(file);
  const std::string origin = file.string();
  try {
    normalize_opsets(m);
  } catch (const Error& e) {
    throw with_context(origin, e);
  }
  return m;
}

}  // namespace loam
