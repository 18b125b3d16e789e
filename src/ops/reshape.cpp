// Regroupings and layout operators: Reshape, Flatten, Unsqueeze, Squeeze, Transpose, Expand, Tile,
// DepthToSpace, SpaceToDepth, Concat, Split. A regrouping moves no element, so a known value passes through in order; Transpose,
// Expand, Tile, Concat and Split rearrange a known value where its shape is a number. Each lowers to a
// call of the runtime's movement kernels (a regrouping to a relabel, no copy).
#include <algorithm>
#include <numeric>
#include <set>

#include "ops/op.hpp"
#include "support/error.hpp"

namespace loam::ops {

using stage0::EqualityRule;
using stage0::OwedKind;
using stage0::Proof;
using stage0::prove_nonnegative;

namespace {

void pass_value(OpContext& c, std::size_t out = 0) {
  if (c.input(0).value && c.foldable_count(out)) c.out[out].value = c.input(0).value;
}

// Axes given by an input (opset 13) or an attribute (before it).
std::optional<std::vector<int64_t>> axes_operand(OpContext& c, std::size_t input, const char* attr) {
  if (c.has_input(input)) return c.constant_ints(input, "the axes");
  return c.attr_ints(attr);
}

void reshape(OpContext& c) {
  const auto& in = c.input(0);
  if (c.input(1).dims.size() != 1) c.error("the shape (" + c.tensor(1) + ") must be 1-D, not " + c.input(1).shape_string());
  const std::vector<Extent>& target = c.known_ints(1, "the target shape");
  bool allowzero = c.attr_int("allowzero", 0) != 0;
  std::vector<Extent> out(target.size());
  std::optional<std::size_t> infer;
  for (std::size_t k = 0; k < target.size(); ++k) {
    const Extent& t = target[k];
    if (auto n = t.constant()) {
      if (*n == -1) {
        if (infer) c.error("the target shape holds -1 at both " + std::to_string(*infer) + " and " + std::to_string(k));
        infer = k;
        continue;
      }
      if (*n < -1) c.error("target element " + std::to_string(k) + " is " + std::to_string(*n));
      if (*n == 0 && !allowzero) {
        if (k >= in.dims.size()) c.error("target element " + std::to_string(k) + " is 0, which copies an axis " + c.tensor(0) + " " + in.shape_string() + " does not have");
        out[k] = in.dims[k];
        continue;
      }
      out[k] = t;
      continue;
    }
    out[k] = t;
    // A symbolic target is not 0 (ONNX would read 0 as the input's extent there), unless it is that
    // extent already.
    if (!allowzero && !(k < in.dims.size() && in.dims[k] == t))
      c.owed.require(t - Extent(1), OwedKind::ReshapeTargetNonzero, c.where,
                     "target element " + std::to_string(k) + " (" + t.to_string() + ") is not 0");
    if (prove_nonnegative(t) == Proof::Fails) c.error("target element " + std::to_string(k) + " is " + t.to_string() + ", negative for every input");
  }
  Extent count = product(in.dims);
  if (infer) {
    Extent other = product(out, 0, *infer) * product(out, *infer + 1);
    c.owed.require(other - Extent(1), OwedKind::ReshapeNonzeroProduct, c.where,
                   "the extents beside -1 (" + other.to_string() + ") do not multiply to 0");
    if (auto q = count.divide_exactly(other)) {
      out[*infer] = *q;
    } else {
      Extent quotient = stage0::floor_div(count, other);
      c.owed.require(quotient * other - count, OwedKind::ReshapeDivides, c.where,
                     "the extents beside -1 (" + other.to_string() + ") divide the element count " + count.to_string());
      out[*infer] = quotient;
    }
  } else {
    stage0::require_equal(product(out), count, EqualityRule::Count, OwedKind::ElementCount, c.owed, c.where,
                          "the element counts of " + c.tensor(0) + " " + in.shape_string() + " and the target [" +
                              [&] {
                                std::string s;
                                for (std::size_t k = 0; k < out.size(); ++k) s += (k ? ", " : "") + out[k].to_string();
                                return s;
                              }() + "]");
  }
  c.set_output(0, in.elem, std::move(out));
  pass_value(c);
}

void flatten(OpContext& c) {
  const auto& in = c.input(0);
  int64_t r = static_cast<int64_t>(in.dims.size());
  int64_t a = c.attr_int("axis", 1);
  if (a < -r || a > r) c.error("attribute 'axis' " + std::to_string(a) + " is outside [" + std::to_string(-r) + ", " + std::to_string(r) + "]");
  if (a < 0) a += r;
  c.set_output(0, in.elem, {product(in.dims, 0, static_cast<std::size_t>(a)), product(in.dims, static_cast<std::size_t>(a))});
  pass_value(c);
}

void unsqueeze(OpContext& c) {
  const auto& in = c.input(0);
  auto axes = axes_operand(c, 1, "axes");
  if (!axes) c.error("has no axes");
  std::size_t r = in.dims.size() + axes->size();
  std::vector<bool> is_new(r, false);
  for (int64_t a : *axes) {
    std::size_t k = c.axis(a, r, "axis");
    if (is_new[k]) c.error("axis " + std::to_string(a) + " is given twice");
    is_new[k] = true;
  }
  std::vector<Extent> out;
  std::size_t j = 0;
  for (std::size_t k = 0; k < r; ++k) out.push_back(is_new[k] ? Extent(1) : in.dims[j++]);
  c.set_output(0, in.elem, std::move(out));
  pass_value(c);
}

void squeeze(OpContext& c) {
  const auto& in = c.input(0);
  auto axes = axes_operand(c, 1, "axes");
  std::vector<bool> drop(in.dims.size(), false);
  if (axes) {
    for (int64_t a : *axes) {
      std::size_t k = c.axis(a, in.dims.size(), "axis");
      std::string what = "axis " + std::to_string(k) + " of " + c.tensor(0) + " (" + in.dims[k].to_string() + ")";
      if (!stage0::reads_as_one(in.dims[k], c.owed, c.where, what))
        c.error("squeezes " + what + ", which is not 1");
      drop[k] = true;
    }
  } else {
    for (std::size_t k = 0; k < in.dims.size(); ++k) {
      if (in.dims[k] == Extent(1)) drop[k] = true;
      else if (!in.dims[k].is_constant())
        c.error("squeezes every axis of 1 but axis " + std::to_string(k) + " of " + c.tensor(0) + " is the symbolic " +
                in.dims[k].to_string() + "; name the axes");
    }
  }
  std::vector<Extent> out;
  for (std::size_t k = 0; k < in.dims.size(); ++k)
    if (!drop[k]) out.push_back(in.dims[k]);
  c.set_output(0, in.elem, std::move(out));
  pass_value(c);
}

void transpose(OpContext& c) {
  const auto& in = c.input(0);
  std::size_t r = in.dims.size();
  std::vector<int64_t> perm(r);
  if (auto p = c.attr_ints("perm")) {
    perm = *p;
    if (perm.size() != r) c.error("attribute 'perm' has " + std::to_string(perm.size()) + " axes for rank " + std::to_string(r));
  } else {
    for (std::size_t k = 0; k < r; ++k) perm[k] = static_cast<int64_t>(r - 1 - k);
  }
  std::vector<bool> seen(r, false);
  std::vector<Extent> out;
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(r) || seen[static_cast<std::size_t>(p)])
      c.error("attribute 'perm' is not a permutation of 0.." + std::to_string(r ? r - 1 : 0));
    seen[static_cast<std::size_t>(p)] = true;
    out.push_back(in.dims[static_cast<std::size_t>(p)]);
  }
  c.set_output(0, in.elem, out);
  if (!in.value || !c.foldable_count(0)) return;
  auto shape = *constant_shape(in.dims);
  std::vector<int64_t> stride(r, 1);
  for (std::size_t k = r; k-- > 1;) stride[k - 1] = stride[k] * shape[k];
  auto oshape = *constant_shape(out);
  std::vector<std::size_t> map;
  std::vector<int64_t> idx(r, 0);
  int64_t n = 1;
  for (int64_t d : oshape) n *= d;
  for (int64_t i = 0; i < n; ++i) {
    int64_t src = 0;
    for (std::size_t k = 0; k < r; ++k) src += idx[k] * stride[static_cast<std::size_t>(perm[k])];
    map.push_back(static_cast<std::size_t>(src));
    for (std::size_t k = r; k-- > 0;) {
      if (++idx[k] < oshape[k]) break;
      idx[k] = 0;
    }
  }
  c.fold_picked(0, map);
}

