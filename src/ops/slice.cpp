// Operators that select: Slice, Gather, GatherElements, Pad, Trilu. Slice reads its bounds at build time; a bound whose
// effect the build cannot decide for every input (a clamp, a bound read from the end, a step count
// clamped at none) becomes a derived symbol. Each lowers to a call of the runtime's movement kernels.
#include <algorithm>

#include "ops/op.hpp"
#include "support/error.hpp"

namespace loam::ops {

using stage0::Proof;
using stage0::prove_nonnegative;

namespace {

struct SliceAxis {
  std::size_t axis;
  Extent start;  // clamped start
  int64_t step;
  Extent count;
};

void slice(OpContext& c) {
  const auto& in = c.input(0);
  std::size_t r = in.dims.size();
  const auto& starts = c.known_ints(1, "the starts");
  const auto& ends = c.known_ints(2, "the ends");
  if (starts.size() != ends.size())
    c.error("the starts hold " + std::to_string(starts.size()) + " elements and the ends " + std::to_string(ends.size()));
  std::vector<int64_t> axes, steps;
  if (c.has_input(3)) axes = c.constant_ints(3, "the axes");
  else for (std::size_t k = 0; k < starts.size(); ++k) axes.push_back(static_cast<int64_t>(k));
  if (c.has_input(4)) steps = c.constant_ints(4, "the steps");
  else steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size())
    c.error("the starts, ends, axes and steps differ in length");
  std::vector<Extent> out = in.dims;
  std::vector<bool> seen(r, false);
  std::vector<SliceAxis> plan;
  for (std::size_t i = 0; i < starts.size(); ++i) {
    std::size_t ax = c.axis(axes[i], r, "axis");
    if (seen[ax]) c.error("axis " + std::to_string(ax) + " is sliced twice");
    seen[ax] = true;
    int64_t step = steps[i];
    if (step == 0) c.error("the step for axis " + std::to_string(ax) + " is 0");
    if (step == INT64_MIN) c.error("the step -2^63 has no magnitude in int64");
    const Extent& d = in.dims[ax];
    Extent s = stage0::from_end(starts[i], d);
    Extent e = stage0::from_end(ends[i], d);
    Extent count;
    if (step > 0) {
      s = stage0::min_of(stage0::max_of(s, Extent(0)), d);
      e = stage0::min_of(stage0::max_of(e, Extent(0)), d);
      count = stage0::ceil_div(stage0::count_max0(e - s), step);
    } else {
      s = stage0::min_of(stage0::max_of(s, Extent(0)), d - Extent(1));
      e = stage0::min_of(stage0::max_of(e, Extent(-1)), d - Extent(1));
      count = stage0::ceil_div(stage0::count_max0(s - e), -step);
    }
    out[ax] = count;
    plan.push_back({ax, s, step, count});
  }
  c.set_output(0, in.elem, out);
  if (!in.value || !c.foldable_count(0)) return;
  auto is = constant_shape(in.dims);
  if (!is) return;
  std::vector<int64_t> start(r, 0), step(r, 1);
  for (const auto& p : plan) {
    auto k = p.start.constant();
    if (!k) return;
    start[p.axis] = *k;
    step[p.axis] = p.step;
  }
  auto os = *constant_shape(out);
  std::vector<int64_t> stride(r, 1);
  for (std::size_t k = r; k-- > 1;) stride[k - 1] = stride[k] * (*is)[k];
  int64_t n = 1;
  for (int64_t x : os) n *= x;
  std::vector<int64_t> idx(r, 0);
  std::vector<std::size_t> map;
  for (int64_t i = 0; i < n; ++i) {
    int64_t src = 0;
    for (std::size_t k = 0; k < r; ++k) src += (start[k] + idx[k] * step[k]) * stride[k];
    map.push_back(static_cast<std::size_t>(src));
    for (std::size_t k = r; k-- > 0;) {
      if (++idx[k] < os[k]) break;
      idx[k] = 0;
    }
  }
  c.fold_picked(0, map);
}

void gather(OpContext& c) {
  const auto& data = c.input(0);
  const auto& idx = c.input(1);
  if (idx.elem != ElementType::I64 && idx.elem != ElementType::I32)
    c.error(c.tensor(1) + " must be int64 or int32 indices, not " + element_type_name(idx.elem));
  std::size_t r = data.dims.size();
  if (r == 0) c.error("cannot gather from a scalar");
  std::size_t ax = c.axis(c.attr_int("axis", 0), r, "attribute 'axis'");
  std::vector<Extent> out(data.dims.begin(), data.dims.begin() + static_cast<std::ptrdiff_t>(ax));
  out.insert(out.end(), idx.dims.begin(), idx.dims.end());
  out.insert(out.end(), data.dims.begin() + static_cast<std::ptrdiff_t>(ax) + 1, data.dims.end());
  c.set_output(0, data.elem, out);
  if (!data.value || !idx.value || !c.foldable_count(0)) return;
  auto ds = constant_shape(data.dims);
  if (!ds) return;
  const auto* iv = c.ints(1);
  if (!iv) return;
  int64_t d = (*ds)[ax];
  std::vector<int64_t> indices;
  for (const auto& e : *iv) {
    auto k = e.constant();
    if (!k) return;  // a symbolic index: the run gathers
    int64_t i = *k;
    if (i < -d || i >= d) c.error("index " + std::to_string(i) + " is outside axis " + std::to_string(ax) + " of " + c.tensor(0) + " (" + std::to_string(d) + ")");
    indices.push_back(i < 0 ? i + d : i);
  }
  int64_t outer = 1, inner = 1;
  for (std::size_t k = 0; k < ax; ++k) outer *= (*ds)[k];
  for (std::size_t k = ax + 1; k < r; ++k) inner *= (*ds)[k];
  std::vector<std::size_t> map;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i : indices)
      for (int64_t e = 0; e < inner; ++e) map.push_back(static_cast<std::size_t>((o * d + i) * inner + e));
  c.fold_picked(0, map);
}

