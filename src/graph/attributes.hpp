// Reading a node's attributes and normalising an axis, once for every pass (stage 0's rules, axis
// naming, lowering): ONNX's default where the attribute is absent, and a refusal naming the
// attribute where it has another kind than the operator defines, or where an axis lies outside the
// rank. `refuse` is the pass's way of stopping the build with the node named.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph.hpp"

namespace loam {

class NodeAttributes {
 public:
  using Refuse = std::function<void(const std::string& why)>;  // does not return
  NodeAttributes(const Node& node, Refuse refuse) : node_(node), refuse_(std::move(refuse)) {}

  // The attribute of that kind, or nullptr when absent.
  const Attribute* find(std::string_view name, Attribute::Kind kind) const;

  int64_t integer(std::string_view name, int64_t fallback) const;
  std::optional<int64_t> integer(std::string_view name) const;
  float real(std::string_view name, float fallback) const;
  std::string text(std::string_view name, const std::string& fallback) const;
  std::optional<std::vector<int64_t>> integers(std::string_view name) const;

  // `axis` counted from the end where negative, in [0, rank); `what` names it in the refusal.
  std::size_t axis(int64_t axis, std::size_t rank, const std::string& what = "axis") const;

 private:
  const Node& node_;
  Refuse refuse_;
};

}  // namespace loam
