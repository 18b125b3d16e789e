#include "onnx/printer.hpp"

#include <bit>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>

#include "support/error.hpp"

namespace loam {
namespace {

bool is_plain_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  // Words the grammar reads as something else where a name may stand.
  static const std::set<std::string> reserved = {
      "float", "uint8", "int8", "uint16", "int16", "int32", "int64", "string", "bool", "float16",
      "double", "uint32", "uint64", "complex64", "complex128", "bfloat16", "seq", "map", "optional",
      "sparse_tensor"};
  if (reserved.count(s)) return false;
  std::string l;
  for (char c : s) l += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return l != "nan" && l != "inf" && l != "infinity";
}

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string name(const std::string& s) { return is_plain_identifier(s) ? s : quote(s); }

std::string float_text(double v, bool is_double) {
  if (std::isnan(v)) return std::signbit(v) ? "-nan" : "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, is_double ? "%.17g" : "%.9g", v);
  std::string s = buf;
  // A float attribute must read back as a float: give an integral value its point.
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

template <typename T>
T load(const std::vector<std::byte>& d, std::size_t k) {
  T v;
  std::memcpy(&v, d.data() + k * sizeof(T), sizeof(T));
  return v;
}

class Printer {
 public:
  std::string model(const Model& m) {
    out_ += "<\n  ir_version: " + std::to_string(m.ir_version) + ",\n  opset_import: [";
    for (std::size_t k = 0; k < m.opset_imports.size(); ++k)
      out_ += (k ? ", " : "") + quote(m.opset_imports[k].domain) + " : " + std::to_string(m.opset_imports[k].version);
    out_ += "]";
    if (!m.producer_name.empty()) out_ += ",\n  producer_name: " + quote(m.producer_name);
    if (!m.producer_version.empty()) out_ += ",\n  producer_version: " + quote(m.producer_version);
    if (!m.domain.empty()) out_ += ",\n  domain: " + quote(m.domain);
    if (m.model_version != 0) out_ += ",\n  model_version: " + std::to_string(m.model_version);
    if (!m.doc.empty()) out_ += ",\n  doc_string: " + quote(m.doc);
    if (!m.metadata.empty()) {
      out_ += ",\n  metadata_props: [";
      for (std::size_t k = 0; k < m.metadata.size(); ++k)
        out_ += (k ? ", " : "") + quote(m.metadata[k].first) + ": " + quote(m.metadata[k].second);
      out_ += "]";
    }
    out_ += "\n>\n";
    graph(m.graph, "");
    out_ += "\n";
    return std::move(out_);
  }

 private:
  std::string type(const TensorType& t) {
    std::string s = element_type_name(t.elem);
    if (t.elem == ElementType::Undefined) fail("cannot write a shape without an element type");
    if (!t.shape) return s + "[]";
    if (t.shape->empty()) return s;
    s += "[";
    for (std::size_t k = 0; k < t.shape->size(); ++k) {
      const Dim& d = (*t.shape)[k];
      if (k) s += ",";
      switch (d.kind) {
        case Dim::Kind::Unknown: s += "?"; break;
        case Dim::Kind::Value: s += std::to_string(d.value); break;
        case Dim::Kind::Param: s += name(d.param); break;
      }
    }
    return s + "]";
  }

  std::string value_info(const ValueInfo& v) {
    if (v.type.elem == ElementType::Undefined) {
      if (v.type.shape) fail("value '" + v.name + "': a shape without an element type has no text form");
      return name(v.name);
    }
    return type(v.type) + " " + name(v.name);
  }

  std::string tensor_type(const TensorData& t) {
    std::string s = element_type_name(t.elem);
    if (t.dims.empty()) return s;
    s += "[";
    for (std::size_t k = 0; k < t.dims.size(); ++k) s += (k ? "," : "") + std::to_string(t.dims[k]);
    return s + "]";
  }

  std::string tensor_values(const TensorData& t) {
    if (!t.has_data) return "{}";
    std::string s = "{";
    auto sep = [&](std::size_t k) {
      if (k) s += ", ";
    };
    const auto& d = t.data;
    const std::size_t es = element_size(t.elem);
    const std::size_t n = t.elem == ElementType::String ? t.strings.size() : (es ? d.size() / es : 0);
    for (std::size_t k = 0; k < n; ++k) {
      sep(k);
      switch (t.elem) {
        case ElementType::F32: s += float_text(load<float>(d, k), false); break;
        case ElementType::F64: s += float_text(load<double>(d, k), true); break;
        case ElementType::U8: case ElementType::Bool: s += std::to_string(load<uint8_t>(d, k)); break;
        case ElementType::I8: s += std::to_string(load<int8_t>(d, k)); break;
        case ElementType::U16: case ElementType::F16: case ElementType::BF16: s += std::to_string(load<uint16_t>(d, k)); break;
        case ElementType::I16: s += std::to_string(load<int16_t>(d, k)); break;
        case ElementType::I32: s += std::to_string(load<int32_t>(d, k)); break;
        case ElementType::I64: s += std::to_string(load<int64_t>(d, k)); break;
        case ElementType::U32: s += std::to_string(load<uint32_t>(d, k)); break;
        case ElementType::U64: s += std::to_string(load<uint64_t>(d, k)); break;
        case ElementType::String: s += quote(t.strings[k]); break;
        default: fail("tensor '" + t.name + "': " + element_type_name(t.elem) + " values have no text form");
      }
    }
    return s + "}";
  }

  std::string attribute(const Attribute& a) {
    using K = Attribute::Kind;
    std::string s = name(a.name);
    auto typed_empty = [&](const char* kind) { return s + ": " + kind + " = []"; };
    switch (a.kind) {
      case K::Float: return s + " = " + float_text(a.f, false);
      case K::Int: return s + " = " + std::to_string(a.i);
      case K::String: return s + " = " + quote(a.s);
      case K::Tensor: {
        std::string t = s + " = " + tensor_type(*a.t);
        if (!a.t->name.empty()) t += " " + name(a.t->name);
        return t + " " + tensor_values(*a.t);
      }
      case K::Graph: {
        std::string saved = std::move(out_);
        out_.clear();
        graph(*a.g, indent_ + "    ");
        std::string g = std::move(out_);
        out_ = std::move(saved);
        return s + " = " + g;
      }
      case K::Floats: {
        if (a.floats.empty()) return typed_empty("floats");
        std::string v;
        for (std::size_t k = 0; k < a.floats.size(); ++k) v += (k ? ", " : "") + float_text(a.floats[k], false);
        return s + " = [" + v + "]";
      }
      case K::Ints: {
        if (a.ints.empty()) return typed_empty("ints");
        std::string v;
        for (std::size_t k = 0; k < a.ints.size(); ++k) v += (k ? ", " : "") + std::to_string(a.ints[k]);
        return s + " = [" + v + "]";
      }
      case K::Strings: {
        if (a.strings.empty()) return typed_empty("strings");
        std::string v;
        for (std::size_t k = 0; k < a.strings.size(); ++k) v += (k ? ", " : "") + quote(a.strings[k]);
        return s + " = [" + v + "]";
      }
      default:
        fail("attribute '" + a.name + "' of kind " + attribute_kind_name(a.kind) + " has no text form");
    }
  }

  void graph(const Graph& g, const std::string& indent) {
    std::string saved_indent = indent_;
    indent_ = indent;
    out_ += name(g.name) + " (";
    // Every initializer goes in the value list after the signature, so their order survives.
    for (std::size_t k = 0; k < g.inputs.size(); ++k) out_ += (k ? ", " : "") + value_info(g.inputs[k]);
    out_ += ") => (";
    for (std::size_t k = 0; k < g.outputs.size(); ++k) out_ += (k ? ", " : "") + value_info(g.outputs[k]);
    out_ += ")";
    if (!g.value_info.empty() || !g.initializers.empty()) {
      out_ += "\n" + indent + "  <";
      bool first = true;
      for (const auto& t : g.initializers) {
        out_ += (first ? "" : ",\n" + indent + "   ") + tensor_type(t) + " " + name(t.name) + " = " + tensor_values(t);
        first = false;
      }
      for (const auto& v : g.value_info) {
        if (v.type.elem == ElementType::Undefined)
          fail("value_info '" + v.name + "' has no element type; the text form cannot write it");
        out_ += (first ? "" : ",\n" + indent + "   ") + value_info(v);
        first = false;
      }
      out_ += ">";
    }
    out_ += "\n" + indent + "{\n";
    for (const auto& n : g.nodes) {
      out_ += indent + "  ";
      if (!n.name.empty()) out_ += "[" + name(n.name) + "] ";
      for (std::size_t k = 0; k < n.outputs.size(); ++k) out_ += (k ? ", " : "") + name(n.outputs[k]);
      out_ += " = ";
      if (!n.domain.empty()) {
        // The domain is written as dotted identifiers before the operator.
        std::size_t start = 0;
        while (true) {
          std::size_t dot = n.domain.find('.', start);
          std::string part = n.domain.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
          if (!is_plain_identifier(part)) fail("node " + n.label() + ": domain '" + n.domain + "' has no text form");
          if (dot == std::string::npos) break;
          start = dot + 1;
        }
        out_ += n.domain + ".";
      }
      if (!is_plain_identifier(n.op_type)) fail(n.label() + ": operator name has no text form");
      out_ += n.op_type;
      if (!n.attributes.empty()) {
        out_ += " <";
        for (std::size_t k = 0; k < n.attributes.size(); ++k) out_ += (k ? ", " : "") + attribute(n.attributes[k]);
        out_ += ">";
      }
      out_ += " (";
      for (std::size_t k = 0; k < n.inputs.size(); ++k) out_ += (k ? ", " : "") + name(n.inputs[k]);
      out_ += ")\n";
    }
    out_ += indent + "}";
    indent_ = saved_indent;
  }

  std::string out_;
  std::string indent_;
};

}  // namespace

std::string print_onnxtext(const Model& model) { return Printer().model(model); }

}  // namespace loam
