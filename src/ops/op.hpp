// The operator families: each lives in one file of this room (elementwise.cpp, reshape.cpp, ...) and
// its `register_*` function adds the records of its operators (operator.hpp) to the table. Beside
// them, the helpers the families' rules share.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "axes/node_naming.hpp"
#include "graph/attributes.hpp"
#include "graph/graph.hpp"
#include "lower/context.hpp"
#include "lower/expression.hpp"
#include "ops/operator.hpp"
#include "stage0/extent.hpp"
#include "stage0/op_context.hpp"
#include "stage0/owed.hpp"
#include "stage0/stage0.hpp"

namespace loam::ops {

using stage0::Extent;
using stage0::FoldedValue;
using stage0::ValueState;

using stage0::kFoldLimit;
using stage0::OpContext;
using stage0::product;

// What the axis-naming rules and the lowerings see.
using axes::AxisName;
using lower::Arg;
using lower::CallConstant;
using lower::Expression;
using lower::RowNormalisation;
using lower::LowerContext;
using lower::PreparedWeight;
using lower::TensorInfo;
using lower::TypeArg;


// Families.
void register_elementwise(std::vector<Operator>& operators);
void register_unary(std::vector<Operator>& operators);
void register_binary(std::vector<Operator>& operators);
void register_shape_ops(std::vector<Operator>& operators);
void register_reshape(std::vector<Operator>& operators);
void register_slice(std::vector<Operator>& operators);
void register_conv_pool(std::vector<Operator>& operators);
void register_matmul(std::vector<Operator>& operators);
void register_reduce(std::vector<Operator>& operators);
void register_normalization(std::vector<Operator>& operators);
void register_resize(std::vector<Operator>& operators);
void register_rotary_embedding(std::vector<Operator>& operators);
void register_attention(std::vector<Operator>& operators);
void register_recurrent(std::vector<Operator>& operators);

// What several families' records share: the operand lists, and the axis-naming rules of an
// operator whose outputs carry its input's axes, of one that creates every axis of its result
// (named by the layout), and of ONNX's multidirectional broadcast.
std::vector<std::size_t> first_input(const Node& n);
std::vector<std::size_t> no_inputs(const Node& n);
void name_like_input(axes::NodeNaming& x);
void name_created(axes::NodeNaming& x);
void name_broadcast(axes::NodeNaming& x);
// The fusion role of an operator every node of which is elementwise: Elementwise for a node of one
// result.
FusionRole elementwise_role(const Node& n, const stage0::Stage0Result& st);
// The fusion role of a Conv, MatMul or Gemm.
FusionRole contraction_role(const Node& n, const stage0::Stage0Result& st);
// Whether the node's input is a float tensor whose last axis `axis` names (a row role's test).
bool reads_float_rows(const Node& n, const stage0::Stage0Result& st, std::int64_t axis);

// Shared helpers.
using IntFn = std::function<std::optional<Extent>(const std::vector<Extent>&)>;
using FloatFn = std::function<float(const std::vector<float>&)>;
// Folds an elementwise node over its inputs where the build knows them all: `ints` over Integer
// values (nullopt from it leaves the node to a kernel), `floats` over float values.
void fold_elementwise(OpContext& c, const std::vector<std::size_t>& inputs, const IntFn& ints, const FloatFn& floats,
                      bool float_output);
// Stops the build unless the inputs listed share one element type, naming the one that differs.
void require_same_types(OpContext& c, const std::vector<std::size_t>& inputs);
// Row-major strides of a constant shape; nullopt if a dim is symbolic.
std::optional<std::vector<int64_t>> constant_shape(const std::vector<Extent>& dims);
// Whether an element type is an integer or bool type the build folds.
bool is_integer_type(ElementType t);
bool is_float_type(ElementType t);
// Whether the kernels hold and compute t in float: float, and float16 and bfloat16 (which cross
// the module's boundary as stored and are float inside it).
bool held_in_float(ElementType t);
// The value of input i as Extents regardless of kind, if it is integral (Integer kind, or Float
// holding whole numbers); nullopt otherwise.
std::optional<std::vector<Extent>> integral_values(const ValueState& v);
// A float as C++: the shortest decimal that reads back as it, or its bits (an infinity, a NaN).
std::string float_literal(float v);
// A tensor's name as a C++ string literal, for the refusal a kernel throws naming it.
Arg quoted_name(const std::string& tensor);
// For each element of `out` (row-major), the index of the element of `in` it reads under ONNX's
// right-aligned broadcast.
std::vector<std::size_t> broadcast_map(const std::vector<int64_t>& out, const std::vector<int64_t>& in);

}  // namespace loam::ops