void expand(OpContext& c) {
  const auto& in = c.input(0);
  if (c.input(1).dims.size() != 1) c.error("the shape (" + c.tensor(1) + ") must be 1-D");
  const auto& shape = c.known_ints(1, "the shape");
  for (std::size_t k = 0; k < shape.size(); ++k)
    if (prove_nonnegative(shape[k]) == Proof::Fails) c.error("shape element " + std::to_string(k) + " is " + shape[k].to_string());
  std::vector<Extent> out = c.broadcast_shapes({in.dims, shape}, {c.tensor(0), "the shape " + c.tensor(1)});
  c.set_output(0, in.elem, out);
  if (!in.value || !c.foldable_count(0)) return;
  auto is = constant_shape(in.dims);
  if (!is) return;
  c.fold_picked(0, broadcast_map(*constant_shape(out), *is));
}

void tile(OpContext& c) {
  const auto& in = c.input(0);
  const auto& reps = c.known_ints(1, "the repeats");
  if (reps.size() != in.dims.size())
    c.error("the repeats hold " + std::to_string(reps.size()) + " elements for rank " + std::to_string(in.dims.size()));
  std::vector<Extent> out;
  for (std::size_t k = 0; k < reps.size(); ++k) {
    if (prove_nonnegative(reps[k]) != Proof::Holds) c.error("repeat " + std::to_string(k) + " is " + reps[k].to_string() + ", which the build cannot show is not negative");
    out.push_back(in.dims[k] * reps[k]);
  }
  c.set_output(0, in.elem, out);
  if (!in.value || !c.foldable_count(0)) return;
  auto is = *constant_shape(in.dims);
  auto os = *constant_shape(out);
  std::size_t r = os.size();
  std::vector<int64_t> stride(r, 1);
  for (std::size_t k = r; k-- > 1;) stride[k - 1] = stride[k] * is[k];
  std::vector<std::size_t> map;
  std::vector<int64_t> idx(r, 0);
  int64_t n = 1;
  for (int64_t d : os) n *= d;
  for (int64_t i = 0; i < n; ++i) {
    int64_t src = 0;
    for (std::size_t k = 0; k < r; ++k) src += (idx[k] % is[k]) * stride[k];
    map.push_back(static_cast<std::size_t>(src));
    for (std::size_t k = r; k-- > 0;) {
      if (++idx[k] < os[k]) break;
      idx[k] = 0;
    }
  }
  c.fold_picked(0, map);
}

