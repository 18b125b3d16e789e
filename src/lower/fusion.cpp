// The fusion plan (see fusion.hpp): which constant weight each Conv, MatMul and Gemm reads packed,
// which Add of a channel bias and which Relu after it its kernel computes in the store of its
// product, which elementwise nodes their reader's kernel computes, and each node's decision.
#include "lower/fusion.hpp"

#include <algorithm>
#include <optional>

#include "ops/operator.hpp"

namespace loam::lower {
namespace {

using axes::AxisName;

// A node that only regroups its input's elements (no copy): a weight read through one is still the
// weight.
bool is_regrouping(const Node& n, const stage0::Stage0Result& st) {
  const ops::Operator* op = st.operators->find(n);
  return op && op->regrouping;
}


class Planner {
 public:
  Planner(const Graph& graph, const stage0::Stage0Result& st, const axes::AxisNaming& naming, const FusionOptions& options)
      : graph_(graph), st_(st), naming_(naming), fuse_(options.fuse) {
    for (const auto& ns : st.nodes) {
      if (ns.folded) continue;
      for (const auto& i : graph.nodes.at(ns.index).inputs)
        if (!i.empty()) readers_[i].push_back(ns.index);
      // An If's branches read tensors of this scope by name: each is a reader, so nothing they
      // read vanishes into a fused call.
      if (ns.branches)
        for (std::size_t side = 0; side < 2; ++side)
          for (const auto& t : axes::branch_reads(st, ns.branches->at(side))) readers_[t].push_back(ns.index);
    }
    for (const auto& o : st.outputs) outputs_.insert(o);
    for (const auto& ns : st.nodes)
      for (const auto& o : graph.nodes.at(ns.index).outputs)
        if (!o.empty()) producer_[o] = ns.index;
  }

  FusionPlan run() {
    FusionPlan plan;
    plan.graph = &graph_;
    std::vector<ProductFusion> products;  // every contraction, in graph order
    for (const auto& ns : st_.nodes) {
      if (ns.folded) continue;
      const Node& n = graph_.nodes.at(ns.index);
      if (!n.domain.empty()) continue;
      // Which operand is packed, and what its store and epilogue take, is each contraction's own.
      if (role(ns.index) != ops::FusionRole::Contraction) continue;
      std::optional<ProductFusion> f;
      if (n.op_type == "Conv") f = conv(ns.index, n);
      else if (n.op_type == "MatMul") f = matmul(ns.index, n);
      else if (n.op_type == "Gemm") f = gemm(ns.index, n);
      if (!f) continue;
      products.push_back(*f);
      if (!f->packed && f->absorbed.empty()) continue;
      for (auto a : f->absorbed) plan.absorbed.insert(a);
      plan.heads.emplace(ns.index, std::move(*f));
    }
    if (fuse_) {
      inline_elementwise(plan);
      attach_epilogues(plan, products);
    }
    decide(plan);
    return plan;
  }

 private:
  const Graph& graph_;
  const stage0::Stage0Result& st_;
  const axes::AxisNaming& naming_;
  const bool fuse_;
  std::map<std::string, std::vector<std::size_t>> readers_;  // tensor -> nodes reading it, once per read
  std::set<std::string> outputs_;
  std::map<std::string, std::size_t> producer_;  // tensor -> the node of this graph computing it

  // The node of this graph computing `t`, when a node does (not a value of the scope around).
  std::optional<std::size_t> producer(const std::string& t) const {
    const auto* v = value(t);
    auto it = producer_.find(t);
    if (!v || v->source != stage0::ValueState::Source::Node || v->value || it == producer_.end()) return std::nullopt;
    return it->second;
  }

  const std::vector<AxisName>* axes_of(const std::string& t) const {
    auto it = naming_.values.find(t);
    return it == naming_.values.end() ? nullptr : &it->second;
  }
  const stage0::ValueState* value(const std::string& t) const { return st_.find(t); }

  // The one node reading `t`, once, when nothing else reads it and the graph does not return it:
  // only then may the value vanish into a contraction's fused call.
  const Node* sole_reader(const std::string& t, std::size_t& index) const {
    auto r = only_reader(t);
    if (!r || readers_.at(t).size() != 1) return nullptr;
    index = *r;
    return &graph_.nodes.at(index);
  }

