// Writes a Model as ONNX's textual form, which read_onnx_text reads back to an equal Model.
//
// Floats are written with enough digits to round-trip exactly; nan and infinities as the words
// ONNX's parser reads; names that are not plain identifiers are quoted; strings are escaped.
#pragma once

#include <string>

#include "graph/graph.hpp"

namespace loam {

std::string print_onnxtext(const Model& model);

}  // namespace loam