void concat(OpContext& c) {
  std::vector<std::size_t> parts;
  for (std::size_t i = 0; i < c.input_count(); ++i)
    if (c.has_input(i)) parts.push_back(i);
  if (parts.empty()) c.error("takes at least one input");
  const auto& first = c.input(parts[0]);
  std::size_t r = first.dims.size();
  if (r == 0) c.error("cannot join scalars");
  std::size_t ax = c.axis(c.attr_int("axis", 0), r, "attribute 'axis'");
  std::vector<Extent> out = first.dims;
  out[ax] = Extent(0);
  for (std::size_t i : parts) {
    const auto& v = c.input(i);
    if (v.dims.size() != r) c.error(c.tensor(i) + " has rank " + std::to_string(v.dims.size()) + ", " + c.tensor(parts[0]) + " rank " + std::to_string(r));
    if (v.elem != first.elem) c.error(c.tensor(i) + " is " + element_type_name(v.elem) + ", " + c.tensor(parts[0]) + " " + element_type_name(first.elem));
    for (std::size_t k = 0; k < r; ++k) {
      if (k == ax) continue;
      c.equal(first.dims[k], v.dims[k], "axis " + std::to_string(k) + " of " + c.tensor(parts[0]) + " (" + first.dims[k].to_string() +
                                            ") and of " + c.tensor(i) + " (" + v.dims[k].to_string() + ")");
    }
    out[ax] = out[ax] + v.dims[ax];
  }
  c.set_output(0, first.elem, out);
  if (!c.foldable_count(0)) return;
  for (std::size_t i : parts)
    if (!c.input(i).value || c.input(i).value->kind != first.value->kind || !c.input(i).dims[ax].is_constant()) return;
  // outer = product before axis, each part contributes blocks of (its axis * inner).
  auto os = *constant_shape(out);
  int64_t outer = 1, inner = 1;
  for (std::size_t k = 0; k < ax; ++k) outer *= os[k];
  for (std::size_t k = ax + 1; k < r; ++k) inner *= os[k];
  bool ints = first.value->kind == FoldedValue::Kind::Integer;
  std::vector<Extent> ri;
  std::vector<float> rf;
  for (int64_t o = 0; o < outer; ++o)
    for (std::size_t i : parts) {
      const auto& v = *c.input(i).value;
      int64_t block = *c.input(i).dims[ax].constant() * inner;
      for (int64_t e = 0; e < block; ++e) {
        std::size_t src = static_cast<std::size_t>(o * block + e);
        if (ints) ri.push_back(v.ints[src]);
        else rf.push_back(v.floats[src]);
      }
    }
  if (ints) c.fold_ints(0, std::move(ri));
  else c.fold_floats(0, std::move(rf));
}

