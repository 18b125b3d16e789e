#include "testcase/tensor_file.hpp"

#include <onnx/onnx_pb.h>

#include <cstring>
#include <fstream>

#include "support/error.hpp"

namespace loam::testcase {
namespace {

template <typename From, typename To, typename Field>
void pack(const Field& field, std::vector<std::byte>& out) {
  out.resize(static_cast<std::size_t>(field.size()) * sizeof(To));
  for (int i = 0; i < field.size(); ++i) {
    To v = static_cast<To>(static_cast<From>(field.Get(i)));
    std::memcpy(out.data() + static_cast<std::size_t>(i) * sizeof(To), &v, sizeof(To));
  }
}

}  // namespace

TensorData read_tensor_proto_file(const std::filesystem::path& file) {
  const std::string origin = file.string();
  std::ifstream in(file, std::ios::binary);
  if (!in) fail(origin + ": cannot open for reading");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  onnx::TensorProto proto;
  if (!proto.ParseFromString(bytes)) fail(origin + ": not a serialized TensorProto");
  if (proto.data_location() == onnx::TensorProto::EXTERNAL)
    fail(origin + ": tensor '" + proto.name() + "' keeps its data in an external file");
  TensorData t;
  t.name = proto.name();
  if (!is_known_element_type(proto.data_type()))
    fail(origin + ": tensor '" + t.name + "': unknown element type " + std::to_string(proto.data_type()));
  t.elem = static_cast<ElementType>(proto.data_type());
  for (auto d : proto.dims()) {
    if (d < 0) fail(origin + ": tensor '" + t.name + "': negative dimension " + std::to_string(d));
    t.dims.push_back(d);
  }
  auto count = t.element_count();
  if (!count) fail(origin + ": tensor '" + t.name + "': element count overflows");
  std::size_t esize = element_size(t.elem);
  if (t.elem == ElementType::String) fail(origin + ": tensor '" + t.name + "': string tensors are not supported");
  if (proto.has_raw_data()) {
    const std::string& raw = proto.raw_data();
    t.data.resize(raw.size());
    std::memcpy(t.data.data(), raw.data(), raw.size());
  } else {
    switch (t.elem) {
      case ElementType::F32: pack<float, float>(proto.float_data(), t.data); break;
      case ElementType::F64: pack<double, double>(proto.double_data(), t.data); break;
      case ElementType::I64: pack<int64_t, int64_t>(proto.int64_data(), t.data); break;
      case ElementType::U64:
      case ElementType::U32: {
        if (t.elem == ElementType::U64) pack<uint64_t, uint64_t>(proto.uint64_data(), t.data);
        else pack<uint64_t, uint32_t>(proto.uint64_data(), t.data);
        break;
      }
      case ElementType::I32: pack<int32_t, int32_t>(proto.int32_data(), t.data); break;
      case ElementType::I16: pack<int32_t, int16_t>(proto.int32_data(), t.data); break;
      case ElementType::U16: pack<int32_t, uint16_t>(proto.int32_data(), t.data); break;
      case ElementType::F16:
      case ElementType::BF16: pack<int32_t, uint16_t>(proto.int32_data(), t.data); break;
      case ElementType::I8: pack<int32_t, int8_t>(proto.int32_data(), t.data); break;
      case ElementType::U8:
      case ElementType::Bool: pack<int32_t, uint8_t>(proto.int32_data(), t.data); break;
      default: fail(origin + ": tensor '" + t.name + "': element type " + element_type_name(t.elem) + " is not supported");
    }
  }
  if (t.data.size() != static_cast<std::size_t>(*count) * esize)
    fail(origin + ": tensor '" + t.name + "': holds " + std::to_string(t.data.size()) + " bytes, its dims need " +
         std::to_string(static_cast<std::size_t>(*count) * esize));
  return t;
}

}  // namespace loam::testcase
