#include "testcase/scope.hpp"

#include <onnx/onnx_pb.h>

#include <fstream>
#include <iterator>

#include "ops/binary.hpp"
#include "ops/unary.hpp"

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

const std::set<std::string>& operators_in_scope() {
  // The WEP's operator set, what real CNNs and transformers also need, and the two operators
  // stage 0 evaluates (Shape, Constant) whose results feed the others.
  static const std::set<std::string> ops = {
      "MatMul", "Gemm", "Transpose", "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Split", "Concat",
      "Conv", "MaxPool", "Softmax", "LogSoftmax", "loam.SoftmaxFlattened", "loam.LogSoftmaxFlattened",
      "ReduceMean", "ReduceSum", "Where", "Gather", "Slice", "Range", "ConstantOfShape", "Cast",
      "Identity", "If", "BatchNormalization", "AveragePool", "GlobalAveragePool", "Pad", "Clip",
      "LeakyRelu", "Sigmoid", "Erf", "Expand", "Tile", "LayerNormalization", "ArgMax",
      "Shape", "Constant"};
  // Besides these, the elementwise operators of the unary (ops/unary.hpp) and binary
  // (ops/binary.hpp) tables.
  return ops;
}

namespace {
// A binary operator of the table that a kernel computes on some element type (not BitShift yet).
bool has_binary_kernel(const std::string& op) {
  const ops::BinaryOp* b = ops::find_binary(op);
  return b && (b->f32 || b->i64 || b->i1);
}
}  // namespace

std::string first_out_of_scope(const Graph& graph) {
  for (const auto& n : graph.nodes) {
    std::string key = n.domain.empty() ? n.op_type : n.domain + "." + n.op_type;
    if (!operators_in_scope().count(key) && !(n.domain.empty() && (ops::find_unary(n.op_type) || has_binary_kernel(n.op_type)))) return key;
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
