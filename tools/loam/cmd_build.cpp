// loam build GRAPH [--checkpoint FILE]... [--options F] -o NAME.hpp [--name NAME] [--emit=STAGE]
//            [--no-fuse] [--report FILE [--json]]
// Writes one self-contained C++ header for the model; a refusal prints the error naming the file,
// node, tensor and axis, and exits 1 without writing. --emit=graph|stage0|axes|lowered|memory|loom|cpp
// prints the program after that stage instead (to -o, or standard output). --report writes what
// fusion decided for every node (`-`: standard output). Embedded weights of 1 MiB or more go to
// NAME.hpp.weights beside the header, which assembles them in. On a terminal, a read or write of
// more than 64 MiB says so as it starts and when it ends.
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <fstream>
#include <memory>

#include "driver/pipeline.hpp"
#include "subcommand.hpp"
#include "support/error.hpp"

namespace {

struct BuildArgs {
  std::string graph;
  std::vector<std::string> checkpoints;
  std::string options;
  std::string output;
  std::string name;
  std::string emit;
  bool no_fuse = false;
  std::string report;
  bool json = false;
};

void write_file(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::fputs(text.c_str(), stdout);
    return;
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!(out << text)) loam::fail(path + ": cannot write");
}

// Progress on a terminal for a step moving more than 64 MiB (a large graph read, its weights
// written): one line when it starts, finished when it ends. Nothing when standard error is no
// terminal, so scripts and logs see only errors.
class Progress {
 public:
  Progress(const std::string& what, std::uintmax_t bytes)
      : on_(bytes > (std::uintmax_t{64} << 20) && isatty(2)), failing_(std::uncaught_exceptions()) {
    if (on_) std::fprintf(stderr, "loam build: %s (%.0f MiB)...", what.c_str(), static_cast<double>(bytes) / (1 << 20));
  }
  ~Progress() {
    // A step that threw ends its line; the error follows.
    if (on_) std::fputs(std::uncaught_exceptions() > failing_ ? "\n" : " done\n", stderr);
  }

 private:
  bool on_;
  int failing_;
};

std::uintmax_t file_size_or_zero(const std::filesystem::path& p) {
  std::error_code ec;
  const auto n = std::filesystem::file_size(p, ec);
  return ec ? 0 : n;
}

const loam::cli::SubcommandRegistration build_registration([](CLI::App& app) -> loam::cli::Run {
  auto args = std::make_shared<BuildArgs>();
  CLI::App* sub = app.add_subcommand("build", "Generate a typed C++ header for a model");
  sub->add_option("graph", args->graph, "the model (.onnx or .onnxtext)")->required();
  sub->add_option("--checkpoint", args->checkpoints, "a safetensors checkpoint (repeatable)");
  sub->add_option("--options", args->options, "options JSON (layout, dims, outputs, ...)");
  sub->add_option("-o,--output", args->output, "the header to write (with --emit, standard output if left out)");
  sub->add_option("--name", args->name, "the module's namespace (default: from the output file name)");
  sub->add_option("--emit", args->emit, "print the program after a stage instead: graph, stage0, axes, lowered, memory, loom or cpp");
  sub->add_flag("--no-fuse", args->no_fuse, "one kernel per node (weights are still packed at load)");
  sub->add_option("--report", args->report, "write what fusion decided for every node to FILE ('-': standard output)");
  sub->add_flag("--json", args->json, "the report as JSON")->needs(sub->get_option("--report"));
  return [args]() -> int {
    loam::driver::BuildRequest r;
    r.graph = args->graph;
    for (auto& c : args->checkpoints) r.checkpoints.emplace_back(c);
    if (!args->options.empty()) r.options_file = args->options;
    const std::filesystem::path named = args->output.empty() ? std::filesystem::path(args->graph) : std::filesystem::path(args->output);
    r.name = args->name.empty() ? loam::driver::module_name_from_path(named) : args->name;
    r.fuse = !args->no_fuse;
    if (!args->emit.empty()) {
      if (!args->report.empty()) loam::fail("--report writes the report of a build; leave out --emit");
      const std::string text = loam::driver::emit_stage(r, loam::driver::stage_from_name(args->emit));
      if (args->output.empty()) {
        std::fputs(text.c_str(), stdout);
        return 0;
      }
      write_file(args->output, text);
      return 0;
    }
    if (args->output.empty()) loam::fail("loam build needs -o FILE (or --emit=STAGE to print a stage)");
    std::string report;
    loam::driver::ReportRequest rr;
    if (!args->report.empty()) rr = {&report, args->json};
    // Large embedded weights go beside the header (HEADER.weights), which assembles them in.
    r.payload_file = loam::driver::payload_path(args->output);
    std::uintmax_t read_bytes = file_size_or_zero(r.graph);
    for (const auto& c : r.checkpoints) read_bytes += file_size_or_zero(c);
    loam::emit::WrittenModule m;
    {
      Progress reading("reading and building " + r.graph.filename().string(), read_bytes);
      m = loam::driver::build_module(r, rr);
    }
    {
      Progress writing("writing " + r.payload_file.string(), m.payload.size());
      loam::driver::write_module_files(m, args->output);
    }
    if (!args->report.empty()) write_file(args->report, report);
    return 0;
  };
});

}  // namespace
