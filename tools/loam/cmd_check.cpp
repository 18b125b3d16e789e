// loam check MODEL [--options F]
// Reads the model, runs stage 0 and prints per node the output extents (polynomials and derived
// symbols) and every owed condition. A shape error exits non-zero naming node, tensor and axis.
#include <cstdio>
#include <memory>

#include "onnx/reader.hpp"
#include "ops/operator.hpp"
#include "options/options.hpp"
#include "stage0/report.hpp"
#include "stage0/stage0.hpp"
#include "subcommand.hpp"

namespace {

struct CheckArgs {
  std::string model;
  std::string options;
};

const loam::cli::SubcommandRegistration check_registration([](CLI::App& app) -> loam::cli::Run {
  auto args = std::make_shared<CheckArgs>();
  CLI::App* sub = app.add_subcommand("check", "Run the readers and stage 0; print extents and owed conditions");
  sub->add_option("model", args->model, "the model (.onnx or .onnxtext)")->required();
  sub->add_option("--options", args->options, "options JSON (dims, outputs)");
  return [args]() -> int {
    loam::Options options;
    if (!args->options.empty()) options = loam::load_options(args->options);
    loam::Model model = loam::read_model_file(args->model);
    auto opts = loam::stage0::Stage0Options::from(options, loam::ops::operators(), std::filesystem::path(args->model).filename().string());
    loam::stage0::Stage0Result result = loam::stage0::run_stage0(model, opts);
    std::fputs(loam::stage0::check_report(model, result).c_str(), stdout);
    return 0;
  };
});

}  // namespace
