#include "loom/verifier.hpp"

#include <unordered_set>

#include "loom/op_def.hpp"
#include "support/error.hpp"

namespace loam::loom {

void OpVerifier::fail(const Op& op, const std::string& message) const {
  loam::fail(where(module_, op.loc) + std::string(op.name()) + ": " + message);
}

void OpVerifier::require_nonnegative(const Op& op, const Value* v, std::string_view entering) const {
  if (facts_.at(&op, v).nonnegative()) return;
  fail(op, ref(v) + " enters offset " + std::string(entering) + ", but nothing proves it >= 0 (state it with index.assume, or compare it first)");
}

const Op* enclosing(const Op& op, std::string_view name, std::size_t* region) {
  const Op* child = &op;
  for (const Op* p = op.parent_op(); p; child = p, p = p->parent_op()) {
    if (p->name() == name) {
      if (region) *region = static_cast<std::size_t>(region_holding(*child));
      return p;
    }
  }
  return nullptr;
}

int region_holding(const Op& op) {
  const Op* owner = op.parent_op();
  if (!owner) return -1;
  for (std::size_t r = 0; r < owner->regions.size(); ++r)
    if (&owner->regions[r]->block == op.parent) return static_cast<int>(r);
  return -1;
}

namespace {

class Structure {
 public:
  explicit Structure(const Module& m) : m_(m) {}

  void run() {
    std::unordered_set<std::string> symbols;
    for (const auto& op : m_.ops) {
      if (!op->def->has(kTopLevel)) fail(*op, "cannot stand at the top of a module");
      const std::string& sym = op->symbol();
      if (!sym.empty() && !symbols.insert(sym).second) fail(*op, "@" + sym + " is defined twice");
      visible_.clear();
      defined_.clear();
      check_op(*op);
    }
  }

 private:
  [[noreturn]] void fail(const Op& op, const std::string& message) {
    loam::fail(where(m_, at_.known() ? at_ : op.loc) + std::string(op.name()) + ": " + message);
  }

  // A value's type is refused where the value is written, when it was read from text.
  void check_type(const Op& op, const Value* v) {
    at_ = v->loc.known() ? v->loc : op.loc;
    check_type_at(op, v);
    at_ = {};
  }

  void check_type_at(const Op& op, const Value* v) {
    const Type& t = v->type;
    const std::string shown = print_type(t);
    for (const Extent& d : t.dims()) {
      if (!d.dynamic()) {
        if (d.size < 0) fail(op, ref(v) + " has the negative dimension " + std::to_string(d.size) + " in " + shown);
        continue;
      }
      if (!visible_.count(d.value))
        fail(op, "the dimension " + print_extent(d) + " of " + ref(v) + " names a value not in scope there");
      if (!d.value->type.is_scalar(Scalar::Index))
        fail(op, "the dimension " + print_extent(d) + " of " + ref(v) + " is bound to " + ref(d.value) + ", which is " +
                     print_type(d.value->type) + "; a dimension is an index");
    }
    if (is_shaped(t.kind()) && is_address(t.element()))
      fail(op, ref(v) + " is " + shown + ", but " + std::string(scalar_name(t.element())) +
                   " has no storage width; hold an i64 and index.cast it");
    const Attachment& a = t.attachment();
    if (t.is_vector() && !a.empty())
      fail(op, ref(v) + " is " + shown + ": a vector carries no encoding or layout; it is resolved before data enters registers");
    if ((t.kind() == TypeKind::Tensor || t.kind() == TypeKind::Tile) && a.layout)
      fail(op, ref(v) + " is " + shown + ": #strided is an address layout, which only a view carries");
    if (t.is_view() && a.encoding)
      fail(op, ref(v) + " is " + shown + ": " + print_encoding(*a.encoding) +
                   " is an encoding, which a tensor or tile carries; a view takes an address layout");
    if (t.is_vector() && t.rank() == 0) fail(op, ref(v) + " is " + shown + ": a vector has at least one dimension");
    if (a.layout) {
      if (a.layout->strides.size() != t.rank())
        fail(op, ref(v) + " is " + shown + ": its layout gives " + counted(a.layout->strides.size(), "stride") + " for " +
                     counted(t.rank(), "dimension"));
      for (const Extent& s : a.layout->strides) {
        if (!s.dynamic()) {
          if (s.size < 0) fail(op, ref(v) + " is " + shown + ": a stride is a byte count and cannot be negative");
          continue;
        }
        if (!visible_.count(s.value))
          fail(op, "the stride " + print_extent(s) + " of " + ref(v) + " names a value not in scope there");
        if (!s.value->type.is_scalar(Scalar::Offset))
          fail(op, "the stride " + print_extent(s) + " of " + ref(v) + " is bound to " + ref(s.value) + ", which is " +
                       print_type(s.value->type) + "; a stride is an offset");
      }
    }
    if (a.encoding) {
      const BlockQuant& q = *a.encoding;
      const std::string its = ref(v) + " is " + shown + ": its encoding";
      if (q.bits != 4 && q.bits != 8) fail(op, its + " stores codes of 4 or 8 bits, not " + std::to_string(q.bits));
      if (q.block <= 0 || q.block % 2 != 0) fail(op, its + "'s blocks must hold a positive, even number of elements");
      if (q.zero < 0 || q.zero >= (1 << q.bits)) fail(op, its + "'s zero point must lie in [0, 2^bits)");
      if (!is_float(q.scale)) fail(op, its + "'s scale must be a float type");
      if (!is_integer(t.element()) || scalar_bits(t.element()) < 8)
        fail(op, ref(v) + " is " + shown + ": the logical elements of its encoding are signed codes, an integer of 8 bits or more");
      if (t.rank() == 0) fail(op, ref(v) + " is " + shown + ": an encoded tensor has at least one dimension");
      const Extent& last = t.dims().back();
      if (!last.dynamic() && last.size % q.block != 0)
        fail(op, ref(v) + " is " + shown + ": its last dimension " + std::to_string(last.size) + " is not a multiple of the block of " +
                     std::to_string(q.block));
    }
  }