void split(OpContext& c) {
  const auto& in = c.input(0);
  std::size_t r = in.dims.size();
  std::size_t ax = c.axis(c.attr_int("axis", 0), r, "attribute 'axis'");
  const Extent& d = in.dims[ax];
  std::size_t n = c.out.size();
  std::vector<Extent> parts;
  std::string axis_name = "axis " + std::to_string(ax) + " of " + c.tensor(0) + " (" + d.to_string() + ")";
  std::optional<std::vector<Extent>> given;
  if (c.has_input(1)) given = c.known_ints(1, "the split");
  else if (auto s = c.attr_ints("split")) given = std::vector<Extent>(s->begin(), s->end());
  if (given) {
    if (given->size() != n) c.error("the split names " + std::to_string(given->size()) + " parts for " + std::to_string(n) + " outputs");
    Extent sum(0);
    for (std::size_t k = 0; k < n; ++k) {
      const Extent& p = (*given)[k];
      c.owed.require(p, OwedKind::SplitParts, c.where, "part " + std::to_string(k) + " (" + p.to_string() + ") is not negative");
      c.owed.require(d - p, OwedKind::SplitParts, c.where, "part " + std::to_string(k) + " (" + p.to_string() + ") lies within " + axis_name);
      sum = sum + p;
    }
    stage0::require_equal(sum, d, EqualityRule::Count, OwedKind::SplitParts, c.owed, c.where,
                          "the parts' sum (" + sum.to_string() + ") and " + axis_name);
    parts = *given;
  } else {
    int64_t count = static_cast<int64_t>(n);
    if (auto no = c.attr_int_opt("num_outputs")) {
      if (*no != count) c.error("attribute 'num_outputs' is " + std::to_string(*no) + " but the node names " + std::to_string(n) + " outputs");
      // Opset 18: parts of ceil(d / n), the last one what remains.
      Extent each = stage0::ceil_div(d, count);
      Extent last = d - each * Extent(count - 1);
      c.owed.require(last, OwedKind::SplitParts, c.where, "the last part (" + last.to_string() + ") of " + axis_name + " is not negative");
      for (std::size_t k = 0; k + 1 < n; ++k) parts.push_back(each);
      parts.push_back(last);
    } else {
      Extent each;
      if (auto q = d.divide_exactly(Extent(count))) {
        each = *q;
      } else {
        each = stage0::floor_div(d, Extent(count));
        c.owed.require(each * Extent(count) - d, OwedKind::SplitParts, c.where,
                       std::to_string(n) + " equal parts divide " + axis_name);
      }
      parts.assign(n, each);
    }
  }
  for (std::size_t k = 0; k < n; ++k) {
    std::vector<Extent> dims = in.dims;
    dims[ax] = parts[k];
    c.set_output(k, in.elem, dims);
  }
  if (!in.value) return;
  auto is = constant_shape(in.dims);
  if (!is) return;
  int64_t outer = 1, inner = 1;
  for (std::size_t k = 0; k < ax; ++k) outer *= (*is)[k];
  for (std::size_t k = ax + 1; k < r; ++k) inner *= (*is)[k];
  int64_t offset = 0;
  for (std::size_t k = 0; k < n; ++k) {
    auto pk = parts[k].constant();
    if (!pk || *pk < 0) return;
    std::vector<std::size_t> map;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t e = 0; e < *pk * inner; ++e) map.push_back(static_cast<std::size_t>(o * (*is)[ax] * inner + offset * inner + e));
    if (c.foldable_count(k)) c.fold_picked(0, map, k);
    offset += *pk;
  }
}

