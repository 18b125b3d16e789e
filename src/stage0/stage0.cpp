#include "stage0/stage0.hpp"

#include <algorithm>
#include <cstring>
#include <set>
#include <unordered_set>

#include "ops/operator.hpp"
#include "stage0/op_context.hpp"
#include "support/error.hpp"

namespace loam::stage0 {

Stage0Options Stage0Options::from(const loam::Options& o, const ops::OperatorTable& operators, std::string origin) {
  Stage0Options s;
  s.operators = &operators;
  s.dims = o.dims;
  for (const auto& [name, range] : o.ranges) s.ranged.insert(name);
  s.outputs = o.outputs;
  s.origin = std::move(origin);
  return s;
}

bool FoldedValue::all_constant() const {
  if (kind == Kind::Float) return true;
  for (const auto& e : ints)
    if (!e.is_constant()) return false;
  return true;
}

std::string ValueState::shape_string() const {
  std::string s = "[";
  for (std::size_t k = 0; k < dims.size(); ++k) s += (k ? ", " : "") + dims[k].to_string();
  return s + "]";
}

const ValueState* Stage0Result::find(const std::string& name) const {
  auto it = values.find(name);
  return it == values.end() ? nullptr : &it->second;
}

const ValueState& Stage0Result::value(const std::string& name) const {
  const ValueState* v = find(name);
  if (!v) fail("stage 0: no value named '" + name + "'");
  return *v;
}

Stage0Result branch_scope(const Stage0Result& outer, const IfBranch& branch) {
  Stage0Result scope;
  scope.operators = outer.operators;
  scope.values = outer.values;
  for (const auto& [name, v] : branch.values) scope.values.insert_or_assign(name, v);
  scope.nodes = branch.nodes;
  scope.outputs = branch.outputs;
  scope.owed = branch.owed;
  scope.bindings = outer.bindings;
  return scope;
}

namespace {

// A declared dimension that names nothing: no dim_value and no dim_param, the -1 exporters write
// for a length they leave open (ONNX allows no negative dim_value), or the dim_param "?". Each is a
// length of its own: two of them are never one symbol.
bool names_nothing(const Dim& d) {
  return d.kind == Dim::Kind::Unknown || (d.kind == Dim::Kind::Value && d.value == -1) ||
         (d.kind == Dim::Kind::Param && (d.param == "?" || d.param.empty()));
}

// The symbol standing for axis `k` of `tensor` where its declaration names nothing: "x[0]".
std::string unnamed_symbol(const std::string& tensor, std::size_t k) { return tensor + "[" + std::to_string(k) + "]"; }

// Refuses a value whose lengths the build knows already make it hold 2^63 bytes or more, whatever
// its symbols: no tensor that large can exist, and every count, stride and offset the lowering and
// the module compute from its extents would wrap.
void require_storable(const ValueState& v, const std::string& where) {
  const __int128 limit = INT64_MAX;
  __int128 bytes = static_cast<__int128>(std::max<std::size_t>(element_size(v.elem), 1));
  std::string known;
  for (const auto& d : v.dims) {
    const auto c = d.constant();
    if (!c) continue;
    if (*c == 0) return;  // empty, whatever the other lengths are
    known += (known.empty() ? "" : " * ") + std::to_string(*c);
    bytes = std::min(bytes * *c, limit + 1);  // each factor is below 2^63: no wrap before the clamp
  }
  if (bytes > limit)
    fail(where + " " + v.shape_string() + " would hold " + known + " elements of " + element_type_name(v.elem) +
         " (the lengths the build knows), 2^63 bytes or more");
}

struct Run {
  const Model& model;
  const Stage0Options& options;
  std::string origin;  // "model.onnx: " or ""
  Stage0Result result;
  OwedConditions owed;
  std::set<std::string> dims_used;  // keys of options.dims the graph declares
  std::vector<NodeState>* nodes_out = nullptr;  // where run_node records a node (the graph's or a branch's)
  int branch_depth = 0;

  [[noreturn]] void error(const std::string& msg) const { fail(origin + msg); }

