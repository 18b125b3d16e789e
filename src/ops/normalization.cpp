// Normalizations: Softmax, LogSoftmax, Hardmax (and the pre-opset-13 flattened forms the readers
// spell loam.SoftmaxFlattened / loam.LogSoftmaxFlattened / loam.HardmaxFlattened),
// LayerNormalization, RMSNormalization, BatchNormalization, InstanceNormalization,
// GroupNormalization, LRN, MeanVarianceNormalization.
// Each keeps its input's shape and axes; the rules check axes and parameter shapes. Along the last
// axis the elementwise lowering generates their kernels (a row with its reductions); otherwise each
// is a call of the runtime's.
#include "ops/op.hpp"
#include "support/error.hpp"

namespace loam::ops {

namespace {

void softmax(OpContext& c) {
  const auto& x = c.input(0);
  bool flattened = c.node.domain == "loam";
  if (x.dims.empty()) c.error("takes no scalar");
  c.axis(c.attr_int("axis", flattened ? 1 : -1), x.dims.size(), "attribute 'axis'");
  c.set_output(0, x.elem, x.dims);
}

// A per-channel parameter: 1-D of the channel extent.
void channel_param(OpContext& c, std::size_t i, const Extent& channels, const std::string& what) {
  if (!c.has_input(i)) return;
  const auto& p = c.input(i);
  if (p.dims.size() != 1) c.error(what + " " + c.tensor(i) + " must be 1-D, not " + p.shape_string());
  c.equal(p.dims[0], channels, what + " " + c.tensor(i) + " (" + p.dims[0].to_string() + ") and the channels (" + channels.to_string() + ")");
}

void batch_norm(OpContext& c) {
  const auto& x = c.input(0);
  if (x.dims.size() < 2) c.error(c.tensor(0) + " " + x.shape_string() + " has no channel axis");
  const Extent& ch = x.dims[1];
  channel_param(c, 1, ch, "the scale");
  channel_param(c, 2, ch, "the bias");
  channel_param(c, 3, ch, "the mean");
  channel_param(c, 4, ch, "the variance");
  c.set_output(0, x.elem, x.dims);
  for (std::size_t k = 1; k < c.out.size(); ++k)
    if (!c.out[k].name.empty()) c.error("produces training outputs, which inference does not compute");
}

void instance_norm(OpContext& c) {
  const auto& x = c.input(0);
  if (x.dims.size() < 3) c.error(c.tensor(0) + " " + x.shape_string() + " has no spatial axis");
  channel_param(c, 1, x.dims[1], "the scale");
  channel_param(c, 2, x.dims[1], "the bias");
  c.set_output(0, x.elem, x.dims);
}

// GroupNormalization (opset 21; the schema check refuses opset 18's, which ONNX deprecated): the
// channels a multiple of num_groups, scale and bias one element a channel.
void group_norm(OpContext& c) {
  const auto& x = c.input(0);
  if (x.dims.size() < 2) c.error(c.tensor(0) + " " + x.shape_string() + " has no channel axis");
  const auto groups = c.attr_int_opt("num_groups");
  if (!groups || *groups < 1) c.error("attribute 'num_groups' must be given and positive");
  if (!x.dims[1].divide_exactly(Extent(*groups)))
    c.error("the channels of " + c.tensor(0) + " (" + x.dims[1].to_string() + ") are not a multiple of num_groups " + std::to_string(*groups));
  channel_param(c, 1, x.dims[1], "the scale");
  channel_param(c, 2, x.dims[1], "the bias");
  c.set_output(0, x.elem, x.dims);
}

void layer_norm(OpContext& c) {
  const auto& x = c.input(0);
  std::size_t r = x.dims.size();
  if (r == 0) c.error("takes no scalar");
  std::size_t ax = c.axis(c.attr_int("axis", -1), r, "attribute 'axis'");
  std::vector<Extent> normalized(x.dims.begin() + static_cast<std::ptrdiff_t>(ax), x.dims.end());
  for (std::size_t i = 1; i < 3; ++i) {
    if (!c.has_input(i)) continue;
    const char* what = i == 1 ? "the scale" : "the bias";
    // Scale and bias broadcast unidirectionally to the normalized axes.
    auto r2 = c.broadcast_shapes({normalized, c.input(i).dims}, {"the normalized axes", c.tensor(i)});
    if (r2.size() != normalized.size()) c.error(std::string(what) + " " + c.tensor(i) + " " + c.input(i).shape_string() + " has more axes than the normalized ones");
    for (std::size_t k = 0; k < r2.size(); ++k)
      if (!(r2[k] == normalized[k])) c.error(std::string(what) + " " + c.tensor(i) + " " + c.input(i).shape_string() + " stretches the normalized axes");
  }
  c.set_output(0, x.elem, x.dims);
  std::vector<Extent> stat(x.dims.begin(), x.dims.begin() + static_cast<std::ptrdiff_t>(ax));
  while (stat.size() < r) stat.emplace_back(1);
  ElementType st = static_cast<ElementType>(c.attr_int("stash_type", 1));
  for (std::size_t k = 1; k < c.out.size() && k < 3; ++k)
    if (!c.out[k].name.empty()) c.set_output(k, st, stat);
}

// RMSNormalization (opset 23): the scale broadcasts to the normalised axes, as LayerNormalization's.
void rms_norm(OpContext& c) {
  const auto& x = c.input(0);
  if (x.dims.empty()) c.error("takes no scalar");
  const std::size_t ax = c.axis(c.attr_int("axis", -1), x.dims.size(), "attribute 'axis'");
  const std::vector<Extent> normalized(x.dims.begin() + static_cast<std::ptrdiff_t>(ax), x.dims.end());
  const auto scale = c.broadcast_shapes({normalized, c.input(1).dims}, {"the normalized axes", c.tensor(1)});
  if (scale.size() != normalized.size() || !std::equal(scale.begin(), scale.end(), normalized.begin()))
    c.error("the scale " + c.tensor(1) + " " + c.input(1).shape_string() + " does not broadcast to the normalized axes");
  if (c.attr_int("stash_type", 1) != 1) c.error("computes in float only (stash_type 1), not stash_type " + std::to_string(c.attr_int("stash_type", 1)));
  c.set_output(0, c.input(1).elem, x.dims);
}

// The parameters' channels meet the input's channel axis.
void name_channel_norm(axes::NodeNaming& x) {
  const auto& in = x.axes_of(0);
  for (std::size_t i = 1; i < x.node.inputs.size(); ++i)
    if (x.has(i) && !x.axes_of(i).empty() && in.size() > 1 && !axes::is_one(x.input_dims(i)[0]))
      x.meet(in[1], x.axes_of(i)[0], "channels of '" + x.in(i) + "'");
  x.same_as_input();
}

// Scale and bias meet the normalised axes; Mean and InvStdDev keep every axis, the normalised ones
// at length 1, named as ReduceMean with keepdims names its result.
void name_layer_norm(axes::NodeNaming& x) {
  const auto& in = x.axes_of(0);
  for (std::size_t i = 1; i < 3; ++i) {
    if (!x.has(i)) continue;
    const auto& s = x.axes_of(i);
    for (std::size_t k = 0; k < s.size() && k < in.size(); ++k)
      if (!axes::is_one(x.input_dims(i)[k])) x.meet(in[in.size() - s.size() + k], s[k], "normalised axis of '" + x.in(i) + "'");
  }
  for (std::size_t k = 0; k < 3 && k < x.node.outputs.size(); ++k)
    if (!x.node.outputs[k].empty()) x.same_as_input(k);
}

// The elementwise lowering computes a softmax along the last axis in a generated kernel; any other
// axis is the runtime's.
void lower_softmax(LowerContext& cx, const Node& n) {
  const std::string& op = n.op_type;
  if (n.domain == "loam") {
    cx.call(op == "SoftmaxFlattened" ? "softmax_flattened" : "log_softmax_flattened", {},
            {Arg::of_tensor(cx.in(0)), Arg::of_index(cx.attr_int("axis", 1), "axis")});
    return;
  }
  cx.call(op == "Softmax" ? "softmax" : "log_softmax", {}, {Arg::of_tensor(cx.in(0)), Arg::of_index(cx.attr_int("axis", -1), "axis")});
}

// A float Softmax or LogSoftmax over the last axis (the pre-13 form's flattened axis too, where
// it is the last) normalises rows in a generated kernel; any other is the runtime's.
FusionRole softmax_role(const Node& n, const stage0::Stage0Result& st) {
  const Attribute* a = n.attr("axis");
  if (n.outputs.size() != 1 || (a && a->kind != Attribute::Kind::Int)) return FusionRole::None;
  const bool flattened = n.domain == "loam";
  return reads_float_rows(n, st, a ? a->i : flattened ? 1 : -1) ? FusionRole::RowNormaliser : FusionRole::None;
}

// In a kernel of its own, the row is normalised (the maximum, the sum of the exponentials, the
// result, each pass computing the work fused before it); in its reader's kernel, as two
// reductions: the maximum m, the sum s of exp(x - m), then exp(x - m) * (1 / s) or
// (x - m) - log(s), the work after it (sdpa's Where(IsNaN(p), 0, p)) in the same loop.
RowNormalisation compose_softmax(Expression& e, const Node& n) {
  constexpr ElementType F = ElementType::F32;
  LowerContext& cx = e.context();
  const bool log = n.op_type.rfind("Log", 0) == 0;
  const TensorInfo out = cx.info(n.outputs.at(0));
  const int x = e.operand(cx.in(0), out.axes);
  if (!e.inlined()) return log ? RowNormalisation::LogSoftmax : RowNormalisation::Softmax;
  const int shifted = e.op("Sub", {x, e.reduce("ReduceMax", x)}, F);
  const int exp = e.op("Exp", {shifted}, F);
  const int sum = e.reduce("ReduceSum", exp);
  if (log) e.op("Sub", {shifted, e.op("Log", {sum}, F)}, F);
  else e.op("Mul", {exp, e.op("Reciprocal", {sum}, F)}, F);
  return RowNormalisation::None;
}

// LayerNormalization and RMSNormalization of floats along the last axis, their attributes of the
// kinds ONNX gives them and stash_type float: a row kernel of reductions.
FusionRole normaliser_role(const Node& n, const stage0::Stage0Result& st) {
  const Attribute* axis = n.attr("axis");
  const Attribute* eps = n.attr("epsilon");
  const Attribute* stash = n.attr("stash_type");
  if ((axis && axis->kind != Attribute::Kind::Int) || (eps && eps->kind != Attribute::Kind::Float) ||
      (stash && (stash->kind != Attribute::Kind::Int || stash->i != 1)))
    return FusionRole::None;
  return reads_float_rows(n, st, axis ? axis->i : -1) ? FusionRole::LayerNormaliser : FusionRole::None;
}

// A LayerNormalization whose Mean and InvStdDev nothing reads; any other the runtime's.
FusionRole layer_norm_role(const Node& n, const stage0::Stage0Result& st) {
  if (n.inputs.size() < 2 || n.inputs[1].empty()) return FusionRole::None;
  for (std::size_t k = 1; k < n.outputs.size(); ++k)
    if (!n.outputs[k].empty()) return FusionRole::None;  // Mean and InvStdDev: the runtime's kernel computes them
  return normaliser_role(n, st);
}

// ONNX's definitions: LayerNormalization's d = x - mean(x), RMSNormalization's d = x; then
// d / sqrt(mean(d * d) + epsilon) * scale (+ bias).
RowNormalisation compose_normaliser(Expression& e, const Node& n) {
  constexpr ElementType F = ElementType::F32;
  LowerContext& cx = e.context();
  const TensorInfo out = cx.info(cx.node->outputs.at(0));
  const int x = e.operand(cx.in(0), out.axes);
  const int d = n.op_type == "LayerNormalization" ? e.op("Sub", {x, e.reduce("ReduceMean", x)}, F) : x;
  const int variance = e.reduce("ReduceMean", e.op("Mul", {d, d}, F));
  const int epsilon = e.number(static_cast<double>(cx.attr_float("epsilon", 1e-5f)), F);
  const int inverse = e.op("Reciprocal", {e.op("Sqrt", {e.op("Add", {variance, epsilon}, F)}, F)}, F);
  int y = e.op("Mul", {e.op("Mul", {d, inverse}, F), e.input(1, out.axes, F)}, F);
  if (cx.has(2)) e.op("Add", {y, e.input(2, out.axes, F)}, F);
  return RowNormalisation::None;
}

void lower_rms_norm(LowerContext& cx, const Node&) {
  if (!held_in_float(cx.info(cx.in(0)).elem) || !held_in_float(cx.info(cx.in(1)).elem)) cx.error("RMSNormalization is computed in float");
  cx.call("rms_normalization", {},
          {Arg::of_tensor(cx.in(0)), Arg::of_tensor(cx.in(1)), Arg::of_index(cx.attr_int("axis", -1), "axis"),
           Arg::of_float(cx.attr_float("epsilon", 1e-5f), "epsilon")});
}

void lower_hardmax(LowerContext& cx, const Node& n) {
  if (!held_in_float(cx.info(cx.in(0)).elem)) cx.error("Hardmax is computed in float");
  if (n.domain == "loam") cx.call("hardmax_flattened", {}, {Arg::of_tensor(cx.in(0)), Arg::of_index(cx.attr_int("axis", 1), "axis")});
  else cx.call("hardmax", {}, {Arg::of_tensor(cx.in(0)), Arg::of_index(cx.attr_int("axis", -1), "axis")});
}

// InstanceNormalization and GroupNormalization: the runtime's kernel, scale and bias along the
// input's channel axis (and the group count).
void lower_channel_norm(LowerContext& cx, const Node& n) {
  TensorInfo x = cx.info(cx.in(0));
  if (!held_in_float(x.elem)) cx.error(n.op_type + " is computed in float");
  const bool groups = n.op_type == "GroupNormalization";
  std::vector<AxisName> channel = {x.axes[1]};
  std::vector<Arg> args = {Arg::of_tensor(cx.in(0)), cx.lifted(cx.in(1), channel), cx.lifted(cx.in(2), channel)};
  if (groups) args.push_back(Arg::of_index(cx.attr_int("num_groups", 1), "groups"));
  args.push_back(Arg::of_float(cx.attr_float("epsilon", 1e-5f), "epsilon"));
  cx.call(groups ? "group_normalization" : "instance_normalization", {}, std::move(args));
}

void lrn(OpContext& c) {
  const auto& x = c.input(0);
  if (x.dims.size() < 2) c.error(c.tensor(0) + " " + x.shape_string() + " has no channel axis");
  auto size = c.attr_int_opt("size");
  if (!size || *size < 1) c.error("attribute 'size' must be given and positive");
  c.set_output(0, x.elem, x.dims);
}

void lower_lrn(LowerContext& cx, const Node& n) {
  if (!held_in_float(cx.info(cx.in(0)).elem)) cx.error("LRN is computed in float");
  cx.call("lrn", {},
          {Arg::of_tensor(cx.in(0)), Arg::of_index(cx.attr_int("size", 1), "size"), Arg::of_float(cx.attr_float("alpha", 1e-4f), "alpha"),
           Arg::of_float(cx.attr_float("beta", 0.75f), "beta"), Arg::of_float(cx.attr_float("bias", 1.0f), "bias")});
}

// MeanVarianceNormalization: over `axes` (default [0, 2, 3]).
std::vector<int64_t> mvn_axes(const std::optional<std::vector<int64_t>>& given) { return given ? *given : std::vector<int64_t>{0, 2, 3}; }

void mean_variance_norm(OpContext& c) {
  const auto& x = c.input(0);
  std::vector<bool> seen(x.dims.size(), false);
  for (int64_t a : mvn_axes(c.attr_ints("axes"))) {
    std::size_t k = c.axis(a, x.dims.size(), "axis");
    if (seen[k]) c.error("axis " + std::to_string(a) + " is given twice");
    seen[k] = true;
  }
  c.set_output(0, x.elem, x.dims);
}

void lower_mean_variance_norm(LowerContext& cx, const Node& n) {
  if (!held_in_float(cx.info(cx.in(0)).elem)) cx.error("MeanVarianceNormalization is computed in float");
  std::vector<int64_t> axes = mvn_axes(cx.attributes().integers("axes"));
  cx.call("mean_variance_normalization", {}, {Arg::of_tensor(cx.in(0)), Arg::of_extents({axes.begin(), axes.end()})});
}

void lower_batch_norm(LowerContext& cx, const Node& n) {
  for (std::size_t k = 1; k < n.outputs.size(); ++k)
    if (!n.outputs[k].empty()) cx.error("training-mode outputs are not supported");
  TensorInfo x = cx.info(cx.in(0));
  if (x.axes.size() < 2) cx.error("the input needs a channel axis");
  std::vector<AxisName> channel = {x.axes[1]};
  cx.call("batch_normalization", {},
          {Arg::of_tensor(cx.in(0)), cx.lifted(cx.in(1), channel), cx.lifted(cx.in(2), channel), cx.lifted(cx.in(3), channel),
           cx.lifted(cx.in(4), channel), Arg::of_float(cx.attr_float("epsilon", 1e-5f), "epsilon")});
}

// Along the last axis with no statistics asked, the elementwise lowering's generated kernel; else
// the runtime's.
void lower_layer_norm(LowerContext& cx, const Node& n) {
  std::vector<Arg> args = {Arg::of_tensor(cx.in(0)), Arg::of_tensor(cx.in(1))};
  if (cx.has(2)) args.push_back(Arg::of_tensor(cx.in(2)));
  else args.push_back(Arg::of_code("nullptr"));
  args.push_back(Arg::of_index(cx.attr_int("axis", -1), "axis"));
  args.push_back(Arg::of_float(cx.attr_float("epsilon", 1e-5f), "epsilon"));
  cx.call("layer_normalization", {}, args);
  // Mean and InvStdDev, when the graph asks for them.
  for (std::size_t k = 1; k < 3 && k < n.outputs.size(); ++k) {
    if (n.outputs[k].empty()) continue;
    TensorInfo stat = cx.info(n.outputs[k]);
    if (stat.elem != ElementType::F32)
      cx.error("the statistics are computed in float, not in stash_type " + std::string(element_type_name(stat.elem)));
    cx.call("layer_normalization_statistic", {TypeArg::of_axes(stat.axes)},
            {Arg::of_tensor(cx.in(0)), Arg::of_index(cx.attr_int("axis", -1), "axis"),
             Arg::of_float(cx.attr_float("epsilon", 1e-5f), "epsilon"), Arg::of_flag(k == 2, "inverse_std_dev")},
            {n.outputs[k]});
  }
}

}  // namespace

void register_normalization(std::vector<Operator>& r) {
  for (const char* op : {"Softmax", "LogSoftmax"})
    r.push_back({.op_type = op, .infer = softmax, .name_axes = name_like_input, .lower = lower_softmax, .fusion_role = softmax_role,
                 .compose = compose_softmax, .in_scope = true});
  r.push_back({.op_type = "Hardmax", .infer = softmax, .name_axes = name_like_input, .lower = lower_hardmax, .in_scope = true});
  for (const char* op : {"SoftmaxFlattened", "LogSoftmaxFlattened"})
    r.push_back({.domain = "loam", .op_type = op, .infer = softmax, .name_axes = name_like_input, .lower = lower_softmax,
                 .fusion_role = softmax_role, .compose = compose_softmax, .in_scope = true});
  r.push_back({.domain = "loam", .op_type = "HardmaxFlattened", .infer = softmax, .name_axes = name_like_input,
               .lower = lower_hardmax, .in_scope = true});
  r.push_back({.op_type = "BatchNormalization", .infer = batch_norm, .name_axes = name_channel_norm, .lower = lower_batch_norm,
               .in_scope = true});
  r.push_back({.op_type = "InstanceNormalization", .infer = instance_norm, .name_axes = name_channel_norm, .lower = lower_channel_norm,
               .in_scope = true});
  r.push_back({.op_type = "GroupNormalization", .infer = group_norm, .name_axes = name_channel_norm, .lower = lower_channel_norm,
               .in_scope = true});
  r.push_back({.op_type = "LRN", .infer = lrn, .name_axes = name_like_input, .lower = lower_lrn, .in_scope = true});
  r.push_back({.op_type = "MeanVarianceNormalization", .infer = mean_variance_norm, .name_axes = name_like_input,
               .lower = lower_mean_variance_norm, .in_scope = true});
  r.push_back({.op_type = "LayerNormalization", .infer = layer_norm, .name_axes = name_layer_norm, .lower = lower_layer_norm,
               .fusion_role = layer_norm_role, .compose = compose_normaliser, .in_scope = true});
  r.push_back({.op_type = "RMSNormalization", .infer = rms_norm, .name_axes = name_layer_norm, .lower = lower_rms_norm,
               .fusion_role = normaliser_role, .compose = compose_normaliser, .in_scope = true});
}

}  // namespace loam::ops
