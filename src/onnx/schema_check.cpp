#include "onnx/schema_check.hpp"

#include <onnx/defs/schema.h>

#include <set>

#include "support/error.hpp"

namespace loam {

namespace {

// The IR versions ONNX defines (IR 1, October 2017, to IR 14, which the onnx package 1.23 writes
// by default). A later IR's new element types or fields are refused where they are read.
constexpr int64_t kLastIrVersion = 14;

// Our attribute kinds in ONNX's numbering (AttributeProto::AttributeType).
onnx::AttributeProto::AttributeType proto_kind(Attribute::Kind k) {
  using A = onnx::AttributeProto;
  switch (k) {
    case Attribute::Kind::Float: return A::FLOAT;
    case Attribute::Kind::Int: return A::INT;
    case Attribute::Kind::String: return A::STRING;
    case Attribute::Kind::Tensor: return A::TENSOR;
    case Attribute::Kind::Graph: return A::GRAPH;
    case Attribute::Kind::Floats: return A::FLOATS;
    case Attribute::Kind::Ints: return A::INTS;
    case Attribute::Kind::Strings: return A::STRINGS;
    case Attribute::Kind::Tensors: return A::TENSORS;
    case Attribute::Kind::Graphs: return A::GRAPHS;
    case Attribute::Kind::SparseTensor: return A::SPARSE_TENSOR;
    case Attribute::Kind::SparseTensors: return A::SPARSE_TENSORS;
    case Attribute::Kind::TypeProto: return A::TYPE_PROTO;
    case Attribute::Kind::TypeProtos: return A::TYPE_PROTOS;
    case Attribute::Kind::Undefined: break;
  }
  return A::UNDEFINED;
}

const char* proto_kind_name(onnx::AttributeProto::AttributeType t) {
  using A = onnx::AttributeProto;
  switch (t) {
    case A::FLOAT: return "float";
    case A::INT: return "int";
    case A::STRING: return "string";
    case A::TENSOR: return "tensor";
    case A::GRAPH: return "graph";
    case A::FLOATS: return "floats";
    case A::INTS: return "ints";
    case A::STRINGS: return "strings";
    case A::TENSORS: return "tensors";
    case A::GRAPHS: return "graphs";
    case A::SPARSE_TENSOR: return "sparse tensor";
    case A::SPARSE_TENSORS: return "sparse tensors";
    case A::TYPE_PROTO: return "type";
    case A::TYPE_PROTOS: return "types";
    default: return "undefined";
  }
}

std::string count_range(int lo, int hi, const char* noun) {
  const std::string plural = std::string(noun) + "s";
  if (lo == hi) return std::to_string(lo) + " " + (lo == 1 ? noun : plural);
  if (hi == std::numeric_limits<int>::max()) return "at least " + std::to_string(lo) + " " + (lo == 1 ? noun : plural);
  return std::to_string(lo) + " to " + std::to_string(hi) + " " + plural;
}

class SchemaCheck {
 public:
  SchemaCheck(const Model& m, const std::string& origin) : model_(m), origin_(origin) {
    const auto& ranges = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
    auto it = ranges.find(onnx::ONNX_DOMAIN);
    known_opset_ = it == ranges.end() ? 0 : it->second.second;
  }

  void run() {
    if (model_.ir_version < 1 || model_.ir_version > kLastIrVersion)
      fail(origin_ + ": ir_version " + std::to_string(model_.ir_version) + " is not one ONNX defines (1 to " +
           std::to_string(kLastIrVersion) + ")");
    std::set<std::string> domains;
    for (const auto& o : model_.opset_imports) {
      const std::string shown = o.domain.empty() ? "the default domain" : "domain '" + o.domain + "'";
      if (!domains.insert(o.domain).second) fail(origin_ + ": opset_import names " + shown + " twice");
      if (o.version < 1) fail(origin_ + ": opset_import gives " + shown + " version " + std::to_string(o.version) + "; versions start at 1");
    }
    if (model_.graph.outputs.empty()) fail(origin_ + ": the graph returns nothing (it has no outputs)");
    graph(model_.graph);
  }

 private:
  void graph(const Graph& g) {
    for (const auto& n : g.nodes) {
      node(n);
      for (const auto& a : n.attributes) {
        if (a.g) graph(*a.g);
        for (const auto& sub : a.graphs) graph(*sub);
      }
    }
  }

  [[noreturn]] void refuse(const Node& n, const std::string& why) const {
    fail(origin_ + ": " + (n.name.empty() ? n.label() : "node '" + n.name + "' (" + n.op_type + ")") + ": " + why);
  }

  void node(const Node& n) {
    std::set<std::string> names;
    for (const auto& a : n.attributes)
      if (!names.insert(a.name).second) refuse(n, "attribute '" + a.name + "' is given twice");
    if (!n.domain.empty() && n.domain != "ai.onnx") return;  // ONNX's schemas are the default domain's
    const auto version = model_.opset("");
    // A node of an opset newer than the ONNX library's schemas is checked by the passes after.
    if (!version || *version > known_opset_) return;
    const onnx::OpSchema* s = onnx::OpSchemaRegistry::Schema(n.op_type, static_cast<int>(*version), onnx::ONNX_DOMAIN);
    if (!s) return;  // no such operator in this opset: stage 0 refuses it by name
    const std::string at = " (opset " + std::to_string(*version) + ")";
    for (const auto& a : n.attributes) {
      auto it = s->attributes().find(a.name);
      if (it == s->attributes().end()) refuse(n, n.op_type + at + " has no attribute '" + a.name + "'");
      if (it->second.type != proto_kind(a.kind))
        refuse(n, "attribute '" + a.name + "' is " + proto_kind_name(proto_kind(a.kind)) + ", but " + n.op_type + at + " takes " +
                      proto_kind_name(it->second.type));
    }
    for (const auto& [name, spec] : s->attributes())
      if (spec.required && !names.count(name)) refuse(n, n.op_type + at + " requires attribute '" + name + "'");
    const int inputs = static_cast<int>(n.inputs.size()), outputs = static_cast<int>(n.outputs.size());
    if (inputs < s->min_input() || inputs > s->max_input())
      refuse(n, "has " + std::to_string(inputs) + " inputs; " + n.op_type + at + " takes " + count_range(s->min_input(), s->max_input(), "input"));
    if (outputs < s->min_output() || outputs > s->max_output())
      refuse(n, "has " + std::to_string(outputs) + " outputs; " + n.op_type + at + " gives " +
                    count_range(s->min_output(), s->max_output(), "output"));
  }

  const Model& model_;
  const std::string& origin_;
  int known_opset_ = 0;
};

}  // namespace

void check_against_schemas(const Model& model, const std::string& origin) { SchemaCheck(model, origin).run(); }

}  // namespace loam
