#include "testcase/scope.hpp"

namespace loam::testcase {

const std::set<std::string>& operators_in_scope() {
  // The WEP's operator set, what real CNNs and transformers also need, and the two operators
  // stage 0 evaluates (Shape, Constant) whose results feed the others.
  static const std::set<std::string> ops = {
      "MatMul", "Gemm", "Transpose", "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Split", "Concat",
      "Conv", "MaxPool", "Softmax", "LogSoftmax", "loam.SoftmaxFlattened", "loam.LogSoftmaxFlattened",
      "ReduceMean", "ReduceSum", "Where", "Gather", "Slice", "Range", "ConstantOfShape", "Cast",
      "Identity", "If", "BatchNormalization", "AveragePool", "GlobalAveragePool", "Pad", "Clip",
      "LeakyRelu", "PRelu", "Sigmoid", "Erf", "Expand", "Tile", "LayerNormalization", "ArgMax",
      "Shape", "Constant",
      // elementwise unary
      "Relu", "Neg", "Abs", "Exp", "Log", "Sqrt", "Tanh", "Reciprocal", "Floor", "Ceil", "Sin", "Cos",
      "Not", "Sign", "Round", "Softplus", "Elu", "HardSigmoid",
      // elementwise binary and variadic
      "Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Sum", "Mean", "Mod", "Equal", "Less",
      "LessOrEqual", "Greater", "GreaterOrEqual", "And", "Or", "Xor"};
  return ops;
}

std::string first_out_of_scope(const Graph& graph) {
  for (const auto& n : graph.nodes) {
    std::string key = n.domain.empty() ? n.op_type : n.domain + "." + n.op_type;
    if (!operators_in_scope().count(key)) return key;
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
