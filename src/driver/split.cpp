#include "driver/split.hpp"

#include "checkpoint/safetensors.hpp"
#include "onnx/printer.hpp"

namespace loam::driver {

SplitModel split_model(const Model& model) {
  Model graph = model;
  std::vector<const TensorData*> values;
  for (std::size_t i = 0; i < model.graph.initializers.size(); ++i) {
    const TensorData& t = model.graph.initializers[i];
    const bool float_type = t.elem == ElementType::F32 || t.elem == ElementType::F16 || t.elem == ElementType::BF16 ||
                            t.elem == ElementType::F64;
    if (!float_type || !t.has_data) continue;
    values.push_back(&t);
    graph.graph.initializers[i].has_data = false;
    graph.graph.initializers[i].data.clear();
  }
  SplitModel out;
  out.checkpoint = write_safetensors(values);
  out.text = print_onnxtext(graph);
  out.moved = values.size();
  return out;
}

}  // namespace loam::driver
