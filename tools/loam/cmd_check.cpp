// loam check MODEL [--options F]
// Reads the model, specialises it by the options (input_shapes, values) and runs stage 0, as
// `loam build --emit=stage0` does, printing per node the output extents (polynomials and derived
// symbols) and every owed condition. A shape error exits non-zero naming node, tensor and axis.
#include <cstdio>
#include <memory>

#include "driver/pipeline.hpp"
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
  sub->add_option("--options", args->options, "options JSON (dims, outputs, values, input_shapes)");
  return [args]() -> int {
    loam::driver::BuildRequest request;
    request.graph = args->model;
    if (!args->options.empty()) request.options_file = args->options;
    std::fputs(loam::driver::emit_stage(request, loam::driver::Stage::Stage0).c_str(), stdout);
    return 0;
  };
});

}  // namespace