// A regrouping names each output axis by the run of input parts whose extents multiply to its own.
void name_regrouping(axes::NodeNaming& x) { x.complete(0, x.regroup(x.in(0), x.dims_of(x.node.outputs.at(0)))); }

void name_squeeze(axes::NodeNaming& x) {
  const auto& in = x.axes_of(0);
  std::set<std::size_t> gone;
  if (x.has(1)) {
    for (auto a : x.folded_ints(1)) gone.insert(x.norm_axis(a, in.size()));
  } else {
    for (std::size_t i = 0; i < in.size(); ++i)
      if (axes::is_one(x.input_dims(0)[i])) gone.insert(i);
  }
  x.complete(0, axes::drop(in, gone));
}

// The inserted axes are the layout's.
void name_unsqueeze(axes::NodeNaming& x) {
  const auto& in = x.axes_of(0);
  std::size_t r = x.out_rank(0);
  std::set<std::size_t> added;
  for (auto a : x.folded_ints(1)) added.insert(x.norm_axis(a, r));
  axes::Partial p(r);
  std::size_t k = 0;
  for (std::size_t i = 0; i < r; ++i)
    if (!added.count(i)) p[i] = in.at(k++);
  x.complete(0, p);
}

void name_transpose(axes::NodeNaming& x) {
  const auto& in = x.axes_of(0);
  std::vector<int64_t> perm = x.attributes().integers("perm").value_or(std::vector<int64_t>{});
  if (perm.empty())
    for (std::size_t i = in.size(); i-- > 0;) perm.push_back(static_cast<int64_t>(i));
  axes::Partial p;
  for (auto q : perm) p.push_back(in.at(x.norm_axis(q, in.size())));
  x.complete(0, p);
}

// An axis the expansion keeps keeps its name; one it stretches or adds is the layout's.
void name_expand(axes::NodeNaming& x) {
  const auto& in = x.axes_of(0);
  const auto& xd = x.input_dims(0);
  const auto& od = x.dims_of(x.node.outputs[0]);
  axes::Partial p(od.size());
  for (std::size_t k = 0; k < in.size(); ++k) {
    std::size_t j = od.size() - in.size() + k;
    if (xd[k] == od[j]) p[j] = in[k];
  }
  x.complete(0, p);
}

// The joined axis is the layout's; the others meet.
void name_concat(axes::NodeNaming& x) {
  std::size_t r = x.out_rank(0);
  std::size_t axis = x.norm_axis(x.int_attr("axis", 0), r);
  axes::Partial p(r);
  for (auto i : x.tensor_operands()) {
    const auto& in = x.axes_of(i);
    for (std::size_t k = 0; k < r && k < in.size(); ++k) {
      if (k == axis) continue;
      if (!p[k]) p[k] = in[k];
      else x.meet(*p[k], in[k], "axis " + std::to_string(k) + " of '" + x.in(i) + "'");
    }
  }
  x.complete(0, p);
}

