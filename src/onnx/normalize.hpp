// Opset normalisation: every node of the default ONNX domain is restated as the current opset
// defines it, so later passes read one definition per operator.
//
// - Attributes that later opsets moved to operands (Reshape `shape`, Squeeze/Unsqueeze `axes`,
//   Slice `starts`/`ends`/`axes`, Split `split`, ReduceSum `axes`, Pad `pads`/`value`, Clip
//   `min`/`max`, ...) become operands: a constant initializer named "<first output>__<attribute>"
//   (with a numeric suffix if that name is taken), int64 for integer lists, the operand's element
//   type for Pad's value and Clip's bounds.
// - Defaults that changed are written out (Concat before opset 4 gets axis = 1).
// - Two older meanings have no current spelling and become operators of the "loam" domain, so a
//   later pass sees them as distinct operators:
//     * Softmax / LogSoftmax before opset 13 (normalising every axis from `axis` on as one lane)
//       become loam.SoftmaxFlattened / loam.LogSoftmaxFlattened, attribute `axis` (default 1).
//     * Binary arithmetic before opset 7 with `broadcast` = 1 and an `axis` (B aligned at A's
//       axis, not at A's end) becomes loam.ZipAt, attributes `op` (the arithmetic operator's
//       name, e.g. "Add") and `axis`. With broadcast = 1 and no axis, the old rule is suffix
//       alignment, which is numpy broadcasting: the node stays its operator.
// - A float Constant of more than kConstantWeightElements elements in the main graph becomes an
//   initializer named by its output (paddle2onnx writes every weight as a Constant).
// - The model's default-domain opset import becomes kCurrentOpset, and a "loam" domain import
//   (version 1) is added when a loam operator was written.
#pragma once

#include <cstdint>

#include "graph/graph.hpp"

namespace loam {

// The opset version nodes of older opsets are restated in. A model of a later opset, up to
// kLastOpset, keeps its forms: the operators read both (Reduce* axes as an operand or an
// attribute, Split's num_outputs, Pad's axes, Resize's later attributes).
inline constexpr int64_t kCurrentOpset = 17;
// The newest default-domain opset Loam reads (ONNX 1.23's).
inline constexpr int64_t kLastOpset = 28;
// A float Constant past this many elements is a weight, not a value the build folds.
inline constexpr int64_t kConstantWeightElements = 64;
// The domain of the operators normalisation writes for meanings with no ONNX spelling.
inline constexpr const char* kLoamDomain = "loam";

// Throws loam::Error (naming the node) when a node's old form cannot be restated, e.g. a Reshape
// opset 1-4 with no `shape` attribute.
void normalize_opsets(Model& model);

}  // namespace loam
