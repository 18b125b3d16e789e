#include "lower/module.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

#include "lower/context.hpp"
#include "ops/operator.hpp"
#include "support/error.hpp"

namespace loam::lower {

std::string cpp_element_type(ElementType t) {
  switch (t) {
    case ElementType::F32: return "float";
    case ElementType::F64: return "double";
    case ElementType::I64: return "std::int64_t";
    case ElementType::Bool: return "bool";
    case ElementType::F16: return "Half";
    case ElementType::BF16: return "BFloat16";
    case ElementType::I8: return "std::int8_t";
    case ElementType::U8: return "std::uint8_t";
    case ElementType::I16: return "std::int16_t";
    case ElementType::U16: return "std::uint16_t";
    case ElementType::I32: return "std::int32_t";
    case ElementType::U32: return "std::uint32_t";
    default: return "";
  }
}

std::string cpp_compute_type(ElementType t) {
  if (t == ElementType::F16 || t == ElementType::BF16) return "float";
  if (is_narrow_integer(t)) return "std::int64_t";
  return cpp_element_type(t);
}

namespace {
// A number as C++ reads it back: printf's "inf" and "nan" are no literals (a Pad value of -inf, as
// the attention ONNX 1.23 expands writes, would not compile).
std::string float_text(double v, int digits = 9) {
  if (std::isnan(v)) return "std::numeric_limits<double>::quiet_NaN()";
  if (std::isinf(v)) return v < 0 ? "-std::numeric_limits<double>::infinity()" : "std::numeric_limits<double>::infinity()";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}
}  // namespace

Arg Arg::of_flag(bool b, const std::string& hint) { return of_code(b ? "true" : "false", {{loom::Scalar::I1, b ? 1u : 0u, hint}}); }

Arg Arg::of_index(std::int64_t v, const std::string& hint) {
  return of_code(std::to_string(v), {{loom::Scalar::Index, static_cast<std::uint64_t>(v), hint}});
}

Arg Arg::of_float(float v, const std::string& hint) {
  return of_code("static_cast<float>(" + float_text(v) + ")", {{loom::Scalar::F32, loom::float_bits(v, loom::Scalar::F32), hint}});
}

Arg Arg::of_element(ElementType t, double v, const std::string& hint) {
  const std::string compute = cpp_compute_type(t);
  CallConstant c{loom::Scalar::F32, 0, hint};
  if (t == ElementType::Bool) c = {loom::Scalar::I1, v != 0 ? 1u : 0u, hint};
  else if (compute == "float") c.bits = loom::float_bits(v, loom::Scalar::F32);
  else if (compute == "double") {
    c = {loom::Scalar::F64, loom::float_bits(v, loom::Scalar::F64), hint};
    return of_code("static_cast<double>(" + float_text(v, 17) + ")", {c});
  } else c = {loom::Scalar::I64, static_cast<std::uint64_t>(static_cast<std::int64_t>(v)), hint};
  return of_code("static_cast<" + compute + ">(" + float_text(v) + ")", {c});
}

Arg Arg::of_integer_element(ElementType t, std::int64_t v, const std::string& hint) {
  const std::string compute = cpp_compute_type(t);
  CallConstant c{loom::Scalar::I64, static_cast<std::uint64_t>(v), hint};
  if (t == ElementType::Bool) c = {loom::Scalar::I1, v != 0 ? 1u : 0u, hint};
  else if (compute == "float") c = {loom::Scalar::F32, loom::float_bits(static_cast<double>(v), loom::Scalar::F32), hint};
  return of_code("static_cast<" + compute + ">(" + std::to_string(v) + ")", {c});
}

std::vector<const Arg*> passed_args(const KernelCall& c) {
  std::vector<const Arg*> out;
  for (const auto& a : c.args) out.push_back(&a);
  if (c.epilogue)
    for (const auto& a : c.epilogue->kernel.args) out.push_back(&a);
  return out;
}

std::string LowerContext::where() const {
  if (!node) return origin;
  return origin + ": " + (node->name.empty() ? node->label() : "node '" + node->name + "' (" + node->op_type + ")");
}

void LowerContext::error(const std::string& message) const { fail(where() + ": " + message); }

const stage0::ValueState& LowerContext::value(const std::string& tensor) const {
  const auto* v = st.find(tensor);
  if (!v) error("tensor '" + tensor + "' has no analysed shape");
  return *v;
}

TensorInfo LowerContext::info(const std::string& tensor) const {
  TensorInfo t;
  t.name = tensor;
  const auto& v = value(tensor);
  t.elem = v.elem;
  t.dims = v.dims;
  auto it = naming.values.find(tensor);
  if (it == naming.values.end()) error("tensor '" + tensor + "' has no axis names");
  t.axes = it->second;
  return t;
}

const std::string& LowerContext::in(std::size_t i) const {
  if (!has(i)) error("input " + std::to_string(i) + " is required");
  return node->inputs[i];
}
bool LowerContext::has(std::size_t i) const { return i < node->inputs.size() && !node->inputs[i].empty(); }

NodeAttributes LowerContext::attributes() const {
  return NodeAttributes(*node, [this](const std::string& why) { error(why); });
}
int64_t LowerContext::attr_int(const char* name, int64_t dflt) const { return attributes().integer(name, dflt); }
float LowerContext::attr_float(const char* name, float dflt) const { return attributes().real(name, dflt); }
std::string LowerContext::attr_string(const char* name, const std::string& dflt) const { return attributes().text(name, dflt); }
std::vector<int64_t> LowerContext::attr_ints(const char* name) const { return attributes().integers(name).value_or(std::vector<int64_t>{}); }

std::vector<int64_t> LowerContext::folded_ints(std::size_t i, const std::string& what) const {
  const auto& v = value(in(i));
  if (!v.value) error(what + " '" + in(i) + "' must be known at build time");
  std::vector<int64_t> out;
  if (v.value->kind == stage0::FoldedValue::Kind::Integer) {
    for (const auto& e : v.value->ints) {
      auto c = e.constant();
      if (!c) error(what + " '" + in(i) + "' holds " + e.to_string() + ", which only the run knows");
      out.push_back(*c);
    }
  } else {
    for (float f : v.value->floats) out.push_back(static_cast<int64_t>(f));
  }
  return out;
}

std::vector<Extent> LowerContext::known_extents(std::size_t i, const std::string& what) const {
  const auto& v = value(in(i));
  if (!v.value || v.value->kind != stage0::FoldedValue::Kind::Integer) error(what + " '" + in(i) + "' must be known at build time");
  return v.value->ints;
}

std::optional<std::vector<float>> LowerContext::folded_floats(std::size_t i) const {
  if (!has(i)) return std::nullopt;
  const auto& v = value(in(i));
  if (!v.value) {
    // A float initializer the graph carries (stage 0 folds no float initializer, but an attribute
    // normalisation moved to an operand, such as Clip's bounds, is one).
    const TensorData* t = model.graph.initializer(in(i));
    if (!t || !t->has_data || t->elem != ElementType::F32) return std::nullopt;
    std::vector<float> out(t->data.size() / 4);
    if (!out.empty()) std::memcpy(out.data(), t->data.data(), out.size() * 4);
    return out;
  }
  if (v.value->kind == stage0::FoldedValue::Kind::Float) return v.value->floats;
  std::vector<float> out;
  for (const auto& e : v.value->ints) {
    auto c = e.constant();
    if (!c) return std::nullopt;
    out.push_back(static_cast<float>(*c));
  }
  return out;
}

std::size_t LowerContext::norm_axis(int64_t axis, std::size_t rank) const { return attributes().axis(axis, rank); }

void LowerContext::call(std::string kernel, std::vector<TypeArg> targs, std::vector<Arg> args,
                        std::vector<std::string> results) {
  KernelCall c;
  c.node = node->label();
  c.op = node->op_type;
  c.kernel = std::move(kernel);
  c.template_args = std::move(targs);
  c.args = std::move(args);
  c.results = results.empty() ? std::vector<std::string>{node->outputs.at(0)} : std::move(results);
  c.graph_node = graph_node;
  for (const auto& r : c.results) {
    auto it = synthetic.find(r);
    c.result_types.push_back(it != synthetic.end() ? it->second : info(r));
  }
  out.calls.push_back(std::move(c));
}

Arg LowerContext::lifted(const std::string& tensor, const std::vector<AxisName>& to) {
  TensorInfo t = info(tensor);
  if (t.axes == to) return Arg::of_tensor(tensor);
  // A relabelled local: a call of its own defining "<tensor>@lift<n>".
  std::string local = tensor + "@lift" + std::to_string(fresh_counter++);
  KernelCall c;
  c.node = node->label();
  c.op = node->op_type;
  c.kernel = "lift";
  c.graph_node = graph_node;
  c.template_args = {TypeArg::of_axes(to)};
  c.args = {Arg::of_tensor(tensor)};
  c.results = {local};
  synthetic[local] = TensorInfo{local, t.elem, to, t.dims};
  c.result_types = {synthetic[local]};
  out.calls.push_back(std::move(c));
  return Arg::of_tensor(local);
}

Arg LowerContext::broadcast_operand(const std::string& tensor, const std::vector<AxisName>& out_axes) {
  TensorInfo t = info(tensor);
  if (t.axes.size() > out_axes.size()) error("operand '" + tensor + "' has more axes than the result");
  std::vector<AxisName> to = t.axes;
  bool change = false;
  for (std::size_t k = 0; k < t.axes.size(); ++k) {
    const AxisName& want = out_axes[out_axes.size() - t.axes.size() + k];
    if (t.axes[k] == want) continue;
    bool unit_fixed = t.axes[k].parts.size() == 1 && naming.fixed_extent.count(t.axes[k].parts[0]) &&
                      naming.fixed_extent.at(t.axes[k].parts[0]) == 1;
    if (unit_fixed) continue;
    to[k] = want;
    change = true;
  }
  return change ? lifted(tensor, to) : Arg::of_tensor(tensor);
}

std::string LowerContext::prepared(PreparedWeight::Form form, const std::string& source, const TensorInfo& as,
                                   int64_t group, const std::optional<PreparedWeight::Normalization>& norm) {
  for (const auto& p : out.prepared)
    if (p.form == form && p.source == source && p.info.axes == as.axes && p.info.dims == as.dims && p.group == group &&
        p.norm == norm)
      return p.name;
  PreparedWeight p;
  p.form = form;
  p.source = source;
  p.info = as;
  p.info.name = source;
  p.group = group;
  p.norm = norm;
  std::string suffix = form == PreparedWeight::Form::Regrouped ? "@channels"
                     : form == PreparedWeight::Form::FoldedBias ? "@folded_bias"
                     : norm ? "@folded_packed"
                            : "@packed";
  p.name = source + suffix;
  for (int k = 2; std::any_of(out.prepared.begin(), out.prepared.end(), [&](const PreparedWeight& q) { return q.name == p.name; }); ++k)
    p.name = source + suffix + std::to_string(k);
  out.prepared.push_back(p);
  return p.name;
}

Arg LowerContext::channel_bias(const std::string& bias, const AxisName& axis, const Extent& length) {
  TensorInfo b = info(bias);
  if (b.axes.size() == 1 && b.axes[0] == axis) return Arg::of_tensor(bias);
  TensorInfo as{bias, b.elem, {axis}, {length}};
  return Arg::of_tensor(prepared(PreparedWeight::Form::Regrouped, bias, as));
}

const ProductEpilogue* LowerContext::epilogue() const {
  if (!plan || !graph_node) return nullptr;
  auto it = plan->epilogues.find(*graph_node);
  return it == plan->epilogues.end() ? nullptr : &*plan->heads.at(it->second).epilogue;
}

void LowerContext::attach_epilogue(const Extent& rows) {
  auto head = plan->epilogues.find(*graph_node);
  auto waiting = deferred.find(*graph_node);
  if (head == plan->epilogues.end() || waiting == deferred.end()) error("no contraction waits for this kernel as its epilogue");
  KernelCall call = std::move(waiting->second);
  deferred.erase(waiting);
  auto e = std::make_shared<EpilogueCall>();
  e->kernel = std::move(out.calls.back());
  out.calls.pop_back();
  e->product = call.result_types.at(0);
  e->operand = info(plan->heads.at(head->second).epilogue->operand);
  e->rows = rows;
  call.results = e->kernel.results;
  call.result_types = e->kernel.result_types;
  call.op += " + " + e->kernel.op;
  call.epilogue = std::move(e);
  out.calls.push_back(std::move(call));
}

std::string LowerContext::compute_type(ElementType t) const {
  std::string s = cpp_compute_type(t);
  if (s.empty()) error(std::string("element type ") + element_type_name(t) + " is not one the kernels compute in");
  return s;
}

namespace {

FoldedTensor fold_to_bytes(const stage0::ValueState& v, const TensorInfo& info, const std::string& where) {
  FoldedTensor f;
  f.info = info;
  const auto& fv = *v.value;
  auto put = [&](const void* p, std::size_t n) {
    auto b = static_cast<const std::byte*>(p);
    f.bytes.insert(f.bytes.end(), b, b + n);
  };
  ElementType e = info.elem;
  f.held = e;
  if (fv.kind == stage0::FoldedValue::Kind::Float) {
    if (e != ElementType::F32 && e != ElementType::F16 && e != ElementType::BF16)
      fail(where + ": folded tensor '" + info.name + "' holds floats as " + element_type_name(e));
    f.held = ElementType::F32;
    for (float x : fv.floats) put(&x, sizeof x);
    return f;
  }
  if (is_narrow_integer(e)) f.held = ElementType::I64;  // as the kernels compute it (even with no element)
  for (const auto& x : fv.ints) {
    auto c = x.constant();
    if (!c) fail(where + ": tensor '" + info.name + "' holds " + x.to_string() + ", which only the run knows");
    if (f.held == ElementType::I64) {
      int64_t y = *c;
      put(&y, 8);
    } else if (e == ElementType::Bool) {
      bool y = *c != 0;
      put(&y, 1);
    } else if (e == ElementType::F32) {
      float y = static_cast<float>(*c);
      put(&y, 4);
    } else {
      fail(where + ": folded tensor '" + info.name + "' of element type " + element_type_name(e) +
           " is not one the module holds");
    }
  }
  return f;
}

}  // namespace

void provide_tensor(LowerContext& cx, const std::string& name, std::set<std::string>& defined) {
  if (defined.count(name) || cx.synthetic.count(name)) return;
  const auto& v = cx.value(name);
  TensorInfo info = cx.info(name);
  if (v.source == stage0::ValueState::Source::Initializer) {
    Weight w;
    w.info = info;
    w.data = cx.model.graph.initializer(name);
    if (w.data && !w.data->has_data) w.data = nullptr;
    cx.out.weights.push_back(std::move(w));
  } else if (v.value && v.value->kind == stage0::FoldedValue::Kind::Integer && !v.value->all_constant()) {
    // Values only the run knows (a Shape of a tensor whose length the run decides, and what the
    // build computed from it): forward computes them from the extents it bound.
    KernelCall c;
    c.node = cx.node ? cx.node->label() : "graph output '" + name + "'";
    c.op = "extents";
    c.kernel = "extents_tensor";
    c.template_args = {TypeArg::of_axes(info.axes), TypeArg::of_code(cx.compute_type(info.elem))};
    c.args = {Arg::of_extents(info.dims), Arg::of_extents(v.value->ints)};
    c.results = {name};
    c.result_types = {info};
    c.graph_node = cx.graph_node;
    cx.out.calls.push_back(std::move(c));
  } else if (v.value) {
    cx.out.folded.push_back(fold_to_bytes(v, info, cx.where()));
  } else {
    fail(cx.origin + ": tensor '" + name + "' is read before any node defines it");
  }
  defined.insert(name);
}

namespace {

// A kernel written for float alone is refused a double operand or result here, by name, rather
// than left to fail the module's compilation.
void refuse_double(const LowerContext& cx, const Node& n) {
  for (const auto* list : {&n.inputs, &n.outputs})
    for (const auto& t : *list)
      if (!t.empty() && cx.value(t).elem == ElementType::F64)
        cx.error("computes in float: its kernels take no double (tensor '" + t + "')");
}

}  // namespace

void lower_nodes(LowerContext& cx, const Graph& g, const std::vector<stage0::NodeState>& nodes,
                 std::set<std::string>& defined) {
  // The fusion plan speaks of its graph's nodes.
  const FusionPlan* plan = cx.plan && cx.plan->graph == &g ? cx.plan : nullptr;
  for (const auto& ns : nodes) {
    // A node the plan folded into a contraction's call is computed by that call.
    if (ns.folded || (plan && plan->absorbed.count(ns.index))) continue;
    const Node& n = g.nodes.at(ns.index);
    cx.node = &n;
    auto head = plan ? plan->heads.find(ns.index) : std::map<std::size_t, ProductFusion>::const_iterator{};
    cx.fusion = plan && head != plan->heads.end() ? &head->second : nullptr;
    cx.inline_into_reader = plan && plan->inlined.count(ns.index);
    cx.graph_node = plan ? std::optional<std::size_t>(ns.index) : std::nullopt;
    for (auto i : axes::data_operands(n, cx.st)) {
      if (cx.fusion && cx.fusion->packed && cx.fusion->packed->input == i) provide_tensor(cx, cx.fusion->packed->weight, defined);
      else if (!axes::is_folded_scalar_operand(n, i, cx.st)) provide_tensor(cx, n.inputs[i], defined);
    }
    if (cx.fusion && !cx.fusion->bias.empty()) provide_tensor(cx, cx.fusion->bias, defined);
    if (cx.fusion && cx.fusion->norm)
      for (const auto* t : {&cx.fusion->norm->scale, &cx.fusion->norm->shift, &cx.fusion->norm->mean, &cx.fusion->norm->var})
        provide_tensor(cx, *t, defined);
    // The elementwise lowering takes what it composes into a generated kernel (the elementwise
    // operators, and rows with their reductions); the rest is the operator's own lowering.
    const ops::Operator* op = cx.st.operators->find(n);
    if (ns.branches) lower_if(cx, n, *ns.branches, defined);
    else if (lower_elementwise(cx, n)) {
    } else if (op && op->lower) {
      if (!op->computes_double) refuse_double(cx, n);
      op->lower(cx, n);
    } else cx.error(std::string("no kernel computes operator ") + (n.domain.empty() ? "" : n.domain + ".") + n.op_type);
    if (cx.fusion && cx.fusion->epilogue) {
      // The product waits for its epilogue kernel, which reads it (regrouped) where it lies.
      cx.deferred.emplace(cx.fusion->epilogue->kernel, std::move(cx.out.calls.back()));
      cx.out.calls.pop_back();
      for (auto r : cx.fusion->epilogue->regroupings) defined.insert(g.nodes.at(r).outputs.at(0));
    }
    for (const auto& o : n.outputs)
      if (!o.empty() && !ns.branches && is_narrow_integer(cx.value(o).elem) && !(op && op->keeps_narrow_range))
        cx.error(std::string("computes '") + o + "' in " + element_type_name(cx.value(o).elem) +
                 ", which the kernels hold in int64 and would not take back into its range");
    for (const auto& o : n.outputs)
      if (!o.empty()) defined.insert(o);
    if (cx.fusion) defined.insert(cx.fusion->result);
  }
  cx.node = nullptr;
  cx.fusion = nullptr;
  cx.inline_into_reader = false;
  cx.graph_node.reset();
}

LoweredModule lower_module(const Model& model, const stage0::Stage0Result& st,
                           const axes::AxisNaming& naming, const std::string& origin, const FusionOptions& fusion) {
  LoweredModule m;
  m.axes = naming.axes;
  m.fixed_extent = naming.fixed_extent;
  m.owed = st.owed;
  m.bindings = st.bindings;
  LowerContext cx(model, st, naming, origin, m);
  cx.fusion_options = fusion;
  const FusionPlan plan = plan_fusion(model.graph, st, naming, fusion);
  m.decisions = plan.decisions;

  std::set<std::string> defined;  // tensors forward holds so far
  for (const auto& name : st.inputs) {
    m.inputs.push_back(cx.info(name));
    defined.insert(name);
  }
  cx.plan = &plan;
  lower_nodes(cx, model.graph, st.nodes, defined);
  if (!cx.deferred.empty()) fail(origin + ": a contraction's epilogue kernel was never lowered");
  cx.plan = nullptr;
  for (const auto& name : st.outputs) {
    provide_tensor(cx, name, defined);
    m.outputs.push_back(cx.info(name));
  }
  build_forward(m, origin);
  return m;
}

}  // namespace loam::lower
