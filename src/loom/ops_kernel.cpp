// Kernels: kernel.def owns its launch. Its first region computes the launch configuration from
// the configuration parameters and ends with kernel.launch.config; its second region, the launch
// region, runs once per work item of every workgroup and reads where it is with the work-item
// ops. Both regions are isolated from above. On the CPU the workgroups and work items become
// loops; a GPU emitter maps them to its dispatch grid.
#include <algorithm>
#include <unordered_set>

#include "loom/ops_common.hpp"
#include "loom/syntax.hpp"
#include "support/error.hpp"

namespace loam::loom {

namespace {

using namespace detail;
namespace c = constraint;

const std::vector<std::string_view> kDims{"x", "y", "z"};

// Which buffer parameters the emitted function may mark __restrict: those a noalias promise
// covers together with every other buffer parameter.
std::vector<bool> restrict_params(const Op& kernel, const FactAnalysis& facts) {
  std::vector<const Value*> buffers;
  for (const auto& r : kernel.regions)
    for (const auto& a : r->block.args)
      if (a->type.is_buffer()) buffers.push_back(a.get());
  // Each buffer parameter's noalias group, from an assume over it at the top of the launch region.
  std::unordered_map<const Value*, const Op*> group;
  for (const auto& op : kernel.regions[1]->block.ops)
    if (op->name() == "buffer.assume.noalias")
      for (const Value* v : op->operands) group[v] = op.get();
  std::vector<bool> out;
  for (const auto& r : kernel.regions)
    for (const auto& a : r->block.args) {
      if (!a->type.is_buffer()) {
        out.push_back(false);
        continue;
      }
      auto it = group.find(a.get());
      bool all = it != group.end();
      for (const Value* other : buffers)
        if (all && other != a.get()) {
          auto jt = group.find(other);
          all = jt != group.end() && jt->second == it->second;
        }
      out.push_back(all);
    }
  (void)facts;
  return out;
}

void add_def(OpTable& t) {
  OpDef d;
  d.name = "kernel.def";
  d.summary = "a kernel: a configuration region giving its launch, and a launch region run per work item";
  d.attrs = {{"symbol", AttrKind::Symbol, {}}};
  d.regions = {"config", "launch"};
  d.traits = kTopLevel | kIsolatedFromAbove;
  d.parse = [](Op& op, OpParser& p) {
    op.attr("symbol").text = p.parse_symbol();
    op.attr("symbol").present = true;
    Region& config = op.add_region();
    p.begin_region(config, true);
    parse_parameters(p, config);
    p.parse_region_body(config);
    p.end_region(config);
    p.expect_keyword("launch");
    Region& launch = op.add_region();
    p.begin_region(launch, true);
    parse_parameters(p, launch);
    p.parse_region_body(launch);
    p.end_region(launch);
  };
  d.print = [](const Op& op, OpPrinter& p) {
    p.text("@" + op.symbol());
    print_parameters(p, op.regions[0]->block);
    p.text(" ");
    p.region(*op.regions[0]);
    p.text(" launch");
    print_parameters(p, op.regions[1]->block);
    p.text(" ");
    p.region(*op.regions[1]);
  };
  d.verify = [](const Op& op, OpVerifier& v) {
    const auto& config = op.regions[0]->block.ops;
    if (config.empty() || config.back()->name() != "kernel.launch.config")
      v.fail(op, "@" + op.symbol() + "'s configuration region must end with kernel.launch.config");
    const auto& launch = op.regions[1]->block.ops;
    if (launch.empty() || launch.back()->name() != "kernel.return")
      v.fail(op, "@" + op.symbol() + "'s launch region must end with kernel.return");
  };
  d.emit = [](const Op& op, CppEmitter& e) {
    e.begin_function(op);
    std::vector<const Value*> params;
    for (const auto& r : op.regions)
      for (const auto& a : r->block.args) params.push_back(a.get());
    const std::string name = e.function_name(op.symbol());
    e.open("inline void " + name + "(" + e.parameters(params, restrict_params(op, e.facts())) + ")");
    e.line("LOOM_NO_CONTRACT;");
    e.check_tensor_parameters(op, params);
    const std::string groups = e.fresh("workgroups"), size = e.fresh("workgroup_size");
    e.line("std::int64_t " + groups + "[3];");
    e.line("std::int64_t " + size + "[3];");
    e.set_work_variable("groups", 0, groups);
    e.set_work_variable("sizes", 0, size);
    e.open("");
    e.emit_block(op.regions[0]->block);
    e.close();
    e.check(op, groups + "[0] >= 0 && " + groups + "[1] >= 0 && " + groups + "[2] >= 0 && " + size + "[0] >= 1 && " + size + "[1] >= 1 && " +
                    size + "[2] >= 1",
            "@" + op.symbol() + " launches a negative number of workgroups or an empty workgroup");
    for (int dim = 0; dim < 3; ++dim) {
      e.set_work_variable("group_count", dim, groups + "[" + std::to_string(dim) + "]");
      e.set_work_variable("group_size", dim, size + "[" + std::to_string(dim) + "]");
    }
    // What every work item computes alike (views, promises, address arithmetic on parameters) is
    // computed once, ahead of the loops, as long as it comes before anything of the work item's own
    // that could stop the run: then the first work item would have run it first too, and a launch
    // stops where the interpreter's does. Only a launch with work items runs it.
    std::vector<const Op*> uniform, varying;
    std::unordered_set<const Value*> known;
    for (const auto& a : op.regions[1]->block.args) known.insert(a.get());
    bool hoisting = true;
    for (const auto& inner : op.regions[1]->block.ops) {
      bool same = hoisting && inner->def->has(kPure) && !inner->def->has(kLaunchOnly) && inner->regions.empty();
      for (const Value* v : inner->operands) same = same && known.count(v);
      // A result's type may bind its extents or strides to values too: they must be uniform as well.
      for (const auto& r : inner->results) {
        for (const Extent& d : r->type.dims()) same = same && (!d.dynamic() || known.count(d.value));
        if (const auto& layout = r->type.attachment().layout)
          for (const Extent& s : layout->strides) same = same && (!s.dynamic() || known.count(s.value));
      }
      (same ? uniform : varying).push_back(inner.get());
      if (same)
        for (const auto& r : inner->results) known.insert(r.get());
      else if (!inner->def->has(kLaunchOnly) && !inner->operands.empty())
        hoisting = false;
    }
    e.open("if (" + groups + "[0] > 0 && " + groups + "[1] > 0 && " + groups + "[2] > 0)");
    e.emit_ops(uniform);
    // Workgroups, then work items, z outermost: x is the innermost, contiguous loop.
    for (const char* role : {"group", "item"})
      for (int dim = 2; dim >= 0; --dim) {
        const std::string var = e.fresh(std::string(role) + "_" + std::string(kDims[static_cast<std::size_t>(dim)]));
        const std::string bound = std::string(role) == "group" ? groups : size;
        e.set_work_variable(role, dim, var);
        e.open("for (std::int64_t " + var + " = 0; " + var + " < " + bound + "[" + std::to_string(dim) + "]; ++" + var + ")");
      }
    e.emit_ops(varying);
    for (int i = 0; i < 6; ++i) e.close();
    e.close();
    e.close();
    e.end_function();
  };
  t.add(std::move(d));
}

void add_launch_config(OpTable& t) {
  OpDef d;
  d.name = "kernel.launch.config";
  d.summary = "ends a kernel's configuration region: workgroups per dimension and work items per workgroup";
  d.operands = {{"wx", c::index}, {"wy", c::index}, {"wz", c::index}, {"sx", c::index}, {"sy", c::index}, {"sz", c::index}};
  d.format = "workgroups($wx, $wy, $wz) workgroup_size($sx, $sy, $sz) : type(wx, wy, wz, sx, sy, sz)";
  d.traits = kTerminator;
  d.verify = [](const Op& op, OpVerifier& v) {
    std::size_t region = 0;
    if (!enclosing(op, "kernel.def", &region) || region != 0 || op.parent_op()->name() != "kernel.def")
      v.fail(op, "stands outside a kernel's configuration region, which it ends");
  };
  d.eval = [](const Op& op, Frame& fr) {
    std::vector<RtValue> out;
    for (const Value* x : op.operands) out.push_back(fr.get(x));
    fr.yield(std::move(out));
  };
  d.emit = [](const Op& op, CppEmitter& e) {
    const std::string groups = e.work_variable("groups", 0), size = e.work_variable("sizes", 0);
    for (int i = 0; i < 3; ++i) {
      e.assign(groups + "[" + std::to_string(i) + "]", e.use(op.operands[static_cast<std::size_t>(i)]));
      e.assign(size + "[" + std::to_string(i) + "]", e.use(op.operands[static_cast<std::size_t>(3 + i)]));
    }
  };
  t.add(std::move(d));
}

// kernel.workgroup.id / size / count and kernel.workitem.id: where a work item is.
void add_work_op(OpTable& t, std::string_view name, std::string_view summary, std::string role) {
  OpDef d;
  d.name = name;
  d.summary = summary;
  d.results = {{"result", c::index}};
  d.attrs = {{"dim", AttrKind::Choice, kDims}};
  d.format = "<$dim> : type(result)";
  d.traits = kPure | kLaunchOnly;
  d.facts = [role](const Op& op, FactScope& s) {
    const int dim = static_cast<int>(op.attr("dim").i);
    // The configuration's operands: 0..2 the workgroup counts, 3..5 the workgroup sizes.
    const Value* count = s.launch_config(dim);
    const Value* size = s.launch_config(3 + dim);
    auto known = [&](const Value* v, Int lo) {
      Facts f = v ? s.of(v) : Facts{};
      Range r{lo, kIndexMax};
      if (f.range) r = Range{std::max(lo, f.range->lo), std::max(lo, f.range->hi)};
      return r;
    };
    Facts f;
    if (role == "group") f.range = Range{0, known(count, 0).hi - 1};
    else if (role == "item") f.range = Range{0, known(size, 1).hi - 1};
    else if (role == "group_size") f.range = known(size, 1);
    else f.range = known(count, 0);
    if (f.range->hi < f.range->lo) f.range->hi = f.range->lo;
    s.set(op.result(), f);
  };
  d.eval = [role](const Op& op, Frame& fr) {
    const auto dim = static_cast<std::size_t>(op.attr("dim").i);
    const Frame::WorkItem& w = fr.work();
    std::int64_t v = 0;
    if (role == "group") v = w.group[dim];
    else if (role == "item") v = w.item[dim];
    else if (role == "group_size") v = w.group_size[dim];
    else v = w.group_count[dim];
    fr.set(op.result(), RtValue::scalar(static_cast<std::uint64_t>(v)));
  };
  d.emit = [role](const Op& op, CppEmitter& e) {
    e.define(op.result(), e.work_variable(role, static_cast<int>(op.attr("dim").i)));
  };
  t.add(std::move(d));
}

void add_return(OpTable& t) {
  OpDef d;
  d.name = "kernel.return";
  d.summary = "ends a kernel's launch region";
  d.format = "";
  d.traits = kTerminator;
  d.verify = [](const Op& op, OpVerifier& v) {
    const Op* parent = op.parent_op();
    if (!parent || parent->name() != "kernel.def" || region_holding(op) != 1)
      v.fail(op, "stands outside a kernel's launch region, which it ends");
  };
  d.eval = [](const Op&, Frame& fr) { fr.yield({}); };
  d.emit = [](const Op&, CppEmitter&) {};
  t.add(std::move(d));
}

// A function's call of a kernel (Loam's `forward` runs its fused kernels so): the operands fill
// the configuration's parameters, then the launch's in order, except that the launch's first
// buffer parameters after its index ones are the results', one fresh tensor each, which the kernel
// writes; every other buffer parameter takes a tensor operand's storage.
void add_call(OpTable& t) {
  OpDef d;
  d.name = "kernel.call";
  d.summary = "runs a kernel.def over tensors: its results are the tensors its first buffers write";
  d.operands = {{"args", c::any, true}};
  d.results = {{"results", c::tensor, true}};
  d.attrs = {{"callee", AttrKind::Symbol, {}}};
  d.format = "$callee($args) : functype(args, results)";
  d.verify = [](const Op& op, OpVerifier& v) {
    const Op* callee = v.module().lookup(op.symbol());
    if (!callee) v.fail(op, "@" + op.symbol() + " is not defined in this module");
    if (callee->name() != "kernel.def") v.fail(op, "@" + op.symbol() + " is a " + std::string(callee->name()) + ", not a kernel.def");
    std::size_t next = 0, results = 0;
    auto take = [&](const Value* param) {
      if (next == op.operands.size())
        v.fail(op, "@" + op.symbol() + " has more parameters than the call's " + counted(op.operands.size(), "operand"));
      const Value* a = op.operands[next++];
      const bool fits = param->type.is_buffer() ? a->type.is_tensor() : a->type == param->type;
      if (!fits)
        v.fail(op, ref(a) + " is " + print_type(a->type) + ", which cannot fill " + ref(param) + " (" + print_type(param->type) +
                       ") of @" + op.symbol());
    };
    for (const auto& a : callee->regions[0]->block.args) take(a.get());
    bool into_results = true;
    for (const auto& a : callee->regions[1]->block.args) {
      if (a->type.is_buffer() && into_results && results < op.results.size()) {
        ++results;
        continue;
      }
      if (a->type.is_buffer()) into_results = false;
      take(a.get());
    }
    if (results != op.results.size())
      v.fail(op, "gives " + counted(op.results.size(), "result") + ", but @" + op.symbol() + " writes " + std::to_string(results));
    if (next != op.operands.size())
      v.fail(op, "passes " + counted(op.operands.size(), "operand") + ", but @" + op.symbol() + " takes " + std::to_string(next));
  };
  d.eval = [](const Op& op, Frame& fr) {
    const Op& callee = *fr.module().lookup(op.symbol());
    // Each result a fresh tensor of its type's bytes, zeroed, which the kernel's buffer writes.
    std::vector<RtValue> results;
    for (const auto& r : op.results) {
      std::uint64_t count = 1;
      std::vector<std::int64_t> dims;
      for (const Extent& e : r->type.dims()) {
        const std::int64_t n = e.dynamic() ? fr.index(e.value) : e.size;
        if (n < 0 || (n > 0 && count > (std::uint64_t{1} << 40) / static_cast<std::uint64_t>(n)))
          fr.fail(op, ref(r.get()) + " would hold " + std::to_string(n) + " elements along a dimension, which the interpreter does not allocate");
        count *= static_cast<std::uint64_t>(n);
        dims.push_back(n);
      }
      auto storage = std::make_shared<Storage>();
      storage->bytes.resize(static_cast<std::size_t>(count * static_cast<std::uint64_t>(scalar_bytes(r->type.element()))));
      RtValue t;
      t.kind = RtValue::Kind::Tensor;
      t.bytes = storage->bytes.size();
      t.storage = std::move(storage);
      t.dims = std::move(dims);
      results.push_back(std::move(t));
    }
    auto as_buffer = [](const RtValue& tensor) {
      RtValue b;
      b.kind = RtValue::Kind::Buffer;
      b.storage = tensor.storage;
      b.base = tensor.base;
      b.bytes = tensor.bytes;
      return b;
    };
    std::vector<RtValue> args;
    std::size_t next = 0, written = 0;
    for (std::size_t i = 0; i < callee.regions[0]->block.args.size(); ++i) args.push_back(fr.get(op.operands[next++]));
    bool into_results = true;
    for (const auto& a : callee.regions[1]->block.args) {
      if (a->type.is_buffer() && into_results && written < results.size()) {
        args.push_back(as_buffer(results[written++]));
        continue;
      }
      if (a->type.is_buffer()) into_results = false;
      const RtValue& v = fr.get(op.operands[next++]);
      args.push_back(a->type.is_buffer() ? as_buffer(v) : v);
    }
    fr.interpreter().call(op.symbol(), std::move(args));
    for (std::size_t i = 0; i < results.size(); ++i) fr.set(op.result(static_cast<unsigned>(i)), std::move(results[i]));
  };
  d.emit = [](const Op& op, CppEmitter& e) {
    e.refuse(op, "a kernel.call is the generated module's call of its kernel through the backend, which Loam's module writer spells");
  };
  t.add(std::move(d));
}

void add_subgroup_size(OpTable& t) {
  OpDef d;
  d.name = "target.subgroup.size";
  d.summary = "the lanes of the target's subgroup (work items that run in lockstep)";
  d.results = {{"result", c::index}};
  d.format = ": type(result)";
  d.traits = kPure;
  d.facts = [](const Op& op, FactScope& s) {
    const auto& size = s.target().subgroup_size;
    Facts f;
    f.range = size ? Range{*size, *size} : Range{1, 1024};
    if (size) f.align = align_of_constant(*size);
    s.set(op.result(), f);
  };
  d.eval = [](const Op& op, Frame& fr) {
    fr.set(op.result(), RtValue::scalar(static_cast<std::uint64_t>(fr.interpreter().options().target.subgroup_size.value_or(1))));
  };
  d.emit = [](const Op& op, CppEmitter& e) {
    e.define(op.result(), "std::int64_t(" + std::to_string(e.options().target.subgroup_size.value_or(1)) + ")");
  };
  t.add(std::move(d));
}

}  // namespace

void register_kernel_ops(OpTable& t) {
  add_def(t);
  add_launch_config(t);
  add_work_op(t, "kernel.workgroup.id", "which workgroup this work item is in, along a dimension", "group");
  add_work_op(t, "kernel.workgroup.size", "work items per workgroup along a dimension", "group_size");
  add_work_op(t, "kernel.workgroup.count", "workgroups in the launch along a dimension", "group_count");
  add_work_op(t, "kernel.workitem.id", "this work item's position in its workgroup, along a dimension", "item");
  add_return(t);
  add_call(t);
  add_subgroup_size(t);
}

}  // namespace loam::loom
