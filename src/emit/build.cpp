#include "emit/build.hpp"

#include <fstream>

#include <nlohmann/json.hpp>

#include "axes/naming.hpp"
#include "checkpoint/checkpoint.hpp"
#include "emit/names.hpp"
#include "lower/module.hpp"
#include "onnx/reader.hpp"
#include "stage0/stage0.hpp"
#include "support/error.hpp"

namespace loam::emit {

std::string module_name_from_path(const std::filesystem::path& p) {
  std::string stem = p.stem().string();
  return identifier_spelling(stem);
}

WrittenModule build_module(const Model& model, const Options& options,
                           const std::vector<std::filesystem::path>& checkpoints, const std::string& origin,
                           const std::string& name) {
  ModuleOptions mo;
  mo.name = name;
  mo.source_name = origin;
  if (!checkpoints.empty()) {
    Checkpoint ck = load_checkpoint(checkpoints);
    check_checkpoint_against_graph(ck, model.graph, origin);
    if (options.inline_weights) {
      // inline_weights: the payload of every weight the graph lacks data for goes into the module.
      for (const auto& init : model.graph.initializers) {
        if (init.has_data) continue;
        auto e = ck.find(init.name);
        if (!e) continue;
        const auto& shard = ck.shards.at(e->shard);
        std::ifstream in(shard.origin, std::ios::binary);
        if (!in) fail(shard.origin + ": cannot open for reading");
        std::vector<std::byte> bytes(e->tensor->end - e->tensor->begin);
        in.seekg(static_cast<std::streamoff>(shard.payload_offset() + e->tensor->begin));
        if (!in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size())))
          fail(shard.origin + ": tensor '" + init.name + "': cannot read its payload");
        mo.inline_payloads[init.name] = std::move(bytes);
      }
    }
  }
  stage0::Stage0Result st = stage0::run_stage0(model, stage0::Stage0Options::from(options, origin));
  axes::AxisNaming naming = axes::name_axes(model, st, options.layout, origin);
  lower::LoweredModule lowered = lower::lower_module(model, st, naming, origin);
  return write_module(lowered, mo);
}

WrittenModule build_module(const BuildRequest& r) {
  Options options;
  std::vector<std::filesystem::path> checkpoints = r.checkpoints;
  if (r.options) {
    options = *r.options;
  } else if (r.options_file) {
    options = load_options(*r.options_file);
    for (auto& p : resolve_checkpoint_paths(options, *r.options_file)) checkpoints.push_back(p);
  }
  Model model = read_model_file(r.graph);
  std::string name = r.name.empty() ? module_name_from_path(r.graph) : r.name;
  return build_module(model, options, checkpoints, r.graph.filename().string(), name);
}

std::string propose_layout_json(const Model& model, const Options& options, const std::string& origin) {
  stage0::Stage0Result st = stage0::run_stage0(model, stage0::Stage0Options::from(options, origin));
  auto rules = axes::propose_layout(model, st, origin);
  // Written by hand so the keys keep a reading order (graph, pattern, then axes) and each rule is a line.
  std::string out = "{\n  \"layout\": [\n";
  for (std::size_t i = 0; i < rules.size(); ++i) {
    nlohmann::json axes = rules[i].axes;
    out += "    {";
    if (rules[i].graph) out += "\"graph\": " + nlohmann::json(*rules[i].graph).dump() + ", ";
    out += "\"pattern\": " + nlohmann::json(rules[i].pattern).dump() + ", \"axes\": " + axes.dump() + "}";
    out += i + 1 < rules.size() ? ",\n" : "\n";
  }
  out += "  ]";
  if (!options.dims.empty()) out += ",\n  \"dims\": " + nlohmann::json(options.dims).dump();
  out += "\n}\n";
  return out;
}

}  // namespace loam::emit
