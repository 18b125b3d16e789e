// The fusion report: one entry per node of the top-level graph, in graph order (an If's holds its
// branches' entries the same way), saying which kernel its call runs and which nodes that call also
// computes, or where its value went (fused into another node's call, folded by the build, prepared
// at load), and for every value a call of its own defines, why it is materialised. The reasons are FusionReason's closed list (docs/fusion.md).
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

namespace {

// The entries of one graph's nodes (the top-level graph's, or an If branch's, whose calls are its
// block's), in graph order; an If's entry holds its branches' under "branches". `kernel_count`
// counts the calls, `node_count` the nodes, of every graph reached.
nlohmann::ordered_json graph_entries(const std::vector<Node>& nodes, const std::vector<KernelCall>& calls,
                                     const std::map<std::size_t, NodeDecision>& decisions, const std::string& indent,
                                     std::string& text, std::size_t& kernel_count, std::size_t& node_count) {
  std::map<std::size_t, std::vector<std::string>> kernels;  // node -> its calls' kernels
  std::map<std::size_t, const BranchCall*> branches;       // an If's node -> its blocks
  for (const auto& c : calls) {
    if (!c.graph_node || moves_nothing(c)) continue;
    kernels[*c.graph_node].push_back(kernel_name(c));
    if (c.branch) branches[*c.graph_node] = c.branch.get();
    else ++kernel_count;
  }
  for (const auto& c : calls)
    if (c.graph_node && moves_nothing(c) && !kernels.count(*c.graph_node)) kernels[*c.graph_node].push_back(kernel_name(c));
  std::map<std::size_t, std::vector<std::size_t>> fused_with;
  for (const auto& [i, d] : decisions)
    if (d.reason == FusionReason::Fused && d.into) fused_with[*d.into].push_back(i);

  nlohmann::ordered_json entries = nlohmann::ordered_json::array();
  node_count += decisions.size();
  for (const auto& [i, d] : decisions) {
    const Node& n = nodes.at(i);
    nlohmann::ordered_json e;
    e["node"] = node_name(n);
    e["op"] = n.domain.empty() ? n.op_type : n.domain + "." + n.op_type;
    std::string line = indent + n.label() + ": ";
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
    text += line + "\n";
    if (auto b = branches.find(i); b != branches.end()) {
      nlohmann::ordered_json blocks;
      for (const Block* blk : {&b->second->then_block, &b->second->else_block}) {
        if (!blk->graph) continue;
        text += indent + "  " + blk->attribute + ":\n";
        blocks[blk->attribute] =
            graph_entries(blk->graph->nodes, blk->calls, blk->decisions, indent + "    ", text, kernel_count, node_count);
      }
      e["branches"] = std::move(blocks);
    }
    entries.push_back(std::move(e));
  }
  return entries;
}

}  // namespace

std::string fusion_report(const Model& model, const LoweredModule& m, bool json) {
  std::string text;
  std::size_t kernel_count = 0, node_count = 0;
  auto entries = graph_entries(model.graph.nodes, m.calls, m.decisions, "", text, kernel_count, node_count);
  if (!json)
    return text + std::to_string(node_count) + (node_count == 1 ? " node, " : " nodes, ") + std::to_string(kernel_count) +
           (kernel_count == 1 ? " kernel\n" : " kernels\n");
  nlohmann::ordered_json out;
  out["nodes"] = node_count;
  out["kernels"] = kernel_count;
  out["decisions"] = std::move(entries);
  return out.dump(2) + "\n";
}

}  // namespace loam::lower
