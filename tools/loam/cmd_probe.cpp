// loam probe CHECKPOINT... --stamp FILE [--options F]
// Writes FILE with digests of what a build depends on in the checkpoints (their header bytes, or
// whole files under inline_weights) and the canonical options, only when that differs from what FILE
// holds. A build system keys regeneration on FILE, so a payload-only change regenerates nothing.
#include <cstdio>
#include <memory>
#include <optional>

#include "checkpoint/probe.hpp"
#include "options/options.hpp"
#include "subcommand.hpp"

namespace {

struct ProbeArgs {
  std::vector<std::string> checkpoints;
  std::string stamp;
  std::string options;
};

const loam::cli::SubcommandRegistration probe_registration([](CLI::App& app) -> loam::cli::Run {
  auto args = std::make_shared<ProbeArgs>();
  CLI::App* sub = app.add_subcommand(
      "probe", "Write a stamp keyed on checkpoint headers (and options); touch it only when they change");
  sub->add_option("checkpoints", args->checkpoints,
                  "safetensors files, or model.safetensors.index.json for a sharded checkpoint");
  sub->add_option("--stamp", args->stamp, "the stamp file to write")->required();
  sub->add_option("--options", args->options, "options JSON; its checkpoints are probed too");
  return [args]() -> int {
    std::vector<std::filesystem::path> files(args->checkpoints.begin(), args->checkpoints.end());
    std::optional<loam::Options> options;
    if (!args->options.empty()) {
      options = loam::load_options(args->options);
      for (auto& p : loam::resolve_checkpoint_paths(*options, args->options)) files.push_back(p);
    }
    std::string text = loam::probe_stamp_text(files, options ? &*options : nullptr);
    loam::write_stamp_if_changed(args->stamp, text);
    return 0;
  };
});

}  // namespace
