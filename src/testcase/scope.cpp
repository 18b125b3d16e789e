#include "testcase/scope.hpp"

#include <onnx/onnx_pb.h>

#include <fstream>
#include <iterator>
#include <string>

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

// The element types ONNX added after bfloat16 (16), which no Loam module holds: the 8-, 4- and
// 2-bit formats of quantised models (opsets 19 to 25).
std::string later_element_type(int code) {
  static const char* const names[] = {"float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz", "uint4",
                                      "int4",         "float4e2m1",     "float8e8m0", "uint2",          "int2"};
  if (code <= 16) return "";
  const int k = code - 17;
  return k < static_cast<int>(std::size(names)) ? std::string(names[k]) : "element type " + std::to_string(code);
}

std::string graph_out_of_scope(const onnx::GraphProto& g) {
  for (const auto* list : {&g.input(), &g.output(), &g.value_info()})
    for (const auto& v : *list) {
      if (*non_tensor_kind(v.type()))
        return std::string(non_tensor_kind(v.type())) + "-typed value '" + v.name() + "'";
      if (std::string t = later_element_type(v.type().tensor_type().elem_type()); !t.empty()) return t + " value '" + v.name() + "'";
    }
  for (const auto& t : g.initializer())
    if (std::string e = later_element_type(t.data_type()); !e.empty()) return e + " initializer '" + t.name() + "'";
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
      if (a.has_t())
        if (std::string e = later_element_type(a.t().data_type()); !e.empty()) return e + " attribute '" + a.name() + "'";
      // Cast and CastLike to one of them (its `to` names the type).
      if (a.name() == "to" && a.type() == onnx::AttributeProto::INT)
        if (std::string e = later_element_type(static_cast<int>(a.i())); !e.empty()) return "Cast to " + e;
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