void pad(OpContext& c) {
  const auto& in = c.input(0);
  std::size_t r = in.dims.size();
  std::vector<Extent> pads;
  if (c.has_input(1)) pads = c.known_ints(1, "the pads");
  else if (auto p = c.attr_ints("pads")) pads.assign(p->begin(), p->end());
  else c.error("has no pads");
  std::string mode = c.attr_string("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge" && mode != "wrap") c.error("attribute 'mode' is '" + mode + "'");
  std::vector<std::size_t> axes;
  if (c.has_input(3)) {
    for (int64_t a : c.constant_ints(3, "the axes")) axes.push_back(c.axis(a, r, "axis"));
  } else {
    for (std::size_t k = 0; k < r; ++k) axes.push_back(k);
  }
  if (pads.size() != 2 * axes.size())
    c.error("the pads hold " + std::to_string(pads.size()) + " elements for " + std::to_string(axes.size()) + " axes");
  std::vector<Extent> out = in.dims;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    std::size_t k = axes[i];
    out[k] = in.dims[k] + pads[i] + pads[i + axes.size()];
    if (prove_nonnegative(out[k]) != Proof::Holds)
      c.error("the pads leave axis " + std::to_string(k) + " of " + c.tensor(0) + " " + out[k].to_string() + " long, which the build cannot show is not negative");
  }
  c.set_output(0, in.elem, out);
}

void gather_elements(OpContext& c) {
  const auto& data = c.input(0);
  const auto& idx = c.input(1);
  if (idx.elem != ElementType::I64 && idx.elem != ElementType::I32)
    c.error(c.tensor(1) + " must be int64 or int32 indices, not " + element_type_name(idx.elem));
  if (idx.dims.size() != data.dims.size())
    c.error(c.tensor(1) + " has rank " + std::to_string(idx.dims.size()) + ", " + c.tensor(0) + " rank " + std::to_string(data.dims.size()));
  c.axis(c.attr_int("axis", 0), data.dims.size(), "attribute 'axis'");
  c.set_output(0, data.elem, idx.dims);
}

// The indices' axes replace the gathered one.
void name_gather(axes::NodeNaming& x) {
  const auto& data = x.axes_of(0);
  const auto& idx = x.axes_of(1);
  std::size_t axis = x.norm_axis(x.int_attr("axis", 0), data.size());
  axes::Partial p;
  for (std::size_t i = 0; i < axis; ++i) p.push_back(data[i]);
  for (const auto& a : idx) p.push_back(a);
  for (std::size_t i = axis + 1; i < data.size(); ++i) p.push_back(data[i]);
  x.complete(0, p);
}

void lower_slice(LowerContext& cx, const Node& n) {
  TensorInfo out = cx.info(n.outputs.at(0));
  std::vector<Arg> args = {Arg::of_tensor(cx.in(0)), Arg::of_extents(cx.known_extents(1, "the starts")),
                           Arg::of_extents(cx.known_extents(2, "the ends"))};
  if (cx.has(3)) args.push_back(Arg::of_extents(cx.known_extents(3, "the axes")));
  else if (cx.has(4)) args.push_back(Arg::of_code("std::span<const std::int64_t>{}"));
  if (cx.has(4)) args.push_back(Arg::of_extents(cx.known_extents(4, "the steps")));
  cx.call("slice", {TypeArg::of_axes(out.axes)}, args);
}

// The kernel checks every index against the gathered axis, naming the indices' tensor.
void lower_gather(LowerContext& cx, const Node& n) {
  TensorInfo data = cx.info(cx.in(0)), idx = cx.info(cx.in(1)), out = cx.info(n.outputs.at(0));
  if (idx.elem != ElementType::I64) cx.error("the indices '" + idx.name + "' must be int64");
  cx.call("gather", {TypeArg::of_axes(out.axes)},
          {Arg::of_tensor(cx.in(0)), Arg::of_tensor(cx.in(1)),
           Arg::of_index(static_cast<int64_t>(cx.norm_axis(cx.attr_int("axis", 0), data.axes.size())), "axis"), quoted_name(idx.name)});
}

