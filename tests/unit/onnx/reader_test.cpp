// The two readers, the printer and the structural refusals. Expected values come from ONNX's
// definitions (TensorProto field rules, the text grammar) written out by hand.
#include <onnx/onnx_pb.h>

#include <gtest/gtest.h>

#include <unistd.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "graph/verify.hpp"
#include "onnx/printer.hpp"
#include "onnx/reader.hpp"
#include "support/error.hpp"

using namespace loam;

namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "<no error>";
}

template <typename T>
T element(const TensorData& t, std::size_t k) {
  T v;
  std::memcpy(&v, t.data.data() + k * sizeof(T), sizeof(T));
  return v;
}

// A one-node model whose initializer `w` is set up by `fill`.
std::string model_with_initializer(const std::function<void(onnx::TensorProto&)>& fill) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* op = m.add_opset_import();
  op->set_domain("");
  op->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("g");
  auto* t = g->add_initializer();
  t->set_name("w");
  fill(*t);
  auto* n = g->add_node();
  n->set_op_type("Identity");
  n->add_input("w");
  n->add_output("y");
  g->add_output()->set_name("y");
  return m.SerializeAsString();
}

const TensorData& only_initializer(const Model& m) { return m.graph.initializers.at(0); }

}  // namespace

// ---- protobuf: typed fields vs raw_data, and their sizes ----

TEST(ProtoReader, RawDataIsCopiedLittleEndian) {
  std::string bytes = model_with_initializer([](onnx::TensorProto& t) {
    t.set_data_type(onnx::TensorProto::FLOAT);
    t.add_dims(2);
    float v[2] = {1.5f, -2.0f};
    t.set_raw_data(std::string(reinterpret_cast<char*>(v), sizeof v));
  });
  Model m = read_onnx_proto(bytes, "m.onnx");
  const auto& t = only_initializer(m);
  EXPECT_EQ(t.elem, ElementType::F32);
  ASSERT_EQ(t.data.size(), 8u);
  EXPECT_EQ(element<float>(t, 0), 1.5f);
  EXPECT_EQ(element<float>(t, 1), -2.0f);
}

TEST(ProtoReader, Float16LivesInInt32DataAsBits) {
  std::string bytes = model_with_initializer([](onnx::TensorProto& t) {
    t.set_data_type(onnx::TensorProto::FLOAT16);
    t.add_dims(2);
    t.add_int32_data(15360);  // 1.0
    t.add_int32_data(0xC000);  // -2.0
  });
  Model m = read_onnx_proto(bytes, "m.onnx");
  const auto& t = only_initializer(m);
  ASSERT_EQ(t.data.size(), 4u);
  EXPECT_EQ(element<uint16_t>(t, 0), 0x3C00);
  EXPECT_EQ(element<uint16_t>(t, 1), 0xC000);
}

TEST(ProtoReader, TypedFieldsForEachStorage) {
  auto read = [](const std::function<void(onnx::TensorProto&)>& f) {
    return only_initializer(read_onnx_proto(model_with_initializer(f), "m.onnx"));
  };
  auto i8 = read([](onnx::TensorProto& t) { t.set_data_type(onnx::TensorProto::INT8); t.add_dims(2); t.add_int32_data(-128); t.add_int32_data(127); });
  EXPECT_EQ(element<int8_t>(i8, 0), -128);
  EXPECT_EQ(element<int8_t>(i8, 1), 127);
  auto b = read([](onnx::TensorProto& t) { t.set_data_type(onnx::TensorProto::BOOL); t.add_dims(3); t.add_int32_data(1); t.add_int32_data(0); t.add_int32_data(1); });
  ASSERT_EQ(b.data.size(), 3u);
  EXPECT_EQ(element<uint8_t>(b, 2), 1);
  auto i64 = read([](onnx::TensorProto& t) { t.set_data_type(onnx::TensorProto::INT64); t.add_int64_data(-5); });
  EXPECT_TRUE(i64.dims.empty());
  EXPECT_EQ(element<int64_t>(i64, 0), -5);
  auto f64 = read([](onnx::TensorProto& t) { t.set_data_type(onnx::TensorProto::DOUBLE); t.add_dims(1); t.add_double_data(0.1); });
  EXPECT_EQ(element<double>(f64, 0), 0.1);
  auto u32 = read([](onnx::TensorProto& t) { t.set_data_type(onnx::TensorProto::UINT32); t.add_dims(1); t.add_uint64_data(4000000000u); });
  EXPECT_EQ(element<uint32_t>(u32, 0), 4000000000u);
  auto none = read([](onnx::TensorProto& t) { t.set_data_type(onnx::TensorProto::FLOAT); t.add_dims(4); });
  EXPECT_FALSE(none.has_data);  // a checkpoint supplies it
}

