// `loam build`, as one list of passes: read the graph (its readers verify it and restate it in the
// current opset), check the checkpoints' headers against it, stage 0, name the axes, plan fusion
// and lower, verify the generated Loom kernels, and write the module. Each stage's result can be
// printed instead of going on (`--emit=`): the graph as .onnxtext, stage 0's extents and owed
// conditions, every value's axis names, the lowered kernel calls, the Loom kernels, the C++ module.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "emit/module_writer.hpp"
#include "graph/graph.hpp"
#include "options/options.hpp"

namespace loam::driver {

enum class Stage { Graph, Stage0, Axes, Lowered, Memory, Loom, Cpp };

// "graph", "stage0", "axes", "lowered", "memory", "loom", "cpp"; refuses any other word, listing the stages.
Stage stage_from_name(const std::string& name);

struct BuildRequest {
  std::filesystem::path graph;
  std::vector<std::filesystem::path> checkpoints;  // besides those the options list
  std::optional<std::filesystem::path> options_file;
  std::optional<Options> options;  // used instead of reading options_file, when given
  std::string name;                // module namespace; empty: from the graph file name
  bool fuse = true;                // false: one kernel per node (`--no-fuse`)
  // Where large embedded weights go (emit::ModuleOptions::payload_file); empty: into the header.
  std::filesystem::path payload_file;
};

// The fusion report (`--report`): for every node, its kernel, what it was fused with, or why not.
struct ReportRequest {
  std::string* text = nullptr;  // filled when given
  bool json = false;
};

// Builds the module. Throws loam::Error naming the file, node, tensor and axis where the build stops.
emit::WrittenModule build_module(const BuildRequest& request, const ReportRequest& report = {});
// The same from a model already read (the graph's file name is `origin`).
emit::WrittenModule build_module(const Model& model, const Options& options,
                                 const std::vector<std::filesystem::path>& checkpoints, const std::string& origin,
                                 const std::string& name, bool fuse = true, const ReportRequest& report = {},
                                 const std::filesystem::path& payload_file = {});

// The file beside a header that holds its large embedded weights (BuildRequest::payload_file).
std::filesystem::path payload_path(const std::filesystem::path& header);
// Writes a built module: its weights' file (when it has one, at payload_path(header)), then the
// header, each written beside its target and renamed, so a failed write never leaves half a file.
void write_module_files(const emit::WrittenModule& module, const std::filesystem::path& header);

// Runs the passes up to `stage` and gives its printed form.
std::string emit_stage(const BuildRequest& request, Stage stage);

// A module name from a file name: "mnist-12.hpp" -> "mnist_12".
std::string module_name_from_path(const std::filesystem::path& p);

// A starting layout for `model` as specialised by `options` (see axes::propose_layout; where the
// options name an architecture, the layout the build reads, axes::effective_layout).
std::vector<LayoutRule> propose_layout(const Model& model, const Options& options, const std::string& origin);

// The same as the JSON text of an options file.
std::string propose_layout_json(const Model& model, const Options& options, const std::string& origin);

}  // namespace loam::driver
