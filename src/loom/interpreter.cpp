#include "loom/interpreter.hpp"

#include "loom/op_def.hpp"
#include "loom/ops_common.hpp"
#include "support/error.hpp"

namespace loam::loom {

namespace {
constexpr int kMaxCallDepth = 256;
}

RtValue RtValue::buffer(std::shared_ptr<Storage> s) {
  RtValue v;
  v.kind = Kind::Buffer;
  v.bytes = s->bytes.size();
  v.storage = std::move(s);
  return v;
}

const RtValue& Frame::get(const Value* v) const {
  auto it = values_.find(v);
  if (it == values_.end()) loam::fail(where(module_, v->loc) + ref(v) + " has no value here: the module was not verified");
  return it->second;
}

void Frame::set(const Value* v, RtValue x) { values_[v] = std::move(x); }

void Frame::fail(const Op& op, const std::string& message) const {
  loam::fail(detail::fail_message(module_, op, message));
}

std::vector<RtValue> Frame::run_region(const Region& r, std::vector<RtValue> args) {
  for (std::size_t i = 0; i < r.block.args.size() && i < args.size(); ++i) set(r.block.args[i].get(), std::move(args[i]));
  yielded_.clear();
  for (const auto& op : r.block.ops) {
    interp_.count_step(*op);
    if (!op->def->eval) fail(*op, "has no meaning when run inside a region");
    op->def->eval(*op, *this);
  }
  return std::move(yielded_);
}

Interpreter::Interpreter(const Module& m, InterpreterOptions options) : module_(m), options_(std::move(options)) {}

void Interpreter::count_step(const Op& op) {
  if (++steps_ > options_.max_steps)
    loam::fail(detail::fail_message(module_, op, "the run took more than " + std::to_string(options_.max_steps) + " steps"));
}

const Op& Interpreter::contract(const Op& apply) const {
  const std::string& contract = apply.attr("contract").text;
  auto it = options_.contracts.find(contract);
  const std::string symbol = it != options_.contracts.end() ? it->second : contract;
  const Op* provider = module_.lookup(symbol);
  if (!provider || provider->name() != "func.def")
    loam::fail(detail::fail_message(module_, apply, "nothing provides " + contract + ": define func.def @" + contract +
                                                        " or bind the contract to a func.def"));
  // A provider bound here, not by name, is checked against the call as the verifier checks calls.
  const Block& params = provider->regions[0]->block;
  const auto& results = provider->attr("results").types;
  bool fits = params.args.size() == apply.operands.size() && results.size() == apply.results.size();
  for (std::size_t i = 0; fits && i < params.args.size(); ++i)
    fits = params.args[i]->type.is_scalar() && params.args[i]->type == apply.operands[i]->type;
  for (std::size_t i = 0; fits && i < results.size(); ++i) fits = results[i] == apply.result(static_cast<unsigned>(i))->type;
  if (!fits)
    loam::fail(detail::fail_message(module_, apply, "@" + symbol + " does not take and give the scalar types " + contract + " is applied to"));
  return *provider;
}

namespace {

// A caller's value for a parameter, checked against the parameter's type.
RtValue bind_param(const Module& m, const Op& fn, const Value* param, RtValue v, Frame& frame) {
  const Type& t = param->type;
  auto refuse = [&](const std::string& why) {
    loam::fail(detail::fail_message(m, fn, "the argument for " + ref(param) + " (" + print_type(t) + ") " + why));
  };
  if (t.is_scalar()) {
    if (v.kind != RtValue::Kind::Scalar) refuse("is not a scalar");
    if (is_integer(t.element()) && detail::mask_bits(v.bits, scalar_bits(t.element())) != v.bits) refuse("has bits beyond its width");
    v.bits = quiet_narrow_nan(v.bits, t.element());
    return v;
  }
  if (t.is_view()) {
    // From a func.call: the caller's view, whose extents the verifier bound to the arguments.
    if (v.kind != RtValue::Kind::View) refuse("is not a view");
    return v;
  }
  if (t.is_buffer()) {
    if (v.kind != RtValue::Kind::Buffer) refuse("is not a buffer");
    return v;
  }
  if (t.is_vector()) {
    if (v.kind != RtValue::Kind::Vector) refuse("is not a vector");
    for (auto& lane : v.lanes) lane = quiet_narrow_nan(lane, t.element());
    return v;
  }
  if (t.is_tensor()) {
    if (v.kind != RtValue::Kind::Buffer && v.kind != RtValue::Kind::Tensor) refuse("is not a tensor's bytes");
    RtValue tv;
    tv.kind = RtValue::Kind::Tensor;
    tv.storage = v.storage;
    tv.base = v.base;
    Int count = 1;
    for (const Extent& e : t.dims()) {
      const std::int64_t n = e.dynamic() ? frame.index(e.value) : e.size;
      if (n < 0) refuse("has the negative extent " + std::to_string(n));
      tv.dims.push_back(n);
      count *= n;
      if (count > Int(1) << 62) refuse("is too large");
    }
    Int need = count * scalar_bytes(t.element());
    if (const auto& q = t.attachment().encoding) {
      if (tv.dims.back() % q->block != 0) refuse("has a last extent that is not a multiple of the block of " + std::to_string(q->block));
      need = count / q->block * q->block_bytes();
    }
    const std::uint64_t have = v.kind == RtValue::Kind::Buffer ? v.bytes : v.storage->bytes.size() - v.base;
    if (Int(have) < need) refuse("holds " + std::to_string(have) + " bytes, fewer than its extents need");
    tv.bytes = static_cast<std::uint64_t>(need);
    return tv;
  }
  refuse("cannot be passed in from outside");
  return v;
}

}  // namespace

std::vector<RtValue> Interpreter::call(const std::string& symbol, std::vector<RtValue> args) {
  const Op* fn = module_.lookup(symbol);
  if (!fn) loam::fail(module_.file + ": no func.def or kernel.def named @" + symbol);
  if (depth_ >= kMaxCallDepth) loam::fail(detail::fail_message(module_, *fn, "calls nest deeper than " + std::to_string(kMaxCallDepth)));
  struct Depth {
    int& d;
    explicit Depth(int& x) : d(x) { ++d; }
    ~Depth() { --d; }
  } depth(depth_);
  Frame frame(*this, module_);
  std::size_t expected = 0;
  for (const auto& r : fn->regions) expected += r->block.args.size();
  if (fn->name() == "func.def") expected = fn->regions[0]->block.args.size();
  if (args.size() != expected)
    loam::fail(detail::fail_message(module_, *fn, "@" + symbol + " takes " + counted(expected, "argument") + ", not " +
                                                      std::to_string(args.size())));
  if (fn->name() == "func.def") {
    const Block& body = fn->regions[0]->block;
    std::vector<RtValue> bound;
    for (std::size_t i = 0; i < body.args.size(); ++i) {
      bound.push_back(bind_param(module_, *fn, body.args[i].get(), std::move(args[i]), frame));
      frame.set(body.args[i].get(), bound.back());
    }
    return frame.run_region(*fn->regions[0], std::move(bound));
  }
  if (fn->name() != "kernel.def") loam::fail(module_.file + ": @" + symbol + " is not a function or kernel");
  const Block& config = fn->regions[0]->block;
  const Block& launch = fn->regions[1]->block;
  std::vector<RtValue> config_args, launch_args;
  for (std::size_t i = 0; i < config.args.size(); ++i) {
    config_args.push_back(bind_param(module_, *fn, config.args[i].get(), std::move(args[i]), frame));
    frame.set(config.args[i].get(), config_args.back());
  }
  for (std::size_t i = 0; i < launch.args.size(); ++i) {
    RtValue v = bind_param(module_, *fn, launch.args[i].get(), std::move(args[config.args.size() + i]), frame);
    frame.set(launch.args[i].get(), v);
    launch_args.push_back(std::move(v));
  }
  auto grid = frame.run_region(*fn->regions[0], config_args);
  Frame::WorkItem w;
  for (int d = 0; d < 3; ++d) {
    w.group_count[d] = static_cast<std::int64_t>(grid[static_cast<std::size_t>(d)].bits);
    w.group_size[d] = static_cast<std::int64_t>(grid[static_cast<std::size_t>(3 + d)].bits);
    if (w.group_count[d] < 0 || w.group_size[d] < 1)
      loam::fail(detail::fail_message(module_, *fn, "@" + symbol + " launches a negative number of workgroups or an empty workgroup"));
  }
  for (w.group[2] = 0; w.group[2] < w.group_count[2]; ++w.group[2])
    for (w.group[1] = 0; w.group[1] < w.group_count[1]; ++w.group[1])
      for (w.group[0] = 0; w.group[0] < w.group_count[0]; ++w.group[0])
        for (w.item[2] = 0; w.item[2] < w.group_size[2]; ++w.item[2])
          for (w.item[1] = 0; w.item[1] < w.group_size[1]; ++w.item[1])
            for (w.item[0] = 0; w.item[0] < w.group_size[0]; ++w.item[0]) {
              frame.set_work(w);
              frame.run_region(*fn->regions[1], launch_args);
            }
  return {};
}

}  // namespace loam::loom
