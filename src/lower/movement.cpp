// Lowering of the operators that move elements without computing on them: the regroupings
// (Reshape, Flatten, Squeeze, Unsqueeze: no copy), Transpose, Concat, Split, Slice, Gather, Expand,
// Tile, Pad, and the two that make a tensor from what the build knows, Range and ConstantOfShape.
#include <cstring>

#include "lower/context.hpp"

namespace loam::lower {
namespace {

std::vector<Extent> known_extents(LowerContext& cx, std::size_t i, const std::string& what) {
  const auto& v = cx.value(cx.in(i));
  if (!v.value || v.value->kind != stage0::FoldedValue::Kind::Integer)
    cx.error(what + " '" + cx.in(i) + "' must be known at build time");
  return v.value->ints;
}

std::vector<Extent> as_extents(const std::vector<int64_t>& v) {
  return std::vector<Extent>(v.begin(), v.end());
}

}  // namespace

bool lower_movement(LowerContext& cx, const Node& n) {
  if (!n.domain.empty()) return false;
  const std::string& op = n.op_type;
  auto out_of = [&](std::size_t k = 0) { return cx.info(n.outputs.at(k)); };
  if (op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze") {
    TensorInfo out = out_of();
    cx.call("reshape", {TypeArg::of_axes(out.axes)}, {Arg::of_tensor(cx.in(0)), Arg::of_extents(out.dims)});
    return true;
  }
  if (op == "Transpose") {
    TensorInfo x = cx.info(cx.in(0)), out = out_of();
    std::vector<int64_t> perm = cx.attr_ints("perm");
    if (perm.empty())
      for (std::size_t i = x.axes.size(); i-- > 0;) perm.push_back(static_cast<int64_t>(i));
    cx.call("transpose", {TypeArg::of_axes(out.axes)}, {Arg::of_tensor(cx.in(0)), Arg::of_extents(as_extents(perm))});
    return true;
  }
  if (op == "Concat") {
    TensorInfo out = out_of();
    std::vector<Arg> args = {Arg::of_index(static_cast<int64_t>(cx.norm_axis(cx.attr_int("axis", 0), out.axes.size())), "axis")};
    for (std::size_t i = 0; i < n.inputs.size(); ++i)
      if (!n.inputs[i].empty()) args.push_back(Arg::of_tensor(n.inputs[i]));
    cx.call("concat", {TypeArg::of_axes(out.axes)}, args);
    return true;
  }
  if (op == "Split") {
    TensorInfo x = cx.info(cx.in(0));
    std::size_t axis = cx.norm_axis(cx.attr_int("axis", 0), x.axes.size());
    Extent offset(0);
    for (std::size_t k = 0; k < n.outputs.size(); ++k) {
      if (n.outputs[k].empty()) continue;
      TensorInfo o = out_of(k);
      Extent len = o.dims.at(axis);
      KernelCall c;
      cx.call("split_part", {TypeArg::of_axes(o.axes)},
              {Arg::of_tensor(cx.in(0)), Arg::of_index(static_cast<int64_t>(axis), "axis"), Arg::of_scalar(offset), Arg::of_scalar(len)},
              {n.outputs[k]});
      offset += len;
    }
    return true;
  }
  if (op == "Slice") {
    TensorInfo out = out_of();
    std::vector<Arg> args = {Arg::of_tensor(cx.in(0)), Arg::of_extents(known_extents(cx, 1, "the starts")),
                             Arg::of_extents(known_extents(cx, 2, "the ends"))};
    if (cx.has(3)) args.push_back(Arg::of_extents(known_extents(cx, 3, "the axes")));
    else if (cx.has(4)) args.push_back(Arg::of_code("std::span<const std::int64_t>{}"));
    if (cx.has(4)) args.push_back(Arg::of_extents(known_extents(cx, 4, "the steps")));
    cx.call("slice", {TypeArg::of_axes(out.axes)}, args);
    return true;
  }
  if (op == "Gather") {
    TensorInfo data = cx.info(cx.in(0)), idx = cx.info(cx.in(1)), out = out_of();
    if (idx.elem != ElementType::I64) cx.error("the indices '" + idx.name + "' must be int64");
    std::string quoted = "\"";
    for (char c : idx.name) {
      if (c == '"' || c == '\\') quoted += '\\';
      if (static_cast<unsigned char>(c) < 0x20) continue;
      quoted += c;
    }
    quoted += "\"";
    cx.call("gather", {TypeArg::of_axes(out.axes)},
            {Arg::of_tensor(cx.in(0)), Arg::of_tensor(cx.in(1)),
             Arg::of_index(static_cast<int64_t>(cx.norm_axis(cx.attr_int("axis", 0), data.axes.size())), "axis"), Arg::of_code(quoted)});
    return true;
  }
  if (op == "Expand") {
    TensorInfo out = out_of();
    cx.call("expand", {TypeArg::of_axes(out.axes)}, {Arg::of_tensor(cx.in(0)), Arg::of_extents(known_extents(cx, 1, "the shape"))});
    return true;
  }
  if (op == "Tile") {
    TensorInfo out = out_of();
    cx.call("tile", {TypeArg::of_axes(out.axes)}, {Arg::of_tensor(cx.in(0)), Arg::of_extents(known_extents(cx, 1, "the repeats"))});
    return true;
  }
  if (op == "Pad") {
    TensorInfo x = cx.info(cx.in(0)), out = out_of();
    std::vector<int64_t> pads = cx.folded_ints(1, "the pads");
    std::size_t r = x.axes.size();
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
    cx.compute_type(x.elem);  // refuses, naming the node, a type no kernel computes in
    cx.call("pad", {TypeArg::of_axes(out.axes)},
            {Arg::of_tensor(cx.in(0)), Arg::of_extents(as_extents(pads)),
             Arg::of_code(spelled[pm], {{loom::Scalar::Index, pm, "mode"}}), Arg::of_element(x.elem, value, "value")});
    return true;
  }
  if (op == "Range") {
    TensorInfo out = out_of();
    std::string et = cx.compute_type(out.elem);
    std::vector<Arg> args;
    for (std::size_t i = 0; i < 3; ++i) {
      const auto& v = cx.value(cx.in(i));
      if (!v.value || v.value->size() != 1) cx.error("Range reads its bounds at build time; '" + cx.in(i) + "' only the run knows");
      if (v.value->kind == stage0::FoldedValue::Kind::Float) {
        args.push_back(Arg::of_element(out.elem, v.value->floats[0], i == 0 ? "start" : i == 1 ? "limit" : "delta"));
      } else {
        args.push_back(Arg::of_scalar(v.value->ints[0]));
      }
    }
    cx.call("range", {TypeArg::of_axes(out.axes), TypeArg::of_code(et)}, args);
    return true;
  }
  if (op == "ConstantOfShape") {
    TensorInfo out = out_of();
    std::string et = cx.compute_type(out.elem);
    Arg value = Arg::of_element(out.elem, 0, "value");
    if (const Attribute* a = n.attr("value"); a && a->t && !a->t->data.empty()) {
      const auto& d = a->t->data;
      if (a->t->elem == ElementType::F32 && d.size() >= 4) {
        float f;
        std::memcpy(&f, d.data(), 4);
        value = Arg::of_element(out.elem, f, "value");
      } else if (a->t->elem == ElementType::I64 && d.size() >= 8) {
        int64_t i;
        std::memcpy(&i, d.data(), 8);
        value = Arg::of_integer_element(out.elem, i, "value");
      } else if (a->t->elem == ElementType::Bool && d.size() >= 1) {
        value = Arg::of_integer_element(out.elem, static_cast<int>(d[0]) != 0, "value");
      } else if (a->t->elem == ElementType::I32 && d.size() >= 4) {
        int32_t i;
        std::memcpy(&i, d.data(), 4);
        value = Arg::of_integer_element(out.elem, i, "value");
      }
    }
    cx.call("constant_of_shape", {TypeArg::of_axes(out.axes), TypeArg::of_code(et)}, {Arg::of_extents(out.dims), value});
    return true;
  }
  return false;
}

}  // namespace loam::lower
