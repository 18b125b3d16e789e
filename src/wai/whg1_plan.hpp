// Planning a WHG1 graph's shapes: at load (§10.5 step 7) and at each decode (§4 run step 3).
#pragma once

#include "wai/ops.hpp"
#include "wai/whg1.hpp"

#include <optional>
#include <span>
#include <vector>

namespace loam::wai {

// §10.5 step 7. First every operator's channel counts (the rules that read only channels, and
// each output's channels against its tensor record), then, when the inputs declare their sizes,
// every shape planned on max_h and max_w (a size past a cap is too_large). A graph with a gram,
// l2norm or softmax whose inputs do not declare sizes is refused. Throws RefusalError; returns
// every tensor's shape at the declared sizes, or nullopt when the inputs declare none.
std::optional<std::vector<Shape>> plan_at_load(const Whg1Graph& g, const std::string& source);

// §4 run step 3: every operator in graph order on this decode's input shapes (`input_shapes`, in
// input-table order, state inputs included) and scalar values. Throws RefusalError with
// too_large or geometry_mismatch; returns every tensor's shape.
std::vector<Shape> plan_at_run(const Whg1Graph& g, std::span<const Shape> input_shapes,
                               std::span<const std::int64_t> scalar_values);

}  // namespace loam::wai
