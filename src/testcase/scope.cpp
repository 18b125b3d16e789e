#include "testcase/scope.hpp"

#include <onnx/onnx_pb.h>

#include <fstream>
#include <iterator>

#include "ops/operator.hpp"

namespace loam::testcase {
namespace {

// "sequence", "optional", "map" or "" for a tensor (or unset) type.
const char* non_tensor_kind(const onnx::TypeProto& t) {
  if (t.has_sequence_type()) return "sequence";
  if (t.has_optional_type()) return "optional";
  if (t.has_map_type()) return "map";
  return "";
}

std::string graph_out_of_scope(const onnx::GraphProto& g) {
  for (const auto* list : {&g.input(), &g.output(), &g.value_info()})
    for (const auto& v : *list)
      if (*non_tensor_kind(v.type()))
        return std::string(non_tensor_kind(v.type())) + "-typed value '" + v.name() + "'";
  for (const auto& n : g.node()) {
    if (!n.domain().empty() && n.domain() != "ai.onnx") return n.domain() + "." + n.op_type();
    if (n.op_type() == "BatchNormalization") {
      bool training = false;
      for (const auto& a : n.attribute())
        if (a.name() == "training_mode" && a.i() != 0) training = true;
      for (int k = 1; k < n.output_size(); ++k)
        if (!n.output(k).empty()) training = true;
      if (training) return "BatchNormalization training outputs";
    }
    // Training mode draws a random mask: no oracle's values can be matched.
    if (n.op_type() == "Dropout" && n.input_size() > 2 && !n.input(2).empty()) return "Dropout training mode";
    for (const auto& a : n.attribute()) {
      if (a.has_g()) {
        std::string s = graph_out_of_scope(a.g());
        if (!s.empty()) return s;
      }
      for (const auto& sub : a.graphs()) {
        std::string s = graph_out_of_scope(sub);
        if (!s.empty()) return s;
      }
    }
  }
  return "";
}

}  // namespace

std::string model_out_of_scope(const std::filesystem::path& model_file) {
  std::ifstream in(model_file, std::ios::binary);
  if (!in) return "";
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes)) return "";
  return graph_out_of_scope(model.graph());
}

std::string first_out_of_scope(const Graph& graph) {
  for (const auto& n : graph.nodes) {
    std::string key = n.domain.empty() ? n.op_type : n.domain + "." + n.op_type;
    const ops::Operator* op = ops::operators().find(n);
    if (!op || !op->in_scope) return key;
    for (const auto& a : n.attributes) {
      if (a.g) {
        std::string s = first_out_of_scope(*a.g);
        if (!s.empty()) return s;
      }
      for (const auto& g : a.graphs) {
        std::string s = first_out_of_scope(*g);
        if (!s.empty()) return s;
      }
    }
  }
  return "";
}

}  // namespace loam::testcase
