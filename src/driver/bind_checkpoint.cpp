#include "driver/bind_checkpoint.hpp"

#include <algorithm>
#include <set>

#include "support/error.hpp"

namespace loam::driver {

namespace {

// The names a published checkpoint may store `parameter` under, in the order they are tried: its
// own, with a table prefix dropped or added, then the tensor a tie shares it with (in both forms).
std::vector<std::string> candidate_names(const std::string& parameter, const axes::Architecture& arch) {
  std::vector<std::string> bases{parameter};
  for (const auto& p : arch.prefixes)
    if (parameter.rfind(p, 0) == 0) bases.push_back(parameter.substr(p.size()));
  std::vector<std::string> out;
  auto add = [&](const std::string& base) {
    if (std::find(out.begin(), out.end(), base) == out.end()) out.push_back(base);
    for (const auto& p : arch.prefixes)
      if (base.rfind(p, 0) != 0 && std::find(out.begin(), out.end(), p + base) == out.end()) out.push_back(p + base);
  };
  for (const auto& b : bases) add(b);
  for (const auto& b : bases)
    for (const auto& [from, to] : arch.ties)
      if (b == from) add(to);
  return out;
}

void rename_uses(Graph& g, const std::string& from, const std::string& to) {
  for (auto& n : g.nodes) {
    for (auto& in : n.inputs)
      if (in == from) in = to;
    for (auto& a : n.attributes) {
      if (a.g) rename_uses(*a.g, from, to);
      for (auto& sub : a.graphs)
        if (sub) rename_uses(*sub, from, to);
    }
  }
  for (auto& o : g.outputs)
    if (o.name == from) o.name = to;
  for (auto& v : g.value_info)
    if (v.name == from) v.name = to;
}

std::string shape_text(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

}  // namespace

std::optional<Model> bind_checkpoint_names(const Model& model, const Checkpoint& checkpoint,
                                           const axes::Architecture& arch, const std::string& origin) {
  const auto parameters = axes::parameter_names(model.graph);
  std::set<std::string> values;  // every name a node writes or the graph takes
  for (const auto& v : model.graph.inputs) values.insert(v.name);
  for (const auto& n : model.graph.nodes)
    for (const auto& o : n.outputs) values.insert(o);

  Model out = model;
  Graph& g = out.graph;
  std::vector<Node> transposes;
  bool changed = false;
  for (const auto& t : model.graph.initializers) {
    if (t.has_data || checkpoint.find(t.name)) continue;
    const axes::ParameterName& parameter = parameters.at(t.name);
    std::vector<int64_t> wanted = t.dims;
    if (parameter.transposed) std::reverse(wanted.begin(), wanted.end());
    const auto names = candidate_names(parameter.name, arch);
    std::string found, mismatch;
    for (const auto& name : names) {
      auto entry = checkpoint.find(name);
      if (!entry) continue;
      if (entry->tensor->shape == wanted) {
        found = name;
        break;
      }
      if (mismatch.empty())
        mismatch = "; its '" + name + "' is " + shape_text(entry->tensor->shape) + " where the graph reads " + shape_text(wanted);
    }
    const std::string what = parameter.name == t.name ? std::string()
                                                       : " (the parameter " + parameter.name + (parameter.transposed ? ", transposed" : "") + ")";
    if (found.empty()) {
      std::string tried;
      for (const auto& n : names) tried += (tried.empty() ? "'" : ", '") + n + "'";
      fail(origin + ": initializer '" + t.name + "'" + what + " has no data in the graph, and the checkpoint (" +
           checkpoint.origins() + ") has none of the names the architecture '" + arch.name + "' gives it: " + tried + mismatch);
    }
    if (values.count(found))
      fail(origin + ": initializer '" + t.name + "'" + what + " is the checkpoint's '" + found +
           "', a name a node or input of the graph already has");
    changed = true;
    auto held = std::find_if(g.initializers.begin(), g.initializers.end(), [&](const TensorData& d) { return d.name == found; });
    const bool exists = held != g.initializers.end();
    if (!exists) {
      TensorData bound = t;
      bound.name = found;
      bound.dims = wanted;
      g.initializers.push_back(std::move(bound));
    }
    if (parameter.transposed) {
      Node transpose;
      transpose.name = "/checkpoint/" + found + "/Transpose";
      transpose.op_type = "Transpose";
      transpose.inputs = {found};
      transpose.outputs = {t.name};
      transposes.push_back(std::move(transpose));
    } else {
      rename_uses(g, t.name, found);
    }
    std::erase_if(g.initializers, [&](const TensorData& d) { return d.name == t.name; });
  }
  if (!changed) return std::nullopt;
  g.nodes.insert(g.nodes.begin(), transposes.begin(), transposes.end());
  return out;
}

}  // namespace loam::driver