  // The one node reading `t` (perhaps more than once), when the graph does not return it and no
  // other node or branch reads it.
  std::optional<std::size_t> only_reader(const std::string& t) const {
    if (outputs_.count(t)) return std::nullopt;
    auto it = readers_.find(t);
    if (it == readers_.end() || it->second.empty()) return std::nullopt;
    for (auto r : it->second)
      if (r != it->second[0]) return std::nullopt;
    return it->second[0];
  }

  bool is_float_initializer(const std::string& t) const {
    const auto* v = value(t);
    return v && v->source == stage0::ValueState::Source::Initializer && v->elem == ElementType::F32 && !v->value &&
           axes_of(t);
  }

  // A float initializer, read directly or through regroupings nothing else reads (their extents
  // are known, so the load can regroup the weight itself).
  std::optional<PackedOperand> constant_operand(const Node& head, std::size_t input, std::vector<std::size_t>& regroupings) const {
    if (input >= head.inputs.size() || head.inputs[input].empty()) return std::nullopt;
    const std::string& operand = head.inputs[input];
    std::string t = operand;
    std::vector<std::size_t> chain;
    while (!is_float_initializer(t)) {
      const auto p = producer(t);
      if (!p) return std::nullopt;
      const Node& node = graph_.nodes.at(*p);
      std::size_t reader = 0;
      if (!is_regrouping(node, st_) || node.inputs.empty() || !sole_reader(t, reader)) return std::nullopt;
      for (const auto& d : value(t)->dims)
        if (!d.constant()) return std::nullopt;
      chain.push_back(*p);
      t = node.inputs[0];
    }
    if (!axes_of(operand)) return std::nullopt;
    regroupings.insert(regroupings.end(), chain.begin(), chain.end());
    return PackedOperand{input, t, operand};
  }

  // Whether `bias` is a float initializer that varies along axis `channel` of `y` only: aligned at
  // the end, its axis over `channel` has y's length and name, and every other axis has length 1.
  bool is_channel_bias(const std::string& bias, const std::string& y, std::size_t channel) const {
    if (!is_float_initializer(bias)) return false;
    const auto* b = value(bias);
    const auto* yv = value(y);
    const auto* ya = axes_of(y);
    const auto* ba = axes_of(bias);
    if (!yv || !ya || b->dims.size() > yv->dims.size()) return false;
    std::size_t offset = yv->dims.size() - b->dims.size();
    if (channel < offset) return false;  // the bias does not reach the channel axis
    auto length = yv->dims.at(channel).constant();
    if (!length) return false;
    for (std::size_t i = 0; i < b->dims.size(); ++i) {
      auto d = b->dims[i].constant();
      if (!d) return false;
      if (i + offset == channel) {
        if (*d != *length || ba->at(i) != ya->at(channel)) return false;
      } else if (*d != 1) {
        return false;
      }
    }
    return true;
  }

  // Extends `f` from `y` (its head's output, or what an absorbed normalisation gives): an Add of a
  // channel bias (when `bias_allowed`), then a Relu.
  void absorb_epilogue(ProductFusion& f, std::string y, std::size_t channel, bool bias_allowed) const {
    const auto* yv = value(y);
    const auto* ya = axes_of(y);
    f.result = y;
    if (!yv || !ya || yv->elem != ElementType::F32) return;
    std::size_t index = 0;
    const Node* next = sole_reader(f.result, index);
    if (bias_allowed && next && next->domain.empty() && next->op_type == "Add" && next->inputs.size() == 2 &&
        next->outputs.size() == 1) {
      const std::string& other = next->inputs[0] == f.result ? next->inputs[1] : next->inputs[0];
      const auto* oa = axes_of(next->outputs[0]);
      if (other != f.result && is_channel_bias(other, y, channel) && oa && *oa == *ya) {
        f.bias = other;
        f.absorbed.push_back(index);
        f.result = next->outputs[0];
        next = sole_reader(f.result, index);
      }
    }
    if (next && next->domain.empty() && next->op_type == "Relu" && next->inputs.size() == 1 && next->outputs.size() == 1) {
      const auto* ra = axes_of(next->outputs[0]);
      if (ra && *ra == *ya) {
        f.relu = true;
        f.absorbed.push_back(index);
        f.result = next->outputs[0];
      }
    }
  }

