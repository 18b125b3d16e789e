// The unary elementwise operators (math and activations: Relu, Exp, Tanh, LeakyRelu, IsNaN, ...),
// each defined once in unary.cpp: the attributes it reads, its result type, its Loom form on float
// lanes (and on i64 lanes where ONNX defines it on integers), and its value at build time. Stage 0's
// shape rule, axis naming, the lowering to a generated kernel, the kernel's Loom code and
// `test-case`'s scope all read this table; adding such an operator is one entry
// (docs/adding-an-operator.md).
#pragma once

#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "graph/graph.hpp"
#include "loom/lanes.hpp"
#include "stage0/extent.hpp"

namespace loam::ops {

// An attribute an elementwise operator reads (unary or binary), with ONNX's default. The first
// reaches the forms as `p`, the second as `q`.
struct ElementwiseAttribute {
  std::string_view name;
  double fallback = 0;
  bool integer = false;  // an int attribute (IsInf's detect_negative), else a float
};

struct UnaryOp {
  // The Loom form over one lane value x (a scalar or a vector: `lanes` builds in its form).
  using Form = std::function<loom::Value*(const loom::Lanes& lanes, loom::Value* x, double p, double q)>;

  std::string_view name;
  std::vector<ElementwiseAttribute> attributes;  // at most two
  bool bool_result = false;                // IsNaN, IsInf: a bool of each element
  bool leaves_range = false;               // an integer result can leave a narrow type's range (Neg, Abs)
  Form real;                               // on float elements, in the lanes' float format (f32 or f64)
  Form i64;                                // on integer elements, where ONNX defines the operator on them
  Form i1;                                 // on bool elements (Not)
  // Its value where the build knows the input: in f32, as ONNX computes it (empty: the kernel's to
  // compute), and over integers as extents (nullopt from it: the kernel's).
  std::function<float(float x)> fold_f32;
  std::function<std::optional<stage0::Extent>(const stage0::Extent& x)> fold_i64;

  // The form computing in compute type t (f32, f64, i64 or bool); empty where ONNX defines none.
  const Form& form(ElementType t) const { return t == ElementType::I64 ? i64 : t == ElementType::Bool ? i1 : real; }
};

// The operator of the default domain named `op`, or nullptr.
const UnaryOp* find_unary(std::string_view op);
const std::vector<UnaryOp>& unary_ops();

}  // namespace loam::ops
