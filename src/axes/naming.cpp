#include "axes/naming.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "axes/layout.hpp"
#include "axes/node_naming.hpp"
#include "graph/attributes.hpp"
#include "ops/operator.hpp"
#include "support/error.hpp"
#include "support/spelling.hpp"

namespace loam::axes {

using stage0::Extent;

std::string AxisName::text() const {
  if (parts.size() == 1) return parts[0];
  std::string s = "(";
  for (std::size_t i = 0; i < parts.size(); ++i) s += (i ? " " : "") + parts[i];
  return s + ")";
}

std::string exact_pattern(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::vector<std::size_t> data_operands(const Node& node, const stage0::Stage0Result& st) {
  const ops::Operator* op = st.operators ? st.operators->find(node) : nullptr;
  if (op) return op->tensor_inputs(node);
  return ops::Operator{}.tensor_inputs(node);
}

bool is_folded_scalar_operand(const Node& node, std::size_t i, const stage0::Stage0Result& st) {
  const ops::Operator* op = st.operators ? st.operators->find(node) : nullptr;
  return op && op->constant_operand && i < node.inputs.size() && !node.inputs[i].empty() && op->constant_operand(node, i, st);
}

bool is_one(const Extent& e) {
  auto c = e.constant();
  return c && *c == 1;
}

// A magnitude for ordering two extents while regrouping: every symbol read as 1024. It only decides
// which side of a regrouping takes its next part; equality is always decided exactly.
namespace {

double approx(const Extent& e) {
  double v = static_cast<double>(e.constant_term());
  for (const auto& t : e.terms()) {
    double m = static_cast<double>(t.coeff);
    for (const auto& [s, p] : t.mono) m *= std::pow(1024.0, p);
    v += m;
  }
  return v;
}

}  // namespace

class Namer {
 public:
  Namer(const Model& model, const stage0::Stage0Result& st, const std::vector<LayoutRule>* layout,
        std::string origin, bool propose)
      : model_(model), st_(&st), graph_(&model.graph), layout_(layout), origin_(std::move(origin)), propose_(propose) {}

  void run();
  AxisNaming result();
  std::vector<LayoutRule> proposal();

 private:
  friend class NodeNaming;
  const Model& model_;
  const stage0::Stage0Result* st_;  // the scope being named: the graph's, or a branch's flattened one
  const Graph* graph_;               // the graph whose nodes st_->nodes index
  const std::vector<LayoutRule>* layout_;
  std::string origin_;
  bool propose_;

  std::map<std::string, std::vector<AxisName>> named_;
  std::vector<std::string> order_;            // plain names (or variables), first appearance
  std::map<std::string, Extent> part_extent_;  // plain name -> first length seen
  std::map<std::string, std::set<std::string>> extents_seen_;
  std::map<std::string, std::optional<int64_t>> fixed_;
  // Proposal mode: variables, union-find and merges a variable stands for.
  int next_var_ = 0;
  std::map<std::string, std::string> parent_;
  std::map<std::string, AxisName> bound_;
  std::vector<std::string> proposed_outputs_;  // node outputs with an axis the layout names
  std::set<std::string> proposed_set_;
  std::map<const Node*, std::vector<AxisNaming>> branches_;  // the If blocks of the scope being named
  // Proposal mode: tensors a branch makes whose axes the layout gives, with the branch graph's name.
  struct BranchRule {
    std::string graph, tensor;
    std::vector<AxisName> axes;
  };
  std::vector<BranchRule> branch_rules_;

  std::string where(const Node& n) const {
    return origin_ + ": " + (n.name.empty() ? n.label() : "node '" + n.name + "' (" + n.op_type + ")");
  }
  const stage0::ValueState& value(const std::string& name) const {
    const auto* v = st_->find(name);
    if (!v) fail(origin_ + ": tensor '" + name + "' has no analysed shape");
    return *v;
  }

  std::string fresh() {
    std::string v = "$" + std::to_string(next_var_++);
    parent_[v] = v;
    return v;
  }
  // Proposal mode with a layout (complete_layout): a name the layout gives is one variable, which
  // keeps the name whatever it is unified with.
  std::map<std::string, std::string> seed_var_;   // layout name -> its variable
  std::map<std::string, std::string> seed_name_;  // root variable -> layout name
  std::vector<AxisName> seeded(const std::vector<AxisName>& axes) {
    std::vector<AxisName> out;
    for (const auto& a : axes) {
      AxisName v;
      for (const auto& p : a.parts) {
        auto it = seed_var_.find(p);
        if (it == seed_var_.end()) {
          it = seed_var_.emplace(p, fresh()).first;
          seed_name_[it->second] = p;
        }
        v.parts.push_back(it->second);
      }
      out.push_back(std::move(v));
    }
    return out;
  }
  // Joins the class of `gone` to that of `keep`; a layout name either carries is the class's.
  void unite(const std::string& keep, const std::string& gone) {
    std::string k = find(keep), g = find(gone);
    if (k == g) return;
    parent_[g] = k;
    auto it = seed_name_.find(g);
    if (it != seed_name_.end()) {
      if (!seed_name_.count(k)) seed_name_[k] = it->second;
      seed_name_.erase(it);
    }
  }
  std::string find(const std::string& v) {
    auto it = parent_.find(v);
    if (it == parent_.end() || it->second == v) return v;
    std::string r = find(it->second);
    parent_[v] = r;
    return r;
  }
  AxisName resolve(const AxisName& a, int depth = 0) {
    if (!propose_) return a;
    AxisName out;
    for (const auto& p : a.parts) {
      std::string r = find(p);
      auto b = bound_.find(r);
      if (b != bound_.end() && depth < 16) {
        AxisName sub = resolve(b->second, depth + 1);
        out.parts.insert(out.parts.end(), sub.parts.begin(), sub.parts.end());
      } else {
        out.parts.push_back(r);
      }
    }
    return out;
  }

  // Two axes an operation meets as one.
  void meet(const AxisName& a, const AxisName& b, const Node& n, const std::string& what) {
    if (!propose_) {
      if (a == b) return;
      fail(where(n) + ": " + what + ": axis '" + a.text() + "' meets axis '" + b.text() +
           "'; two names never meet, even where their lengths agree (name them alike in the layout, "
           "or fix the layout that gave one of them)");
    }
    AxisName ra = resolve(a), rb = resolve(b);
    if (ra == rb) return;
    if (ra.parts.size() == 1 && rb.parts.size() == 1) {
      unite(ra.parts[0], rb.parts[0]);
    } else if (ra.parts.size() == 1) {
      bound_[find(ra.parts[0])] = rb;
    } else if (rb.parts.size() == 1) {
      bound_[find(rb.parts[0])] = ra;
    } else if (ra.parts.size() == rb.parts.size()) {
      for (std::size_t i = 0; i < ra.parts.size(); ++i) unite(ra.parts[i], rb.parts[i]);
    }
  }

  void note_plain(const std::string& axis, const Extent& e) {
    auto known = part_extent_.find(axis);
    if (known == part_extent_.end()) {
      part_extent_.emplace(axis, e);
      order_.push_back(axis);
    } else if (known->second == Extent()) {
      known->second = e;  // a merge's part whose length no value had given
    }
    extents_seen_[axis].insert(e.to_string());
    auto c = e.constant();
    auto it = fixed_.find(axis);
    if (it == fixed_.end()) fixed_[axis] = c;
    else if (it->second && (!c || *c != *it->second)) it->second = std::nullopt;
  }

  void assign(const std::string& tensor, std::vector<AxisName> axes) {
    const auto& dims = value(tensor).dims;
    for (std::size_t i = 0; i < axes.size() && i < dims.size(); ++i) {
      if (axes[i].parts.size() == 1) note_plain(axes[i].parts[0], dims[i]);
      else
        for (const auto& p : axes[i].parts)
          if (!part_extent_.count(p)) order_.push_back(p), part_extent_.emplace(p, Extent());
    }
    named_[tensor] = std::move(axes);
  }

  // The axes a layout rule gives `tensor` (rank checked), or nullopt.
  std::optional<std::vector<AxisName>> from_layout(const std::string& tensor, std::size_t rank) {
    if (!layout_) return std::nullopt;
    const LayoutRule* rule = match_layout(*layout_, tensor, graph_->name);
    if (!rule) return std::nullopt;
    if (rule->axes.size() != rank)
      fail(origin_ + ": tensor '" + tensor + "': the layout rule '" + rule->pattern + "' names " +
           std::to_string(rule->axes.size()) + " axes, the tensor has " + std::to_string(rank));
    std::vector<AxisName> out;
    for (std::size_t i = 0; i < rank; ++i) {
      AxisSpec spec;
      try {
        spec = parse_axis_spec(rule->axes[i]);
      } catch (const Error& e) {
        fail(origin_ + ": layout rule '" + rule->pattern + "', axis " + std::to_string(i) + ": " + e.what());
      }
      out.push_back(AxisName{spec.parts});
    }
    return out;
  }

  // An input, initializer or folded tensor a kernel reads: every axis from the layout.
  const std::vector<AxisName>& ensure_named(const std::string& tensor, const std::string& reader) {
    if (auto it = named_.find(tensor); it != named_.end()) return it->second;
    std::size_t rank = value(tensor).dims.size();
    std::vector<AxisName> axes;
    if (propose_) {
      if (auto l = from_layout(tensor, rank)) axes = seeded(*l);
      else
        for (std::size_t i = 0; i < rank; ++i) axes.push_back(AxisName{{fresh()}});
    } else if (auto l = from_layout(tensor, rank)) {
      axes = std::move(*l);
    } else if (rank == 0) {
    } else {
      fail(origin_ + ": tensor '" + tensor + "'" + reader +
           ": no layout rule names its axes (add a rule whose pattern matches it, or run `loam layout` "
           "for a starting layout)");
    }
    assign(tensor, std::move(axes));
    return named_[tensor];
  }

  // Completes an operator's answer for output `tensor`: undetermined positions from the layout.
  void complete(const Node& n, const std::string& tensor, const Partial& partial) {
    std::vector<AxisName> axes(partial.size());
    std::optional<std::vector<AxisName>> rule;
    bool looked = false;
    for (std::size_t i = 0; i < partial.size(); ++i) {
      if (partial[i]) {
        axes[i] = *partial[i];
        continue;
      }
      if (!looked) rule = from_layout(tensor, partial.size()), looked = true;
      if (propose_ && rule) {
        axes[i] = seeded({(*rule)[i]})[0];
        continue;
      }
      if (propose_) {
        axes[i] = AxisName{{fresh()}};
        if (proposed_set_.insert(tensor).second) proposed_outputs_.push_back(tensor);
        continue;
      }
      if (!rule)
        fail(where(n) + ": tensor '" + tensor + "', axis " + std::to_string(i) +
             ": the operator creates this axis, and no layout rule reaching the tensor names it");
      axes[i] = (*rule)[i];
    }
    assign(tensor, std::move(axes));
  }

  void name_node(const Node& n);
  void run_nodes(const std::vector<stage0::NodeState>& nodes);
  void name_if(const Node& n, const stage0::IfBranches& branches);
  Partial broadcast(const Node& n, const std::vector<std::string>& operands, std::size_t out_rank);
  Partial regroup(const Node& n, const std::string& in, const std::vector<Extent>& out_dims);
  std::vector<std::vector<std::string>> expand_parts(const AxisName& a, const Extent& extent, const Node& n,
                                                     const std::string& tensor, std::vector<Extent>& extents);
  void learn_parts(const std::string& in, const std::vector<Extent>& out_dims);
  // A regrouping's stretch of parts and output axes no run of parts could name (proposal mode).
  struct Stretch {
    std::vector<std::string> parts;
    std::string tensor;
    std::size_t first = 0, last = 0;  // its output axes, [first, last)
  };
  std::vector<Stretch> stretches_;
  void unite_stretches();
  bool part_known(const std::string& p) const {
    auto it = part_extent_.find(p);
    return it != part_extent_.end() && !(it->second == Extent());
  }
  bool parts_known(const AxisName& a) const {
    return std::all_of(a.parts.begin(), a.parts.end(), [this](const std::string& p) { return part_known(p); });
  }
};

Partial Namer::broadcast(const Node& n, const std::vector<std::string>& operands, std::size_t out_rank) {
  Partial out(out_rank);
  for (std::size_t j = 0; j < out_rank; ++j) {
    std::optional<AxisName> chosen, first_unit;
    for (const auto& t : operands) {
      const auto& axes = named_.at(t);
      const auto& dims = value(t).dims;
      if (axes.size() + j < out_rank) continue;
      std::size_t k = axes.size() - (out_rank - j);
      if (is_one(dims[k])) {
        if (!first_unit) first_unit = axes[k];
        continue;
      }
      if (!chosen) chosen = axes[k];
      else meet(*chosen, axes[k], n, "broadcast of '" + t + "', axis " + std::to_string(k));
    }
    out[j] = chosen ? chosen : first_unit;
  }
  return out;
}

// Each part of an input axis, in order, with its length; a merged axis whose parts no value has
// given lengths is one piece, which a regrouping can only carry whole.
std::vector<std::vector<std::string>> Namer::expand_parts(const AxisName& a0, const Extent& extent, const Node& n,
                                                          const std::string& tensor, std::vector<Extent>& extents) {
  AxisName a = resolve(a0);
  // An axis at length 1 (a merged axis too, as a keepdims reduction leaves it) holds no part.
  if (is_one(extent)) return {};
  if (a.parts.size() == 1 || !parts_known(a)) {
    extents.push_back(extent);
    return {a.parts};
  }
  std::vector<std::vector<std::string>> out;
  Extent product(1);
  for (const auto& p : a.parts) {
    const Extent& length = part_extent_.at(p);
    product *= length;
    if (is_one(length)) continue;
    out.push_back({p});
    extents.push_back(length);
  }
  if (!(product == extent))
    fail(where(n) + ": tensor '" + tensor + "': the merged axis '" + a.text() + "' is " + extent.to_string() +
         " long, its parts multiply to " + product.to_string());
  return out;
}

// A merged axis whose parts no value has given lengths (a projection the layout names
// (Heads HeadDim)) learns them where a regrouping splits it into as many axes, aligned with it.
void Namer::learn_parts(const std::string& in, const std::vector<Extent>& out_dims) {
  const auto& in_axes = named_.at(in);
  const auto& in_dims = value(in).dims;
  Extent before(1);
  for (std::size_t i = 0; i < in_axes.size(); before = before * in_dims[i], ++i) {
    AxisName a = resolve(in_axes[i]);
    if (a.parts.size() < 2 || parts_known(a) || is_one(in_dims[i])) continue;
    std::size_t j = 0;
    Extent at(1);
    while (j < out_dims.size() && !(at == before)) at = at * out_dims[j++];
    if (!(at == before)) continue;
    std::vector<Extent> split;
    Extent product(1);
    for (; j < out_dims.size() && !(product == in_dims[i]); ++j) {
      if (is_one(out_dims[j])) continue;
      split.push_back(out_dims[j]);
      product = product * out_dims[j];
    }
    if (!(product == in_dims[i]) || split.size() != a.parts.size()) continue;
    for (std::size_t k = 0; k < split.size(); ++k) {
      if (part_known(a.parts[k])) continue;  // a length it disagrees with is refused where it is read
      note_plain(a.parts[k], split[k]);
    }
  }
}

Partial Namer::regroup(const Node& n, const std::string& in, const std::vector<Extent>& out_dims) {
  learn_parts(in, out_dims);
  const auto& in_axes = named_.at(in);
  const auto& in_dims = value(in).dims;
  std::vector<std::vector<std::string>> parts;
  std::vector<Extent> pext;
  for (std::size_t i = 0; i < in_axes.size(); ++i) {
    auto p = expand_parts(in_axes[i], in_dims[i], n, in, pext);
    parts.insert(parts.end(), p.begin(), p.end());
  }
  Partial out(out_dims.size());
  std::size_t cur = 0, j = 0;
  while (j < out_dims.size()) {
    const Extent& d = out_dims[j];
    if (is_one(d)) {  // a new unit axis: nothing to take
      ++j;
      continue;
    }
    // Take parts while their product still divides the output extent.
    std::size_t start = cur;
    Extent prod(1);
    while (cur < parts.size() && !(prod == d)) {
      Extent next = prod * pext[cur];
      if (!d.divide_exactly(next)) break;
      prod = next;
      ++cur;
    }
    if (prod == d && cur > start) {
      AxisName taken;
      for (std::size_t k = start; k < cur; ++k) taken.parts.insert(taken.parts.end(), parts[k].begin(), parts[k].end());
      out[j] = std::move(taken);
      ++j;
      continue;
    }
    // No run of parts makes this axis: consume output axes and parts until the products align;
    // every output axis of that stretch is new.
    const std::size_t first_out = j;
    Extent po = d;
    ++j;
    while (!(prod == po)) {
      if (cur < parts.size() && (approx(prod) < approx(po) || j >= out_dims.size())) {
        prod = prod * pext[cur++];
      } else if (j < out_dims.size()) {
        po = po * out_dims[j++];
      } else {
        break;
      }
    }
    if (propose_ && layout_ && prod == po && graph_ == &model_.graph && !n.outputs.empty()) {
      Stretch st{{}, n.outputs[0], first_out, j};
      for (std::size_t k = start; k < cur; ++k) st.parts.insert(st.parts.end(), parts[k].begin(), parts[k].end());
      stretches_.push_back(std::move(st));
    }
  }
  return out;
}

// Completing a layout: each stretch a regrouping could not name, once the run has named its
// output axes, is the same parts on both sides (a query projection the table names
// (KvHeads Groups HeadDim), split into axes the attention later names (KvHeads Groups) and
// HeadDim): where both sides resolve to as many parts, they are united in order.
void Namer::unite_stretches() {
  for (int round = 0; round < 4; ++round) {
    bool changed = false;
    for (const auto& st : stretches_) {
      auto it = named_.find(st.tensor);
      if (it == named_.end()) continue;
      const auto& dims = value(st.tensor).dims;
      std::vector<std::string> in, out;
      for (const auto& p : st.parts)
        for (const auto& q : resolve(AxisName{{p}}).parts) in.push_back(q);
      for (std::size_t j = st.first; j < st.last && j < it->second.size(); ++j) {
        if (is_one(dims[j])) continue;
        for (const auto& q : resolve(it->second[j]).parts) out.push_back(q);
      }
      if (in.size() != out.size()) continue;
      for (std::size_t k = 0; k < in.size(); ++k)
        if (find(in[k]) != find(out[k])) unite(in[k], out[k]), changed = true;
    }
    if (!changed) break;
  }
}

void Namer::name_node(const Node& n) {
  const ops::Operator* op = st_->operators ? st_->operators->find(n) : nullptr;
  if (!op || !op->name_axes)
    fail(where(n) + ": no axis-naming rule for operator " + (n.domain.empty() ? "" : n.domain + ".") + n.op_type);
  NodeNaming naming(*this, n);
  op->name_axes(naming);
}

void Namer::run_nodes(const std::vector<stage0::NodeState>& nodes) {
  for (const auto& ns : nodes) {
    if (ns.folded) continue;
    const Node& n = graph_->nodes.at(ns.index);
    for (auto i : data_operands(n, *st_))
      if (!is_folded_scalar_operand(n, i, *st_)) ensure_named(n.inputs[i], " (read by " + n.label() + ")");
    if (ns.branches) name_if(n, *ns.branches);
    else name_node(n);
  }
}

// Whether a length is one an If's branches give differently (it holds a branch symbol).
static bool has_branch_length(const Extent& e) {
  for (stage0::SymbolId s : e.symbols())
    if (stage0::symbol_info(s).kind == stage0::SymbolKind::Branch) return true;
  return false;
}

// If (WEP, "A Branch Is a Block of `forward`"): what the branches read from the scope around them is
// named there, ahead of the if; each block is named in a copy of that scope, where a layout rule
// naming the branch's graph may give a tensor of the scope other axes (the block relabels it). The
// node's outputs take the axes both branches give them; an axis the two name apart takes the name
// the output's layout gives, and each block relabels its value to it.
void Namer::name_if(const Node& n, const stage0::IfBranches& br) {
  for (std::size_t side = 0; side < 2; ++side)
    for (const auto& t : branch_reads(*st_, br.at(side)))
      ensure_named(t, " (read by the " + br.at(side).attribute + " of '" + n.label() + "')");
  std::vector<AxisNaming> blocks;
  std::vector<std::vector<AxisName>> given[2];
  for (std::size_t side = 0; side < 2; ++side) {
    const stage0::IfBranch& b = br.at(side);
    stage0::Stage0Result scope = stage0::branch_scope(*st_, b);
    auto saved_named = named_;
    auto saved_branches = std::move(branches_);
    branches_.clear();
    const stage0::Stage0Result* saved_st = st_;
    const Graph* saved_graph = graph_;
    st_ = &scope;
    graph_ = b.graph;
    AxisNaming block;
    if (!propose_) {
      for (const auto& t : branch_reads(*saved_st, b)) {
        const auto& v = value(t);
        bool layout_named = v.source != stage0::ValueState::Source::Node || v.value.has_value();
        if (!layout_named) continue;
        auto l = from_layout(t, v.dims.size());
        if (l && *l != named_.at(t)) {
          block.relabels.push_back({t, named_.at(t), *l});
          for (std::size_t k = 0; k < l->size(); ++k)
            if ((*l)[k].parts.size() == 1) note_plain((*l)[k].parts[0], v.dims[k]);
          named_[t] = std::move(*l);
        }
      }
    }
    run_nodes(b.nodes);
    for (const auto& o : b.outputs) {
      ensure_named(o, " (given by the " + b.attribute + " of '" + n.label() + "')");
      given[side].push_back(named_.at(o));
    }
    if (propose_) {
      // The layout names what the branch folded and the axes its operators create, by a rule
      // naming the branch's graph (two branches may name their tensors alike).
      for (const auto& [t, axes] : named_) {
        if (!b.values.count(t) || axes.empty()) continue;
        const auto& v = b.values.at(t);
        if (proposed_set_.count(t) || v.value) branch_rules_.push_back({b.graph->name, t, axes});
      }
    }
    block.values = std::move(named_);
    block.branches = std::move(branches_);
    blocks.push_back(std::move(block));
    named_ = std::move(saved_named);
    branches_ = std::move(saved_branches);
    st_ = saved_st;
    graph_ = saved_graph;
  }
  for (std::size_t k = 0; k < n.outputs.size(); ++k) {
    const std::string& out = n.outputs[k];
    if (out.empty()) continue;
    const auto& t = given[0][k];
    const auto& e = given[1][k];
    Partial p(t.size());
    std::optional<std::vector<AxisName>> rule;
    bool looked = false;
    const auto& dims = value(out).dims;
    for (std::size_t j = 0; j < t.size(); ++j) {
      // A length the two branches give differently (a symbol only the run decides) is an axis of
      // the output's own: each block relabels its value to it.
      const bool own_length = j < dims.size() && has_branch_length(dims[j]);
      if (propose_ && own_length) continue;
      if (propose_) meet(t[j], e[j], n, "axis " + std::to_string(j) + " of output '" + out + "' in its two branches");
      if (propose_ || t[j] == e[j]) {
        p[j] = t[j];
        continue;
      }
      if (!looked) rule = from_layout(out, t.size()), looked = true;
      if (!rule)
        fail(where(n) + ": tensor '" + out + "', axis " + std::to_string(j) + ": the then_branch names it '" +
             t[j].text() + "' and the else_branch '" + e[j].text() +
             "', and no layout rule reaching the tensor names the output's axis");
      p[j] = (*rule)[j];
    }
    complete(n, out, p);
  }
  branches_[&n] = std::move(blocks);
}

void Namer::run() {
  // Graph inputs first, in order, so their axes are named by the layout before any operator.
  for (const auto& name : st_->inputs) ensure_named(name, " (graph input)");
  run_nodes(st_->nodes);
  for (const auto& name : st_->outputs) ensure_named(name, " (graph output)");
  if (propose_ && layout_) unite_stretches();
}

AxisNaming Namer::result() {
  AxisNaming r;
  r.values = named_;
  r.branches = branches_;
  for (const auto& a : order_) {
    if (std::find(r.axes.begin(), r.axes.end(), a) == r.axes.end()) r.axes.push_back(a);
  }
  for (const auto& [axis, e] : fixed_)
    if (e) r.fixed_extent[axis] = *e;
  // A part of a merge whose length no plain value gave has no fixed extent.
  return r;
}

std::vector<LayoutRule> Namer::proposal() {
  // Readable names for each class of variables, in order of first appearance.
  std::map<std::string, std::string> names;
  std::map<std::string, int> used;
  for (const auto& [name, var] : seed_var_) used[name] = 1;  // a generated name never takes a layout's
  auto name_of = [&](const std::string& var) -> std::string {
    std::string root = find(var);
    if (auto it = names.find(root); it != names.end()) return it->second;
    if (auto it = seed_name_.find(root); it != seed_name_.end()) return it->second;
    std::string base = "Axis";
    if (auto it = part_extent_.find(root); it != part_extent_.end()) {
      const Extent& e = it->second;
      if (auto c = e.constant()) {
        base = *c == 1 ? "One" : "D" + std::to_string(*c);
      } else if (auto s = e.as_symbol(); s && stage0::is_input_symbol(*s)) {
        std::string p = stage0::symbol_info(*s).name;
        // Its words (C++ reserves the double underscore tf2onnx's unk__214 would give).
        std::string id = word_spelling(p);
        if (!id.empty() && std::isalpha(static_cast<unsigned char>(id[0]))) {
          id[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(id[0])));
          base = id;
        } else {
          base = "Dyn";
        }
      } else {
        base = "Dyn";
      }
    }
    // Completing a layout, every axis of length 1 is `One`: it holds no elements, and broadcasts
    // against any axis, so telling unit axes apart names nothing.
    if (layout_ && base == "One") return names[root] = base;
    int k = ++used[base];
    std::string nm = k == 1 ? base : base + "_" + std::to_string(k);
    while (used.count(nm) && nm != base && k != 1) nm += "x";
    names[root] = nm;
    return nm;
  };
  auto spell = [&](const AxisName& a) {
    AxisName r = resolve(a);
    AxisName out;
    for (const auto& p : r.parts) out.parts.push_back(name_of(p));
    return out.text();
  };
  std::vector<LayoutRule> rules;
  auto rule_for = [&](const std::string& tensor) {
    if (!named_.count(tensor)) return;  // a branch's: written below with its graph
    if (layout_ && match_layout(*layout_, tensor, graph_->name)) return;  // the layout's already
    LayoutRule rule;
    rule.pattern = exact_pattern(tensor);
    for (const auto& a : named_.at(tensor)) rule.axes.push_back(spell(a));
    rules.push_back(std::move(rule));
  };
  // Classes get their names in the order of the module's values, so inputs name first.
  for (const auto& name : st_->inputs)
    if (named_.count(name)) rule_for(name);
  std::vector<std::string> inits;
  for (const auto& [name, axes] : named_) {
    const auto* v = st_->find(name);
    if (v && v->source == stage0::ValueState::Source::Initializer) inits.push_back(name);
    else if (v && v->source == stage0::ValueState::Source::Node && v->value && !proposed_set_.count(name) &&
             !axes.empty())
      inits.push_back(name);  // a folded tensor a kernel reads: its axes are new
  }
  for (const auto& ns : st_->nodes)  // initializers in the order nodes first read them
    for (const auto& in : model_.graph.nodes.at(ns.index).inputs)
      if (std::find(inits.begin(), inits.end(), in) != inits.end()) {
        bool done = false;
        for (const auto& r : rules) done = done || r.pattern == exact_pattern(in);
        if (!done) rule_for(in);
      }
  for (const auto& name : inits) {
    bool done = false;
    for (const auto& r : rules) done = done || r.pattern == exact_pattern(name);
    if (!done) rule_for(name);
  }
  for (const auto& name : proposed_outputs_) rule_for(name);
  for (const auto& br : branch_rules_) {
    if (layout_ && match_layout(*layout_, br.tensor, br.graph)) continue;
    LayoutRule rule;
    rule.graph = br.graph;
    rule.pattern = exact_pattern(br.tensor);
    for (const auto& a : br.axes) rule.axes.push_back(spell(a));
    rules.push_back(std::move(rule));
  }
  // The first rule matching a tensor names it, and a branch may give its output the name of the If's
  // output (optimum's merged decoders do): the rules naming a branch's graph come first, so the
  // tensor inside the branch takes the branch's axes. Names were spelled above, in the module's order.
  std::stable_partition(rules.begin(), rules.end(), [](const LayoutRule& r) { return r.graph.has_value(); });
  return rules;
}

void NodeNaming::error(const std::string& message) const { fail(namer_.where(node) + ": " + message); }

const std::vector<AxisName>& NodeNaming::axes_of(std::size_t i) const { return namer_.named_.at(in(i)); }
const std::vector<AxisName>& NodeNaming::axes_of(const std::string& tensor) const { return namer_.named_.at(tensor); }
const std::vector<Extent>& NodeNaming::dims_of(const std::string& tensor) const { return namer_.value(tensor).dims; }

std::vector<int64_t> NodeNaming::folded_ints(std::size_t i) const {
  const auto& v = namer_.value(in(i));
  if (!v.value || v.value->kind != stage0::FoldedValue::Kind::Integer)
    error("operand " + std::to_string(i) + " '" + in(i) + "' must be known at build time");
  std::vector<int64_t> out;
  for (const auto& e : v.value->ints) {
    auto c = e.constant();
    if (!c) error("operand '" + in(i) + "' must hold numbers at build time");
    out.push_back(*c);
  }
  return out;
}

std::vector<std::size_t> NodeNaming::tensor_operands() const {
  std::vector<std::size_t> out;
  for (auto i : data_operands(node, *namer_.st_))
    if (!is_folded_scalar_operand(node, i, *namer_.st_)) out.push_back(i);
  return out;
}

NodeAttributes NodeNaming::attributes() const {
  return NodeAttributes(node, [this](const std::string& why) { error(why); });
}

void NodeNaming::meet(const AxisName& a, const AxisName& b, const std::string& what) { namer_.meet(a, b, node, what); }
void NodeNaming::complete(std::size_t k, const Partial& partial) { namer_.complete(node, node.outputs.at(k), partial); }

void NodeNaming::same_as_input(std::size_t k) {
  const auto& x = axes_of(0);
  complete(k, Partial(x.begin(), x.end()));
}

Partial NodeNaming::broadcast(const std::vector<std::string>& operands, std::size_t rank) {
  return namer_.broadcast(node, operands, rank);
}
Partial NodeNaming::regroup(const std::string& tensor, const std::vector<Extent>& out_dims) {
  return namer_.regroup(node, tensor, out_dims);
}

Partial drop(const std::vector<AxisName>& axes, const std::set<std::size_t>& gone) {
  Partial p;
  for (std::size_t i = 0; i < axes.size(); ++i)
    if (!gone.count(i)) p.push_back(axes[i]);
  return p;
}

std::vector<std::string> branch_reads(const stage0::Stage0Result& outer, const stage0::IfBranch& b) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  auto add = [&](const std::string& t) {
    if (!t.empty() && !b.values.count(t) && seen.insert(t).second) out.push_back(t);
  };
  stage0::Stage0Result scope = stage0::branch_scope(outer, b);
  for (const auto& ns : b.nodes) {
    if (ns.folded) continue;
    const Node& n = b.graph->nodes.at(ns.index);
    for (auto i : data_operands(n, scope))
      if (!is_folded_scalar_operand(n, i, scope)) add(n.inputs[i]);
    if (ns.branches)
      for (std::size_t side = 0; side < 2; ++side)
        for (const auto& t : branch_reads(scope, ns.branches->at(side))) add(t);
  }
  for (const auto& o : b.outputs) add(o);
  return out;
}

AxisNaming name_axes(const Model& model, const stage0::Stage0Result& analysed,
                     const std::vector<LayoutRule>& layout, const std::string& origin) {
  Namer namer(model, analysed, &layout, origin, false);
  namer.run();
  return namer.result();
}

std::vector<LayoutRule> propose_layout(const Model& model, const stage0::Stage0Result& analysed,
                                       const std::string& origin) {
  Namer namer(model, analysed, nullptr, origin, true);
  namer.run();
  return namer.proposal();
}

std::vector<LayoutRule> complete_layout(const Model& model, const stage0::Stage0Result& analysed,
                                        const std::vector<LayoutRule>& layout, const std::string& origin) {
  Namer namer(model, analysed, &layout, origin, true);
  namer.run();
  std::vector<LayoutRule> out = layout;
  for (auto& r : namer.proposal()) out.push_back(std::move(r));
  return out;
}

}  // namespace loam::axes