  std::optional<ProductFusion> conv(std::size_t index, const Node& n) const {
    ProductFusion f;
    f.head = index;
    f.head_op = n.op_type;
    std::vector<std::size_t> regroupings;
    f.packed = constant_operand(n, 1, regroupings);
    const auto* y = value(n.outputs.at(0));
    if (!y || y->dims.size() < 3) return std::nullopt;
    if (f.packed) {
      const auto* w = value(f.packed->operand);
      if (!w || w->dims.size() != y->dims.size()) f.packed.reset();
    }
    if (f.packed) f.absorbed = regroupings;
    bool own_bias = n.inputs.size() > 2 && !n.inputs[2].empty();
    f.result = n.outputs.at(0);
    if (!fuse_) return f;
    if (f.packed && absorb_normalization(f, n)) {
      // The bias the normalisation leaves is the call's bias; a Relu may follow.
      absorb_epilogue(f, f.result, 1, false);
    } else {
      absorb_epilogue(f, n.outputs.at(0), 1, !own_bias);
    }
    if (f.packed && y->dims.size() == 4) absorb_pool(f);
    return f;
  }

  // Whether `t` is a float initializer of one axis, the one `axis` names, `length` long.
  bool is_channel_vector(const std::string& t, const AxisName& axis, int64_t length) const {
    if (!is_float_initializer(t)) return false;
    const auto* v = value(t);
    const auto* a = axes_of(t);
    return v->dims.size() == 1 && v->dims[0].constant() == length && a->size() == 1 && (*a)[0] == axis;
  }

  // Extends a Conv's fusion with the inference BatchNormalization that alone reads its result, when
  // its scale, shift, mean and variance (and the Conv's own bias) are constants along the Conv's
  // output channels: the normalisation is then folded into the packed weight and a bias at load.
  bool absorb_normalization(ProductFusion& f, const Node& conv) const {
    const std::string& y = conv.outputs.at(0);
    const auto* yv = value(y);
    const auto* ya = axes_of(y);
    std::size_t index = 0;
    const Node* bn = sole_reader(y, index);
    if (!yv || !ya || yv->elem != ElementType::F32 || ya->size() < 2 || !bn || !bn->domain.empty() ||
        bn->op_type != "BatchNormalization" || bn->inputs.size() != 5 || bn->inputs[0] != y || bn->outputs.empty())
      return false;
    for (std::size_t k = 1; k < bn->outputs.size(); ++k)
      if (!bn->outputs[k].empty()) return false;  // training outputs: not an inference normalisation
    const Attribute* training = bn->attr("training_mode");
    if (training && (training->kind != Attribute::Kind::Int || training->i != 0)) return false;
    const Attribute* eps = bn->attr("epsilon");
    if (eps && eps->kind != Attribute::Kind::Float) return false;
    auto channels = yv->dims.at(1).constant();
    if (!channels) return false;
    const AxisName& c = (*ya)[1];
    for (std::size_t k = 1; k < 5; ++k)
      if (!is_channel_vector(bn->inputs[k], c, *channels)) return false;
    bool own_bias = conv.inputs.size() > 2 && !conv.inputs[2].empty();
    if (own_bias && !is_channel_vector(conv.inputs[2], c, *channels)) return false;
    const auto* out = axes_of(bn->outputs[0]);
    if (!out || *out != *ya) return false;
    PreparedWeight::Normalization norm;
    norm.scale = bn->inputs[1];
    norm.shift = bn->inputs[2];
    norm.mean = bn->inputs[3];
    norm.var = bn->inputs[4];
    norm.conv_bias = own_bias ? conv.inputs[2] : "";
    norm.epsilon = eps ? eps->f : 1e-5f;
    f.norm = norm;
    f.absorbed.push_back(index);
    f.result = bn->outputs[0];
    return true;
  }

  // Extends a Conv's fusion with the MaxPool or AveragePool that alone reads its result (a MaxPool
  // whose Indices the graph reads stays a node of its own).
  void absorb_pool(ProductFusion& f) const {
    std::size_t index = 0;
    const Node* next = sole_reader(f.result, index);
    if (!next || !next->domain.empty() || (next->op_type != "MaxPool" && next->op_type != "AveragePool")) return;
    if (next->inputs.size() != 1 || next->outputs.empty() || next->outputs[0].empty()) return;
    if (next->outputs.size() > 2 || (next->outputs.size() == 2 && !next->outputs[1].empty())) return;
    const auto* in = axes_of(f.result);
    const auto* out = axes_of(next->outputs[0]);
    const auto* ov = value(next->outputs[0]);
    if (!in || !out || !ov || ov->elem != ElementType::F32 || out->size() != in->size() || (*out)[0] != (*in)[0] || (*out)[1] != (*in)[1])
      return;
    f.pool = index;
    f.pool_op = next->op_type;
    f.pooled = f.result;
    f.absorbed.push_back(index);
    f.result = next->outputs[0];
  }

