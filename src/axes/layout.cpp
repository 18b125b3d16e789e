#include "axes/layout.hpp"

namespace loam {

const LayoutRule* match_layout(const std::vector<LayoutRule>& rules, std::string_view tensor_name,
                               std::string_view graph_name) {
  for (const auto& rule : rules) {
    if (rule.graph && *rule.graph != graph_name) continue;
    if (wildcard_match(rule.pattern, tensor_name)) return &rule;
  }
  return nullptr;
}

}  // namespace loam