// DepthToSpace moves blocks of b x b channels into the image's rows and columns (DCR: depth
// outermost; CRD: the channel outermost); SpaceToDepth is the inverse of either.
void depth_space(OpContext& c) {
  const auto& x = c.input(0);
  const bool to_space = c.node.op_type == "DepthToSpace";
  if (x.dims.size() != 4) c.error(c.tensor(0) + " has rank " + std::to_string(x.dims.size()) + "; " + c.node.op_type + " takes [N, C, H, W]");
  auto b = c.attr_int_opt("blocksize");
  if (!b || *b < 1) c.error("attribute 'blocksize' must be given and positive");
  // SpaceToDepth has a mode from opset 28; before, DCR, its default.
  if (std::string mode = c.attr_string("mode", "DCR"); mode != "DCR" && mode != "CRD") c.error("mode '" + mode + "' is neither DCR nor CRD");
  const Extent block(*b), area(*b * *b);
  auto part = [&](const Extent& e, const Extent& d, const char* axis) {
    auto q = e.divide_exactly(d);
    if (!q) c.error(std::string("the ") + axis + " extent " + e.to_string() + " of " + c.tensor(0) + " is not a multiple of " + d.to_string());
    return *q;
  };
  if (to_space) c.set_output(0, x.elem, {x.dims[0], part(x.dims[1], area, "channel"), x.dims[2] * block, x.dims[3] * block});
  else c.set_output(0, x.elem, {x.dims[0], x.dims[1] * area, part(x.dims[2], block, "row"), part(x.dims[3], block, "column")});
}

// The batch keeps its name; the channels, rows and columns change length: the layout's.
void name_depth_space(axes::NodeNaming& x) {
  axes::Partial p(4);
  p[0] = x.axes_of(0).at(0);
  x.complete(0, p);
}

void lower_depth_space(LowerContext& cx, const Node& n) {
  TensorInfo out = cx.info(n.outputs.at(0));
  const int64_t b = cx.attr_int("blocksize", 1);
  cx.call(n.op_type == "SpaceToDepth" ? "space_to_depth" : "depth_to_space", {TypeArg::of_axes(out.axes)},
          {Arg::of_tensor(cx.in(0)), Arg::of_index(b, "blocksize"), Arg::of_flag(cx.attr_string("mode", "DCR") == "CRD", "crd")});
}

// A regrouping moves no element: the call relabels the input under the result's axes.
void lower_regrouping(LowerContext& cx, const Node& n) {
  TensorInfo out = cx.info(n.outputs.at(0));
  cx.call("reshape", {TypeArg::of_axes(out.axes)}, {Arg::of_tensor(cx.in(0)), Arg::of_extents(out.dims)});
}

void lower_transpose(LowerContext& cx, const Node& n) {
  TensorInfo in = cx.info(cx.in(0)), out = cx.info(n.outputs.at(0));
  std::vector<int64_t> perm = cx.attr_ints("perm");
  if (perm.empty())
    for (std::size_t i = in.axes.size(); i-- > 0;) perm.push_back(static_cast<int64_t>(i));
  cx.call("transpose", {TypeArg::of_axes(out.axes)}, {Arg::of_tensor(cx.in(0)), Arg::of_extents({perm.begin(), perm.end()})});
}

void lower_expand(LowerContext& cx, const Node& n) {
  TensorInfo out = cx.info(n.outputs.at(0));
  cx.call("expand", {TypeArg::of_axes(out.axes)}, {Arg::of_tensor(cx.in(0)), Arg::of_extents(cx.known_extents(1, "the shape"))});
}

void lower_tile(LowerContext& cx, const Node& n) {
  TensorInfo out = cx.info(n.outputs.at(0));
  cx.call("tile", {TypeArg::of_axes(out.axes)}, {Arg::of_tensor(cx.in(0)), Arg::of_extents(cx.known_extents(1, "the repeats"))});
}