// The kernel checks every index against the gathered axis, naming the indices' tensor.
void lower_gather_elements(LowerContext& cx, const Node& n) {
  TensorInfo data = cx.info(cx.in(0)), out = cx.info(n.outputs.at(0));
  cx.call("gather_elements", {TypeArg::of_axes(out.axes)},
          {Arg::of_tensor(cx.in(0)), Arg::of_tensor(cx.in(1)),
           Arg::of_index(static_cast<int64_t>(cx.norm_axis(cx.attr_int("axis", 0), data.axes.size())), "axis"), quoted_name(cx.in(1))});
}

// The result has the indices' extents: their axes.
void name_gather_elements(axes::NodeNaming& x) {
  const auto& idx = x.axes_of(1);
  x.complete(0, axes::Partial(idx.begin(), idx.end()));
}

void trilu(OpContext& c) {
  const auto& x = c.input(0);
  if (x.dims.size() < 2) c.error(c.tensor(0) + " has rank " + std::to_string(x.dims.size()) + "; Trilu needs two axes or more");
  if (c.has_input(1) && c.input(1).elem != ElementType::I64)
    c.error(c.tensor(1) + " must be an int64 scalar, not " + element_type_name(c.input(1).elem));
  c.set_output(0, x.elem, x.dims);
}

// k, where given, is read at run time (a folded one is a constant of the module).
void lower_trilu(LowerContext& cx, const Node&) {
  cx.compute_type(cx.info(cx.in(0)).elem);
  Arg upper = Arg::of_flag(cx.attr_int("upper", 1) != 0, "upper");
  if (cx.has(1)) cx.call("trilu", {}, {Arg::of_tensor(cx.in(0)), Arg::of_tensor(cx.in(1)), upper, quoted_name(cx.in(1))});
  else cx.call("trilu", {}, {Arg::of_tensor(cx.in(0)), Arg::of_index(0, "k"), upper});
}

void lower_pad(LowerContext& cx, const Node& n) {
  TensorInfo in = cx.info(cx.in(0)), out = cx.info(n.outputs.at(0));
  std::vector<int64_t> pads = cx.folded_ints(1, "the pads");
  std::size_t r = in.axes.size();
  if (cx.has(3)) {  // opset 18: pads for the listed axes only
    std::vector<int64_t> axes = cx.folded_ints(3, "the axes");
    std::vector<int64_t> full(2 * r, 0);
    if (pads.size() != 2 * axes.size()) cx.error("the pads must hold two entries per listed axis");
    for (std::size_t k = 0; k < axes.size(); ++k) {
      std::size_t a = cx.norm_axis(axes[k], r);
      full[a] = pads[k];
      full[r + a] = pads[axes.size() + k];
    }
    pads = full;
  }
  std::string mode = cx.attr_string("mode", "constant");
  static const char* const modes[] = {"constant", "reflect", "edge", "wrap"};
  static const char* const spelled[] = {"PadMode::Constant", "PadMode::Reflect", "PadMode::Edge", "PadMode::Wrap"};
  std::size_t pm = 0;
  while (pm < 4 && mode != modes[pm]) ++pm;
  if (pm == 4) cx.error("pad mode '" + mode + "' is not one ONNX defines");
  double value = 0;
  if (cx.has(2)) {
    auto v = cx.folded_floats(2);
    if (!v || v->size() != 1) cx.error("the pad value '" + cx.in(2) + "' must be one number known at build time");
    value = (*v)[0];
  }
  cx.compute_type(in.elem);  // refuses, naming the node, a type no kernel computes in
  cx.call("pad", {TypeArg::of_axes(out.axes)},
          {Arg::of_tensor(cx.in(0)), Arg::of_extents({pads.begin(), pads.end()}),
           Arg::of_code(spelled[pm], {{loom::Scalar::Index, pm, "mode"}}), Arg::of_element(in.elem, value, "value")});
}

}  // namespace

void register_slice(std::vector<Operator>& r) {
  // Each picks elements: a narrow integer stays in range.
  r.push_back({.op_type = "Slice", .infer = slice, .name_axes = name_like_input, .data_operands = first_input,
               .lower = lower_slice, .keeps_narrow_range = true, .computes_double = true, .in_scope = true});
  r.push_back({.op_type = "Gather", .infer = gather, .name_axes = name_gather, .lower = lower_gather,
               .keeps_narrow_range = true, .computes_double = true, .in_scope = true});
  r.push_back({.op_type = "Pad", .infer = pad, .name_axes = name_like_input, .data_operands = first_input,
               .lower = lower_pad, .keeps_narrow_range = true, .computes_double = true, .in_scope = true});
  r.push_back({.op_type = "GatherElements", .infer = gather_elements, .name_axes = name_gather_elements,
               .lower = lower_gather_elements, .keeps_narrow_range = true, .computes_double = true, .in_scope = true});
  r.push_back({.op_type = "Trilu", .infer = trilu, .name_axes = name_like_input, .lower = lower_trilu,
               .keeps_narrow_range = true, .computes_double = true, .in_scope = true});
}

}  // namespace loam::ops