  std::optional<ProductFusion> matmul(std::size_t index, const Node& n) const {
    // Only a packed weight has a bias and Relu in its store (`matmul_bias`); any MatMul may run an
    // epilogue kernel.
    ProductFusion f;
    f.head = index;
    f.head_op = n.op_type;
    if (n.inputs.size() != 2 || n.outputs.empty()) return std::nullopt;
    f.result = n.outputs[0];
    std::vector<std::size_t> regroupings;
    f.packed = constant_operand(n, 1, regroupings);
    if (!f.packed) f.packed = transposed_weight(n, f);
    if (!f.packed) return f;
    const auto* a = axes_of(n.inputs[0]);
    const auto* b = axes_of(f.packed->operand);
    const auto* y = axes_of(n.outputs.at(0));
    const auto* av = value(n.inputs[0]);
    if (!a || !b || !y || !av || av->elem != ElementType::F32 || a->empty() || b->size() != 2) {
      f.packed.reset();
      return f;
    }
    // packed_product's signature: a [.., K] x [K, N] -> [.., N], read by name.
    std::vector<AxisName> want(a->begin(), a->end() - 1);
    want.push_back((*b)[1]);
    if (a->back() != (*b)[0] || *y != want) {
      f.packed.reset();
      return f;
    }
    if (f.transposed_at_load) regroupings.push_back(*f.transposed_at_load);
    f.absorbed = regroupings;
    f.result = n.outputs.at(0);
    if (fuse_) absorb_epilogue(f, n.outputs.at(0), y->size() - 1, true);
    return f;
  }

  // A MatMul's B that is a 2-D float initializer W transposed (Transpose with perm [1, 0], which
  // nothing else reads): a tied embedding read as the language-model head, as exporters write it.
  // W is packed transposed at load, and the Transpose runs then; the packed operand is the
  // Transpose's result, so the signature check reads [K, N].
  std::optional<PackedOperand> transposed_weight(const Node& head, ProductFusion& f) const {
    const std::string& operand = head.inputs.at(1);
    const auto p = producer(operand);
    if (!p) return std::nullopt;
    const std::size_t t = *p;
    const Node& transpose = graph_.nodes.at(t);
    const auto* v = value(operand);
    std::size_t reader = 0;
    if (transpose.op_type != "Transpose" || !transpose.domain.empty() || transpose.outputs.empty() ||
        transpose.outputs[0] != operand || transpose.inputs.empty() || !is_float_initializer(transpose.inputs[0]) ||
        !sole_reader(operand, reader) || v->dims.size() != 2 || !axes_of(operand))
      return std::nullopt;
    if (const Attribute* perm = transpose.attr("perm"))
      if (perm->kind != Attribute::Kind::Ints || perm->ints != std::vector<int64_t>{1, 0}) return std::nullopt;
    f.transposed_at_load = t;
    return PackedOperand{1, transpose.inputs[0], operand};
  }

  std::optional<ProductFusion> gemm(std::size_t index, const Node& n) const {
    ProductFusion f;
    f.head = index;
    f.head_op = n.op_type;
    const Attribute* ta_attr = n.attr("transA");
    const Attribute* tb_attr = n.attr("transB");
    bool ta = ta_attr && ta_attr->kind == Attribute::Kind::Int && ta_attr->i != 0;
    bool tb = tb_attr && tb_attr->kind == Attribute::Kind::Int && tb_attr->i != 0;
    std::vector<std::size_t> regroupings;
    f.packed = constant_operand(n, 1, regroupings);
    const auto* a = axes_of(n.inputs.at(0));
    const auto* y = axes_of(n.outputs.at(0));
    if (!a || !y || a->size() != 2 || y->size() != 2) return std::nullopt;
    if (f.packed) {
      // gemm<TA>(a, PackedMatrix<K, N>): A's K is the weight's K; the result is [M, N].
      const auto* b = axes_of(f.packed->operand);
      bool fits = b && b->size() == 2 && (*a)[ta ? 0 : 1] == (*b)[tb ? 1 : 0] &&
                  *y == std::vector<AxisName>{(*a)[ta ? 1 : 0], (*b)[tb ? 0 : 1]};
      if (!fits) f.packed.reset();
    }
    if (f.packed) f.absorbed = regroupings;
    bool has_c = n.inputs.size() > 2 && !n.inputs[2].empty();
    f.result = n.outputs.at(0);
    if (fuse_) absorb_epilogue(f, n.outputs.at(0), 1, !has_c);
    return f;
  }

