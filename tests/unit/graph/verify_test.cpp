// verify_graph over Models built by hand, for the states no reader produces.
#include <gtest/gtest.h>

#include "graph/verify.hpp"
#include "support/error.hpp"

using namespace loam;

namespace {

Model relu_model() {
  Model m;
  m.opset_imports = {{"", 13}};
  m.graph.name = "g";
  m.graph.inputs = {{"x", {ElementType::F32, std::vector<Dim>{Dim::of(2)}}, ""}};
  m.graph.outputs = {{"y", {ElementType::F32, std::vector<Dim>{Dim::of(2)}}, ""}};
  Node n;
  n.op_type = "Relu";
  n.inputs = {"x"};
  n.outputs = {"y"};
  m.graph.nodes.push_back(n);
  return m;
}

std::string error_of(const Model& m) {
  try {
    verify_graph(m, "h.onnx");
  } catch (const Error& e) {
    return e.what();
  }
  return "<no error>";
}

}  // namespace

TEST(VerifyGraph, AcceptsAWellFormedGraphInAnyNodeOrder) {
  Model m = relu_model();
  Node neg;
  neg.op_type = "Neg";
  neg.inputs = {"y"};
  neg.outputs = {"z"};
  m.graph.nodes.insert(m.graph.nodes.begin(), neg);  // reads y before the node writing it
  EXPECT_EQ(error_of(m), "<no error>");
}

TEST(VerifyGraph, TensorDataMustMatchItsDims) {
  Model m = relu_model();
  TensorData t;
  t.name = "w";
  t.elem = ElementType::F32;
  t.dims = {3};
  t.data.resize(8);
  m.graph.initializers.push_back(t);
  EXPECT_EQ(error_of(m), "h.onnx: initializer 'w': holds 8 bytes, its dims need 12");
  m.graph.initializers[0].has_data = false;  // a checkpoint supplies it
  EXPECT_EQ(error_of(m), "<no error>");
}

TEST(VerifyGraph, InitializerWithoutElementTypeIsRefused) {
  Model m = relu_model();
  TensorData t;
  t.name = "w";
  m.graph.initializers.push_back(t);
  EXPECT_EQ(error_of(m), "h.onnx: initializer 'w': unsupported element type 0");
}

TEST(VerifyGraph, DefaultDomainNeedsAnImport) {
  Model m = relu_model();
  m.opset_imports.clear();
  EXPECT_EQ(error_of(m), "h.onnx: node Relu -> 'y': the model imports no opset for the default ONNX domain");
}

TEST(VerifyGraph, DuplicateInitializersAreRefused) {
  Model m = relu_model();
  TensorData t;
  t.name = "w";
  t.elem = ElementType::F32;
  t.data.resize(4);
  m.graph.initializers = {t, t};
  EXPECT_EQ(error_of(m), "h.onnx: initializer 'w': name 'w' is already defined by initializer 'w'");
}
