// `loam split` (the WEP's onnx_split): a model as two files, the graph as ONNX's textual form whose
// float initializers carry no values, and a safetensors checkpoint holding those values under the
// initializers' names. Building from the pair (the text, with the checkpoint in `checkpoints`)
// behaves as building from the model: the graph is the schema, the checkpoint is data.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "graph/graph.hpp"

namespace loam::driver {

struct SplitModel {
  std::string text;                   // the graph, print_onnxtext of the model as written
  std::vector<std::byte> checkpoint;  // the safetensors file
  std::size_t moved = 0;              // initializers whose values moved
};

// Moves the values of the main graph's float initializers (float32, float16, bfloat16, double) to
// the checkpoint; integer and bool initializers (shapes, indices the build reads) stay in the text.
SplitModel split_model(const Model& model);

}  // namespace loam::driver
