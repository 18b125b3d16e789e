// Operators that select: Slice, Gather, GatherElements, GatherND, ScatterND, ScatterElements (and
// Scatter), Pad, OneHot, Trilu. Slice reads its bounds at build time; a bound whose
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
  // The value is one element (a scalar, or [1] as exporters also write it), of the data's type.
  if (c.has_input(2)) {
    const auto& v = c.input(2);
    if (v.dims.size() > 1 || (v.dims.size() == 1 && v.dims[0] != Extent(1)))
      c.error("the pad value " + c.tensor(2) + " " + v.shape_string() + " is not one element");
    if (v.elem != in.elem) c.error("the pad value " + c.tensor(2) + " is " + element_type_name(v.elem) + ", the data " + element_type_name(in.elem));
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

// OneHot: the indices' shape with `depth` inserted at `axis`; each position holds values[1] where
// the index (negative ones counted from depth; a float truncated) names it, else values[0]. The
// depth is an extent the build knows.
Extent one_hot_depth(const OpContext& c) {
  const auto& d = c.input(1);
  if (d.dims.size() > 1 || (d.dims.size() == 1 && !(d.dims[0] == Extent(1))))
    c.error(c.tensor(1) + " must hold one element, not " + d.shape_string());
  if (is_float_type(d.elem)) {
    auto v = c.constant_floats(1, "the depth");
    if (v.size() != 1) c.error(c.tensor(1) + " must hold one element");
    return Extent(static_cast<int64_t>(v[0]));
  }
  const auto& k = c.known_ints(1, "the depth");
  if (k.size() != 1) c.error(c.tensor(1) + " must hold one element");
  return k[0];
}

void one_hot(OpContext& c) {
  const auto& idx = c.input(0);
  const auto& values = c.input(2);
  Extent depth = one_hot_depth(c);
  if (depth.is_constant() && *depth.constant() < 1) c.error("the depth is " + depth.to_string() + "; it must be positive");
  if (!(values.dims.size() == 1 && values.dims[0] == Extent(2)))
    c.error(c.tensor(2) + " must hold two elements [off, on], not " + values.shape_string());
  std::size_t r = idx.dims.size();
  std::size_t ax = c.axis(c.attr_int("axis", -1), r + 1, "attribute 'axis'");
  std::vector<Extent> out = idx.dims;
  out.insert(out.begin() + static_cast<std::ptrdiff_t>(ax), depth);
  c.set_output(0, values.elem, out);
}

// The indices' axes, with the depth's the layout's.
void name_one_hot(axes::NodeNaming& x) {
  const auto& in = x.axes_of(0);
  std::size_t ax = x.norm_axis(x.int_attr("axis", -1), in.size() + 1);
  axes::Partial p(in.begin(), in.end());
  p.insert(p.begin() + static_cast<std::ptrdiff_t>(ax), std::nullopt);
  x.complete(0, p);
}

void lower_one_hot(LowerContext& cx, const Node& n) {
  TensorInfo idx = cx.info(cx.in(0)), out = cx.info(n.outputs.at(0));
  cx.compute_type(out.elem);
  cx.compute_type(idx.elem);
  std::size_t ax = cx.norm_axis(cx.attr_int("axis", -1), idx.axes.size() + 1);
  cx.call("one_hot", {TypeArg::of_axes(out.axes)},
          {Arg::of_tensor(cx.in(0)), Arg::of_scalar(out.dims.at(ax)), Arg::of_tensor(cx.in(2)),
           Arg::of_index(static_cast<int64_t>(ax), "axis")});
}

std::vector<std::size_t> indices_and_values(const Node&) { return {0, 2}; }

// GatherND: indices [..., k] pick slices of data past its first batch_dims axes; the result is the
// indices' leading axes, then data's past batch_dims + k. k (the indices' last extent) is a number.
void gather_nd(OpContext& c) {
  const auto& data = c.input(0);
  const auto& idx = c.input(1);
  if (idx.elem != ElementType::I64) c.error(c.tensor(1) + " must be int64 indices, not " + element_type_name(idx.elem));
  const int64_t b = c.attr_int("batch_dims", 0);
  const std::size_t r = data.dims.size(), q = idx.dims.size();
  if (q < 1 || r < 1) c.error("GatherND takes data and indices of rank 1 or more");
  if (b < 0 || static_cast<std::size_t>(b) >= std::min(r, q)) c.error("batch_dims " + std::to_string(b) + " must be below both ranks");
  auto k = idx.dims.back().constant();
  if (!k) c.error("the last extent of " + c.tensor(1) + " must be a number the build knows");
  if (*k < 1 || static_cast<std::size_t>(*k + b) > r)
    c.error("the last extent of " + c.tensor(1) + " is " + std::to_string(*k) + "; it must lie in [1, " + std::to_string(r - b) + "]");
  for (std::size_t i = 0; i < static_cast<std::size_t>(b); ++i)
    c.equal(data.dims[i], idx.dims[i], "batch axis " + std::to_string(i) + " of the data and the indices");
  std::vector<Extent> out(idx.dims.begin(), idx.dims.end() - 1);
  for (std::size_t i = static_cast<std::size_t>(b + *k); i < r; ++i) out.push_back(data.dims[i]);
  c.set_output(0, data.elem, out);
}

// The indices' leading axes, then data's trailing ones.
void name_gather_nd(axes::NodeNaming& x) {
  const auto& data = x.axes_of(0);
  const auto& idx = x.axes_of(1);
  const auto k = x.input_dims(1).back().constant().value_or(0);
  axes::Partial p(idx.begin(), idx.end() - 1);
  for (std::size_t i = static_cast<std::size_t>(x.int_attr("batch_dims", 0) + k); i < data.size(); ++i) p.push_back(data[i]);
  x.complete(0, p);
}

void lower_gather_nd(LowerContext& cx, const Node& n) {
  TensorInfo out = cx.info(n.outputs.at(0));
  cx.call("gather_nd", {TypeArg::of_axes(out.axes)},
          {Arg::of_tensor(cx.in(0)), Arg::of_tensor(cx.in(1)), Arg::of_index(cx.attr_int("batch_dims", 0), "batch_dims"),
           quoted_name(cx.in(1))});
}

// ScatterND and ScatterElements (and Scatter, its opset-9 name): data's shape, with updates written
// (or combined by `reduction`) where the indices say.
const char* const kReductions[] = {"none", "add", "mul", "max", "min"};
const char* const kReductionsSpelled[] = {"ScatterReduction::None", "ScatterReduction::Add", "ScatterReduction::Mul",
                                          "ScatterReduction::Max", "ScatterReduction::Min"};

void scatter(OpContext& c) {
  const auto& data = c.input(0);
  const auto& idx = c.input(1);
  const auto& upd = c.input(2);
  const bool nd = c.node.op_type == "ScatterND";
  if (idx.elem != ElementType::I64 && (nd || idx.elem != ElementType::I32))
    c.error(c.tensor(1) + " must be int64" + (nd ? "" : " or int32") + " indices, not " + element_type_name(idx.elem));
  if (upd.elem != data.elem) c.error(c.tensor(2) + " must share the data's element type");
  std::string red = c.attr_string("reduction", "none");
  if (std::find_if(std::begin(kReductions), std::end(kReductions), [&](const char* r) { return red == r; }) == std::end(kReductions))
    c.error("reduction '" + red + "' is not one ONNX defines");
  if (nd) {
    auto k = idx.dims.empty() ? std::nullopt : idx.dims.back().constant();
    if (!k) c.error("the last extent of " + c.tensor(1) + " must be a number the build knows");
    if (*k < 1 || static_cast<std::size_t>(*k) > data.dims.size())
      c.error("the last extent of " + c.tensor(1) + " is " + std::to_string(*k) + "; it must lie in [1, " + std::to_string(data.dims.size()) + "]");
    std::vector<Extent> want(idx.dims.begin(), idx.dims.end() - 1);
    for (std::size_t i = static_cast<std::size_t>(*k); i < data.dims.size(); ++i) want.push_back(data.dims[i]);
    if (want.size() != upd.dims.size()) c.error(c.tensor(2) + " has rank " + std::to_string(upd.dims.size()) + ", not " + std::to_string(want.size()));
    for (std::size_t i = 0; i < want.size(); ++i) c.equal(upd.dims[i], want[i], "axis " + std::to_string(i) + " of the updates");
  } else {
    if (idx.dims.size() != data.dims.size()) c.error(c.tensor(1) + " must have the data's rank");
    if (upd.dims.size() != idx.dims.size()) c.error(c.tensor(2) + " must have the indices' rank");
    for (std::size_t i = 0; i < idx.dims.size(); ++i) c.equal(upd.dims[i], idx.dims[i], "axis " + std::to_string(i) + " of the updates and the indices");
    c.axis(c.attr_int("axis", 0), data.dims.size(), "attribute 'axis'");
  }
  c.set_output(0, data.elem, data.dims);
}

void lower_scatter(LowerContext& cx, const Node& n) {
  TensorInfo data = cx.info(cx.in(0));
  cx.compute_type(data.elem);
  std::string red = cx.attr_string("reduction", "none");
  std::size_t rk = 0;
  while (rk < 5 && red != kReductions[rk]) ++rk;
  if (rk == 5) cx.error("reduction '" + red + "' is not one ONNX defines");
  if (is_narrow_integer(data.elem) && (rk == 1 || rk == 2))
    cx.error(std::string("reduction '") + red + "' over " + element_type_name(data.elem) + " would leave the type's range");
  Arg reduction = Arg::of_code(kReductionsSpelled[rk], {{loom::Scalar::Index, rk, "reduction"}});
  if (n.op_type == "ScatterND")
    cx.call("scatter_nd", {}, {Arg::of_tensor(cx.in(0)), Arg::of_tensor(cx.in(1)), Arg::of_tensor(cx.in(2)), reduction, quoted_name(cx.in(1))});
  else
    cx.call("scatter_elements", {},
            {Arg::of_tensor(cx.in(0)), Arg::of_tensor(cx.in(1)), Arg::of_tensor(cx.in(2)),
             Arg::of_index(static_cast<int64_t>(cx.norm_axis(cx.attr_int("axis", 0), data.axes.size())), "axis"), reduction,
             quoted_name(cx.in(1))});
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
  cx.compute_type(in.elem);  // refuses, naming the node, a type no kernel computes in
  // The value as a number where the build knows it, else the one-element tensor the run gives.
  Arg value = Arg::of_element(in.elem, 0, "value");
  if (cx.has(2)) {
    if (auto v = cx.folded_floats(2); v && v->size() == 1) value = Arg::of_element(in.elem, (*v)[0], "value");
    else value = Arg::of_tensor(cx.in(2));
  }
  cx.call("pad", {TypeArg::of_axes(out.axes)},
          {Arg::of_tensor(cx.in(0)), Arg::of_extents({pads.begin(), pads.end()}),
           Arg::of_code(spelled[pm], {{loom::Scalar::Index, pm, "mode"}}), value});
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
  r.push_back({.op_type = "OneHot", .infer = one_hot, .name_axes = name_one_hot, .data_operands = indices_and_values,
               .lower = lower_one_hot, .keeps_narrow_range = true, .computes_double = true, .in_scope = true});
  r.push_back({.op_type = "GatherND", .infer = gather_nd, .name_axes = name_gather_nd, .lower = lower_gather_nd,
               .keeps_narrow_range = true, .computes_double = true, .in_scope = true});
  // A narrow integer stays in range: the lowering refuses the sum and product over one.
  for (const char* op : {"ScatterND", "ScatterElements", "Scatter"})
    r.push_back({.op_type = op, .infer = scatter, .name_axes = name_like_input, .lower = lower_scatter,
                 .keeps_narrow_range = true, .computes_double = true, .in_scope = true});
  r.push_back({.op_type = "Trilu", .infer = trilu, .name_axes = name_like_input, .lower = lower_trilu,
               .keeps_narrow_range = true, .computes_double = true, .in_scope = true});
}

}  // namespace loam::ops
