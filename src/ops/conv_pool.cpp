// Windowed operators over any number of spatial axes: Conv, MaxPool, AveragePool, and the global
// pools. A window owes that the padded input holds its reach.
#include <algorithm>

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

void global_pool(OpContext& c) {
  const auto& x = c.input(0);
  require_spatial(c, x);
  std::vector<Extent> out = {x.dims[0], x.dims[1]};
  for (std::size_t k = 2; k < x.dims.size(); ++k) out.emplace_back(1);
  c.set_output(0, x.elem, out);
}

}  // namespace

void register_conv_pool(std::vector<OpRule>& r) {
  r.push_back({"", "Conv", conv});
  r.push_back({"", "MaxPool", pool});
  r.push_back({"", "AveragePool", pool});
  r.push_back({"", "LpPool", pool});
  r.push_back({"", "GlobalAveragePool", global_pool});
  r.push_back({"", "GlobalMaxPool", global_pool});
}

}  // namespace loam::ops
