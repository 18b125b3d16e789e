#include "onnx/from_proto.hpp"

#include <bit>
#include <cstring>
#include <limits>

#include "support/error.hpp"

namespace loam::onnx_front {
namespace {

// Builds error messages that say where: "<origin>: node 'n' (Conv): attribute 'value': ...".
struct Where {
  std::string text;
  Where sub(const std::string& part) const { return {text + ": " + part}; }
  [[noreturn]] void fail(const std::string& what) const { loam::fail(text + ": " + what); }
};

std::string quoted(const std::string& s) { return "'" + s + "'"; }

std::string dims_text(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

template <typename T>
void append_le(std::vector<std::byte>& out, T v) {
  // Hosts we build on are little-endian; the IR stores little-endian packed elements.
  static_assert(std::endian::native == std::endian::little);
  std::byte b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  out.insert(out.end(), b, b + sizeof(T));
}

// Elements a typed field must hold for `n` tensor elements (complex types store two per element).
int64_t typed_count(ElementType t, int64_t n) {
  if (t == ElementType::C64 || t == ElementType::C128) {
    if (n > std::numeric_limits<int64_t>::max() / 2) return -1;
    return n * 2;
  }
  return n;
}

TensorData convert_tensor(const onnx::TensorProto& p, const Where& at) {
  TensorData t;
  t.name = p.name();
  t.doc = p.doc_string();
  if (p.data_location() == onnx::TensorProto::EXTERNAL || p.external_data_size() > 0) {
    std::string location;
    for (const auto& kv : p.external_data())
      if (kv.key() == "location") location = kv.value();
    at.fail("names its own data file (external data, location '" + location +
            "'), which a model read from bytes cannot reach: read the model from its file, or give its weights as a checkpoint");
  }
  if (p.has_segment()) at.fail("is a segment of a larger tensor; segmented tensors are not read");
  if (!is_known_element_type(p.data_type()) || p.data_type() == 0)
    at.fail("unsupported element type " + std::to_string(p.data_type()));
  t.elem = static_cast<ElementType>(p.data_type());
  t.dims.assign(p.dims().begin(), p.dims().end());
  for (int64_t d : t.dims)
    if (d < 0) at.fail("negative dimension in dims " + dims_text(t.dims));
  std::optional<int64_t> count = t.element_count();
  if (!count) at.fail("element count of dims " + dims_text(t.dims) + " overflows int64");
  const int64_t n = *count;
  const char* type_name = element_type_name(t.elem);
  auto mismatch = [&](const char* field, int64_t have, int64_t need) {
    at.fail(std::string(field) + " holds " + std::to_string(have) + " values; dims " +
            dims_text(t.dims) + " of " + type_name + " need " + std::to_string(need));
  };

  if (t.elem == ElementType::String) {
    if (p.has_raw_data()) at.fail("a string tensor cannot carry raw_data");
    if (p.string_data_size() == 0 && n > 0) {
      t.has_data = false;
      return t;
    }
    if (p.string_data_size() != n) mismatch("string_data", p.string_data_size(), n);
    t.strings.assign(p.string_data().begin(), p.string_data().end());
    return t;
  }

  const std::size_t esize = element_size(t.elem);
  uint64_t need_bytes = 0;
  if (__builtin_mul_overflow(static_cast<uint64_t>(n), esize, &need_bytes))
    at.fail("byte size of dims " + dims_text(t.dims) + " overflows");
  if (p.has_raw_data()) {
    // ONNX keeps a tensor's data in exactly one field.
    for (const auto& [count, field] : {std::pair{p.float_data_size(), "float_data"}, std::pair{p.double_data_size(), "double_data"},
                                       std::pair{p.int64_data_size(), "int64_data"}, std::pair{p.uint64_data_size(), "uint64_data"},
                                       std::pair{p.int32_data_size(), "int32_data"}})
      if (count > 0) at.fail("carries both raw_data and " + std::string(field) + "; ONNX keeps a tensor's data in one field");
    if (p.raw_data().size() != need_bytes) {
      at.fail("raw_data holds " + std::to_string(p.raw_data().size()) + " bytes; dims " +
              dims_text(t.dims) + " of " + type_name + " need " + std::to_string(need_bytes));
    }
    const auto* b = reinterpret_cast<const std::byte*>(p.raw_data().data());
    t.data.assign(b, b + p.raw_data().size());
    return t;
  }

  const int64_t typed = typed_count(t.elem, n);
  if (typed < 0) at.fail("element count of dims " + dims_text(t.dims) + " overflows int64");
  int64_t have = 0;
  const char* field = "";
  switch (t.elem) {
    case ElementType::F32: case ElementType::C64: have = p.float_data_size(); field = "float_data"; break;
    case ElementType::F64: case ElementType::C128: have = p.double_data_size(); field = "double_data"; break;
    case ElementType::I64: have = p.int64_data_size(); field = "int64_data"; break;
    case ElementType::U32: case ElementType::U64: have = p.uint64_data_size(); field = "uint64_data"; break;
    default: have = p.int32_data_size(); field = "int32_data"; break;
  }
  // A tensor no field holds data for is an initializer a checkpoint supplies.
  const bool any_data = p.float_data_size() || p.double_data_size() || p.int64_data_size() ||
                        p.uint64_data_size() || p.int32_data_size();
  if (!any_data && n > 0) {
    t.has_data = false;
    return t;
  }
  if (have != typed) mismatch(field, have, typed);
  t.data.reserve(need_bytes);
  switch (t.elem) {
    case ElementType::F32: case ElementType::C64:
      for (float v : p.float_data()) append_le(t.data, v);
      break;
    case ElementType::F64: case ElementType::C128:
      for (double v : p.double_data()) append_le(t.data, v);
      break;
    case ElementType::I64:
      for (int64_t v : p.int64_data()) append_le(t.data, v);
      break;
    case ElementType::U32:
      for (uint64_t v : p.uint64_data()) {
        if (v > std::numeric_limits<uint32_t>::max())
          at.fail("uint64_data value " + std::to_string(v) + " does not fit uint32");
        append_le(t.data, static_cast<uint32_t>(v));
      }
      break;
    case ElementType::U64:
      for (uint64_t v : p.uint64_data()) append_le(t.data, v);
      break;
    default: {
      // int32_data carries every narrower type; float16/bfloat16 as their 16-bit patterns.
      int64_t lo = 0, hi = 0;
      switch (t.elem) {
        case ElementType::I32: lo = INT32_MIN; hi = INT32_MAX; break;
        case ElementType::I16: lo = INT16_MIN; hi = INT16_MAX; break;
        case ElementType::I8: lo = INT8_MIN; hi = INT8_MAX; break;
        case ElementType::U8: lo = 0; hi = UINT8_MAX; break;
        case ElementType::Bool: lo = 0; hi = 1; break;
        default: lo = 0; hi = UINT16_MAX; break;  // U16, F16, BF16
      }
      for (int32_t v : p.int32_data()) {
        // A 16-bit float pattern above 0x7fff may arrive sign-extended; read it as its low bits.
        int64_t w = v;
        if ((t.elem == ElementType::F16 || t.elem == ElementType::BF16) && w < 0 && w >= INT16_MIN)
          w &= 0xffff;
        if (w < lo || w > hi)
          at.fail("int32_data value " + std::to_string(v) + " does not fit " + type_name);
        switch (esize) {
          case 1: append_le(t.data, static_cast<uint8_t>(w)); break;
          case 2: append_le(t.data, static_cast<uint16_t>(w)); break;
          default: append_le(t.data, static_cast<int32_t>(w)); break;
        }
      }
    }
  }
  return t;
}

TensorType convert_type(const onnx::TypeProto& tp, const Where& at) {
  TensorType t;
  switch (tp.value_case()) {
    case onnx::TypeProto::VALUE_NOT_SET:
      return t;  // no declared type
    case onnx::TypeProto::kTensorType: break;
    case onnx::TypeProto::kSequenceType: at.fail("has a sequence type; Loam reads tensors only");
    case onnx::TypeProto::kMapType: at.fail("has a map type; Loam reads tensors only");
    case onnx::TypeProto::kOptionalType: at.fail("has an optional type; Loam reads tensors only");
    case onnx::TypeProto::kSparseTensorType: at.fail("has a sparse tensor type; Loam reads dense tensors only");
    default: at.fail("has a type Loam does not read");
  }
  const auto& tt = tp.tensor_type();
  if (!is_known_element_type(tt.elem_type())) at.fail("declares the unknown element type " + std::to_string(tt.elem_type()));
  t.elem = static_cast<ElementType>(tt.elem_type());
  if (tt.has_shape()) {
    std::vector<Dim> dims;
    dims.reserve(tt.shape().dim_size());
    for (const auto& d : tt.shape().dim()) {
      if (d.has_dim_value()) dims.push_back(Dim::of(d.dim_value()));
      else if (d.has_dim_param()) dims.push_back(Dim::named(d.dim_param()));
      else dims.push_back(Dim::unknown());
    }
    t.shape = std::move(dims);
  }
  return t;
}

ValueInfo convert_value_info(const onnx::ValueInfoProto& v, const Where& at) {
  ValueInfo out;
  out.name = v.name();
  out.doc = v.doc_string();
  if (v.has_type()) out.type = convert_type(v.type(), at.sub("value " + quoted(v.name())));
  return out;
}

std::shared_ptr<Graph> convert_graph_ptr(const onnx::GraphProto& g, const Where& at);

Attribute::Kind infer_kind(const onnx::AttributeProto& a) {
  // Models from before IR version 2 may leave `type` unset; ONNX reads the field that is set.
  using K = Attribute::Kind;
  if (a.has_f()) return K::Float;
  if (a.has_i()) return K::Int;
  if (a.has_s()) return K::String;
  if (a.has_t()) return K::Tensor;
  if (a.has_g()) return K::Graph;
  if (a.floats_size()) return K::Floats;
  if (a.ints_size()) return K::Ints;
  if (a.strings_size()) return K::Strings;
  if (a.tensors_size()) return K::Tensors;
  if (a.graphs_size()) return K::Graphs;
  return K::Undefined;
}

Attribute convert_attribute(const onnx::AttributeProto& a, const Where& node_at) {
  Where at = node_at.sub("attribute " + quoted(a.name()));
  if (!a.ref_attr_name().empty())
    at.fail("refers to a function attribute ('" + a.ref_attr_name() + "'); function bodies are not read");
  Attribute out;
  out.name = a.name();
  out.doc = a.doc_string();
  using K = Attribute::Kind;
  using P = onnx::AttributeProto;
  switch (a.type()) {
    case P::UNDEFINED: out.kind = infer_kind(a); break;
    case P::FLOAT: out.kind = K::Float; break;
    case P::INT: out.kind = K::Int; break;
    case P::STRING: out.kind = K::String; break;
    case P::TENSOR: out.kind = K::Tensor; break;
    case P::GRAPH: out.kind = K::Graph; break;
    case P::FLOATS: out.kind = K::Floats; break;
    case P::INTS: out.kind = K::Ints; break;
    case P::STRINGS: out.kind = K::Strings; break;
    case P::TENSORS: out.kind = K::Tensors; break;
    case P::GRAPHS: out.kind = K::Graphs; break;
    case P::SPARSE_TENSOR: case P::SPARSE_TENSORS: at.fail("sparse tensor attributes are not read");
    case P::TYPE_PROTO: case P::TYPE_PROTOS: at.fail("type attributes are not read");
    default: at.fail("unknown attribute type " + std::to_string(a.type()));
  }
  switch (out.kind) {
    case K::Undefined: at.fail("has no value");
    case K::Float: out.f = a.f(); break;
    case K::Int: out.i = a.i(); break;
    case K::String: out.s = a.s(); break;
    case K::Tensor:
      out.t = std::make_shared<TensorData>(convert_tensor(a.t(), at.sub("tensor " + quoted(a.t().name()))));
      break;
    case K::Graph: out.g = convert_graph_ptr(a.g(), at); break;
    case K::Floats: out.floats.assign(a.floats().begin(), a.floats().end()); break;
    case K::Ints: out.ints.assign(a.ints().begin(), a.ints().end()); break;
    case K::Strings: out.strings.assign(a.strings().begin(), a.strings().end()); break;
    case K::Tensors:
      for (const auto& t : a.tensors())
        out.tensors.push_back(convert_tensor(t, at.sub("tensor " + quoted(t.name()))));
      break;
    case K::Graphs:
      for (const auto& g : a.graphs()) out.graphs.push_back(convert_graph_ptr(g, at));
      break;
    default: at.fail("attribute kind not read");
  }
  return out;
}

std::string node_label(const onnx::NodeProto& n) {
  Node tmp;
  tmp.name = n.name();
  tmp.op_type = n.op_type();
  if (n.output_size()) tmp.outputs.push_back(n.output(0));
  return tmp.label();
}

Graph convert_graph(const onnx::GraphProto& g, const Where& at) {
  Graph out;
  out.name = g.name();
  out.doc = g.doc_string();
  if (g.sparse_initializer_size() > 0)
    at.fail("initializer " + quoted(g.sparse_initializer(0).values().name()) + " is sparse; sparse initializers are not read");
  for (const auto& v : g.input()) out.inputs.push_back(convert_value_info(v, at.sub("graph input")));
  for (const auto& v : g.output()) out.outputs.push_back(convert_value_info(v, at.sub("graph output")));
  for (const auto& v : g.value_info()) out.value_info.push_back(convert_value_info(v, at.sub("value_info")));
  out.initializers.reserve(g.initializer_size());
  for (const auto& t : g.initializer())
    out.initializers.push_back(convert_tensor(t, at.sub("initializer " + quoted(t.name()))));
  out.nodes.reserve(g.node_size());
  for (const auto& n : g.node()) {
    Where nat = at.sub(node_label(n));
    Node node;
    node.name = n.name();
    node.op_type = n.op_type();
    node.domain = n.domain() == "ai.onnx" ? "" : n.domain();
    node.inputs.assign(n.input().begin(), n.input().end());
    node.outputs.assign(n.output().begin(), n.output().end());
    node.doc = n.doc_string();
    for (const auto& a : n.attribute()) node.attributes.push_back(convert_attribute(a, nat));
    out.nodes.push_back(std::move(node));
  }
  return out;
}

std::shared_ptr<Graph> convert_graph_ptr(const onnx::GraphProto& g, const Where& at) {
  return std::make_shared<Graph>(convert_graph(g, at.sub("graph " + quoted(g.name()))));
}

}  // namespace

Model model_from_proto(const onnx::ModelProto& p, const std::string& origin) {
  Where at{origin};
  Model m;
  m.ir_version = p.ir_version();
  for (const auto& o : p.opset_import())
    m.opset_imports.push_back({o.domain() == "ai.onnx" ? "" : o.domain(), o.version()});
  m.producer_name = p.producer_name();
  m.producer_version = p.producer_version();
  m.domain = p.domain();
  m.model_version = p.model_version();
  m.doc = p.doc_string();
  for (const auto& kv : p.metadata_props()) m.metadata.emplace_back(kv.key(), kv.value());
  if (p.functions_size() > 0)
    at.fail("function " + quoted(p.functions(0).name()) + ": model-local functions are not read");
  if (!p.has_graph()) at.fail("the model has no graph");
  m.graph = convert_graph(p.graph(), at);
  return m;
}

}  // namespace loam::onnx_front
