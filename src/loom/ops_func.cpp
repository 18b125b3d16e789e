// Functions without a launch boundary: func.def (isolated from above, parameters may bind the
// dynamic dimensions of later ones), func.return, func.call (a call site binds the callee's
// dimensions to its own values) and func.apply<contract> (applies a function a specialisation
// provides, without naming the provider).
#include <unordered_map>

#include "loom/ops_common.hpp"
#include "loom/syntax.hpp"
#include "support/error.hpp"

namespace loam::loom {

namespace {

using namespace detail;
namespace c = constraint;

std::vector<const Value*> params_of(const Block& b) {
  std::vector<const Value*> out;
  for (const auto& a : b.args) out.push_back(a.get());
  return out;
}

// A type of the callee with its parameters replaced by the call's arguments.
Type substitute(const Type& t, const std::unordered_map<const Value*, const Value*>& map) {
  if (!is_shaped(t.kind())) return t;
  std::vector<Extent> dims;
  for (const Extent& e : t.dims()) {
    auto it = e.dynamic() ? map.find(e.value) : map.end();
    dims.push_back(it == map.end() ? e : Extent::bound_to(it->second));
  }
  Attachment a = t.attachment();
  if (a.layout)
    for (Extent& s : a.layout->strides)
      if (s.dynamic()) {
        auto it = map.find(s.value);
        if (it != map.end()) s = Extent::bound_to(it->second);
      }
  return Type::shaped(t.kind(), std::move(dims), t.element(), std::move(a));
}

// Checks a call's arguments and results against a callee's signature.
void check_signature(const Op& op, OpVerifier& v, const Op& callee, const std::string& what) {
  const Block& params = callee.regions.back()->block;
  const std::vector<Type>& results = callee.attr("results").types;
  if (op.operands.size() != params.args.size())
    v.fail(op, what + " takes " + counted(params.args.size(), "argument") + ", not " + std::to_string(op.operands.size()));
  std::unordered_map<const Value*, const Value*> map;
  for (std::size_t i = 0; i < params.args.size(); ++i) {
    map[params.args[i].get()] = op.operands[i];
    const Type want = substitute(params.args[i]->type, map);
    if (!(op.operands[i]->type == want))
      v.fail(op, ref(op.operands[i]) + " is " + print_type(op.operands[i]->type) + ", but " + what + " takes " + print_type(want) + " for " +
                     ref(params.args[i].get()));
  }
  if (op.results.size() != results.size())
    v.fail(op, what + " gives " + counted(results.size(), "result") + ", not " + std::to_string(op.results.size()));
  for (std::size_t i = 0; i < results.size(); ++i) {
    const Type want = substitute(results[i], map);
    if (!(op.result(static_cast<unsigned>(i))->type == want))
      v.fail(op, "its result " + ref(op.result(static_cast<unsigned>(i))) + " is " + print_type(op.result(static_cast<unsigned>(i))->type) +
                     ", but " + what + " gives " + print_type(want));
  }
}

void add_def(OpTable& t) {
  OpDef d;
  d.name = "func.def";
  d.summary = "a function: parameters, result types, and a body that ends with func.return";
  d.attrs = {{"symbol", AttrKind::Symbol, {}}, {"results", AttrKind::Types, {}}};
  d.regions = {"body"};
  d.traits = kTopLevel | kIsolatedFromAbove;
  d.parse = [](Op& op, OpParser& p) {
    op.attr("symbol").text = p.parse_symbol();
    op.attr("symbol").present = true;
    Region& body = op.add_region();
    p.begin_region(body, true);
    parse_parameters(p, body);
    if (p.accept_punct("->")) {
      p.expect_punct("(");
      if (!p.at_punct(")")) {
        do op.attr("results").types.push_back(p.parse_type());
        while (p.accept_punct(","));
      }
      p.expect_punct(")");
    }
    p.parse_region_body(body);
    p.end_region(body);
  };
  d.print = [](const Op& op, OpPrinter& p) {
    p.text("@" + op.symbol());
    print_parameters(p, op.regions[0]->block);
    const auto& results = op.attr("results").types;
    if (!results.empty()) {
      p.text(" -> (");
      for (std::size_t i = 0; i < results.size(); ++i) {
        if (i) p.text(", ");
        p.type(results[i]);
      }
      p.text(")");
    }
    p.text(" ");
    p.region(*op.regions[0]);
  };
  d.verify = [](const Op& op, OpVerifier& v) {
    const Block& body = op.regions[0]->block;
    const Op* last = body.ops.empty() ? nullptr : body.ops.back().get();
    if (!last || last->name() != "func.return") v.fail(op, "@" + op.symbol() + "'s body must end with func.return");
    const auto& results = op.attr("results").types;
    for (const Type& r : results)
      for (const Extent& e : r.dims())
        if (e.dynamic() && e.value->owner != &body)
          v.fail(op, "@" + op.symbol() + " gives " + print_type(r) + ", whose extent a caller cannot know: bind it to a parameter");
  };
  d.emit = [](const Op& op, CppEmitter& e) {
    const Block& body = op.regions[0]->block;
    const auto& results = op.attr("results").types;
    e.begin_function(op);
    const std::string name = e.function_name(op.symbol());
    std::string ret = "void";
    if (results.size() == 1) ret = e.cpp_type(results[0]);
    if (results.size() > 1) {
      ret = name + "_results";
      std::string fields;
      for (std::size_t i = 0; i < results.size(); ++i) fields += " " + e.cpp_type(results[i]) + " r" + std::to_string(i) + ";";
      e.line("struct " + ret + " {" + fields + " };");
    }
    const auto params = params_of(body);
    e.open("inline " + ret + " " + name + "(" + e.parameters(params, std::vector<bool>(params.size(), false)) + ")");
    e.line("LOOM_NO_CONTRACT;");
    e.check_tensor_parameters(op, params);
    e.emit_block(body);
    e.close();
    e.end_function();
  };
  t.add(std::move(d));
}

void add_return(OpTable& t) {
  OpDef d;
  d.name = "func.return";
  d.summary = "ends a function's body, giving its results";
  d.operands = {{"values", c::any, true}};
  d.format = "[[$values : types(values)]]";
  d.traits = kTerminator;
  d.verify = [](const Op& op, OpVerifier& v) {
    const Op* parent = op.parent_op();
    if (!parent || parent->name() != "func.def") v.fail(op, "stands outside a func.def's body, which it ends");
    const auto& want = parent->attr("results").types;
    if (op.operands.size() != want.size())
      v.fail(op, "@" + parent->symbol() + " gives " + counted(want.size(), "result") + ", not " + std::to_string(op.operands.size()));
    for (std::size_t i = 0; i < want.size(); ++i)
      if (!(op.operands[i]->type == want[i]))
        v.fail(op, ref(op.operands[i]) + " is " + print_type(op.operands[i]->type) + ", but @" + parent->symbol() + " gives " +
                       print_type(want[i]));
  };
  d.eval = [](const Op& op, Frame& fr) {
    std::vector<RtValue> out;
    for (const Value* v : op.operands) out.push_back(fr.get(v));
    fr.yield(std::move(out));
  };
  d.emit = [](const Op& op, CppEmitter& e) {
    if (op.operands.empty()) return;
    if (op.operands.size() == 1) {
      e.line("return " + e.use(op.operands[0]) + ";");
      return;
    }
    std::string list;
    for (std::size_t i = 0; i < op.operands.size(); ++i) list += (i ? ", " : "") + e.use(op.operands[i]);
    e.line("return {" + list + "};");
  };
  t.add(std::move(d));
}

// A call's C++: the callee's name applied to the arguments, results bound to their names.
void emit_call(CppEmitter& e, const Op& op, const std::string& callee) {
  std::string args;
  for (std::size_t i = 0; i < op.operands.size(); ++i) {
    const Value* a = op.operands[i];
    if (i) args += ", ";
    if (a->type.is_buffer() || a->type.is_tensor()) {
      const CppMemory& m = e.memory(op, a);
      args += m.data + ", " + m.bytes;
    } else if (a->type.is_view()) {
      e.refuse(op, "the C++ emitter passes a buffer to a function, not the view " + ref(a));
    } else {
      args += e.use(a);
    }
  }
  const std::string call = callee + "(" + args + ")";
  if (op.results.empty()) {
    e.line(call + ";");
  } else if (op.results.size() == 1) {
    e.define(op.result(), call);
  } else {
    const std::string all = e.fresh("results");
    e.line("const auto " + all + " = " + call + ";");
    for (std::size_t i = 0; i < op.results.size(); ++i) e.define(op.result(static_cast<unsigned>(i)), all + ".r" + std::to_string(i));
  }
}

void add_call(OpTable& t) {
  OpDef d;
  d.name = "func.call";
  d.summary = "calls a func.def of the module";
  d.operands = {{"args", c::any, true}};
  d.results = {{"results", c::any, true}};
  d.attrs = {{"callee", AttrKind::Symbol, {}}};
  d.format = "$callee($args) : functype(args, results)";
  d.verify = [](const Op& op, OpVerifier& v) {
    const Op* callee = v.module().lookup(op.symbol());
    if (!callee) v.fail(op, "@" + op.symbol() + " is not defined in this module");
    if (callee->name() != "func.def") v.fail(op, "@" + op.symbol() + " is a " + std::string(callee->name()) + ", not a func.def");
    check_signature(op, v, *callee, "@" + op.symbol());
  };
  d.eval = [](const Op& op, Frame& fr) {
    std::vector<RtValue> args;
    for (const Value* a : op.operands) args.push_back(fr.get(a));
    auto out = fr.interpreter().call(op.symbol(), std::move(args));
    for (std::size_t i = 0; i < op.results.size(); ++i) fr.set(op.result(static_cast<unsigned>(i)), std::move(out[i]));
  };
  d.emit = [](const Op& op, CppEmitter& e) { emit_call(e, op, e.function_name(op.symbol())); };
  t.add(std::move(d));
}

void add_apply(OpTable& t) {
  OpDef d;
  d.name = "func.apply";
  d.summary = "applies the function a specialisation provides for a contract";
  d.operands = {{"args", c::any, true}};
  d.results = {{"results", c::any, true}};
  d.attrs = {{"contract", AttrKind::Contract, {}}};
  d.format = "<$contract>($args) : functype(args, results)";
  d.verify = [](const Op& op, OpVerifier& v) {
    // A provider in the module must fit; one bound later is checked where it is bound.
    if (const Op* provider = v.module().lookup(op.attr("contract").text); provider && provider->name() == "func.def")
      check_signature(op, v, *provider, "@" + provider->symbol());
  };
  d.eval = [](const Op& op, Frame& fr) {
    const Op& provider = fr.interpreter().contract(op);
    std::vector<RtValue> args;
    for (const Value* a : op.operands) args.push_back(fr.get(a));
    auto out = fr.interpreter().call(provider.symbol(), std::move(args));
    for (std::size_t i = 0; i < op.results.size(); ++i) fr.set(op.result(static_cast<unsigned>(i)), std::move(out[i]));
  };
  d.emit = [](const Op& op, CppEmitter& e) {
    const std::string& contract = op.attr("contract").text;
    auto it = e.options().contracts.find(contract);
    const std::string symbol = it != e.options().contracts.end() ? it->second : contract;
    const Op* provider = e.module().lookup(symbol);
    if (!provider || provider->name() != "func.def")
      e.refuse(op, "nothing provides " + contract + ": define func.def @" + contract + " or bind the contract to a func.def");
    emit_call(e, op, e.function_name(symbol));
  };
  t.add(std::move(d));
}

}  // namespace

void register_func_ops(OpTable& t) {
  add_def(t);
  add_return(t);
  add_call(t);
  add_apply(t);
}

}  // namespace loam::loom
