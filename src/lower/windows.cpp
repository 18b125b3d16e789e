// Lowering of the window operators: Conv, MaxPool, AveragePool over any number of spatial axes, and
// the global pools. The output's spatial axes are the layout's (a window places its output on a grid
// of its own), so each call spells its result's axes.
#include "lower/context.hpp"

namespace loam::lower {
namespace {

std::string list(const std::vector<int64_t>& v) {
  std::string s = "{";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "}";
}

std::string window_params(LowerContext& cx) {
  std::string pad = cx.attr_string("auto_pad", "NOTSET");
  std::string ap = pad == "SAME_UPPER" ? "AutoPad::SameUpper"
                 : pad == "SAME_LOWER" ? "AutoPad::SameLower"
                 : pad == "VALID"      ? "AutoPad::Valid"
                 : pad == "NOTSET"     ? "AutoPad::NotSet"
                                       : "";
  if (ap.empty()) cx.error("auto_pad '" + pad + "' is not one ONNX defines");
  return "WindowParams{" + list(cx.attr_ints("kernel_shape")) + ", " + list(cx.attr_ints("strides")) + ", " +
         list(cx.attr_ints("pads")) + ", " + list(cx.attr_ints("dilations")) + ", " +
         std::to_string(cx.attr_int("group", 1)) + ", " + ap + ", " +
         (cx.attr_int("ceil_mode", 0) ? "true" : "false") + ", " +
         (cx.attr_int("count_include_pad", 0) ? "true" : "false") + "}";
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
    args.push_back(Arg::of_code(window_params(cx)));
    if (f && f->pool) {
      // conv_max_pool<Pooled, Product>(x, w, [bias,] conv window, relu, pool window).
      args.push_back(Arg::of_code(f->relu ? "true" : "false"));
      const Node& pool = cx.model.graph.nodes.at(*f->pool);
      const Node* conv = cx.node;
      cx.node = &pool;  // the pool's attributes, and errors naming the pool
      args.push_back(Arg::of_code(window_params(cx)));
      cx.node = conv;
      cx.call(f->pool_op == "MaxPool" ? "conv_max_pool" : "conv_average_pool",
              {TypeArg::of_axes(out.axes), TypeArg::of_axes(cx.info(f->pooled).axes)}, args, {out.name});
    } else {
      if (f && f->relu) args.push_back(Arg::of_code("true"));
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
            {Arg::of_tensor(cx.in(0)), Arg::of_code(window_params(cx))});
    // MaxPool's Indices (storage_order only orders them).
    if (op == "MaxPool" && n.outputs.size() > 1 && !n.outputs[1].empty())
      cx.call("max_pool_indices", {TypeArg::of_axes(cx.info(n.outputs[1]).axes)},
              {Arg::of_tensor(cx.in(0)), Arg::of_code(window_params(cx)),
               Arg::of_code(cx.attr_int("storage_order", 0) ? "true" : "false")},
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
