#include "driver/pipeline.hpp"

#include <nlohmann/json.hpp>

#include <fstream>

#include "axes/architecture.hpp"
#include "axes/naming.hpp"
#include "checkpoint/checkpoint.hpp"
#include "driver/bind_checkpoint.hpp"
#include "driver/specialize.hpp"
#include "emit/names.hpp"
#include "loom/syntax.hpp"
#include "loom/verifier.hpp"
#include "lower/module.hpp"
#include "onnx/printer.hpp"
#include "onnx/reader.hpp"
#include "ops/operator.hpp"
#include "stage0/report.hpp"
#include "stage0/stage0.hpp"
#include "support/error.hpp"

namespace loam::driver {

namespace {

// What the passes hand one another.
struct Program {
  const Model& model;
  const Options& options;
  std::vector<std::filesystem::path> checkpoints;
  std::string origin;  // the graph's file name, for messages
  std::string name;    // the module's namespace
  bool fuse = true;
  ReportRequest report;
  std::filesystem::path payload_file;  // where large embedded weights go (empty: the header)
};

// The `ranges` option as the symbol table takes it.
std::map<std::string, stage0::Interval> symbol_ranges(const Options& options) {
  std::map<std::string, stage0::Interval> out;
  for (const auto& [name, r] : options.ranges) out.emplace(name, stage0::Interval::of(r.first, r.second));
  return out;
}

// The pipeline: every pass in order. The readers have read, verified and normalised the graph
// before it starts (a Model is only ever made by them). With `stop`, it gives that stage's printed
// form instead of going on; otherwise it fills `module`.
std::string run(const Program& p, std::optional<Stage> stop, emit::WrittenModule* module) {
  if (stop == Stage::Graph) return print_onnxtext(p.model);
  const stage0::ScopedSymbolRanges ranges(symbol_ranges(p.options));

  // The checkpoints' headers against the graph's initializers (their payloads only for
  // inline_weights, which embeds them).
  emit::ModuleOptions mo;
  mo.name = p.name;
  mo.source_name = p.origin;
  if (!p.payload_file.empty()) mo.payload_file = std::filesystem::absolute(p.payload_file).lexically_normal().string();
  // A published checkpoint's names bound first, where the architecture maps the graph's onto them.
  std::optional<Model> bound;
  if (!p.checkpoints.empty()) {
    Checkpoint ck = load_checkpoint(p.checkpoints);
    if (p.options.architecture)
      bound = bind_checkpoint_names(p.model, ck, axes::find_architecture(*p.options.architecture, p.origin), p.origin);
    const Graph& graph = bound ? bound->graph : p.model.graph;
    check_checkpoint_against_graph(ck, graph, p.origin);
    if (p.options.inline_weights) mo.inline_payloads = read_missing_payloads(ck, graph);
  }
  const Model& read = bound ? *bound : p.model;

  // The options' values fixed, and each If whose condition the build then knows replaced by the
  // branch it takes.
  const std::optional<Model> specialized = specialize(read, p.options, p.origin);
  const Model& model = specialized ? *specialized : read;

  const stage0::Stage0Result st = stage0::run_stage0(model, stage0::Stage0Options::from(p.options, ops::operators(), p.origin));
  if (stop == Stage::Stage0) return stage0::check_report(model, st);

  const axes::AxisNaming naming = axes::name_axes(model, st, axes::effective_layout(model, st, p.options, p.origin), p.origin);
  if (stop == Stage::Axes) return axes::print_naming(naming);

  // The fusion plan is made inside lowering, which asks it node by node.
  lower::LoweredModule lowered = lower::lower_module(model, st, naming, p.origin, {p.fuse});
  lower::verify_lowered(lowered, p.origin);
  lowered.memory = lower::plan_memory(lowered);
  lower::verify_memory_plan(lowered, p.origin);
  if (p.report.text) *p.report.text = lower::fusion_report(model, lowered, p.report.json);
  if (stop == Stage::Lowered) return lower::print_lowered(lowered);
  if (stop == Stage::Memory) return lower::print_memory_plan(lowered);

  // What lowering generated is checked as any Loom module is, before it is printed as C++.
  if (lowered.kernels) loom::verify_module(*lowered.kernels);
  if (lowered.narrow_kernels) loom::verify_module(*lowered.narrow_kernels);
  if (stop == Stage::Loom) return lowered.kernels ? loom::print_module(*lowered.kernels) : std::string();

  emit::WrittenModule written = emit::write_module(lowered, mo);
  if (stop == Stage::Cpp) return written.text;
  *module = std::move(written);
  return {};
}

struct Read {
  Model model;
  Options options;
  std::vector<std::filesystem::path> checkpoints;
};

Read read_request(const BuildRequest& r) {
  Read out;
  out.checkpoints = r.checkpoints;
  if (r.options) {
    out.options = *r.options;
  } else if (r.options_file) {
    out.options = load_options(*r.options_file);
    for (auto& p : resolve_checkpoint_paths(out.options, *r.options_file)) out.checkpoints.push_back(p);
  }
  out.model = read_model_file(r.graph);
  return out;
}

}  // namespace

Stage stage_from_name(const std::string& name) {
  if (name == "graph") return Stage::Graph;
  if (name == "stage0") return Stage::Stage0;
  if (name == "axes") return Stage::Axes;
  if (name == "lowered") return Stage::Lowered;
  if (name == "memory") return Stage::Memory;
  if (name == "loom") return Stage::Loom;
  if (name == "cpp") return Stage::Cpp;
  fail("--emit takes graph, stage0, axes, lowered, memory, loom or cpp, not '" + name + "'");
}

std::string module_name_from_path(const std::filesystem::path& p) { return emit::identifier_spelling(p.stem().string()); }

emit::WrittenModule build_module(const Model& model, const Options& options,
                                 const std::vector<std::filesystem::path>& checkpoints, const std::string& origin,
                                 const std::string& name, bool fuse, const ReportRequest& report,
                                 const std::filesystem::path& payload_file) {
  emit::WrittenModule m;
  run(Program{model, options, checkpoints, origin, name, fuse, report, payload_file}, std::nullopt, &m);
  return m;
}

emit::WrittenModule build_module(const BuildRequest& r, const ReportRequest& report) {
  Read in = read_request(r);
  const std::string name = r.name.empty() ? module_name_from_path(r.graph) : r.name;
  return build_module(in.model, in.options, in.checkpoints, r.graph.filename().string(), name, r.fuse, report, r.payload_file);
}

std::filesystem::path payload_path(const std::filesystem::path& header) {
  std::filesystem::path p = header;
  p += ".weights";
  return p;
}

namespace {

// `bytes` into `target`, through a file beside it renamed over it.
void write_replacing(const std::filesystem::path& target, std::string_view bytes) {
  std::filesystem::path tmp = target;
  tmp += ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) fail(tmp.string() + ": cannot open for writing");
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) fail(tmp.string() + ": write error");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, target, ec);
  if (ec) fail(target.string() + ": cannot write: " + ec.message());
}

}  // namespace