  // The extent of one declared dimension, after `dims`. `where` names the tensor and axis; `unnamed`
  // is the symbol a dimension that names nothing stands for (`dims` reaches it by that name).
  Extent declared_extent(const Dim& d, const std::string& where, const std::string& unnamed) {
    if (names_nothing(d)) {
      if (auto fixed = options.dims.find(unnamed); fixed != options.dims.end()) {
        dims_used.insert(unnamed);
        return Extent(fixed->second);
      }
      return Extent::symbol(input_symbol(unnamed));
    }
    if (d.kind == Dim::Kind::Value) {
      if (d.value < 0)
        error(where + ": declared length " + std::to_string(d.value) + " is negative (-1 alone stands for a length the graph leaves open)");
      return Extent(d.value);
    }
    auto whole = options.dims.find(d.param);
    if (whole != options.dims.end()) {
      dims_used.insert(d.param);
      if (whole->second < 0)
        error("option dims: '" + d.param + "' is fixed to the negative extent " + std::to_string(whole->second));
      return Extent(whole->second);
    }
    std::vector<std::string> names;
    Extent e = parse_dim_param(d.param, &names);
    if (!is_spelled_arithmetic(d.param)) return e;
    std::vector<std::string> fixed, open;
    for (const auto& n : names) (options.dims.count(n) ? fixed : open).push_back(n);
    if (fixed.empty()) return e;
    if (!open.empty())
      error(where + ": option dims fixes '" + fixed.front() + "' of the spelled length '" + d.param +
            "' but not '" + open.front() + "'");
    for (const auto& n : fixed) {
      dims_used.insert(n);
      int64_t v = options.dims.at(n);
      if (v < 0) error("option dims: '" + n + "' is fixed to the negative extent " + std::to_string(v));
      e = e.substitute(input_symbol(n), Extent(v));
    }
    if (*e.constant() < 0)
      error(where + ": option dims makes the spelled length '" + d.param + "' " + e.to_string() + ", a negative extent");
    return e;
  }

  std::vector<Extent> declared_shape(const ValueInfo& vi, const char* role) {
    if (!vi.type.shape)
      error(std::string(role) + " '" + vi.name + "': its rank is unknown; stage 0 needs every input's rank");
    std::vector<Extent> dims;
    for (std::size_t k = 0; k < vi.type.shape->size(); ++k)
      dims.push_back(declared_extent((*vi.type.shape)[k], std::string(role) + " '" + vi.name + "' axis " + std::to_string(k),
                                     unnamed_symbol(vi.name, k)));
    return dims;
  }

  // Which nodes, inputs and initializers the chosen outputs read.
  std::vector<bool> cut(const Graph& g) {
    std::vector<bool> keep(g.nodes.size(), true);
    if (!options.outputs) return keep;
    std::unordered_map<std::string, std::size_t> producer;
    for (std::size_t i = 0; i < g.nodes.size(); ++i)
      for (const auto& o : g.nodes[i].outputs)
        if (!o.empty()) producer[o] = i;
    std::fill(keep.begin(), keep.end(), false);
    std::vector<std::string> work = *options.outputs;
    std::unordered_set<std::string> seen;
    auto visit_graph_reads = [&](const Graph& sub, auto&& self) -> void {
      for (const auto& n : sub.nodes) {
        for (const auto& i : n.inputs)
          if (!i.empty()) work.push_back(i);
        for (const auto& a : n.attributes) {
          if (a.g) self(*a.g, self);
          for (const auto& sg : a.graphs)
            if (sg) self(*sg, self);
        }
      }
      for (const auto& o : sub.outputs) work.push_back(o.name);
    };
    while (!work.empty()) {
      std::string v = work.back();
      work.pop_back();
      if (!seen.insert(v).second) continue;
      auto it = producer.find(v);
      if (it == producer.end() || keep[it->second]) continue;
      keep[it->second] = true;
      const Node& n = g.nodes[it->second];
      for (const auto& i : n.inputs)
        if (!i.empty()) work.push_back(i);
      for (const auto& a : n.attributes) {
        if (a.g) visit_graph_reads(*a.g, visit_graph_reads);
        for (const auto& sg : a.graphs)
          if (sg) visit_graph_reads(*sg, visit_graph_reads);
      }
    }
    return keep;
  }

