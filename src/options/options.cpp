#include "options/options.hpp"

#include <algorithm>
#include <cmath>

#include <fstream>
#include <iterator>
#include <limits>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "options/layout_syntax.hpp"
#include "options/strict_json.hpp"
#include "support/error.hpp"

namespace loam {

namespace {

using json = nlohmann::json;

// Reads one options document, remembering where it came from so every refusal names the file and
// the key path.
class OptionsReader {
 public:
  explicit OptionsReader(const std::string& origin) : origin_(origin) {}

  Options read(const json& root) {
    if (!root.is_object()) fail(origin_ + ": expected a JSON object at the top level");
    refuse_unknown(root, "", {"architecture", "checkpoints", "dims", "inline_weights", "input_shapes", "layout",
                              "outputs", "ranges", "values", "webgpu"});
    Options o;
    if (auto* v = optional_field(root, "layout")) o.layout = read_layout(*v, "layout");
    if (auto* v = optional_field(root, "architecture")) o.architecture = read_architecture(*v, "architecture");
    if (auto* v = optional_field(root, "dims")) o.dims = read_dims(*v, "dims");
    if (auto* v = optional_field(root, "ranges")) o.ranges = read_ranges(*v, "ranges");
    for (const auto& [name, range] : o.ranges)
      if (o.dims.count(name)) fail_at(json_key_path_join("ranges", name), "'" + name + "' is fixed by dims too");
    if (auto* v = optional_field(root, "outputs")) o.outputs = read_outputs(*v, "outputs");
    if (auto* v = optional_field(root, "values")) o.values = read_values(*v, "values");
    if (auto* v = optional_field(root, "input_shapes")) o.input_shapes = read_input_shapes(*v, "input_shapes");
    if (auto* v = optional_field(root, "inline_weights")) o.inline_weights = read_bool(*v, "inline_weights");
    if (auto* v = optional_field(root, "checkpoints")) o.checkpoints = read_checkpoints(*v, "checkpoints");
    if (auto* v = optional_field(root, "webgpu")) o.webgpu = read_bool(*v, "webgpu");
    return o;
  }

 private:
  [[noreturn]] void fail_at(const std::string& path, const std::string& why) const {
    fail(origin_ + ": key '" + path + "': " + why);
  }

  // A field that is absent or null takes its default: the canonical form writes defaults as null.
  static const json* optional_field(const json& object, const char* key) {
    auto it = object.find(key);
    if (it == object.end() || it->is_null()) return nullptr;
    return &*it;
  }

  void refuse_unknown(const json& object, const std::string& path,
                      std::initializer_list<const char*> known) const {
    for (auto it = object.begin(); it != object.end(); ++it) {
      bool ok = false;
      for (const char* k : known) ok = ok || it.key() == k;
      if (ok) continue;
      std::string list;
      for (const char* k : known) list += std::string(list.empty() ? "" : ", ") + k;
      fail_at(json_key_path_join(path, it.key()), "unknown key (expected one of: " + list + ")");
    }
  }

  std::string read_architecture(const json& v, const std::string& path) const {
    std::string name = read_string(v, path);
    const auto& known = architecture_names();
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      fail_at(path, "no built-in table '" + name + "' (expected one of: " + list + ")");
    }
    return name;
  }

  std::string read_string(const json& v, const std::string& path) const {
    if (!v.is_string()) fail_at(path, "expected a string");
    return v.get<std::string>();
  }

  bool read_bool(const json& v, const std::string& path) const {
    if (!v.is_boolean()) fail_at(path, "expected true or false");
    return v.get<bool>();
  }

  const json& expect_array(const json& v, const std::string& path) const {
    if (!v.is_array()) fail_at(path, "expected an array");
    return v;
  }

  std::vector<LayoutRule> read_layout(const json& v, const std::string& path) const {
    std::vector<LayoutRule> rules;
    const json& arr = expect_array(v, path);
    for (std::size_t i = 0; i < arr.size(); ++i) {
      std::string rp = json_key_path_index(path, i);
      const json& r = arr[i];
      if (!r.is_object()) fail_at(rp, "expected an object {\"pattern\": ..., \"axes\": [...]}");
      refuse_unknown(r, rp, {"axes", "graph", "pattern"});
      LayoutRule rule;
      if (auto* g = optional_field(r, "graph")) rule.graph = read_string(*g, rp + ".graph");
      auto* p = optional_field(r, "pattern");
      if (!p) fail_at(rp, "missing required key 'pattern'");
      rule.pattern = read_string(*p, rp + ".pattern");
      try {
        validate_wildcard(rule.pattern);
      } catch (const Error& e) {
        fail_at(rp + ".pattern", e.what());
      }
      auto* a = optional_field(r, "axes");
      if (!a) fail_at(rp, "missing required key 'axes'");
      const json& axes = expect_array(*a, rp + ".axes");
      for (std::size_t k = 0; k < axes.size(); ++k) {
        std::string ap = json_key_path_index(rp + ".axes", k);
        std::string text = read_string(axes[k], ap);
        try {
          // Stored in canonical spelling, so "( C  H W)" and "(C H W)" key one cache entry.
          rule.axes.push_back(parse_axis_spec(text).text());
        } catch (const Error& e) {
          fail_at(ap, e.what());
        }
      }
      rules.push_back(std::move(rule));
    }
    return rules;
  }

