// Normalizations: Softmax, LogSoftmax, Hardmax (and the pre-opset-13 flattened forms the readers
// spell loam.SoftmaxFlattened / loam.LogSoftmaxFlattened), LayerNormalization, BatchNormalization,
// InstanceNormalization. Each keeps its input's shape; the rules check axes and parameter shapes.
#include "ops/op.hpp"
#include "support/error.hpp"

namespace loam::ops {

namespace {

void softmax(OpContext& c) {
  const auto& x = c.input(0);
  bool flattened = c.node.domain == "loam";
  if (x.dims.empty()) c.error("takes no scalar");
  c.axis(c.attr_int("axis", flattened ? 1 : -1), x.dims.size(), "attribute 'axis'");
  c.set_output(0, x.elem, x.dims);
}

// A per-channel parameter: 1-D of the channel extent.
void channel_param(OpContext& c, std::size_t i, const Extent& channels, const std::string& what) {
  if (!c.has_input(i)) return;
  const auto& p = c.input(i);
  if (p.dims.size() != 1) c.error(what + " " + c.tensor(i) + " must be 1-D, not " + p.shape_string());
  c.equal(p.dims[0], channels, what + " " + c.tensor(i) + " (" + p.dims[0].to_string() + ") and the channels (" + channels.to_string() + ")");
}

void batch_norm(OpContext& c) {
  const auto& x = c.input(0);
  if (x.dims.size() < 2) c.error(c.tensor(0) + " " + x.shape_string() + " has no channel axis");
  const Extent& ch = x.dims[1];
  channel_param(c, 1, ch, "the scale");
  channel_param(c, 2, ch, "the bias");
  channel_param(c, 3, ch, "the mean");
  channel_param(c, 4, ch, "the variance");
  c.set_output(0, x.elem, x.dims);
  for (std::size_t k = 1; k < c.out.size(); ++k)
    if (!c.out[k].name.empty()) c.error("produces training outputs, which inference does not compute");
}

void instance_norm(OpContext& c) {
  const auto& x = c.input(0);
  if (x.dims.size() < 3) c.error(c.tensor(0) + " " + x.shape_string() + " has no spatial axis");
  channel_param(c, 1, x.dims[1], "the scale");
  channel_param(c, 2, x.dims[1], "the bias");
  c.set_output(0, x.elem, x.dims);
}

void layer_norm(OpContext& c) {
  const auto& x = c.input(0);
  std::size_t r = x.dims.size();
  if (r == 0) c.error("takes no scalar");
  std::size_t ax = c.axis(c.attr_int("axis", -1), r, "attribute 'axis'");
  std::vector<Extent> normalized(x.dims.begin() + static_cast<std::ptrdiff_t>(ax), x.dims.end());
  for (std::size_t i = 1; i < 3; ++i) {
    if (!c.has_input(i)) continue;
    const char* what = i == 1 ? "the scale" : "the bias";
    // Scale and bias broadcast unidirectionally to the normalized axes.
    auto r2 = c.broadcast_shapes({normalized, c.input(i).dims}, {"the normalized axes", c.tensor(i)});
    if (r2.size() != normalized.size()) c.error(std::string(what) + " " + c.tensor(i) + " " + c.input(i).shape_string() + " has more axes than the normalized ones");
    for (std::size_t k = 0; k < r2.size(); ++k)
      if (!(r2[k] == normalized[k])) c.error(std::string(what) + " " + c.tensor(i) + " " + c.input(i).shape_string() + " stretches the normalized axes");
  }
  c.set_output(0, x.elem, x.dims);
  std::vector<Extent> stat(x.dims.begin(), x.dims.begin() + static_cast<std::ptrdiff_t>(ax));
  while (stat.size() < r) stat.emplace_back(1);
  ElementType st = static_cast<ElementType>(c.attr_int("stash_type", 1));
  for (std::size_t k = 1; k < c.out.size() && k < 3; ++k)
    if (!c.out[k].name.empty()) c.set_output(k, st, stat);
}

}  // namespace

void register_normalization(std::vector<OpRule>& r) {
  r.push_back({"", "Softmax", softmax});
  r.push_back({"", "LogSoftmax", softmax});
  r.push_back({"", "Hardmax", softmax});
  r.push_back({"loam", "SoftmaxFlattened", softmax});
  r.push_back({"loam", "LogSoftmaxFlattened", softmax});
  r.push_back({"", "BatchNormalization", batch_norm});
  r.push_back({"", "InstanceNormalization", instance_norm});
  r.push_back({"", "LayerNormalization", layer_norm});
}

}  // namespace loam::ops
