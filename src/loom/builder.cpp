#include "loom/builder.hpp"

#include "loom/op_def.hpp"
#include "support/error.hpp"

namespace loam::loom {

std::string Builder::mint(const std::string& hint) {
  std::string base = hint.empty() ? "v" : hint;
  std::string n = base;
  for (int i = 1; names_.count(n); ++i) n = base + "_" + std::to_string(i);
  names_.insert(n);
  return n;
}

Op& Builder::func(const std::string& symbol, const std::vector<std::pair<std::string, Type>>& params, std::vector<Type> results) {
  auto op = std::make_unique<Op>(&op_table().get("func.def"));
  op->attr("symbol").text = symbol;
  op->attr("symbol").present = true;
  op->attr("results").types = std::move(results);
  module_.ops.push_back(std::move(op));
  Op& f = *module_.ops.back();
  names_.clear();
  region(f, params);
  return f;
}

Op& Builder::kernel(const std::string& symbol, const std::vector<std::pair<std::string, Type>>& config_params) {
  auto op = std::make_unique<Op>(&op_table().get("kernel.def"));
  op->attr("symbol").text = symbol;
  op->attr("symbol").present = true;
  module_.ops.push_back(std::move(op));
  Op& k = *module_.ops.back();
  names_.clear();
  region(k, config_params);
  return k;
}

Block& Builder::launch(Op& kernel, const std::vector<std::pair<std::string, Type>>& params) {
  // The launch region is isolated from the configuration one: its names start afresh.
  names_.clear();
  return region(kernel, params);
}

Block& Builder::region(Op& op, const std::vector<std::pair<std::string, Type>>& args) {
  Region& r = op.add_region();
  for (const auto& [hint, type] : args) r.block.add_arg(mint(hint), type);
  at_ = &r.block;
  return r.block;
}

Op& Builder::op(std::string_view name, std::vector<Value*> operands, std::vector<std::pair<std::string, Type>> results,
                const std::function<void(Op&)>& attrs) {
  if (!at_) fail("Builder: no insertion point for " + std::string(name) + "; begin a func or kernel first");
  const OpDef& def = op_table().get(name);
  auto op = std::make_unique<Op>(&def);
  op->operands = std::move(operands);
  for (auto& [hint, type] : results) op->add_result(mint(hint), type);
  if (attrs) attrs(*op);
  for (auto& a : op->attrs) a.present = a.present || !a.text.empty() || !a.facts.empty();
  if (def.infer) def.infer(*op);
  return *at_->append(std::move(op));
}

Value* Builder::value(std::string_view name, std::vector<Value*> operands, const std::string& hint, Type type,
                      const std::function<void(Op&)>& attrs) {
  return op(name, std::move(operands), {{hint, std::move(type)}}, attrs).result();
}

Value* Builder::index(std::int64_t v, const std::string& hint) {
  return value("index.constant", {}, hint, Type::index(), [v](Op& o) {
    o.attr("value").bits = static_cast<std::uint64_t>(v);
    o.attr("value").present = true;
  });
}

Value* Builder::offset(std::uint64_t v, const std::string& hint) {
  return value("index.constant", {}, hint, Type::offset(), [v](Op& o) {
    o.attr("value").bits = v;
    o.attr("value").present = true;
  });
}

Value* Builder::constant(Scalar type, std::uint64_t bits, const std::string& hint) {
  return value("scalar.constant", {}, hint, Type::scalar(type), [bits](Op& o) {
    o.attr("value").bits = bits;
    o.attr("value").present = true;
  });
}

}  // namespace loam::loom
