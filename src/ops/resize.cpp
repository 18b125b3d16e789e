// Resize (opsets 11 to 19; Upsample and Resize-10 arrive restated as it, src/onnx/normalize.cpp):
// nearest, linear or cubic resampling of the axes its scales or sizes list. Shape rule: a listed
// axis is `sizes` long, or floor(length * scale) with the scale's exact binary value (as ONNX's
// reference computes it), so a symbolic length resized by a scale is a floor division the build
// carries. Its settings (roi, scales, sizes) are read at build time; the runtime kernel
// (runtime/loam/cpu_resampling.inc.hpp) resamples.
#include <algorithm>
#include <cmath>

#include "lower/context.hpp"
#include "ops/op.hpp"

namespace loam::ops {
namespace {

using stage0::OpContext;

constexpr const char* kModes[] = {"nearest", "linear", "cubic"};
constexpr const char* kCoordinates[] = {"half_pixel",           "half_pixel_symmetric", "pytorch_half_pixel", "align_corners",
                                        "asymmetric",           "tf_half_pixel_for_nn", "tf_crop_and_resize"};
constexpr const char* kRoundings[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
constexpr const char* kAspectPolicies[] = {"stretch", "not_larger", "not_smaller"};
constexpr std::size_t kAsymmetric = 4, kCropAndResize = 6, kSimpleRounding = 4;

// The position of `value` in `names`, or an error naming the attribute and what it allows.
template <std::size_t N, class Fail>
std::size_t choice(const char* const (&names)[N], const std::string& value, const char* attribute, Fail&& fail) {
  for (std::size_t k = 0; k < N; ++k)
    if (value == names[k]) return k;
  std::string allowed;
  for (std::size_t k = 0; k < N; ++k) allowed += std::string(k ? ", " : "") + names[k];
  fail("attribute '" + std::string(attribute) + "' is '" + value + "'; ONNX defines " + allowed);
  return N;  // not reached: fail throws
}

// What the node's attributes choose, each an index into the lists above (and the kernel's enums).
// loam.Resize is Upsample or Resize-10 restated: asymmetric coordinates, and nearest rounding down
// when enlarging and up when shrinking (onnxruntime's reading of those opsets).
struct Settings {
  std::size_t mode = 0, coordinates = 0, rounding = 0, aspect = 0;
  float cubic_a = -0.75f, extrapolation = 0.0f;
  bool exclude_outside = false;
};

template <class Fail>
Settings settings(const Node& n, const NodeAttributes& a, Fail&& fail) {
  Settings s;
  s.mode = choice(kModes, a.text("mode", "nearest"), "mode", fail);
  if (n.domain == "loam") {
    s.coordinates = kAsymmetric;
    s.rounding = kSimpleRounding;
    return s;
  }
  s.coordinates = choice(kCoordinates, a.text("coordinate_transformation_mode", "half_pixel"), "coordinate_transformation_mode", fail);
  s.rounding = choice(kRoundings, a.text("nearest_mode", "round_prefer_floor"), "nearest_mode", fail);
  s.cubic_a = a.real("cubic_coeff_a", -0.75f);
  s.exclude_outside = a.integer("exclude_outside", 0) != 0;
  s.extrapolation = a.real("extrapolation_value", 0.0f);
  if (a.integer("antialias", 0) != 0) fail("antialias is not supported; resize without it");
  s.aspect = choice(kAspectPolicies, a.text("keep_aspect_ratio_policy", "stretch"), "keep_aspect_ratio_policy", fail);
  return s;
}

// keep_aspect_ratio_policy (opset 18) with sizes: one scale for every listed axis, the least
// (not_larger) or greatest (not_smaller) of size / length, so the image keeps its proportions. The
// build must know the lengths. Each listed axis is then round(length * scale), halves up, as ONNX's
// reference rounds it.
template <class Fail>
double aspect_scale(std::size_t policy, const std::vector<Extent>& dims, const std::vector<std::size_t>& axes,
                    const std::vector<Extent>& sizes, Fail&& fail) {
  double scale = 0;
  for (std::size_t k = 0; k < axes.size(); ++k) {
    const auto length = dims[axes[k]].constant(), size = sizes[k].constant();
    if (!length || !size || *length <= 0)
      fail(std::string("keep_aspect_ratio_policy '") + kAspectPolicies[policy] + "' needs the length and the size of axis " +
           std::to_string(axes[k]) + " known at build time, and the length positive");
    const double s = static_cast<double>(*size) / static_cast<double>(*length);
    scale = k == 0 ? s : policy == 1 ? std::min(scale, s) : std::max(scale, s);
  }
  return scale;
}

// Whether an optional input is given with elements (exporters write an empty tensor for "none").
bool holds_elements(const std::vector<Extent>& dims) {
  for (const auto& d : dims)
    if (d.constant() == 0) return false;
  return true;
}
bool given(const OpContext& c, std::size_t i) { return c.has_input(i) && holds_elements(c.input(i).dims); }

// The axes the settings list: the `axes` attribute (opset 18), else every axis.
template <class Fail>
std::vector<std::size_t> listed_axes(const NodeAttributes& a, std::size_t rank, Fail&& fail) {
  std::vector<std::size_t> out;
  if (auto axes = a.integers("axes")) {
    for (int64_t x : *axes) {
      std::size_t k = a.axis(x, rank, "attribute 'axes'");
      if (std::find(out.begin(), out.end(), k) != out.end()) fail("attribute 'axes' lists axis " + std::to_string(k) + " twice");
      out.push_back(k);
    }
  } else {
    for (std::size_t k = 0; k < rank; ++k) out.push_back(k);
  }
  return out;
}

// floor(length * scale), the scale a float's exact value m * 2^e.
Extent scaled(OpContext& c, const Extent& length, double scale, std::size_t axis) {
  if (!(scale > 0) || !std::isfinite(scale))
    c.error("the scale of axis " + std::to_string(axis) + " is " + std::to_string(scale) + "; a scale is a positive number");
  int e = 0;
  int64_t m = static_cast<int64_t>(std::ldexp(std::frexp(static_cast<float>(scale), &e), 24));
  e -= 24;
  while (m % 2 == 0 && e < 0) m /= 2, ++e;
  if (e >= 0) return length * Extent(m) * Extent(int64_t(1) << std::min(e, 62));
  if (e < -62) c.error("the scale of axis " + std::to_string(axis) + " is below 2^-38; no length survives it");
  return stage0::floor_div(length * Extent(m), Extent(int64_t(1) << -e));
}

void resize(OpContext& c) {
  const auto& x = c.input(0);
  const std::size_t r = x.dims.size();
  const NodeAttributes a = c.attributes();
  auto fail = [&](const std::string& m) { c.error(m); };
  const Settings chosen = settings(c.node, a, fail);
  const auto axes = listed_axes(a, r, fail);
  const bool by_scales = given(c, 2), by_sizes = given(c, 3);
  if (by_scales == by_sizes) c.error(by_scales ? "both scales and sizes are given; ONNX takes one" : "neither scales nor sizes is given");
  std::vector<Extent> out = x.dims;
  if (by_scales) {
    const auto scales = c.constant_floats(2, "the scales");
    if (scales.size() != axes.size())
      c.error("the scales hold " + std::to_string(scales.size()) + " values for " + std::to_string(axes.size()) + " axes");
    for (std::size_t k = 0; k < axes.size(); ++k)
      if (scales[k] != 1.0) out[axes[k]] = scaled(c, x.dims[axes[k]], scales[k], axes[k]);
  } else {
    const auto& sizes = c.known_ints(3, "the sizes");
    if (sizes.size() != axes.size())
      c.error("the sizes hold " + std::to_string(sizes.size()) + " values for " + std::to_string(axes.size()) + " axes");
    for (std::size_t k = 0; k < axes.size(); ++k) {
      if (stage0::prove_nonnegative(sizes[k]) != stage0::Proof::Holds)
        c.error("the size of axis " + std::to_string(axes[k]) + " is " + sizes[k].to_string() + ", which the build cannot show is not negative");
      out[axes[k]] = sizes[k];
    }
    if (chosen.aspect != 0) {
      const double scale = aspect_scale(chosen.aspect, x.dims, axes, sizes, fail);
      for (std::size_t k : axes)
        out[k] = Extent(static_cast<int64_t>(std::floor(scale * static_cast<double>(*x.dims[k].constant()) + 0.5)));
    }
  }
  if (chosen.coordinates == kCropAndResize) {
    const auto roi = c.constant_floats(1, "the roi");
    if (roi.size() != 2 * axes.size())
      c.error("the roi holds " + std::to_string(roi.size()) + " values; tf_crop_and_resize needs a start and an end for each of " +
              std::to_string(axes.size()) + " axes");
  }
  c.set_output(0, x.elem, out);
}

// An axis the resize leaves as it was keeps its name; a resampled one is the layout's.
void name_resize(axes::NodeNaming& x) {
  const auto& in = x.axes_of(0);
  const auto& in_dims = x.input_dims(0);
  const auto& out_dims = x.dims_of(x.node.outputs.at(0));
  axes::Partial p(in.size());
  for (std::size_t k = 0; k < in.size() && k < out_dims.size(); ++k)
    if (in_dims[k] == out_dims[k]) p[k] = in[k];
  x.complete(0, p);
}

// `std::array<float, N>{...}` and its elements as Loom constants.
lower::Arg float_array(const std::vector<float>& v, const std::string& hint) {
  std::string text = "std::array<float, " + std::to_string(v.size()) + ">{";
  std::vector<lower::CallConstant> constants;
  for (std::size_t k = 0; k < v.size(); ++k) {
    text += (k ? ", " : "") + float_literal(v[k]);
    constants.push_back({loom::Scalar::F32, loom::float_bits(v[k], loom::Scalar::F32), hint + std::to_string(k)});
  }
  return lower::Arg::of_code(text + "}", constants);
}

void lower_resize(lower::LowerContext& cx, const Node& n) {
  using lower::Arg;
  const lower::TensorInfo in = cx.info(cx.in(0)), out = cx.info(n.outputs.at(0));
  const std::size_t r = in.axes.size();
  auto fail = [&](const std::string& m) { cx.error(m); };
  const Settings chosen = settings(n, cx.attributes(), fail);
  const bool floating = in.elem == ElementType::F32 || in.elem == ElementType::F64 || in.elem == ElementType::F16 ||
                        in.elem == ElementType::BF16;
  if (chosen.mode != 0 && !floating)
    cx.error(std::string(kModes[chosen.mode]) + " resize of " + element_type_name(in.elem) + " elements; it interpolates floats only");
  const auto axes = listed_axes(cx.attributes(), r, fail);
  // One scale per axis: 1 where none is listed, 0 where the kernel divides the lengths (sizes).
  std::vector<float> scales(r, 1.0f);
  const bool by_sizes = cx.has(3) && holds_elements(cx.value(cx.in(3)).dims);
  if (by_sizes && chosen.aspect != 0) {
    // The proportions kept: the one scale the shape rule chose, which the coordinates divide by.
    const auto& folded = cx.value(cx.in(3)).value;
    if (!folded || folded->ints.size() != axes.size()) cx.error("the sizes must be numbers known at build time, one per listed axis");
    const float scale = static_cast<float>(aspect_scale(chosen.aspect, in.dims, axes, folded->ints, fail));
    for (std::size_t k : axes) scales[k] = scale;
  } else if (by_sizes) {
    for (std::size_t k : axes) scales[k] = 0.0f;
  } else {
    auto given = cx.folded_floats(2);
    if (!given || given->size() != axes.size()) cx.error("the scales must be numbers known at build time, one per listed axis");
    for (std::size_t k = 0; k < axes.size(); ++k) scales[axes[k]] = (*given)[k];
  }
  std::vector<float> roi;
  if (chosen.coordinates == kCropAndResize) {
    auto given = cx.folded_floats(1);
    if (!given || given->size() != 2 * axes.size()) cx.error("the roi must be numbers known at build time, a start and an end per listed axis");
    roi.assign(2 * r, 0.0f);
    for (std::size_t k = 0; k < r; ++k) roi[r + k] = 1.0f;
    for (std::size_t k = 0; k < axes.size(); ++k) {
      roi[axes[k]] = (*given)[k];
      roi[r + axes[k]] = (*given)[axes.size() + k];
    }
  }
  static const char* const mode_spelled[] = {"ResizeMode::Nearest", "ResizeMode::Linear", "ResizeMode::Cubic"};
  static const char* const coordinates_spelled[] = {
      "ResizeCoordinates::HalfPixel",  "ResizeCoordinates::HalfPixelSymmetric", "ResizeCoordinates::PytorchHalfPixel",
      "ResizeCoordinates::AlignCorners", "ResizeCoordinates::Asymmetric",       "ResizeCoordinates::TfHalfPixelForNn",
      "ResizeCoordinates::TfCropAndResize"};
  static const char* const rounding_spelled[] = {"NearestRounding::RoundPreferFloor", "NearestRounding::RoundPreferCeil",
                                                 "NearestRounding::Floor", "NearestRounding::Ceil", "NearestRounding::Simple"};
  const std::string params = std::string("ResizeParams{") + mode_spelled[chosen.mode] + ", " + coordinates_spelled[chosen.coordinates] +
                             ", " + rounding_spelled[chosen.rounding] + ", " + float_literal(chosen.cubic_a) + ", " +
                             (chosen.exclude_outside ? "true" : "false") + ", " + float_literal(chosen.extrapolation) + "}";
  cx.call("resize", {lower::TypeArg::of_axes(out.axes)},
          {Arg::of_tensor(cx.in(0)), Arg::of_extents(out.dims), float_array(scales, "scale"),
           roi.empty() ? Arg::of_code("std::span<const float>{}") : float_array(roi, "roi"),
           Arg::of_code(params, {{loom::Scalar::Index, chosen.mode, "mode"},
                                 {loom::Scalar::Index, chosen.coordinates, "coordinates"},
                                 {loom::Scalar::Index, chosen.rounding, "rounding"},
                                 {loom::Scalar::F32, loom::float_bits(chosen.cubic_a, loom::Scalar::F32), "cubic_a"},
                                 {loom::Scalar::I1, chosen.exclude_outside ? 1u : 0u, "exclude_outside"},
                                 {loom::Scalar::F32, loom::float_bits(chosen.extrapolation, loom::Scalar::F32), "extrapolation"}})});
}

}  // namespace

void register_resize(std::vector<Operator>& r) {
  // Nearest picks elements: a narrow integer stays in range (the others interpolate floats only).
  for (std::string_view domain : {"", "loam"})
    r.push_back({.domain = domain, .op_type = "Resize", .infer = resize, .name_axes = name_resize, .data_operands = first_input,
                 .lower = lower_resize, .keeps_narrow_range = true, .in_scope = true});
}

}  // namespace loam::ops