TEST(ProtoReader, DataSizeMustAgreeWithDims) {
  std::string raw = model_with_initializer([](onnx::TensorProto& t) {
    t.set_data_type(onnx::TensorProto::FLOAT);
    t.add_dims(2);
    t.add_dims(3);
    t.set_raw_data(std::string(10, '\0'));
  });
  EXPECT_EQ(error_of([&] { read_onnx_proto(raw, "m.onnx"); }),
            "m.onnx: initializer 'w': raw_data holds 10 bytes; dims [2,3] of float need 24");
  std::string typed = model_with_initializer([](onnx::TensorProto& t) {
    t.set_data_type(onnx::TensorProto::INT64);
    t.add_dims(3);
    t.add_int64_data(1);
  });
  EXPECT_EQ(error_of([&] { read_onnx_proto(typed, "m.onnx"); }),
            "m.onnx: initializer 'w': int64_data holds 1 values; dims [3] of int64 need 3");
  std::string range = model_with_initializer([](onnx::TensorProto& t) {
    t.set_data_type(onnx::TensorProto::UINT8);
    t.add_dims(1);
    t.add_int32_data(300);
  });
  EXPECT_EQ(error_of([&] { read_onnx_proto(range, "m.onnx"); }),
            "m.onnx: initializer 'w': int32_data value 300 does not fit uint8");
  std::string huge = model_with_initializer([](onnx::TensorProto& t) {
    t.set_data_type(onnx::TensorProto::FLOAT);
    t.add_dims(int64_t{1} << 40);
    t.add_dims(int64_t{1} << 40);
    t.add_float_data(1);
  });
  EXPECT_EQ(error_of([&] { read_onnx_proto(huge, "m.onnx"); }),
            "m.onnx: initializer 'w': element count of dims [1099511627776,1099511627776] overflows int64");
}

TEST(ProtoReader, ExternalDataInAModelReadFromBytesIsRefusedNamingTheTensor) {
  std::string bytes = model_with_initializer([](onnx::TensorProto& t) {
    t.set_data_type(onnx::TensorProto::FLOAT);
    t.add_dims(2);
    t.set_data_location(onnx::TensorProto::EXTERNAL);
    auto* kv = t.add_external_data();
    kv->set_key("location");
    kv->set_value("weights.bin");
  });
  EXPECT_EQ(error_of([&] { read_onnx_proto(bytes, "m.onnx"); }),
            "m.onnx: initializer 'w': names its own data file (external data, location 'weights.bin'), which a model read "
            "from bytes cannot reach: read the model from its file, or give its weights as a checkpoint");
}

