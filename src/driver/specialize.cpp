#include "driver/specialize.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <set>

#include "graph/verify.hpp"
#include "ops/operator.hpp"
#include "stage0/stage0.hpp"
#include "support/error.hpp"

namespace loam::driver {

namespace {

template <class T>
void append(std::vector<std::byte>& out, T v) {
  const auto* b = reinterpret_cast<const std::byte*>(&v);
  out.insert(out.end(), b, b + sizeof v);
}

// The graph input `input` holding `v`, as an initializer: its declared shape (every axis a number,
// or a scalar) and element type; an integer out of its type's range is refused, as is a real for an
// integer input.
TensorData fixed_tensor(const ValueInfo& input, const FixedValue& v, const std::string& where) {
  TensorData t;
  t.name = input.name;
  t.elem = input.type.elem;
  if (!input.type.shape) fail(where + ": the input declares no shape, so the value's cannot be checked");
  for (std::size_t k = 0; k < input.type.shape->size(); ++k) {
    const Dim& d = (*input.type.shape)[k];
    if (d.kind != Dim::Kind::Value) fail(where + ": axis " + std::to_string(k) + " of the input is no number; a fixed value needs a fixed shape");
    t.dims.push_back(d.value);
  }
  const std::optional<int64_t> count = t.element_count();  // checked: a negative or overflowing shape is nullopt
  if (!count) fail(where + ": the input's declared shape holds no countable number of elements");
  if (static_cast<int64_t>(v.size()) != *count)
    fail(where + ": " + std::to_string(v.size()) + " elements given, the input holds " + std::to_string(*count));
  const bool floating = t.elem == ElementType::F32 || t.elem == ElementType::F64;
  if (v.real && !floating) fail(where + ": the input is " + element_type_name(t.elem) + "; its value must be integers");
  for (std::size_t i = 0; i < v.size(); ++i) {
    const double real = v.real ? v.reals[i] : static_cast<double>(v.integers[i]);
    const int64_t integer = v.real ? 0 : v.integers[i];
    auto in_range = [&](int64_t lo, int64_t hi) {
      if (integer < lo || integer > hi)
        fail(where + ": element " + std::to_string(i) + " (" + std::to_string(integer) + ") lies outside " + element_type_name(t.elem));
    };
    switch (t.elem) {
      case ElementType::F32: append(t.data, static_cast<float>(real)); break;
      case ElementType::F64: append(t.data, real); break;
      case ElementType::I64: append(t.data, integer); break;
      case ElementType::I32: in_range(INT32_MIN, INT32_MAX); append(t.data, static_cast<int32_t>(integer)); break;
      case ElementType::U32: in_range(0, UINT32_MAX); append(t.data, static_cast<uint32_t>(integer)); break;
      case ElementType::I16: in_range(INT16_MIN, INT16_MAX); append(t.data, static_cast<int16_t>(integer)); break;
      case ElementType::U16: in_range(0, UINT16_MAX); append(t.data, static_cast<uint16_t>(integer)); break;
      case ElementType::I8: in_range(INT8_MIN, INT8_MAX); append(t.data, static_cast<int8_t>(integer)); break;
      case ElementType::U8: in_range(0, UINT8_MAX); append(t.data, static_cast<uint8_t>(integer)); break;
      case ElementType::Bool: in_range(0, 1); append(t.data, static_cast<uint8_t>(integer)); break;
      default: fail(where + ": the input is " + std::string(element_type_name(t.elem)) + ", which a fixed value cannot be");
    }
  }
  return t;
}

// Every value name a graph defines or reads, its subgraphs' too (but those of the top-level nodes
// `skipped`).
void names_in(const Graph& g, std::set<std::string>& out, const std::map<std::size_t, std::size_t>& skipped = {}) {
  for (const auto* list : {&g.inputs, &g.outputs})
    for (const auto& v : *list) out.insert(v.name);
  for (const auto& t : g.initializers) out.insert(t.name);
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    for (const auto* list : {&n.inputs, &n.outputs})
      for (const auto& v : *list) out.insert(v);
    if (skipped.count(i)) continue;
    for (const auto& a : n.attributes) {
      if (a.g) names_in(*a.g, out);
      for (const auto& s : a.graphs) names_in(*s, out);
    }
  }
}

bool has_subgraph(const Node& n) {
  for (const auto& a : n.attributes)
    if (a.g || !a.graphs.empty()) return true;
  return false;
}

// Replaces each top-level If stage 0 found taking one branch by that branch's nodes, then an
// Identity from each of the branch's outputs to the If's. A value the branch makes whose name the
// rest of the graph uses too is renamed apart. False when no If was taken.
bool inline_taken_branches(Model& m, const stage0::Stage0Result& st, const std::string& origin) {
  std::map<std::size_t, std::size_t> taken;  // node index -> branch
  for (const auto& ns : st.nodes)
    if (ns.branches && ns.branches->taken) taken.emplace(ns.index, *ns.branches->taken);
  if (taken.empty()) return false;
  std::set<std::string> outer;
  names_in(m.graph, outer, taken);
  std::vector<Node> nodes;
  for (std::size_t i = 0; i < m.graph.nodes.size(); ++i) {
    const Node& n = m.graph.nodes[i];
    auto t = taken.find(i);
    if (t == taken.end()) {
      nodes.push_back(n);
      continue;
    }
    const char* attribute = t->second == 0 ? "then_branch" : "else_branch";
    const Attribute* a = n.attr(attribute);
    const Graph& g = *a->g;
    std::map<std::string, std::string> renamed;
    for (const auto& b : g.nodes)
      for (const auto& o : b.outputs) {
        if (o.empty() || !outer.count(o)) continue;
        std::string fresh = o;
        for (int k = 1; outer.count(fresh) || renamed.count(fresh); ++k) fresh = o + "@" + std::to_string(k);
        renamed[o] = fresh;
      }
    auto spelled = [&](const std::string& v) {
      auto r = renamed.find(v);
      return r == renamed.end() ? v : r->second;
    };
    for (Node b : g.nodes) {
      if (!renamed.empty() && has_subgraph(b))
        fail(origin + n.label() + ": the " + attribute + " taken holds a subgraph and names values the graph names too");
      for (auto& v : b.inputs) v = spelled(v);
      for (auto& v : b.outputs) v = spelled(v);
      for (const auto& v : b.outputs) outer.insert(v);
      nodes.push_back(std::move(b));
    }
    for (std::size_t k = 0; k < n.outputs.size(); ++k) {
      if (n.outputs[k].empty()) continue;
      Node id;
      id.op_type = "Identity";
      id.name = n.name.empty() ? "" : n.name + "/" + attribute + "/" + std::to_string(k);
      id.inputs = {spelled(g.outputs.at(k).name)};
      id.outputs = {n.outputs[k]};
      nodes.push_back(std::move(id));
    }
  }
  m.graph.nodes = std::move(nodes);
  return true;
}

bool takes_a_branch(const stage0::Stage0Result& st) {
  for (const auto& ns : st.nodes)
    if (ns.branches && ns.branches->taken) return true;
  return false;
}

}  // namespace