  bool computes_own_kernel(const FusionPlan& plan, std::size_t index) const {
    return !plan.absorbed.count(index) && !plan.heads.count(index);
  }

  // The node's fusion role, as its operator decides it (ops/operator.hpp).
  ops::FusionRole role(std::size_t index) const {
    const Node& n = graph_.nodes.at(index);
    const ops::Operator* op = st_.operators->find(n);
    return op ? op->role(n, st_) : ops::FusionRole::None;
  }
  bool elementwise(std::size_t index) const { return role(index) == ops::FusionRole::Elementwise; }
  bool row_reduction(std::size_t index) const { return role(index) == ops::FusionRole::RowReduction; }
  bool row_normaliser(std::size_t index) const { return role(index) == ops::FusionRole::RowNormaliser; }
  // A kernel that computes an elementwise producer of its input in its own loops.
  bool computes_elementwise(std::size_t index) const {
    const ops::FusionRole r = role(index);
    return r == ops::FusionRole::Elementwise || r == ops::FusionRole::RowNormaliser || r == ops::FusionRole::LayerNormaliser;
  }

  // Whether tensors `t` and `u` have the same axes and extents.
  bool same_elements(const std::string& t, const std::string& u) const {
    const auto* ta = axes_of(t);
    const auto* ua = axes_of(u);
    const auto* tv = value(t);
    const auto* uv = value(u);
    if (!ta || !ua || !tv || !uv || *ta != *ua || tv->dims.size() != uv->dims.size()) return false;
    for (std::size_t k = 0; k < tv->dims.size(); ++k)
      if (!(tv->dims[k] == uv->dims[k])) return false;
    return true;
  }

  // Whether `t` holds `u`'s elements in `u`'s order: the same extents, and the same axes but where
  // an axis holds one element (a layout may name such axes apart).
  bool same_elements_in_order(const std::string& t, const std::string& u) const {
    const auto* ta = axes_of(t);
    const auto* ua = axes_of(u);
    const auto* tv = value(t);
    const auto* uv = value(u);
    if (!ta || !ua || !tv || !uv || ta->size() != ua->size() || tv->dims.size() != uv->dims.size()) return false;
    for (std::size_t k = 0; k < tv->dims.size(); ++k)
      if (!(tv->dims[k] == uv->dims[k]) || ((*ta)[k] != (*ua)[k] && tv->dims[k].constant() != 1)) return false;
    return true;
  }

  // Whether `t` is one element per row of `u`: the same axes and extents but the last, where `t`
  // has one element.
  bool one_per_row(const std::string& t, const std::string& u) const {
    const auto* ta = axes_of(t);
    const auto* ua = axes_of(u);
    const auto* tv = value(t);
    const auto* uv = value(u);
    if (!ta || !ua || !tv || !uv || ta->size() != ua->size() || ta->empty() || tv->dims.size() != uv->dims.size()) return false;
    for (std::size_t k = 0; k + 1 < tv->dims.size(); ++k)
      if (!(tv->dims[k] == uv->dims[k]) || (*ta)[k] != (*ua)[k]) return false;
    return tv->dims.back().constant() == 1;
  }

  const std::string& result_of(std::size_t index) const { return graph_.nodes.at(index).outputs.at(0); }

