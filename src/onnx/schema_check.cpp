#include "onnx/schema_check.hpp"

#include <onnx/defs/schema.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string_view>

#include "onnx/normalize.hpp"
#include "support/error.hpp"

namespace loam {

namespace {

struct NewerAttribute {
  std::string_view name;
  onnx::AttributeProto::AttributeType kind;
  bool required;
};

// An operator version of an opset past the library's schemas (make_newer_schemas.py).
struct NewerSchema {
  std::string_view op;
  int since;
  int min_inputs, max_inputs, min_outputs, max_outputs;
  std::span<const NewerAttribute> attributes;
  bool deprecated;
};

using A = onnx::AttributeProto;
#include "onnx/newer_schemas.inc"

static_assert(kLastNewerOpset == kLastOpset, "the newer schemas end where the opsets Loam reads do");

// What the check reads of an operator version, from the library's schema or the newer table.
struct Signature {
  int since = 0;
  bool deprecated = false;
  int min_inputs = 0, max_inputs = 0, min_outputs = 0, max_outputs = 0;
  std::map<std::string, std::pair<A::AttributeType, bool>, std::less<>> attributes;  // kind, required
};

}  // namespace

int library_opset() {
  static const int opset = [] {
    const auto& ranges = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
    const auto it = ranges.find(onnx::ONNX_DOMAIN);
    return it == ranges.end() ? 0 : it->second.second;
  }();
  return opset;
}

namespace {

// The newest of the newer table's versions of `op` at or below `version` that the library's
// schemas do not hold, if any.
const NewerSchema* newer_schema(std::string_view op, int64_t version) {
  const NewerSchema* best = nullptr;
  for (const auto& s : kNewerSchemas)
    if (s.op == op && s.since > library_opset() && s.since <= version && (!best || s.since > best->since)) best = &s;
  return best;
}

// The IR versions ONNX defines (IR 1, October 2017, to IR 14, which the onnx package 1.23 writes
// by default). A later IR's new element types or fields are refused where they are read.
constexpr int64_t kLastIrVersion = 14;

// Our attribute kinds in ONNX's numbering (AttributeProto::AttributeType).
onnx::AttributeProto::AttributeType proto_kind(Attribute::Kind k) {
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
  SchemaCheck(const Model& m, const std::string& origin) : model_(m), origin_(origin) {}

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
    if (!version || *version > kLastOpset) return;  // normalisation refuses an opset past the last
    const auto sig = signature(n.op_type, *version);
    if (!sig) return;  // no such operator in this opset: stage 0 refuses it by name
    const std::string at = " (opset " + std::to_string(*version) + ")";
    if (sig->deprecated)
      refuse(n, n.op_type + at + " is deprecated: ONNX withdrew its version of opset " + std::to_string(sig->since) +
                    "; its checker refuses it");
    for (const auto& a : n.attributes) {
      auto it = sig->attributes.find(a.name);
      if (it == sig->attributes.end()) refuse(n, n.op_type + at + " has no attribute '" + a.name + "'");
      if (it->second.first != proto_kind(a.kind))
        refuse(n, "attribute '" + a.name + "' is " + proto_kind_name(proto_kind(a.kind)) + ", but " + n.op_type + at + " takes " +
                      proto_kind_name(it->second.first));
    }
    for (const auto& [name, spec] : sig->attributes)
      if (spec.second && !names.count(name)) refuse(n, n.op_type + at + " requires attribute '" + name + "'");
    const int inputs = static_cast<int>(n.inputs.size()), outputs = static_cast<int>(n.outputs.size());
    if (inputs < sig->min_inputs || inputs > sig->max_inputs)
      refuse(n, "has " + std::to_string(inputs) + " inputs; " + n.op_type + at + " takes " + count_range(sig->min_inputs, sig->max_inputs, "input"));
    if (outputs < sig->min_outputs || outputs > sig->max_outputs)
      refuse(n, "has " + std::to_string(outputs) + " outputs; " + n.op_type + at + " gives " +
                    count_range(sig->min_outputs, sig->max_outputs, "output"));
  }

  // The operator's version in force at `version`: the newer table's when it defines one past the
  // library's opsets, else the library's (an operator unchanged since reads as it did there; ONNX's
  // checker refuses the library's deprecated versions itself).
  std::optional<Signature> signature(const std::string& op, int64_t version) const {
    Signature sig;
    if (const NewerSchema* s = newer_schema(op, version)) {
      sig = {s->since, s->deprecated, s->min_inputs, s->max_inputs, s->min_outputs, s->max_outputs, {}};
      for (const auto& a : s->attributes) sig.attributes.emplace(std::string(a.name), std::pair{a.kind, a.required});
      return sig;
    }
    const onnx::OpSchema* s = onnx::OpSchemaRegistry::Schema(op, static_cast<int>(std::min<int64_t>(version, library_opset())), onnx::ONNX_DOMAIN);
    if (!s) return std::nullopt;
    sig = {s->SinceVersion(), false, s->min_input(), s->max_input(), s->min_output(), s->max_output(), {}};
    for (const auto& [name, spec] : s->attributes()) sig.attributes.emplace(name, std::pair{spec.type, spec.required});
    return sig;
  }

  const Model& model_;
  const std::string& origin_;
};

}  // namespace

void check_against_schemas(const Model& model, const std::string& origin) { SchemaCheck(model, origin).run(); }

bool redefined_past_library(const std::string& op, int64_t version) { return newer_schema(op, version) != nullptr; }

}  // namespace loam