namespace {

// A model whose initializer 'w' (float [2]) keeps its bytes in `location` at `offset` (and
// `length`, when given), written into a fresh directory with `data` as that file; its path.
std::filesystem::path model_with_external_data(const std::string& location, const std::string& offset, const std::string& length,
                                               const std::string& data) {
  const auto dir = std::filesystem::temp_directory_path() / ("loam_external_" + std::to_string(::getpid()) + "_" +
                                                             std::to_string(std::hash<std::string>()(location + offset + length)));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* op = m.add_opset_import();
  op->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("g");
  auto* t = g->add_initializer();
  t->set_name("w");
  t->set_data_type(onnx::TensorProto::FLOAT);
  t->add_dims(2);
  t->set_data_location(onnx::TensorProto::EXTERNAL);
  for (const auto& [k, v] : {std::pair<std::string, std::string>{"location", location}, {"offset", offset}, {"length", length}})
    if (!v.empty()) {
      auto* kv = t->add_external_data();
      kv->set_key(k);
      kv->set_value(v);
    }
  auto* n = g->add_node();
  n->set_op_type("Identity");
  n->add_input("w");
  n->add_output("y");
  auto* y = g->add_output();
  y->set_name("y");
  y->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  y->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(2);
  std::ofstream(dir / "m.onnx", std::ios::binary) << m.SerializeAsString();
  std::ofstream(dir / "w.bin", std::ios::binary) << data;
  return dir / "m.onnx";
}

std::string two_floats_after(std::size_t pad) {
  float v[2] = {1.5f, -2.0f};
  return std::string(pad, 'x') + std::string(reinterpret_cast<char*>(v), sizeof v);
}

}  // namespace

TEST(ProtoReader, ExternalDataIsReadFromTheFileBesideTheModel) {
  for (const auto& [offset, length] : {std::pair<std::string, std::string>{"8", "8"}, {"8", ""}}) {
    const auto path = model_with_external_data("w.bin", offset, length, two_floats_after(8));
    Model m = read_model_file(path);
    const auto& t = only_initializer(m);
    ASSERT_TRUE(t.has_data);
    float got[2];
    std::memcpy(got, t.data.data(), sizeof got);
    EXPECT_EQ(got[0], 1.5f);
    EXPECT_EQ(got[1], -2.0f);
    std::filesystem::remove_all(path.parent_path());
  }
}

TEST(ProtoReader, ExternalDataOutsideTheDirectoryOrPastItsFileIsRefusedNamingTheTensor) {
  const std::vector<std::array<std::string, 4>> cases = {
      {"../w.bin", "", "", "initializer 'w': its data file '../w.bin' lies outside the model's directory"},
      {"/etc/passwd", "", "", "initializer 'w': its data file '/etc/passwd' lies outside the model's directory"},
      {"sub/../../w.bin", "", "", "initializer 'w': its data file 'sub/../../w.bin' lies outside the model's directory"},
      {"gone.bin", "", "", "initializer 'w': its data file 'gone.bin' cannot be read: No such file or directory"},
      {"w.bin", "64", "", "initializer 'w': its data begins at byte 64, past the end of 'w.bin' (16 bytes)"},
      {"w.bin", "8", "16", "initializer 'w': its bytes [8, 8 + 16) run past the end of 'w.bin' (16 bytes)"},
      {"w.bin", "-1", "", "initializer 'w': external data offset '-1' is no byte count"},
      {"w.bin", "0", "4", "initializer 'w': raw_data holds 4 bytes; dims [2] of float need 8"},
  };
  for (const auto& [location, offset, length, message] : cases) {
    const auto path = model_with_external_data(location, offset, length, two_floats_after(8));
    const std::string error = error_of([&] { read_model_file(path); });
    EXPECT_EQ(error, path.string() + ": " + message) << location;
    std::filesystem::remove_all(path.parent_path());
  }
}

TEST(ProtoReader, GarbageAndTruncationAreOneLineErrors) {
  std::string good = model_with_initializer([](onnx::TensorProto& t) {
    t.set_data_type(onnx::TensorProto::FLOAT);
    t.add_float_data(1);
  });
  std::string cut = good.substr(0, good.size() - 3);
  std::string msg = error_of([&] { read_onnx_proto(cut, "cut.onnx"); });
  EXPECT_EQ(msg.rfind("cut.onnx: not a valid ONNX protobuf model", 0), 0u) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos);
  EXPECT_EQ(error_of([&] { read_onnx_proto("", "e.onnx"); }), "e.onnx: empty file, not an ONNX model");
}

