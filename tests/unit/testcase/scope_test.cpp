// What puts a backend-test model outside the typed-module set before its operators are looked at:
// models written here proto by proto, one reason each, beside a plain one that stays in scope.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "testcase/scope.hpp"

namespace {

namespace fs = std::filesystem;

// A one-node model: y = Op(x), x and y float tensors of [2].
onnx::ModelProto plain(const std::string& op = "Relu") {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  auto* g = m.mutable_graph();
  g->set_name("g");
  auto* n = g->add_node();
  n->set_op_type(op);
  n->add_input("x");
  n->add_output("y");
  for (auto* v : {g->add_input(), g->add_output()}) {
    v->set_name(v == &g->input(0) ? "x" : "y");
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    t->mutable_shape()->add_dim()->set_dim_value(2);
  }
  return m;
}

std::string reason(const onnx::ModelProto& m) {
  // One file per test process: ctest runs these tests side by side, each in its own process.
  fs::path file = fs::temp_directory_path() / ("loam_scope_test_" + std::to_string(::getpid()) + ".onnx");
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    m.SerializeToOstream(&out);
  }
  std::string r = loam::testcase::model_out_of_scope(file);
  fs::remove(file);
  return r;
}

TEST(Scope, PlainTensorModelIsInScope) { EXPECT_EQ(reason(plain()), ""); }

TEST(Scope, SequenceAndOptionalValuesAreOutOfScope) {
  auto m = plain("Identity");
  m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(1);
  EXPECT_EQ(reason(m), "sequence-typed value 'x'");
  auto o = plain("Identity");
  o.mutable_graph()->mutable_output(0)->mutable_type()->mutable_optional_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(1);
  EXPECT_EQ(reason(o), "optional-typed value 'y'");
}

TEST(Scope, NodeOfAnotherDomainIsOutOfScope) {
  auto m = plain("Adam");
  m.mutable_graph()->mutable_node(0)->set_domain("ai.onnx.preview.training");
  EXPECT_EQ(reason(m), "ai.onnx.preview.training.Adam");
  auto d = plain();
  d.mutable_graph()->mutable_node(0)->set_domain("ai.onnx");  // the default domain, spelled out
  EXPECT_EQ(reason(d), "");
}

TEST(Scope, BatchNormalizationTrainingOutputsAreOutOfScope) {
  auto m = plain("BatchNormalization");
  auto* n = m.mutable_graph()->mutable_node(0);
  auto* a = n->add_attribute();
  a->set_name("training_mode");
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(1);
  EXPECT_EQ(reason(m), "BatchNormalization training outputs");
  a->set_i(0);
  EXPECT_EQ(reason(m), "");
  n->add_output("running_mean");
  EXPECT_EQ(reason(m), "BatchNormalization training outputs");
}

TEST(Scope, AFileThatDoesNotParseIsLeftToTheReader) {
  EXPECT_EQ(loam::testcase::model_out_of_scope("/nonexistent/model.onnx"), "");
}

}  // namespace
