// Specialisation, the first pass: the options' `input_shapes` restate graph inputs' declared shapes,
// their `values` fix graph inputs at build time (each becomes an initializer the graph carries, and
// leaves forward's signature), and every top-level If
// whose condition the build then knows is replaced by the nodes of the branch it takes, until no
// such If is left (a branch taken may hold another). A model with none of these is returned as nullopt:
// the passes read it unchanged.
#pragma once

#include <optional>
#include <string>

#include "graph/graph.hpp"
#include "options/options.hpp"

namespace loam::driver {

std::optional<Model> specialize(const Model& model, const Options& options, const std::string& origin);

}  // namespace loam::driver