  void check_value(const Op& op, const Value* v) {
    check_type(op, v);
    if (visible_.insert(v).second) defined_.push_back(v);
  }

  void check_constraints(const Op& op) {
    const OpDef& def = *op.def;
    const bool variadic_results = !def.results.empty() && def.results.back().variadic;
    if (!variadic_results && op.results.size() != def.results.size())
      fail(op, "gives " + counted(def.results.size(), "result") + ", not " + std::to_string(op.results.size()));
    std::size_t fixed_operands = 0;
    bool variadic_operands = false;
    for (const auto& o : def.operands) {
      if (o.variadic) variadic_operands = true;
      else ++fixed_operands;
    }
    if (variadic_operands ? op.operands.size() < fixed_operands : op.operands.size() != fixed_operands)
      fail(op, "takes " + counted(fixed_operands, "operand") + (variadic_operands ? " or more" : "") + ", not " +
                   std::to_string(op.operands.size()));
    for (const auto& spec : def.operands)
      for (const Value* v : op.operand_group(spec.name))
        if (spec.constraint.accepts && !spec.constraint.accepts(v->type))
          fail(op, ref(v) + " must be " + std::string(spec.constraint.description) + ", but is " + print_type(v->type));
    for (std::size_t i = 0; i < op.results.size(); ++i) {
      const ResultSpec& spec = def.results[std::min(i, def.results.size() - 1)];
      const Value* v = op.results[i].get();
      if (spec.constraint.accepts && !spec.constraint.accepts(v->type))
        fail(op, "its result " + ref(v) + " must be " + std::string(spec.constraint.description) + ", but is " +
                     print_type(v->type));
    }
    if (op.regions.size() != def.regions.size())
      fail(op, "has " + counted(def.regions.size(), "region") + ", not " + std::to_string(op.regions.size()));
    check_type_groups(op, def.parsed_format);
  }

  // Every type directive of the format names values that share one type.
  void check_type_groups(const Op& op, const std::vector<FormatItem>& items) {
    for (const auto& item : items) {
      if (item.kind == FormatItem::Kind::Optional) check_type_groups(op, item.group);
      if (item.kind != FormatItem::Kind::TypeOf) continue;
      const Value* first = nullptr;
      for (int t : item.targets) {
        std::vector<Value*> values;
        if (t >= 0) values = op.operand_group(op.def->operands[static_cast<std::size_t>(t)].name);
        else if (static_cast<std::size_t>(-1 - t) < op.results.size()) values = {op.results[static_cast<std::size_t>(-1 - t)].get()};
        for (const Value* v : values) {
          if (!first) first = v;
          else if (!(v->type == first->type))
            fail(op, ref(first) + " is " + print_type(first->type) + " and " + ref(v) + " is " + print_type(v->type) +
                         ", but " + std::string(op.name()) + " takes them at one type (there is no implicit cast)");
        }
      }
    }
  }

  void check_placement(const Op& op, const Block& block, std::size_t position) {
    if (op.def->has(kTerminator) && position + 1 != block.ops.size())
      fail(op, "ends its block, but more operations follow it");
    if (op.def->has(kTopLevel) && op.parent_op()) fail(op, "stands only at the top of a module");
    if (op.def->has(kLaunchOnly)) {
      std::size_t region = 0;
      if (!enclosing(op, "kernel.def", &region) || region != 1)
        fail(op, "is defined only inside a kernel's launch region");
    }
  }

  void check_op(const Op& op) {
    check_constraints(op);
    for (const Value* v : op.operands)
      if (!visible_.count(v)) fail(op, ref(v) + " does not dominate this use");
    // Ops isolated from above stand only at the top of a module, where nothing is visible yet;
    // each region sees what its op sees plus what it defines, removed again when it ends.
    for (const auto& region : op.regions) {
      const std::size_t mark = defined_.size();
      for (const auto& arg : region->block.args) check_value(op, arg.get());
      for (std::size_t i = 0; i < region->block.ops.size(); ++i) {
        const Op& inner = *region->block.ops[i];
        if (inner.parent != &region->block) fail(inner, "is not linked to the block that holds it");
        check_placement(inner, region->block, i);
        check_op(inner);
      }
      while (defined_.size() > mark) {
        visible_.erase(defined_.back());
        defined_.pop_back();
      }
    }
    for (const auto& r : op.results) check_value(op, r.get());
  }

  const Module& m_;
  Location at_;  // where a type being checked was written
  std::unordered_set<const Value*> visible_;
  std::vector<const Value*> defined_;  // visible_'s values in the order they came into scope
};

void run_op_rules(const OpVerifier& v, const Op& op) {
  if (op.def->verify) op.def->verify(op, const_cast<OpVerifier&>(v));
  for (const auto& region : op.regions)
    for (const auto& inner : region->block.ops) run_op_rules(v, *inner);
}

}  // namespace

void verify_module(const Module& m) {
  Structure(m).run();
  FactAnalysis facts(m);
  OpVerifier v(m, facts);
  for (const auto& op : m.ops) run_op_rules(v, *op);
}

}  // namespace loam::loom
