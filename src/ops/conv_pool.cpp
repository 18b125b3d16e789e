// Windowed operators over any number of spatial axes: Conv, ConvTranspose, MaxPool, AveragePool,
// and the global pools. A window owes that the padded input holds its reach; its output's spatial axes are the
// layout's; each lowers to a call of the runtime's convolution or pool, spelling its result's axes.
#include <algorithm>
#include <optional>

#include "ops/op.hpp"
#include "support/error.hpp"

namespace loam::ops {

using stage0::OwedKind;
using stage0::Proof;
using stage0::prove_nonnegative;

namespace {

std::vector<int64_t> ints_or(OpContext& c, const char* name, std::size_t n, int64_t fallback) {
  auto v = c.attr_ints(name);
  if (!v) return std::vector<int64_t>(n, fallback);
  if (v->size() != n) c.error(std::string("attribute '") + name + "' has " + std::to_string(v->size()) + " values for " + std::to_string(n) + " spatial axes");
  return *v;
}

// Output extents of the spatial axes of `x` under a window of `kernel`.
std::vector<Extent> window_output(OpContext& c, const std::vector<Extent>& x, const std::vector<int64_t>& kernel,
                                  bool ceil_mode) {
  std::size_t n = kernel.size();
  std::vector<int64_t> strides = ints_or(c, "strides", n, 1);
  std::vector<int64_t> dilations = ints_or(c, "dilations", n, 1);
  std::string auto_pad = c.attr_string("auto_pad", "NOTSET");
  std::vector<int64_t> pads(2 * n, 0);
  if (auto p = c.attr_ints("pads")) {
    if (p->size() != 2 * n) c.error("attribute 'pads' has " + std::to_string(p->size()) + " values for " + std::to_string(n) + " spatial axes");
    if (auto_pad != "NOTSET") c.error("attribute 'pads' is given with auto_pad '" + auto_pad + "'");
    pads = *p;
  }
  std::vector<Extent> out;
  for (std::size_t k = 0; k < n; ++k) {
    if (strides[k] < 1) c.error("stride " + std::to_string(strides[k]) + " of spatial axis " + std::to_string(k));
    if (dilations[k] < 1) c.error("dilation " + std::to_string(dilations[k]) + " of spatial axis " + std::to_string(k));
    if (kernel[k] < 1) c.error("kernel extent " + std::to_string(kernel[k]) + " of spatial axis " + std::to_string(k));
    if (pads[k] < 0 || pads[k + n] < 0) c.error("a negative pad on spatial axis " + std::to_string(k));
    const Extent& in = x[k + 2];
    // Checked: attributes are untrusted, and a reach or pad sum past int64 is refused, not wrapped.
    Extent reach_e = Extent(kernel[k] - 1) * Extent(dilations[k]) + Extent(1);
    Extent pad_e = Extent(pads[k]) + Extent(pads[k + n]);
    int64_t reach = *reach_e.constant();
    std::string axis = "spatial axis " + std::to_string(k) + " (" + in.to_string() + ")";
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      out.push_back(stage0::ceil_div(in, strides[k]));
      continue;
    }
    if (auto_pad != "NOTSET" && auto_pad != "VALID") c.error("attribute 'auto_pad' is '" + auto_pad + "'");
    Extent span = in + pad_e - reach_e;
    c.owed.require(span, OwedKind::WindowReach, c.where,
                   "the padded " + axis + " holds the window's reach " + std::to_string(reach));
    if (ceil_mode) {
      Extent o = stage0::ceil_div(span, strides[k]) + Extent(1);
      // A last window starting past the input and its begin padding is dropped.
      if (auto oc = o.constant(); oc && in.is_constant()) {
        if (static_cast<__int128>(*oc - 1) * strides[k] >= static_cast<__int128>(*in.constant()) + pads[k]) o = Extent(*oc - 1);
      } else if (strides[k] > 1) {
        c.error("ceil_mode over the symbolic " + axis + " with a stride of " + std::to_string(strides[k]));
      }
      out.push_back(o);
    } else {
      out.push_back(stage0::floor_div(span, Extent(strides[k])) + Extent(1));
    }
  }
  return out;
}

void require_spatial(OpContext& c, const ValueState& x) {
  if (x.dims.size() < 3) c.error(c.tensor(0) + " " + x.shape_string() + " has no spatial axis (rank below 3)");
}

void conv(OpContext& c) {
  const auto& x = c.input(0);
  const auto& w = c.input(1);
  require_spatial(c, x);
  if (w.dims.size() != x.dims.size()) c.error(c.tensor(1) + " " + w.shape_string() + " has rank " + std::to_string(w.dims.size()) + ", " + c.tensor(0) + " " + std::to_string(x.dims.size()));
  if (x.elem != w.elem) c.error(c.tensor(1) + " is " + element_type_name(w.elem) + ", " + c.tensor(0) + " " + element_type_name(x.elem));
  std::size_t n = x.dims.size() - 2;
  int64_t group = c.attr_int("group", 1);
  if (group < 1) c.error("attribute 'group' is " + std::to_string(group));
  std::vector<int64_t> kernel;
  if (auto ks = c.attr_ints("kernel_shape")) {
    kernel = *ks;
    if (kernel.size() != n) c.error("attribute 'kernel_shape' has " + std::to_string(kernel.size()) + " values for " + std::to_string(n) + " spatial axes");
    for (std::size_t k = 0; k < n; ++k)
      c.equal(w.dims[k + 2], Extent(kernel[k]), "axis " + std::to_string(k + 2) + " of " + c.tensor(1) + " and kernel_shape");
  } else {
    for (std::size_t k = 0; k < n; ++k) {
      auto kc = w.dims[k + 2].constant();
      if (!kc) c.error("axis " + std::to_string(k + 2) + " of " + c.tensor(1) + " is the symbolic " + w.dims[k + 2].to_string() + "; a kernel extent must be a number");
      kernel.push_back(*kc);
    }
  }
  // A group's share of the input channels is an axis of its own: channels = group * W's axis 1.
  c.equal(x.dims[1], w.dims[1] * Extent(group), "the channels of " + c.tensor(0) + " (" + x.dims[1].to_string() + ") and " +
                                                    std::to_string(group) + " groups of " + c.tensor(1) + "'s axis 1 (" + w.dims[1].to_string() + ")");
  if (group > 1) {
    if (auto m = w.dims[0].constant(); m && *m % group != 0)
      c.error("the " + std::to_string(*m) + " output channels of " + c.tensor(1) + " do not divide into " + std::to_string(group) + " groups");
  }
  if (c.has_input(2)) {
    const auto& b = c.input(2);
    if (b.dims.size() != 1) c.error(c.tensor(2) + " must be 1-D, not " + b.shape_string());
    c.equal(b.dims[0], w.dims[0], "the bias " + c.tensor(2) + " (" + b.dims[0].to_string() + ") and the output channels of " + c.tensor(1));
  }
  std::vector<Extent> out = {x.dims[0], w.dims[0]};
  for (auto& e : window_output(c, x.dims, kernel, false)) out.push_back(e);
  c.set_output(0, x.elem, out);
}

void pool(OpContext& c) {
  const auto& x = c.input(0);
  require_spatial(c, x);
  std::size_t n = x.dims.size() - 2;
  auto ks = c.attr_ints("kernel_shape");
  if (!ks) c.error("has no attribute 'kernel_shape'");
  if (ks->size() != n) c.error("attribute 'kernel_shape' has " + std::to_string(ks->size()) + " values for " + std::to_string(n) + " spatial axes");
  bool ceil_mode = c.attr_int("ceil_mode", 0) != 0;
  std::vector<Extent> out = {x.dims[0], x.dims[1]};
  for (auto& e : window_output(c, x.dims, *ks, ceil_mode)) out.push_back(e);
  c.set_output(0, x.elem, out);
  if (c.out.size() > 1 && !c.out[1].name.empty()) {
    if (c.node.op_type != "MaxPool") c.error("produces one output");
    c.set_output(1, ElementType::I64, out);
  }
}

// ----- ConvTranspose -----

// A transposed window's geometry, from the node's attributes and its operands' extents: the output's
// spatial extents and the pads before each spatial axis. Stage 0 and the lowering both read it.
struct TransposedWindow {
  std::vector<int64_t> strides, dilations;
  std::vector<Extent> out, pad_begin;
};

template <class Fail>
TransposedWindow transposed_window(const NodeAttributes& a, const std::vector<Extent>& x, const std::vector<Extent>& w, Fail&& fail) {
  const std::size_t n = x.size() - 2;
  auto list = [&](const char* name, int64_t fallback) {
    auto v = a.integers(name);
    if (!v) return std::vector<int64_t>(n, fallback);
    if (v->size() != n) fail(std::string("attribute '") + name + "' has " + std::to_string(v->size()) + " values for " + std::to_string(n) + " spatial axes");
    return *v;
  };
  TransposedWindow t;
  t.strides = list("strides", 1);
  t.dilations = list("dilations", 1);
  const std::vector<int64_t> output_padding = list("output_padding", 0);
  std::vector<int64_t> kernel;
  if (auto ks = a.integers("kernel_shape")) {
    kernel = *ks;
    if (kernel.size() != n) fail("attribute 'kernel_shape' has " + std::to_string(kernel.size()) + " values for " + std::to_string(n) + " spatial axes");
  }
  for (std::size_t k = 0; k < n; ++k) {
    auto kc = w[k + 2].constant();
    if (!kc) fail("the weight's spatial axis " + std::to_string(k) + " is the symbolic " + w[k + 2].to_string() + "; a kernel extent must be a number");
    if (kernel.size() == n && kernel[k] != *kc)
      fail("kernel_shape " + std::to_string(kernel[k]) + " and the weight's spatial axis " + std::to_string(k) + " (" + std::to_string(*kc) + ") differ");
    if (kernel.size() < n) kernel.push_back(*kc);
  }
  const std::string auto_pad = a.text("auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER" && auto_pad != "VALID")
    fail("attribute 'auto_pad' is '" + auto_pad + "'");
  std::vector<int64_t> pads(2 * n, 0);
  if (auto p = a.integers("pads")) {
    if (p->size() != 2 * n) fail("attribute 'pads' has " + std::to_string(p->size()) + " values for " + std::to_string(n) + " spatial axes");
    if (auto_pad != "NOTSET") fail("attribute 'pads' is given with auto_pad '" + auto_pad + "'");
    pads = *p;
  }
  std::optional<std::vector<int64_t>> output_shape = a.integers("output_shape");
  if (output_shape) {
    if (output_shape->size() == n + 2) output_shape->erase(output_shape->begin(), output_shape->begin() + 2);
    if (output_shape->size() != n) fail("attribute 'output_shape' has " + std::to_string(output_shape->size()) + " values for " + std::to_string(n) + " spatial axes");
  }
  for (std::size_t k = 0; k < n; ++k) {
    const std::string axis = "spatial axis " + std::to_string(k);
    if (t.strides[k] < 1 || t.dilations[k] < 1 || kernel[k] < 1) fail("a stride, dilation or kernel extent below 1 on " + axis);
    if (output_padding[k] < 0 || pads[k] < 0 || pads[k + n] < 0) fail("a negative pad or output_padding on " + axis);
    const Extent& in = x[k + 2];
    // Checked arithmetic: attributes are untrusted.
    const Extent natural = Extent(t.strides[k]) * (in - Extent(1)) + Extent(output_padding[k]) +
                           Extent(kernel[k] - 1) * Extent(t.dilations[k]) + Extent(1);
    if (output_shape || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      // The pads are what the output's length leaves: the larger half after for SAME_UPPER, before
      // otherwise. An output longer than the window reaches pads negatively: its extra positions
      // hold the bias alone.
      const Extent out = output_shape ? Extent((*output_shape)[k]) : in * Extent(t.strides[k]);
      const Extent total = natural - out;
      const Extent half = stage0::floor_div(total, Extent(2));
      t.pad_begin.push_back(auto_pad == "SAME_UPPER" ? half : total - half);
      t.out.push_back(out);
    } else {
      t.pad_begin.push_back(Extent(pads[k]));
      t.out.push_back(natural - Extent(pads[k]) - Extent(pads[k + n]));
    }
    if (stage0::prove_nonnegative(t.out.back()) != Proof::Holds)
      fail("the pads leave " + axis + " " + t.out.back().to_string() + " long, which the build cannot show is not negative");
  }
  return t;
}

void conv_transpose(OpContext& c) {
  const auto& x = c.input(0);
  const auto& w = c.input(1);
  require_spatial(c, x);
  if (w.dims.size() != x.dims.size()) c.error(c.tensor(1) + " " + w.shape_string() + " has rank " + std::to_string(w.dims.size()) + ", " + c.tensor(0) + " " + std::to_string(x.dims.size()));
  if (x.elem != w.elem) c.error(c.tensor(1) + " is " + element_type_name(w.elem) + ", " + c.tensor(0) + " " + element_type_name(x.elem));
  const int64_t group = c.attr_int("group", 1);
  if (group < 1) c.error("attribute 'group' is " + std::to_string(group));
  // The weight is [C, Cout / group, k...]: its axis 0 is the input's channels.
  c.equal(x.dims[1], w.dims[0], "the channels of " + c.tensor(0) + " and axis 0 of " + c.tensor(1));
  if (auto ch = x.dims[1].constant(); ch && *ch % group != 0)
    c.error("the " + std::to_string(*ch) + " input channels do not divide into " + std::to_string(group) + " groups");
  const Extent channels = w.dims[1] * Extent(group);
  if (c.has_input(2)) {
    const auto& b = c.input(2);
    if (b.dims.size() != 1) c.error(c.tensor(2) + " must be 1-D, not " + b.shape_string());
    c.equal(b.dims[0], channels, "the bias " + c.tensor(2) + " and the output channels");
  }
  const TransposedWindow t = transposed_window(c.attributes(), x.dims, w.dims, [&](const std::string& m) { c.error(m); });
  std::vector<Extent> out = {x.dims[0], channels};
  out.insert(out.end(), t.out.begin(), t.out.end());
  c.set_output(0, x.elem, out);
}

// The input's channels meet the weight's axis 0; with one group the output's channels are the
// weight's axis 1 (and the bias's); the spatial axes are the layout's.
void name_conv_transpose(axes::NodeNaming& x) {
  const auto& in = x.axes_of(0);
  const auto& w = x.axes_of(1);
  if (in.size() < 3 || w.size() != in.size()) x.error("ConvTranspose operands must have equal rank of at least 3");
  x.meet(in[1], w[0], "input channels of '" + x.in(0) + "' and '" + x.in(1) + "'");
  axes::Partial p(in.size());
  p[0] = in[0];
  if (x.int_attr("group", 1) == 1) {
    p[1] = w[1];
    if (x.has(2) && !axes::is_one(x.input_dims(2)[0])) x.meet(w[1], x.axes_of(2)[0], "bias '" + x.in(2) + "'");
  }
  x.complete(0, p);
}

void global_pool(OpContext& c) {
  const auto& x = c.input(0);
  require_spatial(c, x);
  std::vector<Extent> out = {x.dims[0], x.dims[1]};
  for (std::size_t k = 2; k < x.dims.size(); ++k) out.emplace_back(1);
  c.set_output(0, x.elem, out);
}

// The channels meet the weight's (and the bias's); the spatial axes are the layout's: a window
// places its output on a grid of its own.
void name_conv(axes::NodeNaming& x) {
  const auto& in = x.axes_of(0);
  const auto& w = x.axes_of(1);
  if (in.size() < 2 || w.size() != in.size()) x.error("Conv operands must have equal rank of at least 2");
  if (x.int_attr("group", 1) == 1) x.meet(in[1], w[1], "input channels of '" + x.in(0) + "' and '" + x.in(1) + "'");
  if (x.has(2)) {
    const auto& bias = x.axes_of(2);
    if (!bias.empty() && !axes::is_one(x.input_dims(2)[0])) x.meet(w[0], bias[0], "bias '" + x.in(2) + "'");
  }
  axes::Partial p = {in[0], w[0]};
  p.resize(in.size());
  x.complete(0, p);
}

void name_pool(axes::NodeNaming& x) {
  const auto& in = x.axes_of(0);
  if (in.size() < 2) x.error("pooling needs rank 2 or more");
  axes::Partial p = {in[0], in[1]};
  p.resize(in.size());
  x.complete(0, p);
  // MaxPool's Indices lie on the values' grid.
  if (x.node.outputs.size() > 1 && !x.node.outputs[1].empty()) {
    const auto& values = x.axes_of(x.node.outputs[0]);
    x.complete(1, axes::Partial(values.begin(), values.end()));
  }
}

// A window's attributes: the WindowParams the kernel reads, and in Loom its lengths (kernel,
// strides, pads, dilations), group, auto_pad (by its position in ONNX's list), ceil_mode and
// count_include_pad, each a constant.
Arg window_params(const LowerContext& cx) {
  static const char* const pads[] = {"NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"};
  static const char* const spelled[] = {"AutoPad::NotSet", "AutoPad::SameUpper", "AutoPad::SameLower", "AutoPad::Valid"};
  const std::string pad = cx.attr_string("auto_pad", "NOTSET");
  std::size_t ap = 0;
  while (ap < 4 && pad != pads[ap]) ++ap;
  if (ap == 4) cx.error("auto_pad '" + pad + "' is not one ONNX defines");
  std::string text = "WindowParams{";
  std::vector<CallConstant> constants;
  for (const char* attr : {"kernel_shape", "strides", "pads", "dilations"}) {
    const std::vector<int64_t> v = cx.attr_ints(attr);
    text += "{";
    for (std::size_t i = 0; i < v.size(); ++i) {
      text += (i ? ", " : "") + std::to_string(v[i]);
      constants.push_back({loom::Scalar::Index, static_cast<std::uint64_t>(v[i]), attr});
    }
    text += "}, ";
  }
  const int64_t group = cx.attr_int("group", 1);
  const bool ceil = cx.attr_int("ceil_mode", 0) != 0, include_pad = cx.attr_int("count_include_pad", 0) != 0;
  text += std::to_string(group) + ", " + spelled[ap] + ", " + (ceil ? "true" : "false") + ", " + (include_pad ? "true" : "false") + "}";
  constants.push_back({loom::Scalar::Index, static_cast<std::uint64_t>(group), "group"});
  constants.push_back({loom::Scalar::Index, ap, "auto_pad"});
  constants.push_back({loom::Scalar::I1, ceil ? 1u : 0u, "ceil_mode"});
  constants.push_back({loom::Scalar::I1, include_pad ? 1u : 0u, "count_include_pad"});
  Arg a = Arg::of_code(std::move(text), std::move(constants));
  a.built_once = true;
  return a;
}

void lower_conv(LowerContext& cx, const Node& n) {
  // With a fusion plan entry: the weight packed at load, the absorbed Add's channel bias (or the
  // folded BatchNormalization's) and Relu applied in the product's store, a following pool in the
  // same call, and the result the last absorbed node's.
  const lower::ProductFusion* f = cx.fusion;
  TensorInfo out = cx.info(f ? f->result : n.outputs.at(0));
  Arg weight = Arg::of_tensor(cx.in(1));
  if (f && f->packed)
    weight = Arg::of_tensor(cx.prepared(PreparedWeight::Form::PackedConv, f->packed->weight, cx.info(f->packed->operand),
                                        cx.attr_int("group", 1), f->norm));
  std::vector<Arg> args = {Arg::of_tensor(cx.in(0)), weight};
  if (f && f->norm) {
    // The bias the folded normalisation leaves, per output channel (the Conv's own bias in it).
    TensorInfo bias{f->norm->scale, ElementType::F32, {out.axes.at(1)}, {out.dims.at(1)}};
    args.push_back(Arg::of_tensor(cx.prepared(PreparedWeight::Form::FoldedBias, f->norm->scale, bias, 1, f->norm)));
  } else if (cx.has(2)) {
    // A bias of one element may carry an axis of 1 the naming kept apart from the channels.
    args.push_back(cx.lifted(cx.in(2), {out.axes.at(1)}));
  } else if (f && !f->bias.empty()) {
    args.push_back(cx.channel_bias(f->bias, out.axes.at(1), out.dims.at(1)));
  }
  args.push_back(window_params(cx));
  if (f && f->pool) {
    // conv_max_pool<Pooled, Product>(x, w, [bias,] conv window, relu, pool window).
    args.push_back(Arg::of_flag(f->relu, "relu"));
    const Node& pool = cx.model.graph.nodes.at(*f->pool);
    const Node* conv = cx.node;
    cx.node = &pool;  // the pool's attributes, and errors naming the pool
    args.push_back(window_params(cx));
    cx.node = conv;
    cx.call(f->pool_op == "MaxPool" ? "conv_max_pool" : "conv_average_pool",
            {TypeArg::of_axes(out.axes), TypeArg::of_axes(cx.info(f->pooled).axes)}, args, {out.name});
  } else {
    // An epilogue comes after every argument of the product's own.
    if (f && (f->relu || f->epilogue)) args.push_back(Arg::of_flag(f->relu, "relu"));
    cx.call("conv", {TypeArg::of_axes(out.axes)}, args, {out.name});
  }
  if (f) cx.out.calls.back().op = f->label();
}

void lower_pool(LowerContext& cx, const Node& n) {
  const bool max = n.op_type == "MaxPool";
  if (cx.compute_type(cx.info(cx.in(0)).elem) != "float")
    cx.error(std::string("the pool kernels compute in float, not in ") + element_type_name(cx.info(cx.in(0)).elem));
  TensorInfo out = cx.info(n.outputs.at(0));
  cx.call(max ? "max_pool" : "average_pool", {TypeArg::of_axes(out.axes)}, {Arg::of_tensor(cx.in(0)), window_params(cx)});
  // MaxPool's Indices (storage_order only orders them).
  if (max && n.outputs.size() > 1 && !n.outputs[1].empty())
    cx.call("max_pool_indices", {TypeArg::of_axes(cx.info(n.outputs[1]).axes)},
            {Arg::of_tensor(cx.in(0)), window_params(cx), Arg::of_flag(cx.attr_int("storage_order", 0) != 0, "storage_order")},
            {n.outputs[1]});
}

void lower_conv_transpose(LowerContext& cx, const Node& n) {
  const TensorInfo x = cx.info(cx.in(0)), out = cx.info(n.outputs.at(0));
  if (!held_in_float(x.elem)) cx.error(std::string("the transposed convolution computes float, not ") + element_type_name(x.elem));
  const TransposedWindow t = transposed_window(cx.attributes(), cx.value(cx.in(0)).dims, cx.value(cx.in(1)).dims,
                                               [&](const std::string& m) { cx.error(m); });
  std::vector<Arg> args = {Arg::of_tensor(cx.in(0)), Arg::of_tensor(cx.in(1))};
  if (cx.has(2)) args.push_back(Arg::of_tensor(cx.in(2)));
  args.push_back(Arg::of_extents(out.dims));
  args.push_back(Arg::of_extents(t.pad_begin));
  args.push_back(Arg::of_extents({t.strides.begin(), t.strides.end()}));
  args.push_back(Arg::of_extents({t.dilations.begin(), t.dilations.end()}));
  args.push_back(Arg::of_index(cx.attr_int("group", 1), "group"));
  cx.call("conv_transpose", {TypeArg::of_axes(out.axes)}, args);
}

void lower_global_pool(LowerContext& cx, const Node& n) {
  TensorInfo in = cx.info(cx.in(0)), out = cx.info(n.outputs.at(0));
  if (!held_in_float(in.elem)) cx.error(std::string("the pool kernels compute in float, not in ") + element_type_name(in.elem));
  cx.call(n.op_type == "GlobalAveragePool" ? "global_average_pool" : "global_max_pool", {TypeArg::of_axes(out.axes)},
          {Arg::of_tensor(cx.in(0))});
}

}  // namespace

void register_conv_pool(std::vector<Operator>& r) {
  r.push_back({.op_type = "Conv", .infer = conv, .name_axes = name_conv, .lower = lower_conv, .fusion_role = contraction_role,
               .in_scope = true});
  // MaxPool selects elements: a narrow integer stays in range (the kernels compute in float today).
  r.push_back({.op_type = "MaxPool", .infer = pool, .name_axes = name_pool, .lower = lower_pool, .keeps_narrow_range = true,
               .in_scope = true});
  r.push_back({.op_type = "AveragePool", .infer = pool, .name_axes = name_pool, .lower = lower_pool, .in_scope = true});
  r.push_back({.op_type = "LpPool", .infer = pool, .name_axes = name_pool});
  r.push_back({.op_type = "ConvTranspose", .infer = conv_transpose, .name_axes = name_conv_transpose, .lower = lower_conv_transpose,
               .in_scope = true});
  r.push_back({.op_type = "GlobalAveragePool", .infer = global_pool, .name_axes = name_pool, .lower = lower_global_pool,
               .in_scope = true});
  r.push_back({.op_type = "GlobalMaxPool", .infer = global_pool, .name_axes = name_pool, .lower = lower_global_pool,
               .in_scope = true});
}

}  // namespace loam::ops
