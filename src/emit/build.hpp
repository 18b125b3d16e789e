// `loam build`: graph (+ checkpoint headers, + options) to one C++ header. Reads the graph, checks
// each checkpoint's header against its initializers, runs stage 0, names every axis, lowers every
// node and writes the module.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "emit/module_writer.hpp"
#include "graph/graph.hpp"
#include "options/options.hpp"

namespace loam::emit {

struct BuildRequest {
  std::filesystem::path graph;
  std::vector<std::filesystem::path> checkpoints;  // besides those the options list
  std::optional<std::filesystem::path> options_file;
  std::optional<Options> options;  // used instead of reading options_file, when given
  std::string name;                // module namespace; empty: from the output or graph file name
};

// Builds the module. Throws loam::Error naming the file, node, tensor and axis where the build stops.
WrittenModule build_module(const BuildRequest& request);
// The same from a model already read (the graph's file name is `origin`).
WrittenModule build_module(const Model& model, const Options& options,
                           const std::vector<std::filesystem::path>& checkpoints, const std::string& origin,
                           const std::string& name);

// A module name from a file name: "mnist-12.hpp" -> "mnist_12".
std::string module_name_from_path(const std::filesystem::path& p);

// A starting layout for `model` (see axes::propose_layout), as the JSON text of an options file.
std::string propose_layout_json(const Model& model, const Options& options, const std::string& origin);

}  // namespace loam::emit