  // Walking back from each kernel, the nodes it computes in its own loops: an elementwise node or a
  // row reduction whose readers all resolve to one kernel, each reading it under the kernel's
  // elements — the same axes and extents, or (a value computed from row reductions) one element
  // per row the kernel broadcasts, computed once per row; a reduction's input is the kernel's row.
  void inline_elementwise(FusionPlan& plan) const {
    // Values computed from row reductions, one element per row (a mean, a variance plus epsilon).
    std::set<std::string> from_reductions;
    for (const auto& ns : st_.nodes) {
      if (ns.folded) continue;
      const Node& n = graph_.nodes.at(ns.index);
      bool reads = row_reduction(ns.index);
      if (!reads && elementwise(ns.index))
        for (const auto& i : n.inputs) reads = reads || from_reductions.count(i);
      if (reads && n.outputs.size() == 1) from_reductions.insert(n.outputs[0]);
    }
    for (auto it = st_.nodes.rbegin(); it != st_.nodes.rend(); ++it) {
      const std::size_t index = it->index;
      // A row normaliser computed in its reader's kernel is reductions too (its maximum and sum).
      const bool along_row = row_reduction(index) || row_normaliser(index);
      if (it->folded || !computes_own_kernel(plan, index) || (!elementwise(index) && !along_row)) continue;
      const std::string& t = result_of(index);
      auto readers = readers_.find(t);
      if (outputs_.count(t) || readers == readers_.end() || readers->second.empty()) continue;
      std::optional<std::size_t> kernel;
      bool fits = true;
      for (std::size_t r : readers->second) {
        std::optional<std::size_t> by;  // the kernel computing r
        if (auto in = plan.inlined.find(r); in != plan.inlined.end()) by = in->second;
        else if (computes_own_kernel(plan, r) && computes_elementwise(r)) by = r;
        if (!by || (kernel && *kernel != *by)) {
          fits = false;
          break;
        }
        kernel = by;
        // How r reads t: a reduction reads the kernel's row; any other node reads t under its own
        // result's elements, or broadcasts a value of the reductions along the row.
        if (row_reduction(r)) fits = same_elements(t, result_of(*kernel));
        else fits = same_elements(t, result_of(r)) || (from_reductions.count(t) && one_per_row(t, result_of(r)));
        if (!fits) break;
      }
      if (!fits || !kernel) continue;
      if (along_row && !same_elements(graph_.nodes.at(index).inputs.at(0), result_of(*kernel))) continue;
      plan.inlined[index] = *kernel;
    }
  }

  // The node computing `r`'s kernel: the kernel it is inlined into, or its own generated kernel.
  std::optional<std::size_t> kernel_computing(const FusionPlan& plan, std::size_t r) const {
    if (auto in = plan.inlined.find(r); in != plan.inlined.end()) return in->second;
    if (computes_own_kernel(plan, r) && computes_elementwise(r)) return r;
    return std::nullopt;
  }

  // The nodes kernel `root` computes: itself and those inlined into it.
  std::vector<std::size_t> kernel_group(const FusionPlan& plan, std::size_t root) const {
    std::vector<std::size_t> group;
    for (const auto& [n, k] : plan.inlined)
      if (k == root) group.push_back(n);
    group.push_back(root);
    return group;
  }

  // Whether a kernel's row is its last axis alone: it reduces or normalises along it.
  bool reduces_rows(const std::vector<std::size_t>& group) const {
    for (auto n : group)
      if (row_reduction(n) || row_normaliser(n) || role(n) == ops::FusionRole::LayerNormaliser) return true;
    return false;
  }

  // Whether every tensor the group reads from outside it (but `product`) spans all the axes from
  // `from` on that are longer than one element, or none of them: one merged row of the kernel then
  // steps through it.
  bool uniform_from(const std::vector<std::size_t>& group, const std::string& product, std::size_t from, const std::vector<Extent>& dims) const {
    std::set<std::string> made;
    for (auto n : group)
      for (const auto& o : graph_.nodes.at(n).outputs) made.insert(o);
    const std::size_t rank = dims.size();
    for (auto n : group) {
      const Node& node = graph_.nodes.at(n);
      for (std::size_t i = 0; i < node.inputs.size(); ++i) {
        const std::string& t = node.inputs[i];
        if (t.empty() || t == product || made.count(t) || axes::is_folded_scalar_operand(node, i, st_)) continue;
        const auto* v = value(t);
        if (!v) return false;
        const std::size_t r = v->dims.size();
        std::optional<bool> spans;
        for (std::size_t d = from; d < rank; ++d) {
          if (dims[d].constant() == 1) continue;
          const bool here = d + r >= rank && v->dims[d + r - rank].constant() != 1;
          if (spans && *spans != here) return false;
          spans = here;
        }
      }
    }
    return true;
  }

