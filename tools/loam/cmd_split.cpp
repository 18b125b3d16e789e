// loam split MODEL -o DIR
// Writes DIR/<stem>.onnxtext, the graph as ONNX's textual form with its float initializers' values
// left out, and DIR/<stem>.safetensors holding those values under the initializers' names. Building
// the text with the checkpoint in the options' `checkpoints` behaves as building MODEL.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>

#include "driver/split.hpp"
#include "onnx/reader.hpp"
#include "subcommand.hpp"
#include "support/error.hpp"

namespace {

struct SplitArgs {
  std::string model;
  std::string output;
};

void write_file(const std::filesystem::path& path, const void* data, std::size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) loam::fail(path.string() + ": cannot open for writing");
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out) loam::fail(path.string() + ": write failed");
}

const loam::cli::SubcommandRegistration split_registration([](CLI::App& app) -> loam::cli::Run {
  auto args = std::make_shared<SplitArgs>();
  CLI::App* sub = app.add_subcommand("split", "Split a model into ONNX text without float weights and a safetensors checkpoint");
  sub->add_option("model", args->model, "the model (.onnx or .onnxtext)")->required();
  sub->add_option("-o,--output", args->output, "the directory to write <stem>.onnxtext and <stem>.safetensors in")->required();
  return [args]() -> int {
    const loam::Model model = loam::read_model_file_as_written(args->model);
    const loam::driver::SplitModel split = loam::driver::split_model(model);
    const std::filesystem::path dir(args->output);
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) loam::fail(args->output + ": " + ec.message());
    const std::string stem = std::filesystem::path(args->model).stem().string();
    const std::filesystem::path text = dir / (stem + ".onnxtext"), checkpoint = dir / (stem + ".safetensors");
    write_file(text, split.text.data(), split.text.size());
    write_file(checkpoint, split.checkpoint.data(), split.checkpoint.size());
    std::printf("%s: the graph\n%s: the values of %zu float initializers (give it in the options' \"checkpoints\")\n",
                text.string().c_str(), checkpoint.string().c_str(), split.moved);
    return 0;
  };
});

}  // namespace
