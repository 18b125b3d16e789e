#include "loom/facts.hpp"

#include <deque>
#include <limits>

#include "loom/op_def.hpp"

namespace loam::loom {

std::optional<Range> type_range(const Type& t) {
  if (!t.is_scalar()) return std::nullopt;
  switch (t.element()) {
    case Scalar::Index:
    case Scalar::I64:
      return Range{std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()};
    case Scalar::Offset: return Range{0, Int(std::numeric_limits<std::uint64_t>::max())};
    case Scalar::I1: return Range{0, 1};
    case Scalar::I8: return Range{-128, 127};
    case Scalar::I16: return Range{-32768, 32767};
    case Scalar::I32:
      return Range{std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max()};
    default: return std::nullopt;
  }
}

std::int64_t align_of_constant(Int v) {
  if (v == 0) return std::int64_t{1} << 62;
  std::int64_t a = 1;
  while (a < (std::int64_t{1} << 62) && v % (Int(a) * 2) == 0) a *= 2;
  return a;
}

// One node per region walked: what holds inside it beyond what holds where its op stands. Each
// entry records the position (op index) in the region's block from which it holds, so one node
// serves the whole block and a lookup walks only the regions around an op, not the ops before it.
struct FactAnalysis::Node {
  const Node* parent = nullptr;
  std::size_t parent_position = 0;  // where the op owning this region stands in the parent block
  std::unordered_map<const Value*, std::vector<std::pair<std::size_t, Facts>>> refined;
  std::vector<std::pair<std::size_t, Relation>> relations;
  const Op* kernel = nullptr;  // the kernel.def whose launch region this is in, if any
};

struct FactAnalysis::State {
  Target target;
  std::deque<Node> nodes;
  std::unordered_map<const Value*, Facts> defined;
  std::unordered_map<const Op*, std::pair<const Node*, std::size_t>> place_of;
  std::unordered_map<const Op*, const Op*> config_of;  // kernel.def -> its kernel.launch.config

  Node* make(const Node* parent, std::size_t parent_position) {
    nodes.emplace_back();
    nodes.back().parent = parent;
    nodes.back().parent_position = parent_position;
    nodes.back().kernel = parent ? parent->kernel : nullptr;
    return &nodes.back();
  }

  Facts lookup(const Node* n, std::size_t position, const Value* v) const {
    for (; n; position = n->parent_position, n = n->parent) {
      auto it = n->refined.find(v);
      if (it == n->refined.end()) continue;
      for (auto e = it->second.rbegin(); e != it->second.rend(); ++e)
        if (e->first <= position) return e->second;
    }
    auto it = defined.find(v);
    if (it != defined.end()) return it->second;
    Facts f;
    f.range = type_range(v->type);
    return f;
  }
};

namespace {

class Scope final : public FactScope {
 public:
  // `position`: where what this scope adds starts to hold in `node`'s block.
  Scope(FactAnalysis::State& s, FactAnalysis::Node* node, std::size_t position, int entering)
      : s_(s), node_(node), position_(position), entering_(entering) {}

  Facts of(const Value* v) const override { return s_.lookup(node_, position_, v); }
  void set(const Value* result, Facts f) override {
    // A result never claims more than its type can hold.
    if (auto t = type_range(result->type)) {
      if (!f.range) f.range = t;
      f.range->lo = std::max(f.range->lo, t->lo);
      f.range->hi = std::min(f.range->hi, t->hi);
      if (f.range->lo > f.range->hi) f.range = t;  // an op that always traps: nothing is known
    }
    s_.defined[result] = f;
  }
  void refine(const Value* v, Facts f) override {
    Facts known = of(v);
    if (f.range && known.range) {
      f.range->lo = std::max(f.range->lo, known.range->lo);
      f.range->hi = std::min(f.range->hi, known.range->hi);
      if (f.range->lo > f.range->hi) f.range = known.range;  // a path never taken
    } else if (!f.range) {
      f.range = known.range;
    }
    f.align = std::max(f.align, known.align);
    if (!f.noalias_group) f.noalias_group = known.noalias_group;
    f.base_align = std::max(f.base_align, known.base_align);
    node_->refined[v].emplace_back(position_, f);
  }
  void relate(const Relation& r) override { node_->relations.emplace_back(position_, r); }
  const Target& target() const override { return s_.target; }
  int entering() const override { return entering_; }
  const Value* launch_config(int which) const override {
    if (!node_ || !node_->kernel) return nullptr;
    auto it = s_.config_of.find(node_->kernel);
    if (it == s_.config_of.end() || static_cast<std::size_t>(which) >= it->second->operands.size()) return nullptr;
    return it->second->operands[static_cast<std::size_t>(which)];
  }

