// Invocation options: one JSON file, checked against a schema, whose errors name the key.
// The same options feed `loam check`, `loam build`, `loam test-case` and the CMake function; their
// canonical form (sorted keys, no whitespace) is what any cache key is computed from.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace loam {

// One `layout` rule: tensors whose name matches `pattern` (a shell wildcard; `graph`, when given,
// restricts it to the graph of that name) get these axis names, one per position. A merged axis is
// written "(C H W)".
struct LayoutRule {
  std::optional<std::string> graph;
  std::string pattern;
  std::vector<std::string> axes;
  bool operator==(const LayoutRule&) const = default;
};

// One `values` entry: the elements a graph input is fixed to at build time, row-major. Integers
// stay exact; one element written with a fraction or exponent makes them all reals.
struct FixedValue {
  std::vector<int64_t> integers;
  std::vector<double> reals;
  bool real = false;
  std::size_t size() const { return real ? reals.size() : integers.size(); }
  bool operator==(const FixedValue&) const = default;
};

struct Options {
  std::vector<LayoutRule> layout;                 // ordered; the first rule that matches wins
  std::optional<std::string> architecture;        // one of architecture_names(): a built-in table
  std::map<std::string, int64_t> dims;            // dim_param -> static extent
  // dim_param -> the lengths it may take, [lo, hi] within [0, 2^31 - 1]: stage 0 proves with them
  // and forward refuses a length outside them
  std::map<std::string, std::pair<int64_t, int64_t>> ranges;
  std::map<std::string, FixedValue> values;       // graph input -> its value, fixed at build time
  // graph input -> its shape, restating the one the graph declares: each a length or a dim_param
  // spelling ("past + seq"; "?" names nothing)
  std::map<std::string, std::vector<std::variant<int64_t, std::string>>> input_shapes;
  std::optional<std::vector<std::string>> outputs;  // graph outputs forward returns
  bool inline_weights = false;
  std::vector<std::string> checkpoints;           // safetensors files (paths relative to the options file)
  bool webgpu = false;                            // accepted, not read yet
  bool operator==(const Options&) const = default;
};

// The architecture tables Loam ships (src/axes/architecture.cpp holds them), the names
// `architecture` may take.
const std::vector<std::string>& architecture_names();

// Parses and validates options JSON. `origin` names the file in errors ("opts.json: key
// 'layout[2].axes[0]': expected a string").
Options parse_options(std::string_view json_text, const std::string& origin);
Options load_options(const std::filesystem::path& file);
// Canonical JSON: keys sorted, no whitespace, defaults written out; equal options give equal bytes.
std::string canonical_options_json(const Options& options);
// The options' checkpoint paths as files: a relative path is read from the options file's directory.
std::vector<std::filesystem::path> resolve_checkpoint_paths(const Options& options,
                                                            const std::filesystem::path& options_file);

}  // namespace loam
