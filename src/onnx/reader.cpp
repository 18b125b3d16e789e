#include "onnx/reader.hpp"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <fstream>
#include <iterator>

#include "graph/verify.hpp"
#include "onnx/from_proto.hpp"
#include "onnx/normalize.hpp"
#include "onnx/onnx_checker.hpp"
#include "onnx/proto_parse.hpp"
#include "onnx/schema_check.hpp"
#include "support/error.hpp"

namespace loam {

namespace {

const char* model_field_name(uint32_t field) {
  switch (field) {
    case 1: return "ir_version";
    case 2: return "producer_name";
    case 3: return "producer_version";
    case 4: return "domain";
    case 5: return "model_version";
    case 6: return "doc_string";
    case 7: return "graph";
    case 8: return "opset_import";
    case 14: return "metadata_props";
    case 20: return "training_info";
    case 25: return "functions";
    default: return nullptr;
  }
}

// Says where a ModelProto that protobuf refused is damaged, by walking its top-level fields: a
// field that runs past the end (truncation), a bad tag or wire type (garbage), or else the field
// whose contents do not parse.
std::string describe_damage(std::string_view bytes) {
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()), static_cast<int>(bytes.size()));
  const int64_t total = static_cast<int64_t>(bytes.size());
  std::string last_field;
  while (true) {
    const int64_t start = in.CurrentPosition();
    if (start >= total) break;
    uint32_t tag = in.ReadTag();
    if (tag == 0) return "no valid field tag at byte " + std::to_string(start);
    const uint32_t field = tag >> 3;
    const uint32_t wire = tag & 7;
    const char* known = model_field_name(field);
    std::string name = known ? "'" + std::string(known) + "'" : "number " + std::to_string(field);
    std::string where = "field " + name + " at byte " + std::to_string(start);
    if (known && wire != ((field == 1 || field == 5) ? 0u : 2u))
      return where + ": wrong wire type " + std::to_string(wire) + " for this field (garbled?)";
    switch (wire) {
      case 0: {
        uint64_t v;
        if (!in.ReadVarint64(&v)) return where + ": its value runs past the end of the file (truncated?)";
        break;
      }
      case 1:
        if (total - in.CurrentPosition() < 8 || !in.Skip(8)) return where + ": its value runs past the end of the file (truncated?)";
        break;
      case 5:
        if (total - in.CurrentPosition() < 4 || !in.Skip(4)) return where + ": its value runs past the end of the file (truncated?)";
        break;
      case 2: {
        uint32_t len;
        if (!in.ReadVarint32(&len)) return where + ": its length runs past the end of the file (truncated?)";
        const int64_t remain = total - in.CurrentPosition();
        if (static_cast<int64_t>(len) > remain)
          return where + " declares " + std::to_string(len) + " bytes but only " + std::to_string(remain) +
                 " remain (truncated?)";
        in.Skip(static_cast<int>(len));
        break;
      }
      default:
        return where + ": invalid wire type " + std::to_string(wire) + " (not a protobuf model, or garbled)";
    }
    last_field = where;
  }
  return last_field.empty() ? "no fields" : "the contents do not parse (nested damage or too deeply nested), last top-level " + last_field;
}

}  // namespace

onnx::ModelProto parse_onnx_proto(std::string_view bytes, const std::string& origin) {
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
      fail(origin + ": not a valid ONNX protobuf model: " + describe_damage(bytes) + " (" +
           std::to_string(bytes.size()) + " bytes)");
    }
  }
  if (!proto.has_graph() && proto.opset_import_size() == 0)
    fail(origin + ": not an ONNX model (no graph and no opset import)");
  return proto;
}

Model read_onnx_proto(std::string_view bytes, const std::string& origin) {
  return onnx_front::model_from_proto(parse_onnx_proto(bytes, origin), origin);
}

