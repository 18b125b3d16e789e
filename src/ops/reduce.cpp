// Reductions over axes: ReduceMean, ReduceSum, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2,
// ReduceLogSum, ReduceLogSumExp, ReduceSumSquare; ArgMax, ArgMin and TopK along one; the running sum
// CumSum. Integer ReduceProd, ReduceSum, ReduceMax and ReduceMin fold over known values. The reduced
// axes leave the result's names (or stay at length 1).
#include <map>
#include <set>

#include "ops/op.hpp"
#include "support/error.hpp"

namespace loam::ops {

namespace {

void reduce(OpContext& c) {
  const auto& x = c.input(0);
  std::size_t r = x.dims.size();
  std::optional<std::vector<int64_t>> axes;
  if (c.has_input(1)) axes = c.constant_ints(1, "the axes");
  else axes = c.attr_ints("axes");
  bool keep = c.attr_int("keepdims", 1) != 0;
  bool noop = c.attr_int("noop_with_empty_axes", 0) != 0;
  std::vector<bool> reduced(r, false);
  if (!axes || axes->empty()) {
    if (noop) {
      c.set_output(0, x.elem, x.dims);
      if (x.value) c.out[0].value = x.value;
      return;
    }
    reduced.assign(r, true);
  } else {
    for (int64_t a : *axes) {
      std::size_t k = c.axis(a, r, "axis");
      if (reduced[k]) c.error("axis " + std::to_string(a) + " is given twice");
      reduced[k] = true;
    }
  }
  std::vector<Extent> out;
  for (std::size_t k = 0; k < r; ++k) {
    if (!reduced[k]) out.push_back(x.dims[k]);
    else if (keep) out.emplace_back(1);
  }
  c.set_output(0, x.elem, out);
  const std::string& op = c.node.op_type;
  bool int_fold = op == "ReduceProd" || op == "ReduceSum" || op == "ReduceMax" || op == "ReduceMin";
  if (!int_fold || !c.ints(0) || !c.foldable_count(0)) return;
  auto is = constant_shape(x.dims);
  if (!is) return;
  // Accumulate each input element into its output slot.
  std::vector<int64_t> os;
  for (std::size_t k = 0; k < r; ++k)
    if (!reduced[k]) os.push_back((*is)[k]);
  std::vector<int64_t> ostride(os.size(), 1);
  for (std::size_t k = os.size(); k-- > 1;) ostride[k - 1] = ostride[k] * os[k];
  int64_t n_out = 1;
  for (int64_t d : os) n_out *= d;
  std::vector<std::optional<Extent>> acc(static_cast<std::size_t>(n_out));
  const auto& v = *c.ints(0);
  std::vector<int64_t> idx(r, 0);
  for (std::size_t i = 0; i < v.size(); ++i) {
    int64_t slot = 0;
    std::size_t j = 0;
    for (std::size_t k = 0; k < r; ++k)
      if (!reduced[k]) slot += idx[k] * ostride[j++];
    auto& a = acc[static_cast<std::size_t>(slot)];
    const Extent& e = v[i];
    if (!a) a = e;
    else if (op == "ReduceProd") a = *a * e;
    else if (op == "ReduceSum") a = *a + e;
    else if (op == "ReduceMax") a = stage0::max_of(*a, e);
    else a = stage0::min_of(*a, e);
    for (std::size_t k = r; k-- > 0;) {
      if (++idx[k] < (*is)[k]) break;
      idx[k] = 0;
    }
  }
  std::vector<Extent> res;
  Extent empty = op == "ReduceProd" ? Extent(1) : Extent(0);
  for (auto& a : acc) {
    if (!a && (op == "ReduceMax" || op == "ReduceMin")) return;  // an empty max: the run's
    res.push_back(a ? *a : empty);
  }
  c.fold_ints(0, std::move(res));
}

void arg_reduce(OpContext& c) {
  const auto& x = c.input(0);
  std::size_t r = x.dims.size();
  std::size_t ax = c.axis(c.attr_int("axis", 0), r, "attribute 'axis'");
  bool keep = c.attr_int("keepdims", 1) != 0;
  std::vector<Extent> out;
  for (std::size_t k = 0; k < r; ++k) {
    if (k != ax) out.push_back(x.dims[k]);
    else if (keep) out.emplace_back(1);
  }
  c.set_output(0, ElementType::I64, out);
}

// The reduced axes go, unless kept at length 1.
void name_reduce(axes::NodeNaming& x) {
  const auto& in = x.axes_of(0);
  const std::string& op = x.node.op_type;
  std::set<std::size_t> gone;
  if (op == "ArgMax" || op == "ArgMin") {
    gone.insert(x.norm_axis(x.int_attr("axis", 0), in.size()));
  } else {
    std::vector<int64_t> ax;
    if (x.has(1)) ax = x.folded_ints(1);
    else if (auto a = x.attributes().integers("axes")) ax = *a;
    if (ax.empty() && x.int_attr("noop_with_empty_axes", 0) == 0)
      for (std::size_t i = 0; i < in.size(); ++i) gone.insert(i);
    for (auto a : ax) gone.insert(x.norm_axis(a, in.size()));
  }
  if (x.int_attr("keepdims", 1) != 0) return x.same_as_input();
  x.complete(0, axes::drop(in, gone));
}

// A row reduction its reader's kernel computes is the elementwise lowering's; every other a call of
// the runtime's.
void lower_reduce(LowerContext& cx, const Node& n) {
  static const std::map<std::string, std::string, std::less<>> kernels = {
      {"ReduceSum", "reduce_sum"},       {"ReduceMean", "reduce_mean"},      {"ReduceMax", "reduce_max"},
      {"ReduceMin", "reduce_min"},       {"ReduceProd", "reduce_prod"},      {"ReduceL1", "reduce_l1"},
      {"ReduceL2", "reduce_l2"},         {"ReduceLogSum", "reduce_log_sum"}, {"ReduceLogSumExp", "reduce_log_sum_exp"},
      {"ReduceSumSquare", "reduce_sum_square"}};
  TensorInfo in = cx.info(cx.in(0)), out = cx.info(n.outputs.at(0));
  cx.compute_type(in.elem);  // refuses, naming the node, a type no kernel computes in
  // ONNX defines ReduceMax and ReduceMin on bools (opset 20), no other reduction.
  if (in.elem == ElementType::Bool && n.op_type != "ReduceMax" && n.op_type != "ReduceMin")
    cx.error(n.op_type + " of bools is not one ONNX defines (only ReduceMax and ReduceMin take them)");
  std::vector<int64_t> axes = cx.has(1) ? cx.folded_ints(1, "the axes") : cx.attr_ints("axes");
  std::vector<Extent> ax(axes.begin(), axes.end());
  cx.call(kernels.at(n.op_type), {TypeArg::of_axes(out.axes)},
          {Arg::of_tensor(cx.in(0)), Arg::of_extents(ax), Arg::of_flag(cx.attr_int("keepdims", 1) != 0, "keepdims"),
           Arg::of_flag(cx.attr_int("noop_with_empty_axes", 0) != 0, "noop_with_empty_axes")});
}

void lower_arg_reduce(LowerContext& cx, const Node& n) {
  TensorInfo in = cx.info(cx.in(0)), out = cx.info(n.outputs.at(0));
  cx.compute_type(in.elem);
  cx.call(n.op_type == "ArgMin" ? "argmin" : "argmax", {TypeArg::of_axes(out.axes)},
          {Arg::of_tensor(cx.in(0)), Arg::of_index(cx.attr_int("axis", 0), "axis"),
           Arg::of_flag(cx.attr_int("keepdims", 1) != 0, "keepdims"),
           Arg::of_flag(cx.attr_int("select_last_index", 0) != 0, "select_last_index")});
}

void cumsum(OpContext& c) {
  const auto& x = c.input(0);
  const auto& axis = c.input(1);
  if (axis.elem != ElementType::I64 && axis.elem != ElementType::I32)
    c.error(c.tensor(1) + " must be an int32 or int64 scalar, not " + element_type_name(axis.elem));
  if (x.dims.empty()) c.error(c.tensor(0) + " is a scalar; CumSum needs an axis");
  c.set_output(0, x.elem, x.dims);
}

// The axis is read at run time (a folded one is a constant of the module); the kernel refuses one
// outside the rank, naming it.
void lower_cumsum(LowerContext& cx, const Node&) {
  cx.compute_type(cx.info(cx.in(0)).elem);
  cx.call("cumsum", {},
          {Arg::of_tensor(cx.in(0)), Arg::of_tensor(cx.in(1)), Arg::of_flag(cx.attr_int("exclusive", 0) != 0, "exclusive"),
           Arg::of_flag(cx.attr_int("reverse", 0) != 0, "reverse"), quoted_name(cx.in(1))});
}

// TopK: the k largest (or smallest) elements along an axis and their indices. k is an extent the
// build knows (opset 10 on: the input K; before: the attribute); the kernel refuses one past the
// axis, naming K.
Extent top_k_count(const OpContext& c) {
  if (c.has_input(1)) {
    const auto& k = c.known_ints(1, "K");
    if (k.size() != 1) c.error(c.tensor(1) + " must hold one element, not " + std::to_string(k.size()));
    return k[0];
  }
  auto k = c.attr_int_opt("k");
  if (!k) c.error("attribute 'k' must be given");
  return Extent(*k);
}

void top_k(OpContext& c) {
  const auto& x = c.input(0);
  if (x.dims.empty()) c.error(c.tensor(0) + " is a scalar; TopK needs an axis");
  std::size_t ax = c.axis(c.attr_int("axis", -1), x.dims.size(), "attribute 'axis'");
  Extent k = top_k_count(c);
  if (k.is_constant() && *k.constant() < 0) c.error("K is " + k.to_string() + ", below 0");
  if (k.is_constant() && x.dims[ax].is_constant() && *k.constant() > *x.dims[ax].constant())
    c.error("K is " + k.to_string() + ", past the axis of " + x.dims[ax].to_string());
  std::vector<Extent> out = x.dims;
  out[ax] = k;
  c.set_output(0, x.elem, out);
  if (c.out.size() > 1) c.set_output(1, ElementType::I64, out);
}

// The axis keeps its name where k is its whole length; else it is the layout's.
void name_top_k(axes::NodeNaming& x) {
  const auto& in = x.axes_of(0);
  std::size_t ax = x.norm_axis(x.int_attr("axis", -1), in.size());
  axes::Partial p(in.begin(), in.end());
  for (std::size_t k = 0; k < x.node.outputs.size() && k < 2; ++k) {
    if (x.node.outputs[k].empty()) continue;
    axes::Partial pk = p;
    if (!(x.dims_of(x.node.outputs[k]).at(ax) == x.input_dims(0).at(ax))) pk[ax].reset();
    x.complete(k, pk);
  }
}

void lower_top_k(LowerContext& cx, const Node& n) {
  TensorInfo x = cx.info(cx.in(0));
  cx.compute_type(x.elem);
  std::size_t ax = cx.norm_axis(cx.attr_int("axis", -1), x.axes.size());
  // A result the graph does not read is a local of the call's, shaped as the one it reads.
  std::optional<TensorInfo> given;
  for (std::size_t k = 0; k < 2 && !given; ++k)
    if (k < n.outputs.size() && !n.outputs[k].empty()) given = cx.info(n.outputs[k]);
  if (!given) cx.error("none of its results is read");
  std::vector<std::string> names;
  std::vector<TensorInfo> infos;
  for (std::size_t k = 0; k < 2; ++k) {
    if (k < n.outputs.size() && !n.outputs[k].empty()) {
      names.push_back(n.outputs[k]);
      infos.push_back(cx.info(n.outputs[k]));
      continue;
    }
    std::string local = given->name + "@unread" + std::to_string(k);
    TensorInfo info{local, k == 0 ? x.elem : ElementType::I64, given->axes, given->dims};
    cx.synthetic[local] = info;
    names.push_back(local);
    infos.push_back(info);
  }
  cx.call("top_k", {TypeArg::of_axes(infos[0].axes), TypeArg::of_axes(infos[1].axes)},
          {Arg::of_tensor(cx.in(0)), Arg::of_scalar(infos[0].dims.at(ax)), Arg::of_index(static_cast<int64_t>(ax), "axis"),
           Arg::of_flag(cx.attr_int("largest", 1) != 0, "largest"), quoted_name(cx.has(1) ? cx.in(1) : std::string("k"))},
          names);
}

// The axes a reduction names: its attribute, or (opset 18) its second input, which the build knows.
std::optional<std::vector<std::int64_t>> reduction_axes(const Node& n, const stage0::Stage0Result& st) {
  if (n.inputs.size() > 1 && !n.inputs[1].empty()) {
    const auto* a = st.find(n.inputs[1]);
    if (!a || !a->value || a->value->kind != stage0::FoldedValue::Kind::Integer) return std::nullopt;
    std::vector<std::int64_t> axes;
    for (const auto& e : a->value->ints) {
      auto c = e.constant();
      if (!c) return std::nullopt;
      axes.push_back(*c);
    }
    return axes;
  }
  const Attribute* a = n.attr("axes");
  if (!a) return std::vector<std::int64_t>{};
  if (a->kind != Attribute::Kind::Ints) return std::nullopt;
  return a->ints;
}

// A float sum, mean, maximum or minimum over the last axis alone, kept: a scalar of a row, which
// the kernel whose row it is computes in its own loop.
FusionRole row_reduction_role(const Node& n, const stage0::Stage0Result& st) {
  if (n.outputs.size() != 1) return FusionRole::None;
  const Attribute* keep = n.attr("keepdims");
  if (keep && (keep->kind != Attribute::Kind::Int || keep->i != 1)) return FusionRole::None;
  auto axes = reduction_axes(n, st);
  return axes && axes->size() == 1 && reads_float_rows(n, st, axes->front()) ? FusionRole::RowReduction : FusionRole::None;
}

RowNormalisation compose_row_reduction(Expression& e, const Node& n) {
  LowerContext& cx = e.context();
  e.reduce(n.op_type, e.operand(cx.in(0), cx.info(cx.in(0)).axes));
  return RowNormalisation::None;
}

}  // namespace

void register_reduce(std::vector<Operator>& r) {
  // The sum and mean along a row are also a generated kernel's scalar of the row.
  for (const char* op : {"ReduceMean", "ReduceSum"})
    r.push_back({.op_type = op, .infer = reduce, .name_axes = name_reduce, .data_operands = first_input, .lower = lower_reduce,
                 .fusion_role = row_reduction_role, .compose = compose_row_reduction, .computes_double = true, .in_scope = true});
  for (const char* op : {"ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"})
    r.push_back({.op_type = op, .infer = reduce, .name_axes = name_reduce, .data_operands = first_input, .lower = lower_reduce,
                 .computes_double = true, .in_scope = true});
  // The maximum and minimum select an element: a narrow integer stays in range.
  for (const char* op : {"ReduceMax", "ReduceMin"})
    r.push_back({.op_type = op, .infer = reduce, .name_axes = name_reduce, .data_operands = first_input, .lower = lower_reduce,
                 .fusion_role = row_reduction_role, .compose = compose_row_reduction, .keeps_narrow_range = true,
                 .computes_double = true, .in_scope = true});
  for (const char* op : {"ArgMax", "ArgMin"})
    r.push_back({.op_type = op, .infer = arg_reduce, .name_axes = name_reduce, .data_operands = first_input,
                 .lower = lower_arg_reduce, .computes_double = true, .in_scope = true});
  // TopK selects elements: a narrow integer stays in range.
  r.push_back({.op_type = "TopK", .infer = top_k, .name_axes = name_top_k, .data_operands = first_input, .lower = lower_top_k,
               .keeps_narrow_range = true, .computes_double = true, .in_scope = true});
  r.push_back({.op_type = "CumSum", .infer = cumsum, .name_axes = name_like_input, .lower = lower_cumsum, .computes_double = true,
               .in_scope = true});
}

}  // namespace loam::ops
