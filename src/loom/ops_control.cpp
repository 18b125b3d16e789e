// Structured control flow: scf.if (a condition, two regions, results yielded by both) and
// scf.for (a counted loop from lb while below ub by a positive step, with loop-carried values).
// Each contributes path facts to its regions: the condition holds in `then` and fails in `else`;
// the induction variable lies in [lb, ub).
#include <algorithm>

#include "loom/ops_common.hpp"
#include "loom/syntax.hpp"
#include "support/error.hpp"

namespace loam::loom {

namespace {

using namespace detail;
namespace c = constraint;

// `-> (T, ...)`: the types of the op's named results; gives where each was written.
std::vector<Location> parse_result_types(Op& op, OpParser& p) {
  std::vector<Location> at;
  if (!p.accept_punct("->")) {
    if (!op.results.empty())
      p.fail(p.loc(), std::string(op.name()) + " names " + counted(op.results.size(), "result") + "; state their types with -> (...)");
    return at;
  }
  p.expect_punct("(");
  for (std::size_t i = 0; i < op.results.size(); ++i) {
    if (i) p.expect_punct(",");
    at.push_back(p.loc());
    op.results[i]->type = p.parse_type();
  }
  if (!p.at_punct(")"))
    p.fail(p.loc(), std::string(op.name()) + " states more result types than the " + counted(op.results.size(), "result") + " named");
  p.expect_punct(")");
  return at;
}

void print_result_types(const Op& op, OpPrinter& p) {
  if (op.results.empty()) return;
  p.text(" -> (");
  for (std::size_t i = 0; i < op.results.size(); ++i) {
    if (i) p.text(", ");
    p.type(op.results[i]->type);
  }
  p.text(")");
}

const Op* terminator(const Region& r) { return r.block.ops.empty() ? nullptr : r.block.ops.back().get(); }

// The values a region's scf.yield gives (none if it ends without one).
std::vector<Value*> yielded(const Region& r) {
  const Op* t = terminator(r);
  if (t && t->name() == "scf.yield") return t->operands;
  return {};
}

void check_yield(const Op& op, OpVerifier& v, const Region& r, const std::vector<Type>& want, const char* which) {
  const Op* t = terminator(r);
  const bool has_yield = t && t->name() == "scf.yield";
  if (!want.empty() && !has_yield)
    v.fail(op, std::string("its ") + which + " region must end with scf.yield of " + counted(want.size(), "value"));
  const auto got = yielded(r);
  if (got.size() != want.size())
    v.fail(op, std::string("its ") + which + " region yields " + counted(got.size(), "value") + ", but it gives " +
                   counted(want.size(), "result"));
  for (std::size_t i = 0; i < want.size(); ++i)
    if (!(got[i]->type == want[i]))
      v.fail(op, std::string("its ") + which + " region yields " + ref(got[i]) + " as " + print_type(got[i]->type) + " where " +
                     print_type(want[i]) + " is given");
}

std::vector<Type> result_types(const Op& op) {
  std::vector<Type> ts;
  for (const auto& r : op.results) ts.push_back(r->type);
  return ts;
}

std::vector<RtValue> run_with(Frame& fr, const Region& r, std::vector<RtValue> args) { return fr.run_region(r, std::move(args)); }

void add_if(OpTable& t) {
  OpDef d;
  d.name = "scf.if";
  d.summary = "runs `then` when the condition holds, else `else`; results are what the region run yields";
  d.operands = {{"condition", c::i1}};
  d.results = {{"results", c::any, true}};
  d.regions = {"then", "else"};
  d.parse = [](Op& op, OpParser& p) {
    op.operands.push_back(p.parse_operand());
    parse_result_types(op, p);
    for (int r = 0; r < 2; ++r) {
      Region& region = op.add_region();
      if (r == 1 && !p.accept_keyword("else")) break;
      p.begin_region(region, false);
      p.parse_region_body(region);
      p.end_region(region);
    }
    if (op.regions.size() == 1) op.add_region();
  };
  d.print = [](const Op& op, OpPrinter& p) {
    p.operand(op.operands[0]);
    print_result_types(op, p);
    p.text(" ");
    p.region(*op.regions[0]);
    if (!op.regions[1]->block.ops.empty() || !op.results.empty()) {
      p.text(" else ");
      p.region(*op.regions[1]);
    }
  };
  d.verify = [](const Op& op, OpVerifier& v) {
    const auto want = result_types(op);
    check_yield(op, v, *op.regions[0], want, "then");
    if (!want.empty() && op.regions[1]->block.ops.empty()) v.fail(op, "gives results, so it needs an else region that yields them too");
    check_yield(op, v, *op.regions[1], want, "else");
  };
  d.facts = [](const Op& op, FactScope& s) {
    if (s.entering() >= 0) imply_condition(op.operands[0], s.entering() == 0, s);
  };
  d.eval = [](const Op& op, Frame& fr) {
    const Region& r = *op.regions[fr.bits(op.operands[0]) ? 0 : 1];
    auto out = run_with(fr, r, {});
    for (std::size_t i = 0; i < op.results.size(); ++i) fr.set(op.result(static_cast<unsigned>(i)), std::move(out[i]));
  };
  d.emit = [](const Op& op, CppEmitter& e) {
    std::vector<std::string> targets;
    for (const auto& r : op.results) {
      e.declare(r.get());
      targets.push_back(e.name_of(r.get()));
    }
    const auto saved = e.yield_targets();
    e.set_yield_targets(targets);
    e.open("if (" + e.use(op.operands[0]) + ")");
    e.emit_block(op.regions[0]->block);
    e.close();
    if (!op.regions[1]->block.ops.empty()) {
      e.open("else");
      e.emit_block(op.regions[1]->block);
      e.close();
    }
    e.set_yield_targets(saved);
  };
  t.add(std::move(d));
}

void add_for(OpTable& t) {
  OpDef d;
  d.name = "scf.for";
  d.summary = "a counted loop: %i from lb while below ub, by a positive step, carrying iter_args";
  d.operands = {{"lower", c::index}, {"upper", c::index}, {"step", c::index}, {"inits", c::any, true}};
  d.results = {{"results", c::any, true}};
  d.regions = {"body"};
  d.parse = [](Op& op, OpParser& p) {
    Location iv_at;
    const std::string iv = p.parse_value_name(&iv_at);
    p.expect_punct("=");
    op.operands.push_back(p.parse_operand());
    p.expect_keyword("to");
    op.operands.push_back(p.parse_operand());
    p.expect_keyword("step");
    op.operands.push_back(p.parse_operand());
    std::vector<std::pair<std::string, Location>> iters;
    if (p.accept_keyword("iter_args")) {
      p.expect_punct("(");
      do {
        Location at;
        std::string n = p.parse_value_name(&at);
        p.expect_punct("=");
        op.operands.push_back(p.parse_operand());
        iters.emplace_back(std::move(n), at);
      } while (p.accept_punct(","));
      p.expect_punct(")");
    }
    if (iters.size() != op.results.size())
      p.fail(op.loc, "scf.for carries " + counted(iters.size(), "value") + ", so it gives " + counted(iters.size(), "result") +
                         ", not " + std::to_string(op.results.size()));
    const auto stated = parse_result_types(op, p);
    for (std::size_t i = 0; i < iters.size(); ++i) p.check_stated(op.operands[3 + i], op.results[i]->type, stated[i], "scf.for");
    Region& body = op.add_region();
    p.begin_region(body, false);
    p.define_arg(body, iv, Type::index(), iv_at);
    for (std::size_t i = 0; i < iters.size(); ++i) p.define_arg(body, iters[i].first, op.operands[3 + i]->type, iters[i].second);
    p.parse_region_body(body);
    p.end_region(body);
  };
  d.print = [](const Op& op, OpPrinter& p) {
    const Block& body = op.regions[0]->block;
    p.operand(body.args[0].get());
    p.text(" = ");
    p.operand(op.operands[0]);
    p.text(" to ");
    p.operand(op.operands[1]);
    p.text(" step ");
    p.operand(op.operands[2]);
    if (op.operands.size() > 3) {
      p.text(" iter_args(");
      for (std::size_t i = 3; i < op.operands.size(); ++i) {
        if (i > 3) p.text(", ");
        p.operand(body.args[i - 2].get());
        p.text(" = ");
        p.operand(op.operands[i]);
      }
      p.text(")");
    }
    print_result_types(op, p);
    p.text(" ");
    p.region(*op.regions[0]);
  };
  d.verify = [](const Op& op, OpVerifier& v) {
    const Block& body = op.regions[0]->block;
    const std::size_t carried = op.operands.size() - 3;
    if (body.args.size() != carried + 1 || !body.args[0]->type.is_scalar(Scalar::Index))
      v.fail(op, "its body takes the induction variable (index) and one value per iter_arg");
    if (op.results.size() != carried)
      v.fail(op, "carries " + counted(carried, "value") + " but gives " + counted(op.results.size(), "result"));
    std::vector<Type> want;
    for (std::size_t i = 0; i < carried; ++i) {
      const Type& init = op.operands[3 + i]->type;
      if (!(body.args[1 + i]->type == init) || !(op.result(static_cast<unsigned>(i))->type == init))
        v.fail(op, "the iter_arg " + ref(body.args[1 + i].get()) + " starts from " + ref(op.operands[3 + i]) + ", so it and result " +
                       ref(op.result(static_cast<unsigned>(i))) + " are " + print_type(init));
      want.push_back(init);
    }
    check_yield(op, v, *op.regions[0], want, "body");
  };
  d.facts = [](const Op& op, FactScope& s) {
    if (s.entering() != 0) return;
    const Value* iv = op.regions[0]->block.args[0].get();
    const Facts lb = s.of(op.operands[0]), ub = s.of(op.operands[1]), step = s.of(op.operands[2]);
    Facts f;
    if (lb.range && ub.range && lb.range->lo <= ub.range->hi - 1) f.range = Range{lb.range->lo, ub.range->hi - 1};
    f.align = std::min(lb.align, step.align);
    s.set(iv, f);
    s.relate(Relation{iv, op.operands[1], true, false});
  };
  d.eval = [](const Op& op, Frame& fr) {
    const Int lb = fr.index(op.operands[0]), ub = fr.index(op.operands[1]), step = fr.index(op.operands[2]);
    if (step <= 0) fr.fail(op, "steps by " + ref(op.operands[2]) + " = " + std::to_string(static_cast<long long>(step)) + "; a loop steps forward");
    std::vector<RtValue> carried;
    for (std::size_t i = 3; i < op.operands.size(); ++i) carried.push_back(fr.get(op.operands[i]));
    for (Int i = lb; i < ub; i += step) {
      std::vector<RtValue> args{RtValue::scalar(static_cast<std::uint64_t>(static_cast<std::int64_t>(i)))};
      for (auto& v : carried) args.push_back(std::move(v));
      carried = run_with(fr, *op.regions[0], std::move(args));
      fr.interpreter().count_step(op);
    }
    for (std::size_t i = 0; i < op.results.size(); ++i) fr.set(op.result(static_cast<unsigned>(i)), std::move(carried[i]));
  };
  d.emit = [](const Op& op, CppEmitter& e) {
    const Block& body = op.regions[0]->block;
    const std::string lb = e.use(op.operands[0]), ub = e.use(op.operands[1]), step = e.use(op.operands[2]);
    const Facts fs = e.facts().at(&op, op.operands[2]);
    if (!(fs.range && fs.range->lo > 0))
      e.check(op, step + " > 0", "steps by " + ref(op.operands[2]) + ", which is not positive");
    std::vector<std::string> carried;
    for (std::size_t i = 3; i < op.operands.size(); ++i) {
      const Value* arg = body.args[i - 2].get();
      const std::string name = e.name_of(arg);
      e.line(e.cpp_type(arg->type) + " " + name + " = " + e.use(op.operands[i]) + ";");
      carried.push_back(name);
      e.bind_name(op.result(static_cast<unsigned>(i - 3)), name);
    }
    // A counted loop: the trip count in unsigned arithmetic, so no bound near the top of index
    // can make the induction variable wrap.
    const std::string trips = e.fresh("trips");
    const std::string k = e.fresh("trip");
    e.line("const std::uint64_t " + trips + " = " + lb + " < " + ub + " ? (std::uint64_t(" + ub + ") - std::uint64_t(" + lb +
           ") - 1) / std::uint64_t(" + step + ") + 1 : 0;");
    e.open("for (std::uint64_t " + k + " = 0; " + k + " < " + trips + "; ++" + k + ")");
    const Value* iv = body.args[0].get();
    e.line("const std::int64_t " + e.name_of(iv) + " = std::int64_t(std::uint64_t(" + lb + ") + " + k + " * std::uint64_t(" + step + "));");
    std::vector<std::string> temps;
    for (const auto& name : carried) temps.push_back(e.fresh(name + "_next"));
    const auto saved = e.yield_targets();
    e.set_yield_targets(temps);
    e.emit_block(body);
    e.set_yield_targets(saved);
    for (std::size_t i = 0; i < carried.size(); ++i) e.line(carried[i] + " = " + temps[i] + ";");
    e.close();
  };
  t.add(std::move(d));
}

void add_yield(OpTable& t) {
  OpDef d;
  d.name = "scf.yield";
  d.summary = "ends an scf.if or scf.for region, giving its values";
  d.operands = {{"values", c::any, true}};
  d.format = "[[$values : types(values)]]";
  d.traits = kTerminator;
  d.verify = [](const Op& op, OpVerifier& v) {
    const Op* parent = op.parent_op();
    if (!parent || (parent->name() != "scf.if" && parent->name() != "scf.for"))
      v.fail(op, "stands outside the regions of scf.if and scf.for, which it ends");
  };
  d.eval = [](const Op& op, Frame& fr) {
    std::vector<RtValue> out;
    for (const Value* v : op.operands) out.push_back(fr.get(v));
    fr.yield(std::move(out));
  };
  d.emit = [](const Op& op, CppEmitter& e) {
    const auto& targets = e.yield_targets();
    const Op* parent = op.parent_op();
    for (std::size_t i = 0; i < op.operands.size() && i < targets.size(); ++i) {
      if (parent && parent->name() == "scf.for") e.line("const " + e.cpp_type(op.operands[i]->type) + " " + targets[i] + " = " + e.use(op.operands[i]) + ";");
      else e.assign(targets[i], e.use(op.operands[i]));
    }
  };
  t.add(std::move(d));
}

}  // namespace

void register_control_ops(OpTable& t) {
  add_if(t);
  add_for(t);
  add_yield(t);
}

}  // namespace loam::loom
