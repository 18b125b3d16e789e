#include "onnx/summary.hpp"

#include <nlohmann/json.hpp>

#include <set>

namespace loam {
namespace {

void count_nodes(const Graph& g, ModelSummary& s) {
  for (const auto& n : g.nodes) {
    ++s.node_count;
    ++s.operators[n.domain.empty() ? n.op_type : n.domain + "." + n.op_type];
    for (const auto& a : n.attributes) {
      if (a.g) count_nodes(*a.g, s);
      for (const auto& sg : a.graphs)
        if (sg) count_nodes(*sg, s);
    }
  }
}

std::string dim_text(const Dim& d) {
  switch (d.kind) {
    case Dim::Kind::Value: return std::to_string(d.value);
    case Dim::Kind::Param: return d.param;
    default: return "?";
  }
}

nlohmann::ordered_json value_json(const ValueInfo& v) {
  nlohmann::ordered_json j;
  j["name"] = v.name;
  j["type"] = element_type_name(v.type.elem);
  if (v.type.shape) {
    auto shape = nlohmann::ordered_json::array();
    for (const auto& d : *v.type.shape) {
      if (d.kind == Dim::Kind::Value) shape.push_back(d.value);
      else if (d.kind == Dim::Kind::Param) shape.push_back(d.param);
      else shape.push_back(nullptr);
    }
    j["shape"] = shape;
  } else {
    j["shape"] = nullptr;  // rank unknown
  }
  return j;
}

}  // namespace

std::string type_text(const TensorType& t) {
  std::string s = element_type_name(t.elem);
  if (!t.shape) return s + "[?rank]";
  s += "[";
  for (std::size_t k = 0; k < t.shape->size(); ++k) s += (k ? "," : "") + dim_text((*t.shape)[k]);
  return s + "]";
}

ModelSummary summarize(const Model& m) {
  ModelSummary s;
  s.ir_version = m.ir_version;
  s.producer = m.producer_name + (m.producer_version.empty() ? "" : " " + m.producer_version);
  s.opsets = m.opset_imports;
  std::set<std::string> init_names;
  for (const auto& t : m.graph.initializers) {
    init_names.insert(t.name);
    ++s.initializer_count;
    if (!t.has_data) {
      ++s.initializers_without_data;
      continue;
    }
    int64_t bytes = static_cast<int64_t>(t.data.size());
    for (const auto& str : t.strings) bytes += static_cast<int64_t>(str.size());
    s.initializer_bytes += bytes;
  }
  for (const auto& v : m.graph.inputs)
    if (!init_names.count(v.name)) s.inputs.push_back(v);
  s.outputs = m.graph.outputs;
  count_nodes(m.graph, s);
  return s;
}

std::string summary_text(const ModelSummary& s) {
  std::string out;
  out += "ir_version: " + std::to_string(s.ir_version) + "\n";
  if (!s.producer.empty()) out += "producer: " + s.producer + "\n";
  out += "opsets:";
  for (const auto& o : s.opsets) out += " " + (o.domain.empty() ? std::string("ai.onnx") : o.domain) + "=" + std::to_string(o.version);
  out += "\ninputs:\n";
  for (const auto& v : s.inputs) out += "  " + v.name + ": " + type_text(v.type) + "\n";
  out += "outputs:\n";
  for (const auto& v : s.outputs) out += "  " + v.name + ": " + type_text(v.type) + "\n";
  out += "initializers: " + std::to_string(s.initializer_count) + " (" + std::to_string(s.initializer_bytes) + " bytes";
  if (s.initializers_without_data) out += ", " + std::to_string(s.initializers_without_data) + " without data";
  out += ")\n";
  out += "nodes: " + std::to_string(s.node_count) + "\n";
  out += "operators:\n";
  for (const auto& [op, n] : s.operators) out += "  " + op + ": " + std::to_string(n) + "\n";
  return out;
}

std::string summary_json(const ModelSummary& s) {
  nlohmann::ordered_json j;
  j["ir_version"] = s.ir_version;
  j["producer"] = s.producer;
  auto opsets = nlohmann::ordered_json::array();
  for (const auto& o : s.opsets) opsets.push_back({{"domain", o.domain.empty() ? "ai.onnx" : o.domain}, {"version", o.version}});
  j["opsets"] = opsets;
  auto ins = nlohmann::ordered_json::array();
  for (const auto& v : s.inputs) ins.push_back(value_json(v));
  j["inputs"] = ins;
  auto outs = nlohmann::ordered_json::array();
  for (const auto& v : s.outputs) outs.push_back(value_json(v));
  j["outputs"] = outs;
  j["initializers"] = {{"count", s.initializer_count}, {"bytes", s.initializer_bytes}, {"without_data", s.initializers_without_data}};
  j["nodes"] = s.node_count;
  nlohmann::ordered_json ops = nlohmann::ordered_json::object();
  for (const auto& [op, n] : s.operators) ops[op] = n;
  j["operators"] = ops;
  // Strings in a model need not be UTF-8; replace what is not rather than throw.
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace loam
