// The axis naming as text, for `loam build --emit=axes`: each axis with its length where every
// value fixes it, then every value the module holds with its axis names, then each If's blocks.
#include "axes/naming.hpp"

#include <algorithm>

namespace loam::axes {

namespace {

void print_values(std::string& out, const AxisNaming& n, int depth) {
  const std::string pad(static_cast<std::size_t>(depth) * 2, ' ');
  for (const auto& [tensor, names] : n.values) {
    out += pad + tensor + ": [";
    for (std::size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i].text();
    out += "]\n";
  }
  for (const auto& r : n.relabels) {
    out += pad + "relabel " + r.tensor + ":";
    for (const auto& a : r.from) out += " " + a.text();
    out += " ->";
    for (const auto& a : r.to) out += " " + a.text();
    out += "\n";
  }
}

}  // namespace

std::string print_naming(const AxisNaming& n) {
  std::string out = "axes:";
  for (const auto& a : n.axes) {
    out += " " + a;
    auto it = n.fixed_extent.find(a);
    if (it != n.fixed_extent.end()) out += "=" + std::to_string(it->second);
  }
  out += "\n";
  print_values(out, n, 0);
  // Keyed by node address: printed in the order of the nodes' labels, so the text is the same on
  // every run.
  std::vector<std::pair<std::string, const std::vector<AxisNaming>*>> branches;
  for (const auto& [node, blocks] : n.branches) branches.emplace_back(node->label(), &blocks);
  std::sort(branches.begin(), branches.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [label, blocks] : branches)
    for (std::size_t b = 0; b < blocks->size(); ++b) {
      out += "branch " + label + (b == 0 ? " then" : " else") + ":\n";
      print_values(out, (*blocks)[b], 1);
    }
  return out;
}

}  // namespace loam::axes