 private:
  FactAnalysis::State& s_;
  FactAnalysis::Node* node_;
  std::size_t position_;
  int entering_;
};

void walk_block(FactAnalysis::State& s, const Block& b, FactAnalysis::Node* node);

void walk_op(FactAnalysis::State& s, const Op& op, FactAnalysis::Node* node, std::size_t position) {
  s.place_of[&op] = {node, position};
  const bool is_kernel = op.name() == "kernel.def";
  const bool isolated = op.def->has(kIsolatedFromAbove);
  if (is_kernel && !op.regions.empty() && !op.regions[0]->block.ops.empty())
    s.config_of[&op] = op.regions[0]->block.ops.back().get();
  for (std::size_t r = 0; r < op.regions.size(); ++r) {
    FactAnalysis::Node* inner = s.make(isolated ? nullptr : node, position);
    if (is_kernel) inner->kernel = r == 1 ? &op : nullptr;
    else if (isolated) inner->kernel = nullptr;
    if (op.def->facts) {
      Scope entry(s, inner, 0, static_cast<int>(r));
      op.def->facts(op, entry);
    }
    walk_block(s, op.regions[r]->block, inner);
  }
  if (op.def->facts) {
    // What the op's results are, and what holds after it: from the next op on.
    Scope after(s, node, position + 1, -1);
    op.def->facts(op, after);
  }
}

void walk_block(FactAnalysis::State& s, const Block& b, FactAnalysis::Node* node) {
  for (std::size_t i = 0; i < b.ops.size(); ++i) walk_op(s, *b.ops[i], node, i);
}

}  // namespace

FactAnalysis::FactAnalysis(const Module& m, Target target) : state_(std::make_unique<State>()) {
  state_->target = std::move(target);
  for (const auto& op : m.ops) walk_op(*state_, *op, state_->make(nullptr, 0), 0);
}

FactAnalysis::~FactAnalysis() = default;

Facts FactAnalysis::at(const Op* op, const Value* v) const {
  auto it = state_->place_of.find(op);
  if (it == state_->place_of.end()) return state_->lookup(nullptr, 0, v);
  return state_->lookup(it->second.first, it->second.second, v);
}

bool FactAnalysis::proves_below(const Op* op, const Value* i, const Value* bound, std::int64_t n) const {
  const Facts fi = at(op, i);
  if (!bound) return fi.range && fi.range->lo >= 0 && fi.range->hi < n;
  const Facts fb = at(op, bound);
  if (fi.range && fb.range && fi.range->lo >= 0 && fi.range->hi < fb.range->lo) return true;
  auto it = state_->place_of.find(op);
  if (it == state_->place_of.end()) return false;
  std::size_t position = it->second.second;
  for (const Node* node = it->second.first; node; position = node->parent_position, node = node->parent)
    for (const auto& [from, r] : node->relations) {
      if (from > position || r.a != i || r.b != bound || !r.strict) continue;
      // i <u bound with bound >= 0 puts i in [0, bound); i <s bound needs i >= 0 besides.
      if (r.is_unsigned ? fb.nonnegative() : fi.nonnegative()) return true;
    }
  return false;
}

const Target& FactAnalysis::target() const { return state_->target; }

}  // namespace loam::loom