TEST(ProtoReader, TruncationNamesTheFieldCutShort) {
  std::ifstream in(std::string(LOAM_SOURCE_DIR) + "/models/mnist-12/model.onnx", std::ios::binary);
  std::string head(1000, '\0');
  in.read(head.data(), 1000);
  // mnist-12 begins: ir_version (2 bytes), producer_name "CNTK" (6), producer_version "2.5.1" (7),
  // domain "ai.cntk" (9), model_version (2), then the graph's tag at byte 26 and a 3-byte length
  // of 26107; its contents start at byte 30.
  EXPECT_EQ(error_of([&] { read_onnx_proto(head, "cut.onnx"); }),
            "cut.onnx: not a valid ONNX protobuf model: field 'graph' at byte 26 declares 26107 bytes but only "
            "970 remain (truncated?) (1000 bytes)");
  // 'h' (0x68) is field 13 as a varint, 'e' its one-byte value; 'l' (0x6c) is field 13 with wire type 4.
  EXPECT_EQ(error_of([&] { read_onnx_proto("hello, world", "text.onnx"); }),
            "text.onnx: not a valid ONNX protobuf model: field number 13 at byte 2: invalid wire type 4 "
            "(not a protobuf model, or garbled) (12 bytes)");
}

TEST(ProtoReader, DeepNestingIsRefusedNotRecursedInto) {
  // 200 nested If branches: beyond the protobuf nesting cap.
  onnx::GraphProto inner;
  inner.set_name("leaf");
  for (int k = 0; k < 200; ++k) {
    onnx::GraphProto outer;
    outer.set_name("g");
    auto* n = outer.add_node();
    n->set_op_type("If");
    auto* a = n->add_attribute();
    a->set_name("then_branch");
    a->set_type(onnx::AttributeProto::GRAPH);
    *a->mutable_g() = inner;
    inner = outer;
  }
  onnx::ModelProto m;
  *m.mutable_graph() = inner;
  std::string msg = error_of([&] { read_onnx_proto(m.SerializeAsString(), "deep.onnx"); });
  EXPECT_EQ(msg.rfind("deep.onnx: not a valid ONNX protobuf model", 0), 0u) << msg;
}

// ---- text: inline values as ONNX's parser reads them ----

namespace {
const char* kHeader = "<ir_version: 8, opset_import: [\"\" : 13]>\n";
Model text(const std::string& body) { return read_onnx_text(std::string(kHeader) + body, "t.onnxtext"); }
}  // namespace

TEST(TextReader, Float16ElementIsItsBitPattern) {
  Model m = text("g () => (float16[2] y) <float16[2] w = {15360, 49152}> { y = Identity(w) }");
  const auto& w = m.graph.initializers.at(0);
  EXPECT_EQ(w.elem, ElementType::F16);
  EXPECT_EQ(w.dims, std::vector<int64_t>{2});
  EXPECT_EQ(element<uint16_t>(w, 0), 0x3C00);  // 1.0
  EXPECT_EQ(element<uint16_t>(w, 1), 0xC000);  // -2.0
  EXPECT_EQ(m.graph.outputs.at(0).type.elem, ElementType::F16);
  EXPECT_EQ(m.graph.outputs.at(0).type.shape->size(), 1u);
}