  // The epilogue kernel a contraction can run: its result (through regroupings nothing else reads)
  // read only by one generated kernel, at that kernel's elements, whose rows are the product's.
  std::optional<ProductEpilogue> epilogue_of(const FusionPlan& plan, const ProductFusion& f) const {
    if (f.pool) return std::nullopt;
    const Node& head = graph_.nodes.at(f.head);
    const bool conv = head.op_type == "Conv";
    const auto* product = value(f.result);
    if (!product || product->elem != ElementType::F32 || product->dims.empty()) return std::nullopt;
    // A MatMul of a rank-1 b drops N: its rows are not the result's last axis.
    if (head.op_type == "MatMul" && (!value(head.inputs.at(1)) || value(head.inputs.at(1))->dims.size() < 2)) return std::nullopt;
    ProductEpilogue e;
    e.operand = f.result;
    // A matrix product's rows are its elements in order, so regroupings may come between.
    for (std::size_t r = 0; const Node* next = conv ? nullptr : sole_reader(e.operand, r);) {
      if (!is_regrouping(*next, st_) || next->outputs.size() != 1 || next->outputs[0].empty() || !value(next->outputs[0])) break;
      e.regroupings.push_back(r);
      e.operand = next->outputs[0];
    }
    auto readers = readers_.find(e.operand);
    if (outputs_.count(e.operand) || readers == readers_.end() || readers->second.empty()) return std::nullopt;
    std::optional<std::size_t> kernel;
    for (std::size_t r : readers->second) {
      const auto by = kernel_computing(plan, r);
      if (!by || (kernel && *kernel != *by)) return std::nullopt;
      kernel = by;
    }
    const std::string& result = result_of(*kernel);
    if (!same_elements_in_order(e.operand, result)) return std::nullopt;
    const auto& dims = value(result)->dims;
    const std::vector<std::size_t> group = kernel_group(plan, *kernel);
    if (conv) {
      // A row is an (image, channel) plane: the kernel's row is every spatial axis, merged.
      e.row_axis = 2;
      if (dims.size() < 3 || (reduces_rows(group) && dims.size() != 3) || !uniform_from(group, e.operand, 2, dims)) return std::nullopt;
    } else {
      e.row_axis = dims.size() - 1;
      if (!(dims.back() == product->dims.back())) return std::nullopt;
    }
    e.kernel = *kernel;
    return e;
  }

  // Gives each generated kernel that only a contraction's result feeds to that contraction as its
  // epilogue; a kernel two products feed goes to the later one (its rows are the fresher in cache).
  void attach_epilogues(FusionPlan& plan, const std::vector<ProductFusion>& products) const {
    for (auto it = products.rbegin(); it != products.rend(); ++it) {
      const ProductFusion& candidate = plan.heads.count(it->head) ? plan.heads.at(it->head) : *it;
      auto e = epilogue_of(plan, candidate);
      if (!e || plan.epilogues.count(e->kernel)) continue;
      ProductFusion f = candidate;
      for (auto r : e->regroupings) {
        f.absorbed.push_back(r);
        plan.absorbed.insert(r);
      }
      plan.epilogues[e->kernel] = f.head;
      f.epilogue = std::move(e);
      plan.heads[f.head] = std::move(f);
    }
  }

  // Why the value a call of its own defines is materialised.
  FusionReason materialised(const FusionPlan& plan, std::size_t index, const std::string& result) const {
    if (!fuse_) return FusionReason::Disabled;
    const Node& n = graph_.nodes.at(index);
    for (const auto& o : n.outputs)
      if (outputs_.count(o)) return FusionReason::GraphOutput;
    if (outputs_.count(result)) return FusionReason::GraphOutput;
    auto it = readers_.find(result);
    if (it == readers_.end() || it->second.empty()) return FusionReason::NoReader;
    auto r = only_reader(result);
    if (!r) return FusionReason::SeveralReaders;
    if (plan.heads.count(index)) return FusionReason::ReaderNotFusable;  // the epilogue took what it could
    if (!elementwise(index)) return FusionReason::NotElementwise;
    if (!computes_elementwise(*r) || !computes_own_kernel(plan, *r)) return FusionReason::ReaderNotFusable;
    return FusionReason::ReaderBroadcasts;
  }

