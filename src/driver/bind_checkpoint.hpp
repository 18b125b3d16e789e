// Binding a published checkpoint to the graph (the `architecture` option): a parameter the graph
// holds without values, under a name the checkpoint does not have, is looked up under the names the
// architecture table maps it to (the parameter a torch-made name stores, a prefix dropped or added,
// a tie), and the graph is rewritten to read the checkpoint's tensor: renamed where the orientations
// agree, through a Transpose where the graph holds the transpose (a MatMul reading a Transpose of a
// weight packs it transposed at load, so this costs nothing at run time).
#pragma once

#include <optional>
#include <string>

#include "axes/architecture.hpp"
#include "checkpoint/checkpoint.hpp"
#include "graph/graph.hpp"

namespace loam::driver {

// The model reading the checkpoint's names, or nullopt where every parameter the graph lacks is
// already in it under the graph's name. Throws naming the initializer and every name tried where
// the checkpoint has none of them, or has one in another shape.
std::optional<Model> bind_checkpoint_names(const Model& model, const Checkpoint& checkpoint,
                                           const axes::Architecture& architecture, const std::string& origin);

}  // namespace loam::driver