TEST(TextReader, FloatMayEndAtItsPointButNotStartThere) {
  Model m = text("g () => (float[2] y) <float[2] w = {1., 2.5e1}> { y = Identity(w) }");
  EXPECT_EQ(element<float>(m.graph.initializers.at(0), 0), 1.0f);
  EXPECT_EQ(element<float>(m.graph.initializers.at(0), 1), 25.0f);
  EXPECT_EQ(error_of([] { text("g () => (float[1] y) <float[1] w = {.5}> { y = Identity(w) }"); }),
            "t.onnxtext: line 2: unexpected '.' (a number may end at its point but not start there)");
  EXPECT_EQ(error_of([] { text("g (float[2] x) => (float[2] y) { y = LeakyRelu <alpha = .5> (x) }"); }),
            "t.onnxtext: line 2: unexpected '.' (a number may end at its point but not start there)");
}

TEST(TextReader, FloatWordsInAnyCaseWithOptionalMinus) {
  Model m = text("g () => (float[4] y) <float[4] w = {nan, -Inf, INFINITY, 2}> { y = Identity(w) }");
  const auto& w = m.graph.initializers.at(0);
  EXPECT_TRUE(std::isnan(element<float>(w, 0)));
  EXPECT_EQ(element<float>(w, 1), -INFINITY);
  EXPECT_EQ(element<float>(w, 2), INFINITY);
  EXPECT_EQ(element<float>(w, 3), 2.0f);
  Model a = text("g (float[2] x) => (float[2] y) { y = LeakyRelu <alpha = -inf> (x) }");
  EXPECT_EQ(a.graph.nodes.at(0).attr("alpha")->f, -INFINITY);
}

TEST(TextReader, AWordStaysANameWhereANameStands) {
  Model m = text("g (float[2] inf) => (float[2] nan) { nan = Relu(inf) }");
  EXPECT_EQ(m.graph.inputs.at(0).name, "inf");
  EXPECT_EQ(m.graph.nodes.at(0).inputs.at(0), "inf");
  EXPECT_EQ(m.graph.nodes.at(0).outputs.at(0), "nan");
}

TEST(TextReader, QuotedNamesNodeNamesAndEscapes) {
  Model m = text(
      "\"main graph\" (float[N,\"seq len\"] \"input.1\") => (float[N] \"out:0\") {\n"
      "  [\"my node\"] \"out:0\" = ReduceSum <keepdims = 0, note = \"say \\\"hi\\\"\"> (\"input.1\", \"\")\n"
      "}");
  EXPECT_EQ(m.graph.name, "main graph");
  EXPECT_EQ(m.graph.inputs.at(0).name, "input.1");
  EXPECT_EQ(m.graph.inputs.at(0).type.shape->at(1), Dim::named("seq len"));
  const Node& n = m.graph.nodes.at(0);
  EXPECT_EQ(n.name, "my node");
  EXPECT_EQ(n.inputs, (std::vector<std::string>{"input.1", ""}));
  EXPECT_EQ(n.attr("note")->s, "say \"hi\"");
  EXPECT_EQ(n.attributes.size(), 2u);  // the node name is not left behind as an attribute
}

TEST(TextReader, TypedEmptyListAndIntegerForFloat) {
  Model m = text("g (float[2] x) => (float[2] y) { y = Foo <a: ints = [], b: float = 2, c: floats = [1, 2]> (x) }");
  const Node& n = m.graph.nodes.at(0);
  EXPECT_EQ(n.attr("a")->kind, Attribute::Kind::Ints);
  EXPECT_TRUE(n.attr("a")->ints.empty());
  EXPECT_EQ(n.attr("b")->kind, Attribute::Kind::Float);
  EXPECT_EQ(n.attr("b")->f, 2.0f);
  EXPECT_EQ(n.attr("c")->floats, (std::vector<float>{1.0f, 2.0f}));
}

TEST(TextReader, AttributeTensorKeepsItsName) {
  Model m = text("g () => (int64[2] y) { y = Constant <value = int64[2] shape_const {3, 4}> () }");
  const auto& t = *m.graph.nodes.at(0).attr("value")->t;
  EXPECT_EQ(t.name, "shape_const");
  EXPECT_EQ(element<int64_t>(t, 1), 4);
}

