// The one graph IR every front end produces. Nothing after a reader knows whether a Graph came
// from `.onnx` protobuf, `.onnxtext`, or WHG1: a reader's job ends at building one of these.
//
// The IR keeps what ONNX says as it was said: attributes keep their kind as written (an attribute
// written as a string stays a string even when it spells "3"), tensors keep their stored element
// type (a float16 stays float16 bits), and a dimension keeps whether it was a dim_value, a
// dim_param or unknown. Analyses read meaning from it; readers never interpret.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace loam {

// Element types, numbered as ONNX's TensorProto.DataType numbers them so a reader converts by value.
enum class ElementType : int32_t {
  Undefined = 0,
  F32 = 1,
  U8 = 2,
  I8 = 3,
  U16 = 4,
  I16 = 5,
  I32 = 6,
  I64 = 7,
  String = 8,
  Bool = 9,
  F16 = 10,
  F64 = 11,
  U32 = 12,
  U64 = 13,
  C64 = 14,
  C128 = 15,
  BF16 = 16,
};

// ONNX's spelling ("float", "int64", "float16", ...) as the text format writes it.
const char* element_type_name(ElementType t);
// Bytes one element occupies in a tensor's packed little-endian storage; 0 for String/Undefined.
std::size_t element_size(ElementType t);
// Whether `t` is one of the numbered types above.
bool is_known_element_type(int32_t t);
// The integers of 8, 16 and 32 bits, signed or not: a generated module holds them as they are at its
// boundary and computes in int64, wrapping results back into their range.
bool is_narrow_integer(ElementType t);
// The width in bits and signedness of a narrow integer type (precondition: is_narrow_integer(t)).
int narrow_integer_bits(ElementType t);
bool narrow_integer_signed(ElementType t);

// One dimension of a declared shape: a static length, a symbolic name, or nothing at all (`?`).
struct Dim {
  enum class Kind : uint8_t { Unknown, Value, Param };
  Kind kind = Kind::Unknown;
  int64_t value = 0;   // Kind::Value
  std::string param;   // Kind::Param

  static Dim unknown() { return {}; }
  static Dim of(int64_t v) { return {Kind::Value, v, {}}; }
  static Dim named(std::string p) { return {Kind::Param, 0, std::move(p)}; }
  bool operator==(const Dim&) const = default;
};

// A value's declared type. `shape` absent means the rank itself is unknown.
struct TensorType {
  ElementType elem = ElementType::Undefined;
  std::optional<std::vector<Dim>> shape;
  bool operator==(const TensorType&) const = default;
};

// A named value with its declared type, as graph inputs, outputs and value_info carry it.
struct ValueInfo {
  std::string name;
  TensorType type;
  std::string doc;
  bool operator==(const ValueInfo&) const = default;
};

// A tensor constant: an initializer, a Constant's value, or a tensor attribute. `data` holds the
// elements packed little-endian in the stored element type (f16/bf16 as their 16-bit patterns,
// bool as one byte each). `has_data` is false for an initializer whose data a checkpoint supplies.
struct TensorData {
  std::string name;
  ElementType elem = ElementType::Undefined;
  std::vector<int64_t> dims;
  bool has_data = true;
  std::vector<std::byte> data;
  std::vector<std::string> strings;  // ElementType::String only
  std::string doc;

  // Product of dims, checked: nullopt if it overflows int64 or a dim is negative.
  std::optional<int64_t> element_count() const;
  bool operator==(const TensorData&) const = default;
};

struct Graph;

// An attribute as written. `kind` is the kind the file gave it; a reader never converts between
// kinds. `ref_attr_name` is set for a reference inside a function body (refused by the readers).
struct Attribute {
  enum class Kind : uint8_t {
    Undefined, Float, Int, String, Tensor, Graph, Floats, Ints, Strings, Tensors, Graphs,
    SparseTensor, SparseTensors, TypeProto, TypeProtos,
  };
  std::string name;
  Kind kind = Kind::Undefined;
  float f = 0;
  int64_t i = 0;
  std::string s;
  std::shared_ptr<TensorData> t;
  std::shared_ptr<loam::Graph> g;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  std::vector<TensorData> tensors;
  std::vector<std::shared_ptr<loam::Graph>> graphs;
  std::string ref_attr_name;
  std::string doc;

  bool operator==(const Attribute& o) const;
};

const char* attribute_kind_name(Attribute::Kind k);

struct Node {
  std::string name;
  std::string op_type;
  std::string domain;  // "" is the default ONNX domain ("ai.onnx" is normalised to "")
  std::vector<std::string> inputs;   // "" marks an omitted optional input
  std::vector<std::string> outputs;  // "" marks an omitted optional output
  std::vector<Attribute> attributes;
  std::string doc;

  const Attribute* attr(std::string_view n) const;
  // A label for error messages: the node's name if it has one, else op_type and first output.
  std::string label() const;
  bool operator==(const Node&) const = default;
};

// A graph: the top-level one or an If branch. A subgraph may read names of the graphs around it.
struct Graph {
  std::string name;
  std::vector<Node> nodes;
  std::vector<ValueInfo> inputs;
  std::vector<ValueInfo> outputs;
  std::vector<ValueInfo> value_info;
  std::vector<TensorData> initializers;
  std::string doc;

  const TensorData* initializer(std::string_view n) const;
  bool operator==(const Graph&) const = default;
};

struct OpsetImport {
  std::string domain;  // "" for the default ONNX domain
  int64_t version = 0;
  bool operator==(const OpsetImport&) const = default;
};

// A whole model: the main graph and the opsets its nodes are read under.
struct Model {
  int64_t ir_version = 0;
  std::vector<OpsetImport> opset_imports;
  std::string producer_name;
  std::string producer_version;
  std::string domain;
  int64_t model_version = 0;
  std::string doc;
  std::vector<std::pair<std::string, std::string>> metadata;
  Graph graph;

  // Version of `domain` ("" / "ai.onnx" both mean the default domain); nullopt if not imported.
  std::optional<int64_t> opset(std::string_view domain) const;
  bool operator==(const Model&) const = default;
};

}  // namespace loam
