// The text `loam check` prints: per node, whether it folded or needs a kernel and its outputs'
// element types and extents (polynomials and derived symbols), then how each input symbol binds and
// every owed condition. Deterministic: it follows graph order.
#pragma once

#include <string>

#include "graph/graph.hpp"
#include "stage0/stage0.hpp"

namespace loam::stage0 {

std::string check_report(const loam::Model& model, const Stage0Result& result);

}  // namespace loam::stage0