TEST(TextReader, MalformedTextIsAnErrorNamingTheFile) {
  for (const char* bad : {"g (float x) => (float y) { y = Relu(x)", "g (float x) => (float y) { y = Relu(\"x) }",
                          "g (float x) => (float y) { y = Relu(x)) }", "<ir_version: 99999999999999999999999>"}) {
    std::string msg = error_of([&] { read_onnx_text(bad, "bad.onnxtext"); });
    EXPECT_EQ(msg.rfind("bad.onnxtext: ", 0), 0u) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
  std::string deep = "g (float x) => (float y) { y = Relu(x) }" ;
  std::string nested = std::string(100, '(');
  EXPECT_EQ(error_of([&] { read_onnx_text("g " + nested, "d.onnxtext"); }),
            "d.onnxtext: line 1: brackets nest deeper than 64");
  EXPECT_EQ(error_of([&] { read_onnx_text(std::string("g (float x)\0 => (float y)", 25), "z.onnxtext"); }),
            "z.onnxtext: line 1: NUL byte in text model (byte offset 11)");
}

TEST(TextReader, ParserErrorsNameTheLineAndQuoteIt) {
  EXPECT_EQ(error_of([] { text("g () => (int64[1] y) <int64[1] w = {nan}> { y = Identity(w) }"); }),
            "t.onnxtext: line 2: Integer value expected, but not found. "
            "(near: g () => (int64[1] y) <int64[1] w = {nan}> { y = Identity(w) })");
  EXPECT_EQ(error_of([] { text("g (float x) => (float y) {\n  y = Relu(x)\n  z =\n}"); }),
            "t.onnxtext: line 5: Expected character ( not found. (near: })");
  EXPECT_EQ(error_of([] { text("g (float x) => (float y) { y = Relu <alpha = *> (x) }"); }),
            "t.onnxtext: line 2: unexpected '*' where a value is expected");
}

TEST(TextReader, ExternalDataLocationIsRefused) {
  EXPECT_EQ(error_of([&] { text("g () => (float[2] y) <float[2] w = [\"location\": \"w.bin\"]> { y = Identity(w) }"); }),
            "t.onnxtext: line 2: initializer 'w' names its own data file (external data); "
            "Loam reads weights from the model itself or from a checkpoint");
}

// ---- printer: what it writes reads back equal ----

TEST(Printer, RoundTripsAwkwardValues) {
  Model m = text(
      "\"g.0\" (float[N,?] \"x:0\", float[] u) => (float[N] y)\n"
      "  <float[3] w = {nan, -inf, 0.1}, double[1] d = {0.1}, float16 h = {15360}, bfloat16[1] b = {16256},\n"
      "   string[2] s = {\"a\\\"b\", \"\"}, int64[0] e = {}, float[2] later = {}, uint64[1] big = {18446744073709551615}>\n"
      "{\n"
      "  [n0] y = Foo <f = 1.0, i = -3, t = float[1] {3.5}, g = body () => (float z) { z = Identity(w) }> (\"x:0\", , w)\n"
      "}");
  std::string printed = print_onnxtext(m);
  Model back = read_onnx_text(printed, "printed");
  EXPECT_TRUE(m == back) << printed;
  const auto& w = m.graph.initializers.at(0);
  EXPECT_EQ(element<float>(w, 2), 0.1f);
  EXPECT_FALSE(m.graph.initializers.at(6).has_data);
  EXPECT_TRUE(m.graph.initializers.at(5).has_data);  // zero elements need no data
  EXPECT_EQ(m.graph.initializers.at(3).elem, ElementType::BF16);
  EXPECT_FALSE(m.graph.inputs.at(1).type.shape.has_value());
  EXPECT_TRUE(m.graph.initializers.at(2).dims.empty());
}

// ---- verify_graph: the structural refusals ----

namespace {
std::string verify_text(const std::string& body) {
  return error_of([&] { verify_graph(text(body), "v.onnxtext"); });
}
}  // namespace

TEST(Verify, UndefinedInput) {
  EXPECT_EQ(verify_text("g (float x) => (float y) { y = Add(x, z) }"),
            "v.onnxtext: node Add -> 'y': input 'z' is not defined (no graph input, initializer or node output has that name)");
  EXPECT_EQ(verify_text("g (float x) => (float y) { z = Relu(x) }"),
            "v.onnxtext: graph output 'y' is not defined by any node, input or initializer");
}

TEST(Verify, DuplicateName) {
  EXPECT_EQ(verify_text("g (float x) => (float y) { [a] y = Relu(x)\n [b] y = Neg(x) }"),
            "v.onnxtext: node 'b' (Neg): name 'y' is already defined by node 'a' (Relu)");
  EXPECT_EQ(verify_text("g (float x) => (float x) { x = Relu(x) }"),
            "v.onnxtext: node Relu -> 'x': name 'x' is already defined by graph input 'x'");
}

TEST(Verify, Cycle) {
  EXPECT_EQ(verify_text("g (float x) => (float y) { [a] y = Add(x, z)\n [b] z = Relu(y) }"),
            "v.onnxtext: node 'a' (Add): input 'z' is produced by node 'b' (Relu), which depends on this node's output (a cycle)");
}

TEST(Verify, UnknownDomain) {
  EXPECT_EQ(verify_text("g (float x) => (float y) { y = com.microsoft.Gelu(x) }"),
            "v.onnxtext: node Gelu -> 'y': domain 'com.microsoft' is not one Loam reads (it reads the default ONNX domain)");
}

TEST(Verify, UnsupportedElementType) {
  Model m = text("g (float x) => (float y) { y = Relu(x) }");
  m.graph.inputs[0].type.elem = static_cast<ElementType>(19);  // FLOAT8E5M2, newer than what Loam reads
  EXPECT_EQ(error_of([&] { verify_graph(m, "v.onnx"); }), "v.onnx: graph input 'x': unsupported element type 19");
  std::string bytes = model_with_initializer([](onnx::TensorProto& t) { t.set_data_type(17); t.add_dims(1); });
  EXPECT_EQ(error_of([&] { read_onnx_proto(bytes, "m.onnx"); }), "m.onnx: initializer 'w': unsupported element type 17");
}

TEST(Verify, SubgraphReadsEnclosingNames) {
  Model ok = text(
      "g (bool c, float x) => (float y) {\n"
      "  s = Relu(x)\n"
      "  y = If (c) <then_branch = t () => (float a) { a = Identity(s) }, else_branch = e () => (float b) { b = Neg(x) }>\n"
      "}");
  EXPECT_NO_THROW(verify_graph(ok, "v"));
  EXPECT_EQ(verify_text(
                "g (bool c, float x) => (float y) {\n"
                "  y = If (c) <then_branch = t () => (float a) { a = Identity(q) }, else_branch = e () => (float b) { b = Neg(x) }>\n"
                "}"),
            "v.onnxtext: node If -> 'y': attribute 'then_branch': graph 't': node Identity -> 'a': input 'q' is not defined "
            "(no graph input, initializer or node output has that name)");
}

TEST(ReadModelFile, ChoosesByExtensionAndNamesTheFile) {
  std::string dir = std::string(LOAM_SOURCE_DIR) + "/models/mnist-12/model.onnx";
  Model m = read_model_file(dir);
  EXPECT_EQ(m.graph.nodes.size(), 12u);
  EXPECT_EQ(m.graph.inputs.at(0).name, "Input3");
  std::string msg = error_of([] { read_model_file("/nonexistent/model.onnx"); });
  EXPECT_EQ(msg.rfind("/nonexistent/model.onnx: ", 0), 0u) << msg;
  msg = error_of([] { read_model_file("model.pt"); });
  EXPECT_EQ(msg, "model.pt: unknown model extension '.pt' (expected .onnx or .onnxtext)");
}