void write_module_files(const emit::WrittenModule& module, const std::filesystem::path& header) {
  if (!module.payload.empty())
    write_replacing(payload_path(header), {reinterpret_cast<const char*>(module.payload.data()), module.payload.size()});
  write_replacing(header, module.text);
}

std::string emit_stage(const BuildRequest& r, Stage stage) {
  Read in = read_request(r);
  const std::string name = r.name.empty() ? module_name_from_path(r.graph) : r.name;
  return run(Program{in.model, in.options, in.checkpoints, r.graph.filename().string(), name, r.fuse, {}}, stage, nullptr);
}

std::vector<LayoutRule> propose_layout(const Model& read, const Options& options, const std::string& origin) {
  const stage0::ScopedSymbolRanges ranges(symbol_ranges(options));
  const std::optional<Model> specialized = specialize(read, options, origin);
  const Model& model = specialized ? *specialized : read;
  stage0::Stage0Result st = stage0::run_stage0(model, stage0::Stage0Options::from(options, ops::operators(), origin));
  // With an architecture, the layout the build would read: the options', the table's, the rest.
  if (options.architecture) return axes::effective_layout(model, st, options, origin);
  return axes::propose_layout(model, st, origin);
}

std::string propose_layout_json(const Model& read, const Options& options, const std::string& origin) {
  const auto rules = propose_layout(read, options, origin);
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
  if (!options.values.empty()) {
    nlohmann::json values = nlohmann::json::object();
    for (const auto& [k, v] : options.values) values[k] = v.real ? nlohmann::json(v.reals) : nlohmann::json(v.integers);
    out += ",\n  \"values\": " + values.dump();
  }
  if (!options.input_shapes.empty()) {
    nlohmann::json shapes = nlohmann::json::object();
    for (const auto& [k, dims] : options.input_shapes) {
      nlohmann::json s = nlohmann::json::array();
      for (const auto& d : dims)
        s.push_back(std::holds_alternative<int64_t>(d) ? nlohmann::json(std::get<int64_t>(d)) : nlohmann::json(std::get<std::string>(d)));
      shapes[k] = std::move(s);
    }
    out += ",\n  \"input_shapes\": " + shapes.dump();
  }
  out += "\n}\n";
  return out;
}

}  // namespace loam::driver
