// `forward` as a Loom function (`loam build --emit=loom`): what the generated module's forward
// computes, call by call, in the module beside the kernels it launches. Its parameters are the
// symbols forward binds, then its inputs, weights, prepared weights and the tensors the build
// folded; each call of a runtime kernel is a typed func.apply<loam.KERNEL> whose operands are
// the tensors, extents and constants the call passes; a fused kernel is a kernel.call of its
// kernel.def; an If is an scf.if over its condition's one element. The Loom verifier checks it
// with the kernels: every tensor a call reads was defined before it with the type it is read at.
#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <set>

#include "loom/builder.hpp"
#include "lower/module.hpp"
#include "support/error.hpp"
#include "support/spelling.hpp"

namespace loam::lower {
namespace {

using loom::Builder;
using loom::Op;
using loom::Scalar;
using loom::Type;
using loom::TypeKind;
using loom::Value;

// A Loom value name read from a graph tensor's: its words, never empty.
std::string value_hint(const std::string& name) {
  std::string out = word_spelling(name);
  return out.empty() ? "t" : out;
}

// The Loom element type a tensor of `t` is stored in (integers are signless in Loom).
Scalar element_scalar(ElementType t, const std::string& where) {
  switch (t) {
    case ElementType::F32: return Scalar::F32;
    case ElementType::F64: return Scalar::F64;
    case ElementType::F16: return Scalar::F16;
    case ElementType::BF16: return Scalar::BF16;
    case ElementType::I64: case ElementType::U64: return Scalar::I64;
    case ElementType::I32: case ElementType::U32: return Scalar::I32;
    case ElementType::I16: case ElementType::U16: return Scalar::I16;
    case ElementType::I8: case ElementType::U8: return Scalar::I8;
    case ElementType::Bool: return Scalar::I1;
    default: fail(where + ": forward's Loom form has no element type for " + element_type_name(t));
  }
}

class ForwardBuilder {
 public:
  ForwardBuilder(LoweredModule& m, const std::string& origin) : m_(m), where_(origin), b_(*m.kernels) {}

  // @prepare: the weights in the forms kernels read them, made once as the weights load.
  void build_prepare() {
    if (m_.prepared.empty()) return;
    std::vector<std::string> sources;
    auto source = [&](const std::string& name) {
      if (!name.empty() && std::find(sources.begin(), sources.end(), name) == sources.end()) sources.push_back(name);
    };
    for (const auto& p : m_.prepared) {
      source(p.source);
      if (p.norm) for (const auto* n : {&p.norm->scale, &p.norm->shift, &p.norm->mean, &p.norm->var, &p.norm->conv_bias}) source(*n);
    }
    std::vector<std::pair<std::string, Type>> params;
    for (const auto& name : sources) {
      const Weight* w = nullptr;
      for (const auto& x : m_.weights)
        if (x.info.name == name) w = &x;
      if (!w) fail(where_ + ": weight '" + name + "' is prepared at load, but the module does not hold it");
      params.emplace_back(value_hint(name), tensor_type(w->info));
    }
    Op& f = b_.func("prepare", params, {});
    loom::Block& body = *b_.insertion();
    std::map<std::string, Value*> weight;
    for (std::size_t i = 0; i < sources.size(); ++i) weight[sources[i]] = body.args[i].get();
    std::vector<Value*> results;
    std::vector<Type> types;
    for (const auto& p : m_.prepared) {
      std::vector<Value*> operands;
      std::string contract;
      const bool folds = p.norm.has_value();
      switch (p.form) {
        case PreparedWeight::Form::PackedConv: contract = folds ? "pack_conv_batch_norm" : "pack_conv"; break;
        case PreparedWeight::Form::PackedMatrix: contract = "pack_matrix"; break;
        case PreparedWeight::Form::PackedMatrixTransposed: contract = "pack_matrix_transposed"; break;
        case PreparedWeight::Form::Regrouped: contract = "regroup"; break;
        case PreparedWeight::Form::FoldedBias: contract = "batch_norm_folded_bias"; break;
      }
      if (p.form != PreparedWeight::Form::FoldedBias) operands.push_back(weight.at(p.source));
      if (folds) {
        for (const auto* n : {&p.norm->scale, &p.norm->shift, &p.norm->mean, &p.norm->var, &p.norm->conv_bias})
          if (!n->empty()) operands.push_back(weight.at(*n));
        operands.push_back(constant({Scalar::F32, loom::float_bits(p.norm->epsilon, Scalar::F32), "epsilon"}));
      }
      if (p.form == PreparedWeight::Form::PackedConv) operands.push_back(constant_index(p.group));
      const Type t = tensor_type(p.info);
      results.push_back(b_.value("func.apply", operands, value_hint(p.name), t, [&](Op& o) {
        o.attr("contract").text = "loam." + contract;
        o.attr("contract").present = true;
      }));
      types.push_back(t);
    }
    f.attr("results").types = types;
    b_.op("func.return", results);
    constants_.clear();
  }