  void bind_symbols(const Graph& g) {
    // Input axes in order, with their spelled text (for re-reading a spelling as one opaque name).
    struct Axis {
      std::string input;
      std::size_t axis;
      const Dim* dim;
    };
    std::vector<Axis> axes;
    for (const auto& name : result.inputs) {
      const ValueInfo* vi = nullptr;
      for (const auto& i : g.inputs)
        if (i.name == name) vi = &i;
      for (std::size_t k = 0; k < vi->type.shape->size(); ++k) axes.push_back({name, k, &(*vi->type.shape)[k]});
    }
    std::set<SymbolId> bound;
    auto all_inputs_bound = [&](const Extent& e, std::vector<SymbolId>& open) {
      open.clear();
      for (SymbolId s : e.symbols())
        if (!bound.count(s)) open.push_back(s);
    };
    std::vector<SymbolId> open;
    // A name an input axis carries alone binds from the first such axis.
    auto bind_alone = [&] {
      for (const auto& a : axes) {
        const Extent& e = result.values.at(a.input).dims[a.axis];
        if (auto s = e.as_symbol(); s && !bound.count(*s)) {
          bound.insert(*s);
          result.bindings.push_back({symbol_display(*s), a.input, a.axis, e, true});
        }
      }
    };
    bind_alone();
    for (;;) {
      // Else a name is read back from the first axis linear in it once its other names are bound.
      bool changed = false;
      for (const auto& a : axes) {
        const Extent& e = result.values.at(a.input).dims[a.axis];
        all_inputs_bound(e, open);
        if (open.size() != 1) continue;
        bool linear = true;
        for (const auto& t : e.terms())
          for (const auto& [s, p] : t.mono)
            if (s == open[0] && p != 1) linear = false;
        if (!linear) continue;
        bound.insert(open[0]);
        result.bindings.push_back({symbol_display(open[0]), a.input, a.axis, e, false});
        changed = true;
        break;
      }
      if (changed) continue;
      // A spelling over a name no input axis yields is one opaque name after all.
      for (const auto& a : axes) {
        ValueState& v = result.values.at(a.input);
        all_inputs_bound(v.dims[a.axis], open);
        if (open.empty() || a.dim->kind != Dim::Kind::Param) continue;
        v.dims[a.axis] = Extent::symbol(input_symbol(a.dim->param));
        changed = true;
      }
      if (!changed) break;
      bind_alone();
    }
  }

  void load_initializer(const TensorData& t) {
    ValueState v;
    v.name = t.name;
    v.elem = t.elem;
    v.source = ValueState::Source::Initializer;
    v.initializer = &t;
    for (std::size_t k = 0; k < t.dims.size(); ++k) {
      if (t.dims[k] < 0) error("initializer '" + t.name + "' axis " + std::to_string(k) + " has the negative length " + std::to_string(t.dims[k]));
      v.dims.emplace_back(t.dims[k]);
    }
    require_storable(v, origin + "initializer '" + t.name + "'");
    // The build knows an int64, int32 or bool initializer; never a float one (a weight belongs to
    // the checkpoint).
    if (t.has_data && (t.elem == ElementType::I64 || t.elem == ElementType::I32 || t.elem == ElementType::Bool)) {
      auto count = t.element_count();
      std::size_t size = element_size(t.elem);
      if (!count || t.data.size() != static_cast<std::size_t>(*count) * size)
        error("initializer '" + t.name + "' holds " + std::to_string(t.data.size()) + " bytes, not what its shape needs");
      FoldedValue f;
      f.ints.reserve(static_cast<std::size_t>(*count));
      const std::byte* p = t.data.data();
      for (int64_t i = 0; i < *count; ++i, p += size) {
        int64_t x = 0;
        if (t.elem == ElementType::I64) {
          std::memcpy(&x, p, 8);
        } else if (t.elem == ElementType::I32) {
          int32_t y;
          std::memcpy(&y, p, 4);
          x = y;
        } else {
          x = static_cast<uint8_t>(*p) != 0;
        }
        f.ints.emplace_back(x);
      }
      v.value = std::move(f);
    }
    result.values[t.name] = std::move(v);
  }

  void merge_declared_output(const ValueInfo& vi) {
    const ValueState& v = result.values.at(vi.name);
    if (!vi.type.shape) return;
    const auto& shape = *vi.type.shape;
    std::string where = "output '" + vi.name + "'";
    if (shape.size() != v.dims.size())
      error(where + ": the graph declares rank " + std::to_string(shape.size()) + " but the nodes produce rank " +
            std::to_string(v.dims.size()) + " " + v.shape_string());
    for (std::size_t k = 0; k < shape.size(); ++k) {
      const Dim& d = shape[k];
      std::string axis = where + " axis " + std::to_string(k);
      if (names_nothing(d)) continue;
      // A dim_param names the axis in the author's words: it cannot disagree — unless `dims` fixed it.
      if (d.kind == Dim::Kind::Param) {
        bool fixed = options.dims.count(d.param) > 0;
        if (!fixed && is_spelled_arithmetic(d.param)) {
          std::vector<std::string> names;
          parse_dim_param(d.param, &names);
          for (const auto& n : names) fixed = fixed || options.dims.count(n) > 0;
        }
        if (!fixed) continue;
      }
      Extent declared = declared_extent(d, axis, unnamed_symbol(vi.name, k));
      if (declared.is_constant() && v.dims[k].is_constant()) {
        if (declared != v.dims[k])
          error(axis + ": the graph declares length " + declared.to_string() + " but the nodes produce " + v.dims[k].to_string());
        continue;
      }
      require_equal(v.dims[k], declared, EqualityRule::Declared, OwedKind::DeclaredOutput, owed, origin + where,
                    "axis " + std::to_string(k) + " as produced (" + v.dims[k].to_string() + ") and as declared (" +
                        declared.to_string() + ")");
    }
  }

