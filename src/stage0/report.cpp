#include "stage0/report.hpp"

#include <sstream>

namespace loam::stage0 {

namespace {

std::string value_line(const ValueState& v) {
  std::string s = v.name + ": " + element_type_name(v.elem) + " " + v.shape_string();
  if (!v.value) return s;
  constexpr std::size_t kShown = 16;
  s += " = [";
  std::size_t n = v.value->size();
  for (std::size_t i = 0; i < n && i < kShown; ++i) {
    if (i) s += ", ";
    if (v.value->kind == FoldedValue::Kind::Integer) {
      s += v.value->ints[i].to_string();
    } else {
      std::ostringstream o;
      o << v.value->floats[i];
      s += o.str();
    }
  }
  if (n > kShown) s += ", ... (" + std::to_string(n) + " elements)";
  return s + "]";
}

// An If's branches, each indented under the node: its nodes, their outputs, what it gives the node
// and the conditions its block checks.
void branch_lines(const IfBranches& br, const Stage0Result& outer, const std::string& indent, std::string& out) {
  for (std::size_t side = 0; side < 2; ++side) {
    const IfBranch& b = br.at(side);
    Stage0Result scope = branch_scope(outer, b);
    out += indent + b.attribute + " '" + b.graph->name + "':\n";
    for (const auto& ns : b.nodes) {
      const Node& n = b.graph->nodes[ns.index];
      out += indent + "  " + n.label() + ": " + (ns.folded ? "folded" : ns.regrouping ? "regrouping" : ns.branches ? "if" : "kernel") + "\n";
      for (const auto& o : n.outputs)
        if (!o.empty()) out += indent + "    " + value_line(scope.value(o)) + "\n";
      if (ns.branches) branch_lines(*ns.branches, scope, indent + "    ", out);
    }
    std::string gives;
    for (const auto& o : b.outputs) gives += (gives.empty() ? "" : ", ") + o;
    out += indent + "  gives " + gives + "\n";
    out += indent + "  owed at the top of its block: " + std::to_string(b.owed.size()) + "\n";
    for (const auto& c : b.owed) out += indent + "    " + c.to_string() + "\n";
  }
}

}  // namespace

std::string check_report(const loam::Model& model, const Stage0Result& r) {
  std::string out;
  out += "inputs:\n";
  for (const auto& name : r.inputs) out += "  " + value_line(r.value(name)) + "\n";
  if (!r.bindings.empty()) {
    out += "symbols:\n";
    for (const auto& b : r.bindings)
      out += "  " + b.symbol + (b.alone ? " is" : " is read back from") + " axis " + std::to_string(b.axis) + " of '" +
             b.input + "'" + (b.alone ? "" : " (" + b.spelling.to_string() + ")") + "\n";
  }
  std::size_t folded = 0, regroupings = 0;
  out += "nodes:\n";
  for (const auto& ns : r.nodes) {
    const Node& n = model.graph.nodes[ns.index];
    folded += ns.folded;
    regroupings += ns.regrouping;
    out += "  " + n.label() + ": " + (ns.folded ? "folded" : ns.regrouping ? "regrouping" : ns.branches ? "if" : "kernel") + "\n";
    for (const auto& o : n.outputs)
      if (!o.empty()) out += "    " + value_line(r.value(o)) + "\n";
    if (ns.branches) branch_lines(*ns.branches, r, "    ", out);
  }
  out += "outputs:\n";
  for (const auto& name : r.outputs) out += "  " + value_line(r.value(name)) + "\n";
  out += std::to_string(r.nodes.size()) + " nodes: " + std::to_string(folded) + " folded, " +
         std::to_string(regroupings) + " regroupings, " + std::to_string(r.nodes.size() - folded - regroupings) +
         " kernels\n";
  out += "owed conditions: " + std::to_string(r.owed.size()) + "\n";
  for (const auto& c : r.owed) out += "  " + c.to_string() + "\n";
  return out;
}

}  // namespace loam::stage0
