#include "graph/verify.hpp"

#include <map>
#include <set>
#include <string_view>

#include "support/error.hpp"

namespace loam {
namespace {

std::string q(const std::string& s) { return "'" + s + "'"; }

// Names visible to a graph: its own definitions plus those of every graph around it.
struct Scope {
  const Scope* outer = nullptr;
  std::set<std::string> names;
  bool has(const std::string& n) const {
    for (const Scope* s = this; s; s = s->outer)
      if (s->names.count(n)) return true;
    return false;
  }
};

void check_element_type(ElementType t, bool undefined_ok, const std::string& where) {
  auto v = static_cast<int32_t>(t);
  if (!is_known_element_type(v) || (!undefined_ok && t == ElementType::Undefined))
    fail(where + ": unsupported element type " + std::to_string(v));
}

void check_tensor(const TensorData& t, const std::string& where) {
  check_element_type(t.elem, false, where);
  if (t.has_data && t.elem != ElementType::String) {
    auto n = t.element_count();
    if (!n) fail(where + ": element count of its dims overflows");
    uint64_t bytes = 0;
    if (__builtin_mul_overflow(static_cast<uint64_t>(*n), element_size(t.elem), &bytes) || bytes != t.data.size())
      fail(where + ": holds " + std::to_string(t.data.size()) + " bytes, its dims need " + std::to_string(bytes));
  }
}

// Names a graph reads from the graphs around it (including through its own subgraphs).
void free_names(const Graph& g, std::set<std::string>& out);

void subgraph_reads(const Node& n, std::set<std::string>& out) {
  for (const auto& a : n.attributes) {
    if (a.g) free_names(*a.g, out);
    for (const auto& sg : a.graphs)
      if (sg) free_names(*sg, out);
  }
}

void free_names(const Graph& g, std::set<std::string>& out) {
  std::set<std::string> defined;
  for (const auto& v : g.inputs) defined.insert(v.name);
  for (const auto& t : g.initializers) defined.insert(t.name);
  for (const auto& n : g.nodes)
    for (const auto& o : n.outputs) defined.insert(o);
  std::set<std::string> reads;
  for (const auto& n : g.nodes) {
    for (const auto& i : n.inputs)
      if (!i.empty()) reads.insert(i);
    subgraph_reads(n, reads);
  }
  for (const auto& v : g.outputs) reads.insert(v.name);
  for (const auto& r : reads)
    if (!defined.count(r)) out.insert(r);
}

class Verifier {
 public:
  Verifier(const Model& m, const std::string& origin) : model_(m), origin_(origin) {}

  void graph(const Graph& g, const Scope* outer, const std::string& where) {
    Scope scope{outer, {}};
    std::map<std::string, std::string> definer;  // name -> what defines it, for messages
    auto define = [&](const std::string& name, const std::string& what) {
      auto [it, fresh] = definer.emplace(name, what);
      if (!fresh) fail(where + what + ": name " + q(name) + " is already defined by " + it->second);
      scope.names.insert(name);
    };
    for (const auto& v : g.inputs) {
      check_element_type(v.type.elem, true, where + "graph input " + q(v.name));
      define(v.name, "graph input " + q(v.name));
    }
    for (const auto& t : g.initializers) {
      check_tensor(t, where + "initializer " + q(t.name));
      // An initializer may also be listed as a graph input (IR version < 4 requires it).
      auto it = definer.find(t.name);
      if (it != definer.end() && it->second.rfind("graph input", 0) == 0) continue;
      define(t.name, "initializer " + q(t.name));
    }
    for (const auto& n : g.nodes)
      for (const auto& o : n.outputs)
        if (!o.empty()) define(o, n.label());
    for (const auto& v : g.outputs) check_element_type(v.type.elem, true, where + "graph output " + q(v.name));
    for (const auto& v : g.value_info) check_element_type(v.type.elem, true, where + "value_info " + q(v.name));

    for (const auto& n : g.nodes) {
      const std::string at = where + n.label();
      check_domain(n, at);
      for (const auto& i : n.inputs)
        if (!i.empty() && !scope.has(i))
          fail(at + ": input " + q(i) + " is not defined (no graph input, initializer or node output has that name)");
      for (const auto& a : n.attributes) {
        const std::string aat = at + ": attribute " + q(a.name);
        if (a.t) check_tensor(*a.t, aat);
        for (const auto& t : a.tensors) check_tensor(t, aat);
        if (a.g) graph(*a.g, &scope, aat + ": graph " + q(a.g->name) + ": ");
        for (const auto& sg : a.graphs)
          if (sg) graph(*sg, &scope, aat + ": graph " + q(sg->name) + ": ");
      }
    }
    for (const auto& v : g.outputs)
      if (!scope.has(v.name)) fail(where + "graph output " + q(v.name) + " is not defined by any node, input or initializer");
    check_acyclic(g, where);
  }

 private:
  void check_domain(const Node& n, const std::string& at) {
    if (n.domain.empty() || n.domain == "ai.onnx") {
      if (!model_.opset("")) fail(at + ": the model imports no opset for the default ONNX domain");
      return;
    }
    if (n.domain == "loam") return;
    fail(at + ": domain " + q(n.domain) + " is not one Loam reads (it reads the default ONNX domain)");
  }

  // Kahn's algorithm over the nodes of one graph; an edge runs from the node producing a tensor to
  // each node reading it, directly or from inside one of its subgraphs.
  void check_acyclic(const Graph& g, const std::string& where) {
    std::map<std::string, std::size_t> producer;
    for (std::size_t k = 0; k < g.nodes.size(); ++k)
      for (const auto& o : g.nodes[k].outputs)
        if (!o.empty()) producer.emplace(o, k);
    std::vector<std::vector<std::size_t>> readers(g.nodes.size());
    std::vector<std::size_t> pending(g.nodes.size(), 0);
    for (std::size_t k = 0; k < g.nodes.size(); ++k) {
      std::set<std::string> reads(g.nodes[k].inputs.begin(), g.nodes[k].inputs.end());
      subgraph_reads(g.nodes[k], reads);
      for (const auto& r : reads) {
        auto it = producer.find(r);
        if (it == producer.end()) continue;
        readers[it->second].push_back(k);
        ++pending[k];
      }
    }
    std::vector<std::size_t> ready;
    for (std::size_t k = 0; k < g.nodes.size(); ++k)
      if (pending[k] == 0) ready.push_back(k);
    std::size_t done = 0;
    while (!ready.empty()) {
      std::size_t k = ready.back();
      ready.pop_back();
      ++done;
      for (std::size_t r : readers[k])
        if (--pending[r] == 0) ready.push_back(r);
    }
    if (done == g.nodes.size()) return;
    // Name the first node left on a cycle and the input that closes it.
    for (std::size_t k = 0; k < g.nodes.size(); ++k) {
      if (pending[k] == 0) continue;
      for (const auto& i : g.nodes[k].inputs) {
        auto it = producer.find(i);
        if (it != producer.end() && pending[it->second] != 0)
          fail(where + g.nodes[k].label() + ": input " + q(i) + " is produced by " +
               g.nodes[it->second].label() + ", which depends on this node's output (a cycle)");
      }
      fail(where + g.nodes[k].label() + ": lies on a cycle (through a tensor its subgraph reads)");
    }
  }

  const Model& model_;
  const std::string& origin_;
};

}  // namespace

void verify_graph(const Model& model, const std::string& origin) {
  Verifier v(model, origin);
  v.graph(model.graph, nullptr, origin + ": ");
}

}  // namespace loam