  void run() {
    const Graph& g = model.graph;
    std::unordered_set<std::string> init_names;
    for (const auto& t : g.initializers) init_names.insert(t.name);
    std::unordered_set<std::string> output_names;
    for (const auto& o : g.outputs) output_names.insert(o.name);
    if (options.outputs) {
      for (const auto& o : *options.outputs)
        if (!output_names.count(o)) error("option outputs: the graph declares no output '" + o + "'");
      result.outputs = *options.outputs;
    } else {
      for (const auto& o : g.outputs) result.outputs.push_back(o.name);
    }
    std::vector<bool> keep = cut(g);
    std::unordered_set<std::string> read;
    for (std::size_t i = 0; i < g.nodes.size(); ++i)
      if (keep[i])
        for (const auto& x : g.nodes[i].inputs) read.insert(x);
    for (const auto& o : result.outputs) read.insert(o);
    if (options.outputs) {
      // A subgraph may read outer names (an If inside a branch too); keep what the cut's subgraphs
      // read, and what they return.
      auto subgraph_reads = [&](const Graph& sub, auto&& self) -> void {
        for (const auto& n : sub.nodes) {
          for (const auto& x : n.inputs) read.insert(x);
          for (const auto& a : n.attributes)
            if (a.g) self(*a.g, self);
        }
        for (const auto& o : sub.outputs) read.insert(o.name);
      };
      for (std::size_t i = 0; i < g.nodes.size(); ++i)
        if (keep[i])
          for (const auto& a : g.nodes[i].attributes)
            if (a.g) subgraph_reads(*a.g, subgraph_reads);
    }

    // Inputs (graph order; an input an initializer also names is that initializer).
    for (const auto& vi : g.inputs) {
      if (init_names.count(vi.name)) continue;
      std::vector<Extent> dims = declared_shape(vi, "input");  // `dims` is checked on every input
      if (options.outputs && !read.count(vi.name)) continue;
      ValueState v;
      v.name = vi.name;
      v.elem = vi.type.elem;
      v.source = ValueState::Source::Input;
      v.dims = std::move(dims);
      if (v.elem == ElementType::Undefined) error("input '" + vi.name + "' declares no element type");
      require_storable(v, origin + "input '" + vi.name + "'");
      result.inputs.push_back(vi.name);
      result.values[vi.name] = std::move(v);
    }
    // Declared outputs take part in `dims` too.
    for (const auto& vi : g.outputs)
      if (vi.type.shape)
        for (std::size_t k = 0; k < vi.type.shape->size(); ++k) {
          const Dim& d = (*vi.type.shape)[k];
          if (d.kind != Dim::Kind::Param) continue;
          if (options.dims.count(d.param)) dims_used.insert(d.param);
          if (is_spelled_arithmetic(d.param)) {
            std::vector<std::string> names;
            parse_dim_param(d.param, &names);
            for (const auto& n : names)
              if (options.dims.count(n)) dims_used.insert(n);
          }
        }
    for (const auto& [name, value] : options.dims) {
      if (!dims_used.count(name)) error("option dims: the graph declares no dim_param '" + name + "'");
      if (value < 0) error("option dims: '" + name + "' is fixed to the negative extent " + std::to_string(value));
    }
    bind_symbols(g);
    for (const auto& name : options.ranged)
      if (std::none_of(result.bindings.begin(), result.bindings.end(), [&](const SymbolBinding& b) { return b.symbol == name; }))
        error("option ranges: no input's length is the dim_param '" + name + "', so no run would be held to the range");

    for (const auto& t : g.initializers) {
      if (options.outputs && !read.count(t.name)) continue;
      result.initializers.push_back(t.name);
      load_initializer(t);
    }

    nodes_out = &result.nodes;
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
      if (!keep[i]) continue;
      run_node(g.nodes[i], i);
    }

