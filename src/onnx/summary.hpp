// What `loam inspect` prints about a model: opsets, inputs and outputs with their shapes,
// initializers (count and bytes) and an operator histogram, as text or as JSON.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "graph/graph.hpp"

namespace loam {

struct ModelSummary {
  int64_t ir_version = 0;
  std::string producer;  // "name version"
  std::vector<OpsetImport> opsets;
  std::vector<ValueInfo> inputs;   // graph inputs that no initializer feeds
  std::vector<ValueInfo> outputs;
  int64_t initializer_count = 0;
  int64_t initializer_bytes = 0;   // bytes of data carried in the model
  int64_t initializers_without_data = 0;
  int64_t node_count = 0;          // including nodes of subgraphs
  std::map<std::string, int64_t> operators;  // "Conv" or "domain.Op" -> count, subgraphs included
};

ModelSummary summarize(const Model& model);
// Human-readable, several lines, deterministic.
std::string summary_text(const ModelSummary& s);
// One JSON object, keys in a fixed order.
std::string summary_json(const ModelSummary& s);
// "float[N,3,224,224]"-style spelling of a value's type, as the text form writes it.
std::string type_text(const TensorType& t);

}  // namespace loam