  std::map<std::string, int64_t> read_dims(const json& v, const std::string& path) const {
    if (!v.is_object()) fail_at(path, "expected an object mapping dim_param names to extents");
    std::map<std::string, int64_t> dims;
    for (auto it = v.begin(); it != v.end(); ++it) {
      std::string dp = json_key_path_join(path, it.key());
      if (it.key().empty()) fail_at(dp, "a dim_param name is not empty");
      const json& x = it.value();
      int64_t value = -1;
      if (x.is_number_unsigned()) {
        auto u = x.get<uint64_t>();
        if (u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
          value = static_cast<int64_t>(u);
        else
          fail_at(dp, "extent " + x.dump() + " does not fit in int64");
      } else if (x.is_number_integer()) {
        value = x.get<int64_t>();
      }
      if (!x.is_number_integer() || value < 0) fail_at(dp, "expected a non-negative integer");
      dims.emplace(it.key(), value);
    }
    return dims;
  }

  // {"dim_param": [lo, hi]}: 0 <= lo <= hi <= 2^31 - 1, the lengths an input axis may have.
  std::map<std::string, std::pair<int64_t, int64_t>> read_ranges(const json& v, const std::string& path) const {
    if (!v.is_object()) fail_at(path, "expected an object mapping dim_param names to [lowest, highest]");
    std::map<std::string, std::pair<int64_t, int64_t>> ranges;
    constexpr int64_t most = 2147483647;
    for (auto it = v.begin(); it != v.end(); ++it) {
      std::string dp = json_key_path_join(path, it.key());
      if (it.key().empty()) fail_at(dp, "a dim_param name is not empty");
      const json& x = it.value();
      if (!x.is_array() || x.size() != 2) fail_at(dp, "expected [lowest, highest]");
      int64_t bounds[2];
      for (std::size_t k = 0; k < 2; ++k) {
        const json& b = x[k];
        if (!b.is_number_integer() || (b.is_number_unsigned() ? b.get<uint64_t>() > static_cast<uint64_t>(most) : b.get<int64_t>() < 0 || b.get<int64_t>() > most))
          fail_at(dp + "[" + std::to_string(k) + "]", "expected an integer in [0, 2147483647]");
        bounds[k] = b.get<int64_t>();
      }
      if (bounds[0] > bounds[1]) fail_at(dp, "the lowest length " + std::to_string(bounds[0]) + " is above the highest " + std::to_string(bounds[1]));
      ranges.emplace(it.key(), std::make_pair(bounds[0], bounds[1]));
    }
    return ranges;
  }

  // {"input": [length or "dim_param", ...]}: a length as its decimal digits, a dim_param as written.
  std::map<std::string, std::vector<std::variant<int64_t, std::string>>> read_input_shapes(const json& v, const std::string& path) const {
    if (!v.is_object()) fail_at(path, "expected an object mapping graph input names to their shapes");
    std::map<std::string, std::vector<std::variant<int64_t, std::string>>> shapes;
    for (auto it = v.begin(); it != v.end(); ++it) {
      const std::string ip = json_key_path_join(path, it.key());
      if (!it.value().is_array()) fail_at(ip, "expected an array of lengths and dim_param names");
      std::vector<std::variant<int64_t, std::string>> dims;
      for (std::size_t k = 0; k < it.value().size(); ++k) {
        const json& d = it.value()[k];
        const std::string dp = ip + "[" + std::to_string(k) + "]";
        if (d.is_number_unsigned() || (d.is_number_integer() && d.get<int64_t>() >= 0)) {
          if (d.is_number_unsigned() && d.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
            fail_at(dp, "length " + d.dump() + " does not fit in int64");
          dims.emplace_back(d.get<int64_t>());
        } else if (d.is_string() && !d.get<std::string>().empty()) {
          dims.emplace_back(d.get<std::string>());
        } else {
          fail_at(dp, "expected a non-negative integer or a dim_param name");
        }
      }
      shapes.emplace(it.key(), std::move(dims));
    }
    return shapes;
  }

  // {"input": number or [numbers]}: integers kept exact, reals as doubles.
  std::map<std::string, FixedValue> read_values(const json& v, const std::string& path) const {
    if (!v.is_object()) fail_at(path, "expected an object mapping graph input names to their values");
    std::map<std::string, FixedValue> values;
    for (auto it = v.begin(); it != v.end(); ++it) {
      std::string vp = json_key_path_join(path, it.key());
      if (it.key().empty()) fail_at(vp, "a graph input's name is not empty");
      const json& x = it.value();
      std::vector<const json*> elements;
      if (x.is_array())
        for (const auto& e : x) elements.push_back(&e);
      else
        elements.push_back(&x);
      FixedValue f;
      for (const json* e : elements) {
        if (!e->is_number()) fail_at(vp, "expected a number or an array of numbers");
        if (e->is_number_float()) f.real = true;
        if (e->is_number_unsigned() && e->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
          fail_at(vp, "element " + e->dump() + " does not fit in int64");
      }
      for (const json* e : elements) {
        if (f.real) {
          const double d = e->get<double>();
          if (!std::isfinite(d)) fail_at(vp, "element " + e->dump() + " is not finite");
          f.reals.push_back(d);
        } else {
          f.integers.push_back(e->get<int64_t>());
        }
      }
      values.emplace(it.key(), std::move(f));
    }
    return values;
  }

  std::vector<std::string> read_outputs(const json& v, const std::string& path) const {
    const json& arr = expect_array(v, path);
    std::vector<std::string> outs;
    std::set<std::string> seen;
    for (std::size_t i = 0; i < arr.size(); ++i) {
      std::string op = json_key_path_index(path, i);
      std::string s = read_string(arr[i], op);
      if (s.empty()) fail_at(op, "an output name is not empty");
      if (!seen.insert(s).second) fail_at(op, "output '" + s + "' is listed twice");
      outs.push_back(std::move(s));
    }
    return outs;
  }

  std::vector<std::string> read_checkpoints(const json& v, const std::string& path) const {
    const json& arr = expect_array(v, path);
    std::vector<std::string> files;
    for (std::size_t i = 0; i < arr.size(); ++i) {
      std::string cp = json_key_path_index(path, i);
      std::string s = read_string(arr[i], cp);
      if (s.empty()) fail_at(cp, "a checkpoint path is not empty");
      if (s.find('\0') != std::string::npos) fail_at(cp, "a checkpoint path holds no NUL character");
      files.push_back(std::move(s));
    }
    return files;
  }

  std::string origin_;
};

}  // namespace

const std::vector<std::string>& architecture_names() {
  static const std::vector<std::string> names = {"bert", "gpt2", "llama"};
  return names;
}

Options parse_options(std::string_view json_text, const std::string& origin) {
  json root = parse_strict_json(json_text, origin);
  return OptionsReader(origin).read(root);
}

Options load_options(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) fail(file.string() + ": cannot open the options file");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) fail(file.string() + ": cannot read the options file");
  return parse_options(text.str(), file.string());
}

std::string canonical_options_json(const Options& options) {
  json root = json::object();
  json layout = json::array();
  for (const auto& rule : options.layout) {
    json r = json::object();
    r["axes"] = rule.axes;
    r["graph"] = rule.graph ? json(*rule.graph) : json(nullptr);
    r["pattern"] = rule.pattern;
    layout.push_back(std::move(r));
  }
  root["architecture"] = options.architecture ? json(*options.architecture) : json(nullptr);
  root["checkpoints"] = options.checkpoints;
  json dims = json::object();
  for (const auto& [k, v] : options.dims) dims[k] = v;
  root["dims"] = std::move(dims);
  root["inline_weights"] = options.inline_weights;
  json ranges = json::object();
  for (const auto& [k, r] : options.ranges) ranges[k] = json::array({r.first, r.second});
  root["ranges"] = std::move(ranges);
  json shapes = json::object();
  for (const auto& [k, dims] : options.input_shapes) {
    json s = json::array();
    for (const auto& d : dims) s.push_back(std::holds_alternative<int64_t>(d) ? json(std::get<int64_t>(d)) : json(std::get<std::string>(d)));
    shapes[k] = std::move(s);
  }
  root["input_shapes"] = std::move(shapes);
  root["layout"] = std::move(layout);
  root["outputs"] = options.outputs ? json(*options.outputs) : json(nullptr);
  json values = json::object();
  for (const auto& [k, v] : options.values) values[k] = v.real ? json(v.reals) : json(v.integers);
  root["values"] = std::move(values);
  root["webgpu"] = options.webgpu;
  // nlohmann's object is a std::map, so keys come out sorted; no indent means no whitespace.
  try {
    return root.dump(-1, ' ', false, json::error_handler_t::strict);
  } catch (const json::exception&) {
    fail("options: a string is not valid UTF-8, so the options have no canonical JSON form");
  }
}

std::vector<std::filesystem::path> resolve_checkpoint_paths(const Options& options,
                                                            const std::filesystem::path& options_file) {
  std::vector<std::filesystem::path> paths;
  std::filesystem::path base = options_file.parent_path();
  for (const auto& c : options.checkpoints) {
    std::filesystem::path p(c);
    paths.push_back(p.is_absolute() ? p : (base / p).lexically_normal());
  }
  return paths;
}

}  // namespace loam