    for (const auto& o : result.outputs) {
      if (!result.values.count(o)) error("output '" + o + "' is produced by no node, input or initializer");
      for (const auto& vi : g.outputs)
        if (vi.name == o) merge_declared_output(vi);
    }
    result.owed = owed.take();
  }

  // If: each branch is shaped in a copy of the scope around it (a condition the build knows still
  // compiles both), keeping its nodes, values and the conditions it owes, which its block checks
  // rather than forward's top: a condition one branch relies on would otherwise refuse inputs the
  // other branch accepts. Each output takes the branches' common extents; a length the two give
  // differently is a symbol of its own, which only the run knows.
  std::vector<ValueState> run_if(const Node& node, const std::string& where, const std::vector<const ValueState*>& ins,
                                 IfBranches& kept) {
    if (ins.empty() || !ins[0]) fail(where + ": has no condition");
    if (ins[0]->elem != ElementType::Bool) fail(where + ": the condition is " + element_type_name(ins[0]->elem) + ", not bool");
    {
      Extent count(1);
      for (const auto& d : ins[0]->dims) count *= d;
      if (count.is_constant() && *count.constant() != 1)
        fail(where + ": the condition '" + node.inputs[0] + "' holds " + count.to_string() + " elements, not one");
    }
    // At the top level, a condition the build knows takes one branch: only that one is analysed
    // (the other may not even fit the values fixed), and the pipeline inlines it.
    if (branch_depth == 0 && ins[0]->value && ins[0]->value->size() == 1 && ins[0]->value->all_constant() &&
        ins[0]->value->kind == FoldedValue::Kind::Integer)
      kept.taken = *ins[0]->value->ints[0].constant() != 0 ? 0 : 1;
    for (const char* name : {"then_branch", "else_branch"}) {
      const bool then = std::string(name) == "then_branch";
      if (kept.taken && *kept.taken != (then ? 0u : 1u)) continue;
      IfBranch& branch = then ? kept.then_branch : kept.else_branch;
      const Attribute* a = node.attr(name);
      if (!a || a->kind != Attribute::Kind::Graph || !a->g) fail(where + ": attribute '" + name + "' must be a graph");
      const Graph& g = *a->g;
      if (!g.inputs.empty() || !g.initializers.empty())
        fail(where + ": the " + name + " declares inputs or initializers of its own");
      if (g.outputs.size() != node.outputs.size())
        fail(where + ": the " + name + " gives " + std::to_string(g.outputs.size()) + " outputs for the node's " +
             std::to_string(node.outputs.size()));
      branch.attribute = name;
      branch.graph = &g;
      OwedConditions outer_owed = std::move(owed);
      owed = OwedConditions();
      std::vector<NodeState>* outer_nodes = nodes_out;
      nodes_out = &branch.nodes;
      // A branch taken is analysed as the top level it becomes: an If inside it whose condition
      // the build knows takes its branch too (the next round inlines it).
      const int depth = kept.taken ? 0 : 1;
      branch_depth += depth;
      std::vector<std::string> added;
      for (std::size_t i = 0; i < g.nodes.size(); ++i) {
        auto made = run_node(g.nodes[i], i);
        added.insert(added.end(), made.begin(), made.end());
      }
      branch_depth -= depth;
      nodes_out = outer_nodes;
      branch.owed = owed.take();
      owed = std::move(outer_owed);
      for (const auto& o : g.outputs) {
        if (!result.values.count(o.name)) fail(where + ": the " + name + " output '" + o.name + "' is produced by nothing");
        branch.outputs.push_back(o.name);
      }
      for (const auto& n : added) {
        auto it = result.values.find(n);
        branch.values.emplace(n, std::move(it->second));
        result.values.erase(it);
      }
    }
    auto branch_value = [&](const IfBranch& b, std::size_t i) -> const ValueState& {
      auto it = b.values.find(b.outputs[i]);
      return it != b.values.end() ? it->second : result.values.at(b.outputs[i]);
    };
    std::vector<ValueState> outs;
    if (kept.taken) {
      for (std::size_t i = 0; i < node.outputs.size(); ++i) {
        ValueState v = branch_value(kept.at(*kept.taken), i);
        v.name = node.outputs[i];
        v.source = ValueState::Source::Node;
        v.initializer = nullptr;
        outs.push_back(std::move(v));
      }
      return outs;
    }
    for (std::size_t i = 0; i < node.outputs.size(); ++i) {
      const ValueState& t = branch_value(kept.then_branch, i);
      const ValueState& e = branch_value(kept.else_branch, i);
      std::string what = where + ": output " + std::to_string(i) + " '" + node.outputs[i] + "'";
      if (t.elem != e.elem)
        fail(what + " is " + element_type_name(t.elem) + " in then_branch and " + element_type_name(e.elem) + " in else_branch");
      if (t.dims.size() != e.dims.size())
        fail(what + " has rank " + std::to_string(t.dims.size()) + " in then_branch and " + std::to_string(e.dims.size()) +
             " in else_branch");
      ValueState v;
      v.name = node.outputs[i];
      v.elem = t.elem;
      for (std::size_t k = 0; k < t.dims.size(); ++k)
        v.dims.push_back(branch_length(where + " output '" + node.outputs[i] + "' axis " + std::to_string(k), t.dims[k], e.dims[k]));
      outs.push_back(std::move(v));
    }
    return outs;
  }

