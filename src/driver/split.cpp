#include "driver/split.hpp"

#include <algorithm>

#include "checkpoint/safetensors.hpp"
#include "onnx/printer.hpp"

namespace loam::driver {

SplitModel split_model(const Model& model) {
  Model graph = model;
  std::vector<const TensorData*> values;
  for (const auto& t : model.graph.initializers) {
    const bool float_type = t.elem == ElementType::F32 || t.elem == ElementType::F16 || t.elem == ElementType::BF16 ||
                            t.elem == ElementType::F64;
    if (float_type && t.has_data) values.push_back(&t);
  }
  for (auto& t : graph.graph.initializers) {
    const bool moved = std::any_of(values.begin(), values.end(), [&](const TensorData* v) { return v->name == t.name; });
    if (!moved) continue;
    t.has_data = false;
    t.data.clear();
  }
  SplitModel out;
  out.checkpoint = write_safetensors(values);
  out.text = print_onnxtext(graph);
  out.moved = values.size();
  return out;
}

}  // namespace loam::driver
