// `loam inspect MODEL [--json]`: reads a model (either ONNX form) and prints its summary.
#include <cstdio>

#include "onnx/reader.hpp"
#include "onnx/summary.hpp"
#include "subcommand.hpp"

namespace {

struct InspectArgs {
  std::string model;
  bool json = false;
};

loam::cli::SubcommandRegistration inspect_registration([](CLI::App& app) -> loam::cli::Run {
  auto args = std::make_shared<InspectArgs>();
  CLI::App* sub = app.add_subcommand("inspect", "Print a model's opsets, inputs, outputs, initializers and operators");
  sub->add_option("MODEL", args->model, "model file (.onnx or .onnxtext)")->required();
  sub->add_flag("--json", args->json, "print one JSON object");
  return [args]() {
    loam::Model m = loam::read_model_file_as_written(args->model);
    loam::ModelSummary s = loam::summarize(m);
    std::string text = args->json ? loam::summary_json(s) : loam::summary_text(s);
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
  };
});

}  // namespace