  void build() {
    collect_extents();
    build_prepare();
    // Index parameters: every symbol, then each other extent a result of forward has (a caller
    // can only know a result's extents from its parameters).
    std::vector<std::pair<std::string, Type>> index_params;
    std::vector<stage0::Extent> bound;
    for (const auto& [text, e] : extents_)
      if (e.as_symbol()) bound.push_back(e);
    for (const auto& t : m_.outputs)
      for (const auto& d : t.dims)
        if (!d.is_constant() && !d.as_symbol() && std::find(bound.begin(), bound.end(), d) == bound.end()) bound.push_back(d);
    for (const auto& e : bound) index_params.emplace_back(value_hint(e.to_string()), Type::index());
    Op& f = b_.func("forward", index_params, {});
    loom::Block& body = *b_.insertion();
    for (std::size_t i = 0; i < bound.size(); ++i) extent_value_[bound[i]] = body.args[i].get();

    std::set<std::string> seen;
    auto param = [&](const TensorInfo& t, const std::string& name) {
      if (!seen.insert(name).second) return;
      scopes_.front()[name] = body.add_arg(b_.mint(value_hint(name)), tensor_type(t));
    };
    scopes_.emplace_back();
    // A weight only its prepared forms read is @prepare's, not forward's.
    const std::set<std::string> read = tensors_read(m_.calls);
    for (const auto& t : m_.inputs) param(t, t.name);
    for (const auto& w : m_.weights)
      if (read.count(w.info.name) || std::any_of(m_.outputs.begin(), m_.outputs.end(), [&](const TensorInfo& o) { return o.name == w.info.name; }))
        param(w.info, w.info.name);
    for (const auto& p : m_.prepared) param(p.info, p.name);
    for (const auto& t : m_.folded) param(t.info, t.info.name);
    std::function<void(const std::vector<KernelCall>&)> folded_in_blocks = [&](const std::vector<KernelCall>& calls) {
      for (const auto& c : calls)
        if (c.branch)
          for (const Block* blk : {&c.branch->then_block, &c.branch->else_block}) {
            for (const auto& t : blk->folded) param(t.info, t.info.name);
            folded_in_blocks(blk->calls);
          }
    };
    folded_in_blocks(m_.calls);

    // The other extents, computed once at the top from the parameters.
    for (const auto& [text, e] : extents_)
      if (!extent_value_.count(e)) extent_value_[e] = compute(e);

    emit_calls(m_.calls);
    std::vector<Value*> results;
    std::vector<Type> result_types;
    for (const auto& t : m_.outputs) {
      results.push_back(tensor(t.name));
      result_types.push_back(tensor_type(t));
    }
    f.attr("results").types = result_types;
    b_.op("func.return", results);
  }

