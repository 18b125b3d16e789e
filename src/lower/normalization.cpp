// Lowering of the operators that read a whole axis at once: Softmax and LogSoftmax (and the
// flattened forms before opset 13), the reductions, ArgMax, BatchNormalization (inference) and
// LayerNormalization.
#include "lower/context.hpp"

namespace loam::lower {
bool lower_normalization(LowerContext& cx, const Node& n) {
  const std::string& op = n.op_type;
  if (n.domain == "loam" && (op == "SoftmaxFlattened" || op == "LogSoftmaxFlattened")) {
    cx.call(op == "SoftmaxFlattened" ? "softmax_flattened" : "log_softmax_flattened", {},
            {Arg::of_tensor(cx.in(0)), Arg::of_index(cx.attr_int("axis", 1), "axis")});
    return true;
  }
  if (!n.domain.empty()) return false;
  if (op == "Softmax" || op == "LogSoftmax") {
    cx.call(op == "Softmax" ? "softmax" : "log_softmax", {},
            {Arg::of_tensor(cx.in(0)), Arg::of_index(cx.attr_int("axis", -1), "axis")});
    return true;
  }
  static const std::map<std::string, std::string> reductions = {
      {"ReduceSum", "reduce_sum"}, {"ReduceMean", "reduce_mean"}, {"ReduceMax", "reduce_max"},
      {"ReduceMin", "reduce_min"}, {"ReduceProd", "reduce_prod"}};
  if (auto it = reductions.find(op); it != reductions.end()) {
    TensorInfo out = cx.info(n.outputs.at(0));
    std::vector<int64_t> axes;
    if (cx.has(1)) axes = cx.folded_ints(1, "the axes");
    else axes = cx.attr_ints("axes");
    std::vector<Extent> ax(axes.begin(), axes.end());
    cx.call(it->second, {TypeArg::of_axes(out.axes)},
            {Arg::of_tensor(cx.in(0)), Arg::of_extents(ax), Arg::of_flag(cx.attr_int("keepdims", 1) != 0, "keepdims"),
             Arg::of_flag(cx.attr_int("noop_with_empty_axes", 0) != 0, "noop_with_empty_axes")});
    return true;
  }
  if (op == "ArgMax") {
    TensorInfo out = cx.info(n.outputs.at(0));
    cx.call("argmax", {TypeArg::of_axes(out.axes)},
            {Arg::of_tensor(cx.in(0)), Arg::of_index(cx.attr_int("axis", 0), "axis"),
             Arg::of_flag(cx.attr_int("keepdims", 1) != 0, "keepdims"),
             Arg::of_flag(cx.attr_int("select_last_index", 0) != 0, "select_last_index")});
    return true;
  }
  if (op == "BatchNormalization") {
    if (n.outputs.size() > 1)
      for (std::size_t k = 1; k < n.outputs.size(); ++k)
        if (!n.outputs[k].empty()) cx.error("training-mode outputs are not supported");
    TensorInfo x = cx.info(cx.in(0));
    if (x.axes.size() < 2) cx.error("the input needs a channel axis");
    std::vector<AxisName> channel = {x.axes[1]};
    cx.call("batch_normalization", {},
            {Arg::of_tensor(cx.in(0)), cx.lifted(cx.in(1), channel), cx.lifted(cx.in(2), channel),
             cx.lifted(cx.in(3), channel), cx.lifted(cx.in(4), channel), Arg::of_float(cx.attr_float("epsilon", 1e-5f), "epsilon")});
    return true;
  }
  if (op == "LayerNormalization") {
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
      if (stat.elem != ElementType::F32) cx.error("the statistics are computed in float, not in stash_type " + std::string(element_type_name(stat.elem)));
      cx.call("layer_normalization_statistic", {TypeArg::of_axes(stat.axes)},
              {Arg::of_tensor(cx.in(0)), Arg::of_index(cx.attr_int("axis", -1), "axis"),
               Arg::of_float(cx.attr_float("epsilon", 1e-5f), "epsilon"), Arg::of_flag(k == 2, "inverse_std_dev")},
              {n.outputs[k]});
    }
    return true;
  }
  return false;
}

}  // namespace loam::lower