namespace {

// The checks every read model passes, on a parsed proto.
Model read_model_proto(const onnx::ModelProto& proto, const std::string& origin) {
  Model m = onnx_front::model_from_proto(proto, origin);
  check_against_schemas(m, origin);
  verify_graph(m, origin);
  check_with_onnx_checker(proto, m, origin);
  return m;
}

// A decimal offset or length of external data.
std::uint64_t external_number(const std::string& text, const std::string& key, const std::string& where) {
  std::uint64_t v = 0;
  if (text.empty() || text.size() > 19) fail(where + ": external data " + key + " '" + text + "' is no byte count");
  for (char c : text) {
    if (c < '0' || c > '9') fail(where + ": external data " + key + " '" + text + "' is no byte count");
    v = v * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return v;
}

// One tensor's external data (ONNX's data_location EXTERNAL: its bytes in a file beside the model,
// at an offset) read into raw_data, so the conversion sees a tensor holding its bytes. The file
// must lie inside the model's directory; every offset and length is checked against it.
void inline_external(onnx::TensorProto& t, const std::filesystem::path& dir, const std::string& where) {
  if (t.data_location() != onnx::TensorProto::EXTERNAL && t.external_data_size() == 0) return;
  std::string location, offset_text, length_text;
  for (const auto& kv : t.external_data()) {
    if (kv.key() == "location") location = kv.value();
    else if (kv.key() == "offset") offset_text = kv.value();
    else if (kv.key() == "length") length_text = kv.value();
  }
  if (location.empty()) fail(where + ": external data without a location");
  const std::filesystem::path rel(location);
  const std::filesystem::path normal = rel.lexically_normal();
  if (!rel.is_relative() || normal.empty() || *normal.begin() == "..")
    fail(where + ": its data file '" + location + "' lies outside the model's directory");
  const std::filesystem::path file = dir / normal;
  std::error_code ec;
  const std::uint64_t size = std::filesystem::file_size(file, ec);
  if (ec) fail(where + ": its data file '" + location + "' cannot be read: " + ec.message());
  const std::uint64_t offset = offset_text.empty() ? 0 : external_number(offset_text, "offset", where);
  if (offset > size) fail(where + ": its data begins at byte " + std::to_string(offset) + ", past the end of '" + location + "' (" + std::to_string(size) + " bytes)");
  const std::uint64_t length = length_text.empty() ? size - offset : external_number(length_text, "length", where);
  if (length > size - offset)
    fail(where + ": its bytes [" + std::to_string(offset) + ", " + std::to_string(offset) + " + " + std::to_string(length) +
         ") run past the end of '" + location + "' (" + std::to_string(size) + " bytes)");
  std::ifstream in(file, std::ios::binary);
  std::string bytes(static_cast<std::size_t>(length), '\0');
  in.seekg(static_cast<std::streamoff>(offset));
  in.read(bytes.data(), static_cast<std::streamsize>(length));
  if (!in || static_cast<std::uint64_t>(in.gcount()) != length) fail(where + ": short read of its data file '" + location + "'");
  t.set_raw_data(std::move(bytes));
  t.clear_external_data();
  t.set_data_location(onnx::TensorProto::DEFAULT);
}

void inline_external_graph(onnx::GraphProto& g, const std::filesystem::path& dir, const std::string& where);

void inline_external_attributes(onnx::NodeProto& n, const std::filesystem::path& dir, const std::string& where) {
  const std::string node = where + "node " + (n.name().empty() ? n.op_type() : "'" + n.name() + "'");
  for (auto& a : *n.mutable_attribute()) {
    const std::string at = node + ", attribute '" + a.name() + "'";
    if (a.has_t()) inline_external(*a.mutable_t(), dir, at);
    for (auto& t : *a.mutable_tensors()) inline_external(t, dir, at);
    if (a.has_g()) inline_external_graph(*a.mutable_g(), dir, at + ": ");
    for (auto& g : *a.mutable_graphs()) inline_external_graph(g, dir, at + ": ");
  }
}

void inline_external_graph(onnx::GraphProto& g, const std::filesystem::path& dir, const std::string& where) {
  for (auto& t : *g.mutable_initializer()) inline_external(t, dir, where + "initializer '" + t.name() + "'");
  for (auto& n : *g.mutable_node()) inline_external_attributes(n, dir, where);
}

}  // namespace

Model read_model_bytes(std::string_view bytes, ModelForm form, const std::string& origin) {
  const onnx::ModelProto proto = form == ModelForm::Proto ? parse_onnx_proto(bytes, origin) : parse_onnx_text(bytes, origin);
  return read_model_proto(proto, origin);
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
  if (ext != ".onnx") return read_model_bytes(bytes, ModelForm::Text, origin);
  // A model read from its file may keep its weights in data files beside it (external data).
  onnx::ModelProto proto = parse_onnx_proto(bytes, origin);
  if (proto.has_graph()) inline_external_graph(*proto.mutable_graph(), file.parent_path(), origin + ": ");
  return read_model_proto(proto, origin);
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