std::optional<Model> specialize(const Model& model, const Options& options, const std::string& origin) {
  const auto opts = stage0::Stage0Options::from(options, ops::operators(), origin);
  if (options.values.empty() && options.input_shapes.empty()) {
    // Copied only when an If takes a branch (the graph's weights with it).
    bool has_if = false;
    for (const auto& n : model.graph.nodes) has_if = has_if || (n.domain.empty() && n.op_type == "If");
    if (!has_if || !takes_a_branch(stage0::run_stage0(model, opts))) return std::nullopt;
  }
  Model m = model;
  // A shape the options restate for an input the graph declares wrongly (optimum's merged decoder
  // gives the attention mask the prompt's length, which a step with a past does not have).
  for (const auto& restated : options.input_shapes) {
    const std::string& name = restated.first;
    const std::string where = origin + ": option 'input_shapes." + name + "'";
    auto it = std::find_if(m.graph.inputs.begin(), m.graph.inputs.end(), [&](const ValueInfo& v) { return v.name == name; });
    if (it == m.graph.inputs.end() || m.graph.initializer(name)) fail(where + ": the graph has no input '" + name + "'");
    if (it->type.shape && it->type.shape->size() != restated.second.size())
      fail(where + ": the graph declares " + std::to_string(it->type.shape->size()) + " axes, the option " +
           std::to_string(restated.second.size()));
    std::vector<Dim> dims;
    for (const auto& d : restated.second)
      dims.push_back(std::holds_alternative<int64_t>(d) ? Dim::of(std::get<int64_t>(d)) : Dim::named(std::get<std::string>(d)));
    it->type.shape = std::move(dims);
  }
  for (const auto& fixed : options.values) {
    const std::string& name = fixed.first;  // not a structured binding: clang 14 captures none
    const FixedValue& value = fixed.second;
    const std::string where = origin + ": option 'values." + name + "'";
    auto it = std::find_if(m.graph.inputs.begin(), m.graph.inputs.end(), [&](const ValueInfo& v) { return v.name == name; });
    if (it == m.graph.inputs.end()) fail(where + ": the graph has no input '" + name + "'");
    if (m.graph.initializer(name)) fail(where + ": '" + name + "' is an initializer already");
    m.graph.initializers.push_back(fixed_tensor(*it, value, where));
    m.graph.inputs.erase(it);
  }
  while (inline_taken_branches(m, stage0::run_stage0(m, opts), origin)) verify_graph(m, origin);
  return m;
}

}  // namespace loam::driver
