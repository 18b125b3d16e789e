#include "loom/ir.hpp"

#include "loom/op_def.hpp"
#include "support/error.hpp"

namespace loam::loom {

Value* Block::add_arg(std::string name, Type type, Location loc) {
  auto v = std::make_unique<Value>();
  v->name = std::move(name);
  v->type = std::move(type);
  v->owner = this;
  v->index = static_cast<unsigned>(args.size());
  v->loc = loc;
  args.push_back(std::move(v));
  return args.back().get();
}

Op* Block::append(std::unique_ptr<Op> op) {
  op->parent = this;
  ops.push_back(std::move(op));
  return ops.back().get();
}

Op::Op(const OpDef* d) : def(d), attrs(d->attrs.size()) {}

std::string_view Op::name() const { return def->name; }

Value* Op::add_result(std::string name, Type type, Location at) {
  auto v = std::make_unique<Value>();
  v->name = std::move(name);
  v->type = std::move(type);
  v->def = this;
  v->index = static_cast<unsigned>(results.size());
  v->loc = at;
  results.push_back(std::move(v));
  return results.back().get();
}

Region& Op::add_region() {
  regions.push_back(std::make_unique<Region>());
  regions.back()->parent = this;
  return *regions.back();
}

Attr& Op::attr(std::string_view n) {
  int i = def->attr_index(n);
  if (i < 0) fail(std::string(def->name) + " has no attribute '" + std::string(n) + "'");
  return attrs[static_cast<std::size_t>(i)];
}

const Attr& Op::attr(std::string_view n) const { return const_cast<Op*>(this)->attr(n); }

std::vector<Value*> Op::operand_group(std::string_view n) const {
  int which = def->operand_index(n);
  if (which < 0) fail(std::string(def->name) + " has no operand '" + std::string(n) + "'");
  // At most one group is variadic, so every other group takes one operand.
  const std::size_t fixed = def->operands.size() - 1;
  std::size_t pos = 0;
  for (int i = 0; i < which; ++i)
    pos += def->operands[static_cast<std::size_t>(i)].variadic ? operands.size() - fixed : 1;
  const std::size_t count =
      def->operands[static_cast<std::size_t>(which)].variadic ? operands.size() - fixed : 1;
  if (pos + count > operands.size()) return {};
  return {operands.begin() + static_cast<std::ptrdiff_t>(pos),
          operands.begin() + static_cast<std::ptrdiff_t>(pos + count)};
}

Value* Op::operand(std::string_view n) const {
  auto group = operand_group(n);
  return group.empty() ? nullptr : group.front();
}

Op* Op::parent_op() const {
  if (!parent || !parent->parent) return nullptr;
  return parent->parent->parent;
}

const std::string& Op::symbol() const {
  static const std::string none;
  int i = def->attr_index("symbol");
  if (i < 0) i = def->attr_index("callee");
  if (i < 0) return none;
  return attrs[static_cast<std::size_t>(i)].text;
}

Op* Module::lookup(std::string_view sym) const {
  for (const auto& op : ops)
    if (op->symbol() == sym) return op.get();
  return nullptr;
}

std::string where(const Module& m, Location loc) {
  std::string s = m.file.empty() ? std::string() : m.file + ":";
  if (loc.known()) s += std::to_string(loc.line) + ":" + std::to_string(loc.col) + ":";
  return s.empty() ? s : s + " ";
}

std::string ref(const Value* v) { return v ? "%" + v->name : "%?"; }

std::string counted(std::size_t n, std::string_view noun) {
  std::string s = std::to_string(n) + " " + std::string(noun);
  if (n == 1) return s;
  if (noun == "index") return std::to_string(n) + " indices";
  return s + "s";
}

}  // namespace loam::loom