  void decide(FusionPlan& plan) const {
    std::map<std::size_t, std::size_t> into;  // absorbed node -> its head
    std::set<std::size_t> epilogue_regroupings;
    for (const auto& [head, f] : plan.heads) {
      for (auto a : f.absorbed) into[a] = head;
      if (!f.epilogue) continue;
      epilogue_regroupings.insert(f.epilogue->regroupings.begin(), f.epilogue->regroupings.end());
      for (auto n : kernel_group(plan, f.epilogue->kernel)) into[n] = head;
    }
    // A node stage 0 did not keep computes nothing the graph returns.
    for (std::size_t i = 0; i < graph_.nodes.size(); ++i) plan.decisions[i] = {FusionReason::NoReader, std::nullopt};
    for (const auto& ns : st_.nodes) {
      NodeDecision& d = plan.decisions[ns.index];
      if (ns.folded) {
        d.reason = FusionReason::Folded;
        continue;
      }
      const Node& n = graph_.nodes.at(ns.index);
      if (auto a = into.find(ns.index); a != into.end()) {
        // The regroupings of a packed weight happen at load; the rest is the head's epilogue.
        const bool at_load = (is_regrouping(n, st_) && !epilogue_regroupings.count(ns.index)) ||
                             plan.heads.at(a->second).transposed_at_load == ns.index;
        d.reason = at_load ? FusionReason::PreparedAtLoad : FusionReason::Fused;
        d.into = a->second;
        continue;
      }
      if (auto in = plan.inlined.find(ns.index); in != plan.inlined.end()) {
        d.reason = FusionReason::Fused;
        d.into = in->second;
        continue;
      }
      auto h = plan.heads.find(ns.index);
      std::string result = n.outputs.empty() ? "" : n.outputs[0];
      if (h != plan.heads.end()) result = h->second.epilogue ? result_of(h->second.epilogue->kernel) : h->second.result;
      d.reason = materialised(plan, ns.index, result);
    }
  }
};

}  // namespace

const char* fusion_reason_name(FusionReason r) {
  switch (r) {
    case FusionReason::Fused: return "fused";
    case FusionReason::Folded: return "folded";
    case FusionReason::PreparedAtLoad: return "prepared-at-load";
    case FusionReason::GraphOutput: return "graph-output";
    case FusionReason::SeveralReaders: return "several-readers";
    case FusionReason::NoReader: return "no-reader";
    case FusionReason::ReaderNotFusable: return "reader-not-fusable";
    case FusionReason::ReaderBroadcasts: return "reader-broadcasts";
    case FusionReason::NotElementwise: return "not-elementwise";
    case FusionReason::Disabled: return "disabled";
  }
  return "";
}

const char* fusion_reason_meaning(FusionReason r) {
  switch (r) {
    case FusionReason::Fused: return "computed inside the call of the node named by `into`";
    case FusionReason::Folded: return "computed by the build (stage 0); no kernel runs";
    case FusionReason::PreparedAtLoad: return "a regrouping or transposition of a constant weight, done once when the weights load";
    case FusionReason::GraphOutput: return "the graph returns the value, so it is materialised";
    case FusionReason::SeveralReaders:
      return "nodes that more than one kernel computes read the value (or an If's branch does)";
    case FusionReason::NoReader: return "no node reads the value";
    case FusionReason::ReaderNotFusable:
      return "the node reading the value has no kernel that computes it in its own loop (it is neither elementwise nor a row normaliser "
             "nor a reduction along a kernel's row), or, after a contraction, its kernel's rows are not the product's rows (it reads "
             "the product broadcast, or varies along part of a convolution's plane only)";
    case FusionReason::ReaderBroadcasts:
      return "the node reading the value broadcasts it to more elements, so computing it there would repeat it";
    case FusionReason::NotElementwise:
      return "the node is not elementwise (a contraction, a window, a row normaliser, a reduction), and no rule computes it with its reader";
    case FusionReason::Disabled: return "fusion is off (--no-fuse)";
  }
  return "";
}

std::string ProductFusion::label() const {
  std::string s = head_op;
  if (norm) s += " + BatchNormalization";
  if (!bias.empty()) s += " + Add";
  if (relu) s += " + Relu";
  if (pool) s += " + " + pool_op;
  return s;
}

FusionPlan plan_fusion(const Graph& graph, const stage0::Stage0Result& analysed, const axes::AxisNaming& naming,
                       const FusionOptions& options) {
  return Planner(graph, analysed, naming, options).run();
}

}  // namespace loam::lower
