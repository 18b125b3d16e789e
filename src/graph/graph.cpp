#include "graph/graph.hpp"

#include <limits>

namespace loam {

const char* element_type_name(ElementType t) {
  switch (t) {
    case ElementType::Undefined: return "undefined";
    case ElementType::F32: return "float";
    case ElementType::U8: return "uint8";
    case ElementType::I8: return "int8";
    case ElementType::U16: return "uint16";
    case ElementType::I16: return "int16";
    case ElementType::I32: return "int32";
    case ElementType::I64: return "int64";
    case ElementType::String: return "string";
    case ElementType::Bool: return "bool";
    case ElementType::F16: return "float16";
    case ElementType::F64: return "double";
    case ElementType::U32: return "uint32";
    case ElementType::U64: return "uint64";
    case ElementType::C64: return "complex64";
    case ElementType::C128: return "complex128";
    case ElementType::BF16: return "bfloat16";
  }
  return "unknown";
}

bool is_narrow_integer(ElementType t) {
  return t == ElementType::I8 || t == ElementType::U8 || t == ElementType::I16 || t == ElementType::U16 ||
         t == ElementType::I32 || t == ElementType::U32;
}

int narrow_integer_bits(ElementType t) { return static_cast<int>(element_size(t) * 8); }

bool narrow_integer_signed(ElementType t) { return t == ElementType::I8 || t == ElementType::I16 || t == ElementType::I32; }

std::size_t element_size(ElementType t) {
  switch (t) {
    case ElementType::F32: case ElementType::I32: case ElementType::U32: return 4;
    case ElementType::U8: case ElementType::I8: case ElementType::Bool: return 1;
    case ElementType::U16: case ElementType::I16: case ElementType::F16: case ElementType::BF16: return 2;
    case ElementType::I64: case ElementType::U64: case ElementType::F64: case ElementType::C64: return 8;
    case ElementType::C128: return 16;
    case ElementType::String: case ElementType::Undefined: return 0;
  }
  return 0;
}

bool is_known_element_type(int32_t t) { return t >= 0 && t <= 16; }

std::optional<int64_t> TensorData::element_count() const {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) return std::nullopt;
    if (__builtin_mul_overflow(n, d, &n)) return std::nullopt;
  }
  return n;
}

static bool same_graph(const std::shared_ptr<Graph>& a, const std::shared_ptr<Graph>& b) {
  if (!a || !b) return !a && !b;
  return *a == *b;
}

bool Attribute::operator==(const Attribute& o) const {
  if (name != o.name || kind != o.kind || ref_attr_name != o.ref_attr_name || doc != o.doc) return false;
  // NaN compares unequal to itself; attributes compare by bits so a NaN round-trips as equal.
  auto same_float = [](float x, float y) { return __builtin_memcmp(&x, &y, sizeof x) == 0; };
  if (!same_float(f, o.f) || i != o.i || s != o.s) return false;
  if (floats.size() != o.floats.size()) return false;
  for (std::size_t k = 0; k < floats.size(); ++k)
    if (!same_float(floats[k], o.floats[k])) return false;
  if (ints != o.ints || strings != o.strings || tensors != o.tensors) return false;
  if ((t == nullptr) != (o.t == nullptr) || (t && !(*t == *o.t))) return false;
  if (!same_graph(g, o.g)) return false;
  if (graphs.size() != o.graphs.size()) return false;
  for (std::size_t k = 0; k < graphs.size(); ++k)
    if (!same_graph(graphs[k], o.graphs[k])) return false;
  return true;
}

const char* attribute_kind_name(Attribute::Kind k) {
  switch (k) {
    case Attribute::Kind::Undefined: return "undefined";
    case Attribute::Kind::Float: return "float";
    case Attribute::Kind::Int: return "int";
    case Attribute::Kind::String: return "string";
    case Attribute::Kind::Tensor: return "tensor";
    case Attribute::Kind::Graph: return "graph";
    case Attribute::Kind::Floats: return "floats";
    case Attribute::Kind::Ints: return "ints";
    case Attribute::Kind::Strings: return "strings";
    case Attribute::Kind::Tensors: return "tensors";
    case Attribute::Kind::Graphs: return "graphs";
    case Attribute::Kind::SparseTensor: return "sparse_tensor";
    case Attribute::Kind::SparseTensors: return "sparse_tensors";
    case Attribute::Kind::TypeProto: return "type_proto";
    case Attribute::Kind::TypeProtos: return "type_protos";
  }
  return "unknown";
}

const Attribute* Node::attr(std::string_view n) const {
  for (const auto& a : attributes)
    if (a.name == n) return &a;
  return nullptr;
}

std::string Node::label() const {
  const std::string op = op_type.empty() ? "(no op_type)" : op_type;
  if (!name.empty()) return "node '" + name + "' (" + op + ")";
  std::string first = outputs.empty() ? std::string() : outputs.front();
  return "node " + op + " -> '" + first + "'";
}

const TensorData* Graph::initializer(std::string_view n) const {
  for (const auto& t : initializers)
    if (t.name == n) return &t;
  return nullptr;
}

std::optional<int64_t> Model::opset(std::string_view d) const {
  if (d == "ai.onnx") d = "";
  for (const auto& o : opset_imports)
    if (o.domain == d || (d.empty() && o.domain == "ai.onnx")) return o.version;
  return std::nullopt;
}

}  // namespace loam