 private:
  static std::set<std::string> tensors_read(const std::vector<KernelCall>& calls) {
    std::set<std::string> out;
    for (const auto& c : calls) {
      for (const Arg* a : passed_args(c))
        if (a->kind == Arg::Kind::Tensor) out.insert(a->tensor);
      if (c.branch) {
        out.insert(c.branch->condition);
        for (const Block* blk : {&c.branch->then_block, &c.branch->else_block}) {
          auto inner = tensors_read(blk->calls);
          out.insert(inner.begin(), inner.end());
          out.insert(blk->outputs.begin(), blk->outputs.end());
        }
      }
    }
    return out;
  }

  // Every extent that is not a number, of every tensor forward holds or passes.
  void collect_extents() {
    auto add = [&](const stage0::Extent& e) {
      if (!e.is_constant()) extents_.emplace(e.to_string(), e);
      for (auto s : e.symbols()) {
        const auto symbol = stage0::Extent::symbol(s);
        extents_.emplace(symbol.to_string(), symbol);
      }
    };
    auto add_info = [&](const TensorInfo& t) {
      for (const auto& d : t.dims) add(d);
    };
    for (const auto& t : m_.inputs) add_info(t);
    for (const auto& t : m_.outputs) add_info(t);
    for (const auto& w : m_.weights) add_info(w.info);
    for (const auto& p : m_.prepared) add_info(p.info);
    for (const auto& t : m_.folded) add_info(t.info);
    std::function<void(const std::vector<KernelCall>&)> walk = [&](const std::vector<KernelCall>& calls) {
      for (const auto& c : calls) {
        for (const auto& t : c.result_types) add_info(t);
        for (const Arg* a : passed_args(c))
          for (const auto& e : a->extents) add(e);
        if (c.epilogue) {
          add_info(c.epilogue->product);
          add_info(c.epilogue->operand);
          add(c.epilogue->rows);
        }
        if (c.branch)
          for (const Block* blk : {&c.branch->then_block, &c.branch->else_block}) {
            for (const auto& t : blk->folded) add_info(t.info);
            walk(blk->calls);
          }
      }
    };
    walk(m_.calls);
  }

  // A polynomial over the symbols, as index arithmetic on their values.
  Value* compute(const stage0::Extent& e) {
    Value* sum = nullptr;
    for (const auto& term : e.terms()) {
      Value* product = nullptr;
      for (const auto& [symbol, power] : term.mono)
        for (uint32_t k = 0; k < power; ++k) {
          Value* s = extent_value_.at(stage0::Extent::symbol(symbol));
          product = product ? b_.value("index.mul", {product, s}, "extent", Type::index()) : s;
        }
      const int64_t magnitude = term.coeff < 0 ? -term.coeff : term.coeff;
      if (magnitude != 1) product = b_.value("index.mul", {product, constant_index(magnitude)}, "extent", Type::index());
      if (!sum) sum = term.coeff < 0 ? b_.value("index.sub", {constant_index(0), product}, "extent", Type::index()) : product;
      else sum = b_.value(term.coeff < 0 ? "index.sub" : "index.add", {sum, product}, "extent", Type::index());
    }
    if (e.constant_term() != 0) {
      const int64_t c = e.constant_term();
      sum = b_.value(c < 0 ? "index.sub" : "index.add", {sum, constant_index(c < 0 ? -c : c)}, "extent", Type::index());
    }
    return sum;
  }

  Value* constant_index(int64_t v) { return constant({Scalar::Index, static_cast<std::uint64_t>(v), ""}); }

  // One value per constant in each block, as MLIR prints them: an index by its number (%c5), a
  // flag as %true or %false, a float by what the first call passing it names it (%epsilon).
  Value* constant(const CallConstant& c) {
    const bool named = c.type != Scalar::Index && c.type != Scalar::I1;
    auto key = std::make_tuple(b_.insertion(), c.type, c.bits, named ? c.hint : std::string());
    auto it = constants_.find(key);
    if (it != constants_.end()) return it->second;
    if (c.type == Scalar::Index) {
      const int64_t v = static_cast<int64_t>(c.bits);
      return constants_[key] = b_.index(v, v < 0 ? "c_minus" + std::to_string(-v) : "c" + std::to_string(v));
    }
    return constants_[key] = b_.constant(c.type, c.bits, c.type == Scalar::I1 ? (c.bits ? "true" : "false") : c.hint);
  }