  // Shapes one node; records it in nodes_out and returns the names of the values it made.
  std::vector<std::string> run_node(const Node& node, std::size_t index) {
    std::string where = origin + node.label();
    std::vector<const ValueState*> ins;
    ins.reserve(node.inputs.size());
    for (const auto& name : node.inputs) {
      if (name.empty()) {
        ins.push_back(nullptr);
        continue;
      }
      auto it = result.values.find(name);
      if (it == result.values.end())
        fail(where + ": reads '" + name + "', which no earlier node, input or initializer produces");
      ins.push_back(&it->second);
    }
    if (node.domain.empty() && node.op_type == "If") {
      auto kept = std::make_shared<IfBranches>();
      std::vector<ValueState> outs = run_if(node, where, ins, *kept);
      std::vector<std::string> made;
      for (auto& o : outs) {
        o.source = ValueState::Source::Node;
        o.node = branch_depth ? -1 : static_cast<int64_t>(index);
        if (o.name.empty()) continue;
        if (result.values.count(o.name)) fail(where + ": output '" + o.name + "' is already produced elsewhere");
        made.push_back(o.name);
        std::string name = o.name;
        result.values.emplace(std::move(name), std::move(o));
      }
      nodes_out->push_back(NodeState{index, false, false, std::move(kept)});
      return made;
    }
    const ops::Operator* rule = options.operators->find(node);
    if (!rule || !rule->infer)
      fail(where + ": stage 0 has no rule for the operator " + (node.domain.empty() ? "" : node.domain + ".") +
           node.op_type);
    OpContext ctx(node, where, std::move(ins), owed);
    try {
      rule->infer(ctx);
      for (auto& o : ctx.out) {
        if (o.name.empty()) continue;
        if (o.elem == ElementType::Undefined) ctx.error("the shape rule gave output '" + o.name + "' no element type");
        // A length some inputs would carry past 2^63 is owed: forward computes it checked first.
        for (std::size_t k = 0; k < o.dims.size(); ++k)
          owed.require_fits(o.dims[k], where, "output '" + o.name + "' axis " + std::to_string(k) + " (" + o.dims[k].to_string() +
                                                  ") stays within 2^63");
        require_storable(o, where + ": output '" + o.name + "'");
      }
    } catch (const Error& e) {
      if (std::strncmp(e.what(), where.c_str(), where.size()) == 0) throw;
      throw with_context(where, e);
    }
    NodeState ns;
    ns.index = index;
    ns.folded = true;
    std::vector<std::string> made;
    for (auto& o : ctx.out) {
      if (o.name.empty()) continue;
      if (!o.value) ns.folded = false;
      o.source = ValueState::Source::Node;
      o.node = branch_depth ? -1 : static_cast<int64_t>(index);
      made.push_back(o.name);
      if (result.values.count(o.name)) fail(where + ": output '" + o.name + "' is already produced elsewhere");
      std::string name = o.name;
      result.values.emplace(std::move(name), std::move(o));
    }
    ns.regrouping = !ns.folded && rule->regrouping;
    nodes_out->push_back(ns);
    return made;
  }
};

}  // namespace

Stage0Result run_stage0(const loam::Model& model, const Stage0Options& options) {
  if (!options.operators) fail(options.origin + ": stage 0 was given no operator table");
  Run r{model, options, options.origin.empty() ? std::string() : options.origin + ": ", {}, {}, {}};
  r.result.operators = options.operators;
  r.run();
  return std::move(r.result);
}

}  // namespace loam::stage0
