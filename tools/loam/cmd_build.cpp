// loam build GRAPH [--checkpoint FILE]... [--options F] -o NAME.hpp [--name NAME] [--emit=STAGE]
// Writes one self-contained C++ header for the model; a refusal prints the error naming the file,
// node, tensor and axis, and exits 1 without writing. --emit=graph|stage0|axes|lowered|cpp prints
// the program after that stage instead (to -o, or standard output).
#include <cstdio>
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
};

const loam::cli::SubcommandRegistration build_registration([](CLI::App& app) -> loam::cli::Run {
  auto args = std::make_shared<BuildArgs>();
  CLI::App* sub = app.add_subcommand("build", "Generate a typed C++ header for a model");
  sub->add_option("graph", args->graph, "the model (.onnx or .onnxtext)")->required();
  sub->add_option("--checkpoint", args->checkpoints, "a safetensors checkpoint (repeatable)");
  sub->add_option("--options", args->options, "options JSON (layout, dims, outputs, ...)");
  sub->add_option("-o,--output", args->output, "the header to write (with --emit, standard output if left out)");
  sub->add_option("--name", args->name, "the module's namespace (default: from the output file name)");
  sub->add_option("--emit", args->emit, "print the program after a stage instead: graph, stage0, axes, lowered or cpp");
  return [args]() -> int {
    loam::driver::BuildRequest r;
    r.graph = args->graph;
    for (auto& c : args->checkpoints) r.checkpoints.emplace_back(c);
    if (!args->options.empty()) r.options_file = args->options;
    const std::filesystem::path named = args->output.empty() ? std::filesystem::path(args->graph) : std::filesystem::path(args->output);
    r.name = args->name.empty() ? loam::driver::module_name_from_path(named) : args->name;
    if (!args->emit.empty()) {
      const std::string text = loam::driver::emit_stage(r, loam::driver::stage_from_name(args->emit));
      if (args->output.empty()) {
        std::fputs(text.c_str(), stdout);
        return 0;
      }
      std::ofstream out(args->output, std::ios::binary | std::ios::trunc);
      if (!(out << text)) loam::fail(args->output + ": cannot write");
      return 0;
    }
    if (args->output.empty()) loam::fail("loam build needs -o FILE (or --emit=STAGE to print a stage)");
    loam::emit::WrittenModule m = loam::driver::build_module(r);
    // Written beside the target and renamed, so a failed build never leaves half a header.
    std::string tmp = args->output + ".tmp";
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      if (!out) loam::fail(tmp + ": cannot open for writing");
      out << m.text;
      if (!out) loam::fail(tmp + ": write error");
    }
    std::error_code ec;
    std::filesystem::rename(tmp, args->output, ec);
    if (ec) loam::fail(args->output + ": cannot write: " + ec.message());
    return 0;
  };
});

}  // namespace