  Value* extent(const stage0::Extent& e) {
    if (auto c = e.constant()) return constant_index(*c);
    return extent_value_.at(e);
  }

  Type tensor_type(const TensorInfo& t) {
    std::vector<loom::Extent> dims;
    for (const auto& d : t.dims) {
      if (auto c = d.constant()) dims.push_back(loom::Extent::of(*c));
      else if (auto it = extent_value_.find(d); it != extent_value_.end()) dims.push_back(loom::Extent::bound_to(it->second));
      else fail(where_ + ": tensor '" + t.name + "' has extent " + d.to_string() + ", which forward's Loom form does not bind");
    }
    return Type::shaped(TypeKind::Tensor, std::move(dims), element_scalar(t.elem, where_ + ": tensor '" + t.name + "'"));
  }

  Value* tensor(const std::string& name) {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto found = it->find(name);
      if (found != it->end()) return found->second;
    }
    fail(where_ + ": forward reads tensor '" + name + "' before any call defines it");
  }

  std::vector<std::pair<std::string, Type>> result_slots(const KernelCall& c) {
    std::vector<std::pair<std::string, Type>> out;
    for (std::size_t i = 0; i < c.results.size(); ++i) out.emplace_back(value_hint(c.results[i]), tensor_type(c.result_types.at(i)));
    return out;
  }

  void define_results(const KernelCall& c, Op& op) {
    for (std::size_t i = 0; i < c.results.size(); ++i) scopes_.back()[c.results[i]] = op.result(static_cast<unsigned>(i));
  }

  void emit_calls(const std::vector<KernelCall>& calls) {
    for (const auto& c : calls) {
      if (c.branch) emit_branch(c);
      else if (c.kernel == "loom") emit_kernel_call(c);
      else emit_apply(c);
    }
  }

  // A fused kernel: its extents (as configuration, then again as launch parameters), then the
  // tensors it reads; the kernel writes the result.
  void emit_kernel_call(const KernelCall& c) {
    const std::string& symbol = c.args.at(0).code;
    std::vector<Value*> operands;
    for (int pass = 0; pass < 2; ++pass)
      for (const auto& e : c.args.at(2).extents) operands.push_back(extent(e));
    for (std::size_t i = 3; i < c.args.size(); ++i) operands.push_back(tensor(c.args[i].tensor));
    Op& op = b_.op("kernel.call", operands, result_slots(c), [&](Op& o) {
      o.attr("callee").text = symbol;
      o.attr("callee").present = true;
    });
    define_results(c, op);
  }

  // A runtime kernel: its flags given as template arguments, then each argument in order.
  void emit_apply(const KernelCall& c) {
    std::vector<Value*> operands;
    for (const auto& t : c.template_args)
      for (const auto& k : t.constants) operands.push_back(constant(k));
    for (const auto& a : c.args) {
      switch (a.kind) {
        case Arg::Kind::Tensor: operands.push_back(tensor(a.tensor)); break;
        case Arg::Kind::Extents:
        case Arg::Kind::Scalar:
          for (const auto& e : a.extents) operands.push_back(extent(e));
          break;
        case Arg::Kind::Code:
          for (const auto& k : a.constants) operands.push_back(constant(k));
          break;
      }
    }
    const std::vector<std::pair<std::string, Type>> product_slot = {
        {value_hint(c.epilogue ? c.epilogue->product.name : ""), c.epilogue ? tensor_type(c.epilogue->product) : Type::index()}};
    Op& op = b_.op("func.apply", operands, c.epilogue ? product_slot : result_slots(c), [&](Op& o) {
      o.attr("contract").text = "loam." + c.kernel;
      o.attr("contract").present = true;
    });
    if (c.epilogue) emit_epilogue(c, op.result(0));
    else define_results(c, op);
  }

