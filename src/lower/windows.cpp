// Lowering of the window operators: Conv, MaxPool, AveragePool over any number of spatial axes, and
// the global pools. The output's spatial axes are the layout's (a window places its output on a grid
// of its own), so each call spells its result's axes.
#include "lower/context.hpp"

namespace loam::lower {
namespace {

// A window's attributes: the WindowParams the kernel reads, and in Loom its lengths (kernel,
// strides, pads, dilations), group, auto_pad (by its position in ONNX's list), ceil_mode and
// count_include_pad, each a constant.
Arg window_params(LowerContext& cx) {
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
  return Arg::of_code(std::move(text), std::move(constants));
}

}  // namespace

bool lower_windows(LowerContext& cx, const Node& n) {
  if (!n.domain.empty()) return false;
  const std::string& op = n.op_type;
  if (op == "Conv") {
    // With a fusion plan entry: the weight packed at load, the absorbed Add's channel bias and
    // Relu applied in the product's store, and the result the last absorbed node's.
    const ProductFusion* f = cx.fusion;
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
      args.push_back(Arg::of_tensor(cx.in(2)));
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
      if (f && f->relu) args.push_back(Arg::of_flag(true, "relu"));
      cx.call("conv", {TypeArg::of_axes(out.axes)}, args, {out.name});
    }
    if (f) cx.out.calls.back().op = f->label();
    return true;
  }
  if (op == "MaxPool" || op == "AveragePool") {
    if (cx.compute_type(cx.info(cx.in(0)).elem) != "float")
      cx.error(std::string("the pool kernels compute in float, not in ") + element_type_name(cx.info(cx.in(0)).elem));
    TensorInfo out = cx.info(n.outputs.at(0));
    cx.call(op == "MaxPool" ? "max_pool" : "average_pool", {TypeArg::of_axes(out.axes)},
            {Arg::of_tensor(cx.in(0)), window_params(cx)});
    // MaxPool's Indices (storage_order only orders them).
    if (op == "MaxPool" && n.outputs.size() > 1 && !n.outputs[1].empty())
      cx.call("max_pool_indices", {TypeArg::of_axes(cx.info(n.outputs[1]).axes)},
              {Arg::of_tensor(cx.in(0)), window_params(cx),
               Arg::of_flag(cx.attr_int("storage_order", 0) != 0, "storage_order")},
              {n.outputs[1]});
    return true;
  }
  if (op == "GlobalAveragePool" || op == "GlobalMaxPool") {
    TensorInfo out = cx.info(n.outputs.at(0));
    cx.call(op == "GlobalAveragePool" ? "global_average_pool" : "global_max_pool", {TypeArg::of_axes(out.axes)},
            {Arg::of_tensor(cx.in(0))});
    return true;
  }
  return false;
}

}  // namespace loam::lower