void lower_concat(LowerContext& cx, const Node& n) {
  TensorInfo out = cx.info(n.outputs.at(0));
  std::vector<Arg> args = {Arg::of_index(static_cast<int64_t>(cx.norm_axis(cx.attr_int("axis", 0), out.axes.size())), "axis")};
  for (const auto& in : n.inputs)
    if (!in.empty()) args.push_back(Arg::of_tensor(in));
  cx.call("concat", {TypeArg::of_axes(out.axes)}, args);
}

// One call per part: the elements of the input from `offset`, `length` long along the axis.
void lower_split(LowerContext& cx, const Node& n) {
  TensorInfo in = cx.info(cx.in(0));
  std::size_t axis = cx.norm_axis(cx.attr_int("axis", 0), in.axes.size());
  Extent offset(0);
  for (std::size_t k = 0; k < n.outputs.size(); ++k) {
    if (n.outputs[k].empty()) continue;
    TensorInfo part = cx.info(n.outputs[k]);
    Extent length = part.dims.at(axis);
    cx.call("split_part", {TypeArg::of_axes(part.axes)},
            {Arg::of_tensor(cx.in(0)), Arg::of_index(static_cast<int64_t>(axis), "axis"), Arg::of_scalar(offset),
             Arg::of_scalar(length)},
            {n.outputs[k]});
    offset += length;
  }
}

}  // namespace

void register_reshape(std::vector<Operator>& r) {
  // Each moves or picks elements: a narrow integer stays in range.
  r.push_back({.op_type = "Reshape", .infer = reshape, .name_axes = name_regrouping, .data_operands = first_input,
               .lower = lower_regrouping, .regrouping = true, .keeps_narrow_range = true, .computes_double = true, .in_scope = true});
  r.push_back({.op_type = "Flatten", .infer = flatten, .name_axes = name_regrouping, .data_operands = first_input,
               .lower = lower_regrouping, .regrouping = true, .keeps_narrow_range = true, .computes_double = true, .in_scope = true});
  r.push_back({.op_type = "Unsqueeze", .infer = unsqueeze, .name_axes = name_unsqueeze, .data_operands = first_input,
               .lower = lower_regrouping, .regrouping = true, .keeps_narrow_range = true, .computes_double = true, .in_scope = true});
  r.push_back({.op_type = "Squeeze", .infer = squeeze, .name_axes = name_squeeze, .data_operands = first_input,
               .lower = lower_regrouping, .regrouping = true, .keeps_narrow_range = true, .computes_double = true, .in_scope = true});
  r.push_back({.op_type = "Transpose", .infer = transpose, .name_axes = name_transpose, .data_operands = first_input,
               .lower = lower_transpose, .keeps_narrow_range = true, .computes_double = true, .in_scope = true});
  r.push_back({.op_type = "Expand", .infer = expand, .name_axes = name_expand, .data_operands = first_input,
               .lower = lower_expand, .keeps_narrow_range = true, .computes_double = true, .in_scope = true});
  r.push_back({.op_type = "Tile", .infer = tile, .name_axes = name_like_input, .data_operands = first_input,
               .lower = lower_tile, .keeps_narrow_range = true, .computes_double = true, .in_scope = true});
  for (const char* op : {"DepthToSpace", "SpaceToDepth"})
    r.push_back({.op_type = op, .infer = depth_space, .name_axes = name_depth_space, .lower = lower_depth_space,
                 .keeps_narrow_range = true, .computes_double = true, .in_scope = true});
  r.push_back({.op_type = "Concat", .infer = concat, .name_axes = name_concat, .lower = lower_concat,
               .keeps_narrow_range = true, .computes_double = true, .in_scope = true});
  r.push_back({.op_type = "Split", .infer = split, .name_axes = name_like_input, .data_operands = first_input,
               .lower = lower_split, .keeps_narrow_range = true, .computes_double = true, .in_scope = true});
}

}  // namespace loam::ops
