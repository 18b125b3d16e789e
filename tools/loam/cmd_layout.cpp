// loam layout MODEL [--options F] [-o FILE]
// Proposes a starting layout for a model that has none: axes the graph's operators make meet share
// one name, and each name is generated from its length (D28, One) or its dim_param. The result is
// an options file for the user to review and edit; `build` never falls back to it silently.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>

#include "driver/pipeline.hpp"
#include "onnx/reader.hpp"
#include "options/options.hpp"
#include "subcommand.hpp"
#include "support/error.hpp"

namespace {

struct LayoutArgs {
  std::string model;
  std::string options;
  std::string output;
};

const loam::cli::SubcommandRegistration layout_registration([](CLI::App& app) -> loam::cli::Run {
  auto args = std::make_shared<LayoutArgs>();
  CLI::App* sub = app.add_subcommand("layout", "Propose a starting layout (an options file) for a model");
  sub->add_option("model", args->model, "the model (.onnx or .onnxtext)")->required();
  sub->add_option("--options", args->options, "options whose dims and outputs apply");
  sub->add_option("-o,--output", args->output, "write the options file here instead of stdout");
  return [args]() -> int {
    loam::Options options;
    if (!args->options.empty()) options = loam::load_options(args->options);
    loam::Model model = loam::read_model_file(args->model);
    std::string json = loam::driver::propose_layout_json(model, options, std::filesystem::path(args->model).filename().string());
    if (args->output.empty()) {
      std::cout << json;
    } else {
      std::ofstream out(args->output, std::ios::binary | std::ios::trunc);
      if (!out) loam::fail(args->output + ": cannot open for writing");
      out << json;
    }
    return 0;
  };
});

}  // namespace