  // A product's epilogue: the product regrouped where regroupings came between, then its kernel
  // over every row (the module runs it on each run of rows as the product finishes them).
  void emit_epilogue(const KernelCall& c, Value* product) {
    const EpilogueCall& e = *c.epilogue;
    const Type operand_type = tensor_type(e.operand);
    if (!(product->type == operand_type)) {
      std::vector<Value*> operands = {product};
      for (const auto& d : e.operand.dims) operands.push_back(extent(d));
      product = b_.value("func.apply", operands, value_hint(e.operand.name), operand_type, [&](Op& o) {
        o.attr("contract").text = "loam.reshape";
        o.attr("contract").present = true;
      });
    }
    const KernelCall& k = e.kernel;
    std::vector<Value*> operands;
    for (int pass = 0; pass < 2; ++pass) {
      for (const auto& d : k.args.at(2).extents) operands.push_back(extent(d));
      operands.push_back(constant_index(0));
      operands.push_back(extent(e.rows));
    }
    operands.push_back(product);
    for (std::size_t i = 4; i < k.args.size(); ++i) operands.push_back(tensor(k.args[i].tensor));
    Op& op = b_.op("kernel.call", operands, result_slots(c), [&](Op& o) {
      o.attr("callee").text = k.args.at(0).code;
      o.attr("callee").present = true;
    });
    define_results(c, op);
  }

  // An If: its condition's one element, then each block's calls, yielding the block's outputs.
  void emit_branch(const KernelCall& c) {
    Value* holder = tensor(c.branch->condition);
    std::vector<Value*> at;
    for (std::size_t k = 0; k < holder->type.rank(); ++k) at.push_back(constant_index(0));
    std::vector<Value*> extract_operands = {holder};
    extract_operands.insert(extract_operands.end(), at.begin(), at.end());
    Value* condition = b_.value("tensor.extract", extract_operands, value_hint(c.branch->condition) + "_value", Type::scalar(Scalar::I1));
    Op& op = b_.op("scf.if", {condition}, result_slots(c));
    loom::Block* outer = b_.insertion();
    for (const Block* blk : {&c.branch->then_block, &c.branch->else_block}) {
      b_.region(op);
      scopes_.emplace_back();
      emit_calls(blk->calls);
      std::vector<Value*> yielded;
      for (std::size_t k = 0; k < blk->outputs.size(); ++k) {
        // A result whose length the branch run decides is the block's tensor under its type.
        Value* v = tensor(blk->outputs[k]);
        const Type want = op.result(static_cast<unsigned>(k))->type;
        if (!(v->type == want)) v = b_.value("tensor.cast", {v}, v->name, want);
        yielded.push_back(v);
      }
      b_.op("scf.yield", yielded);
      scopes_.pop_back();
    }
    b_.set_insertion(*outer);
    define_results(c, op);
  }

  LoweredModule& m_;
  std::string where_;
  Builder b_;
  // By printed form, which does not depend on the order symbols were made in; two lengths printed
  // alike (each output of an If the branches give differently has a branch symbol of its own) by
  // the order they were made in.
  std::set<std::pair<std::string, stage0::Extent>> extents_;
  std::map<stage0::Extent, Value*> extent_value_;
  std::map<std::tuple<const loom::Block*, Scalar, std::uint64_t, std::string>, Value*> constants_;
  std::vector<std::map<std::string, Value*>> scopes_;
};

}  // namespace

void build_forward(LoweredModule& m, const std::string& origin) {
  if (!m.kernels) m.kernels = std::make_shared<loom::Module>();
  m.kernels->file = origin;
  ForwardBuilder(m, origin).build();
}

}  // namespace loam::lower
