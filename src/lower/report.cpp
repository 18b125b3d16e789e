// The fusion report: one entry per node of the top-level graph, in graph order, saying which kernel
// its call runs and which nodes that call also computes, or where its value went (fused into
// another node's call, folded by the build, prepared at load), and for every value a call of its
// own defines, why it is materialised. The reasons are FusionReason's closed list (docs/fusion.md).
#include <nlohmann/json.hpp>

#include "lower/module.hpp"

namespace loam::lower {
namespace {

// Calls that move no element: not counted as kernels.
bool moves_nothing(const KernelCall& c) { return c.kernel == "lift" || c.kernel == "identity" || c.kernel == "reshape"; }

// "loom ew3" for a generated kernel, else the runtime kernel's name.
std::string kernel_name(const KernelCall& c) {
  if (c.kernel == "loom" && !c.args.empty()) return "loom " + c.args[0].code;
  if (c.epilogue) return c.kernel + " + " + kernel_name(c.epilogue->kernel);
  return c.kernel;
}

// The name a node goes by in the report: its own, or its first output's.
std::string node_name(const Node& n) {
  if (!n.name.empty()) return n.name;
  return n.outputs.empty() ? n.op_type : n.outputs.front();
}

}  // namespace

std::string fusion_report(const Model& model, const LoweredModule& m, bool json) {
  const auto& nodes = model.graph.nodes;
  std::map<std::size_t, std::vector<std::string>> kernels;  // node -> its calls' kernels
  std::size_t kernel_count = 0;
  for (const auto& c : m.calls) {
    if (!c.graph_node || moves_nothing(c)) continue;
    kernels[*c.graph_node].push_back(kernel_name(c));
    ++kernel_count;
  }
  for (const auto& c : m.calls)
    if (c.graph_node && moves_nothing(c) && !kernels.count(*c.graph_node)) kernels[*c.graph_node].push_back(kernel_name(c));
  std::map<std::size_t, std::vector<std::size_t>> fused_with;
  for (const auto& [i, d] : m.decisions)
    if (d.reason == FusionReason::Fused && d.into) fused_with[*d.into].push_back(i);

  nlohmann::ordered_json entries = nlohmann::ordered_json::array();
  std::string text;
  for (const auto& [i, d] : m.decisions) {
    const Node& n = nodes.at(i);
    nlohmann::ordered_json e;
    e["node"] = node_name(n);
    e["op"] = n.domain.empty() ? n.op_type : n.domain + "." + n.op_type;
    std::string line = n.label() + ": ";
    auto k = kernels.find(i);
    if (k != kernels.end()) {
      e["kernel"] = k->second.size() == 1 ? nlohmann::ordered_json(k->second[0]) : nlohmann::ordered_json(k->second);
      std::string ks;
      for (const auto& s : k->second) ks += (ks.empty() ? "" : ", ") + s;
      line += "kernel " + ks;
      if (auto f = fused_with.find(i); f != fused_with.end()) {
        nlohmann::ordered_json with = nlohmann::ordered_json::array();
        std::string names;
        for (auto j : f->second) {
          with.push_back(node_name(nodes.at(j)));
          names += (names.empty() ? "'" : ", '") + node_name(nodes.at(j)) + "'";
        }
        e["fused_with"] = with;
        line += " with " + names;
      }
      e["materialised"] = fusion_reason_name(d.reason);
      line += "; materialised: " + std::string(fusion_reason_name(d.reason));
    } else {
      e["kernel"] = nullptr;
      e["decision"] = fusion_reason_name(d.reason);
      line += fusion_reason_name(d.reason);
      if (d.into) {
        e["into"] = node_name(nodes.at(*d.into));
        line += " into '" + node_name(nodes.at(*d.into)) + "'";
      }
    }
    entries.push_back(std::move(e));
    text += line + "\n";
  }
  if (!json)
    return text + std::to_string(nodes.size()) + (nodes.size() == 1 ? " node, " : " nodes, ") + std::to_string(kernel_count) +
           (kernel_count == 1 ? " kernel\n" : " kernels\n");
  nlohmann::ordered_json out;
  out["nodes"] = nodes.size();
  out["kernels"] = kernel_count;
  out["decisions"] = std::move(entries);
  return out.dump(2) + "\n";
}

}  // namespace loam::lower
