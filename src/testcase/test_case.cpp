#include "testcase/test_case.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <future>
#include <map>
#include <regex>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "axes/architecture.hpp"
#include "checkpoint/checkpoint.hpp"
#include "driver/bind_checkpoint.hpp"
#include "driver/pipeline.hpp"
#include "support/file.hpp"
#include "driver/specialize.hpp"
#include "graph/graph.hpp"
#include "onnx/reader.hpp"
#include "options/options.hpp"
#include "stage0/op_context.hpp"
#include "stage0/stage0.hpp"
#include "support/error.hpp"
#include "support/process.hpp"
#include "testcase/harness.hpp"
#include "testcase/tensor_file.hpp"

namespace loam::testcase {
namespace fs = std::filesystem;

namespace {

std::vector<std::string> split_flags(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == ' ') {
      if (!cur.empty()) out.push_back(cur), cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

// The harness's tag for a backend's outputs: BACKEND, or BACKEND_THREADS for BACKEND:THREADS.
std::string output_tag(std::string backend) {
  if (const auto colon = backend.find(':'); colon != std::string::npos) backend[colon] = '_';
  return backend;
}

std::string first_lines(const std::string& s, int n) {
  std::string out;
  int lines = 0;
  for (char c : s) {
    out += c;
    if (c == '\n' && ++lines >= n) break;
  }
  return out;
}

double element_as_double(const TensorData& t, std::size_t i) {
  const std::byte* p = t.data.data() + i * element_size(t.elem);
  switch (t.elem) {
    case ElementType::F32: { float v; std::memcpy(&v, p, 4); return v; }
    case ElementType::F64: { double v; std::memcpy(&v, p, 8); return v; }
    case ElementType::I64: { int64_t v; std::memcpy(&v, p, 8); return static_cast<double>(v); }
    case ElementType::I32: { int32_t v; std::memcpy(&v, p, 4); return v; }
    case ElementType::Bool: case ElementType::U8: return static_cast<double>(std::to_integer<int>(*p));
    case ElementType::F16: case ElementType::BF16: {
      uint16_t h;
      std::memcpy(&h, p, 2);
      uint32_t bits;
      if (t.elem == ElementType::BF16) {
        bits = static_cast<uint32_t>(h) << 16;
      } else {
        uint32_t sign = (h >> 15) & 1, exp = (h >> 10) & 31, man = h & 1023;
        if (exp == 0) {
          float v = std::ldexp(static_cast<float>(man), -24);
          return sign ? -v : v;
        }
        if (exp == 31) bits = (sign << 31) | 0x7f800000u | (man << 13);
        else bits = (sign << 31) | ((exp + 112) << 23) | (man << 13);
      }
      float v;
      std::memcpy(&v, &bits, 4);
      return v;
    }
    default: return 0;
  }
}

std::string dims_text(const std::vector<int64_t>& d) {
  std::string s = "[";
  for (std::size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + "]";
}

}  // namespace

std::string compare_tensors(const TensorData& expected, const TensorData& actual, double rtol, double atol) {
  if (expected.elem != actual.elem)
    return std::string("element type ") + element_type_name(actual.elem) + ", expected " + element_type_name(expected.elem);
  if (expected.dims != actual.dims) return "extents " + dims_text(actual.dims) + ", expected " + dims_text(expected.dims);
  auto n = expected.element_count().value_or(0);
  bool is_float = expected.elem == ElementType::F32 || expected.elem == ElementType::F64 ||
                  expected.elem == ElementType::F16 || expected.elem == ElementType::BF16;
  // bfloat16 holds 8 significant bits: its spacing is up to 2^-7 of a value, more than the default
  // rtol, so a result computed in float and one rounded to bfloat16 at each step (as ONNX's
  // reference does) may be a spacing apart while both are right.
  if (expected.elem == ElementType::BF16) rtol = std::max(rtol, 0x1p-7);
  for (int64_t i = 0; i < n; ++i) {
    double e = element_as_double(expected, static_cast<std::size_t>(i));
    double a = element_as_double(actual, static_cast<std::size_t>(i));
    bool ok;
    if (!is_float) ok = e == a;
    else if (std::isnan(e)) ok = std::isnan(a);
    else if (std::isinf(e)) ok = a == e;
    else ok = std::fabs(a - e) <= atol + rtol * std::fabs(e);
    if (!ok) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "element %lld is %.9g, expected %.9g", static_cast<long long>(i), a, e);
      return buf;
    }
  }
  return "";
}

namespace {

struct Case {
  fs::path dir;
  std::string label;
  std::vector<fs::path> sets;
  emit::WrittenModule module;
  bool active = false;
  TestCaseResult result;
  std::vector<std::size_t> input_files;  // the data sets' input_K.pb each input of the module reads
};

// A graph input a shape rule must know (Reshape's shape, Resize's scales, Pad's pads): ONNX's node
// cases feed it as an input, where a model as exported holds it as an initializer or a Constant.
// Bound at build time to the value every data set gives it; false if it is no graph input or the
// sets disagree (then the build's refusal stands).
bool bind_input_from_sets(Model& model, const std::string& name, const std::vector<std::string>& graph_inputs,
                          const std::vector<fs::path>& sets) {
  auto pos = std::find(graph_inputs.begin(), graph_inputs.end(), name);
  if (pos == graph_inputs.end() || sets.empty() || model.graph.initializer(name)) return false;
  const std::string file = "input_" + std::to_string(pos - graph_inputs.begin()) + ".pb";
  TensorData value = read_tensor_proto_file(sets[0] / file);
  for (std::size_t k = 1; k < sets.size(); ++k) {
    TensorData other = read_tensor_proto_file(sets[k] / file);
    if (other.elem != value.elem || other.dims != value.dims || other.data != value.data) return false;
  }
  value.name = name;
  value.has_data = true;
  std::erase_if(model.graph.inputs, [&](const ValueInfo& v) { return v.name == name; });
  model.graph.initializers.push_back(std::move(value));
  return true;
}

// The modules a compiler's output blames, each with its error lines (at most 12): an error in a
// module's header is its own; one in the harness belongs to the module whose harness function the
// context lines before it name.
std::map<std::string, std::string> modules_in_error(const std::string& output) {
  static const std::regex header(R"(/(loam_case(_[0-9]+)?)\.hpp:)"), harness(R"(loam_harness_(loam_case(_[0-9]+)?)::)");
  std::map<std::string, std::string> out;
  std::map<std::string, int> lines;
  std::string context;
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    std::string named;
    if (std::regex_search(line, m, header) || std::regex_search(line, m, harness)) named = m[1];
    if (line.find(": error:") == std::string::npos) {
      if (!named.empty()) context = named;
      continue;
    }
    if (named.empty()) named = context;
    if (named.empty()) continue;
    if (lines[named]++ < 12) out[named] += line + "\n";
  }
  return out;
}

// A case's graph: model.onnx, or model.onnxtext (its weights in a checkpoint the options name); ""
// if it has neither.
std::string case_graph_file(const fs::path& dir) {
  for (const char* name : {"model.onnx", "model.onnxtext"})
    if (fs::exists(dir / name)) return name;
  return {};
}

void fail_case(Case& c, const std::string& why, std::ostream& log) {
  c.result.failed = static_cast<int>(c.sets.empty() ? 1 : c.sets.size());
  c.result.passed = 0;
  c.active = false;
  log << c.label << "error: " << why << "\n";
}

}  // namespace

std::vector<TestCaseResult> run_test_cases(const std::vector<fs::path>& dirs, const TestCaseOptions& o, std::ostream& log) {
  fs::path work;
  bool temporary = !o.work_dir;
  if (o.work_dir) {
    work = *o.work_dir;
    fs::create_directories(work);
  } else {
    std::string tmpl = (fs::temp_directory_path() / "loam-test-case-XXXXXX").string();
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (!mkdtemp(buf.data())) fail("cannot make a temporary directory");
    work = buf.data();
  }
  struct Cleanup {
    fs::path p;
    bool on;
    ~Cleanup() {
      std::error_code e;
      if (on) fs::remove_all(p, e);
    }
  } cleanup{work, temporary};

  std::vector<Case> cases(dirs.size());
  for (std::size_t k = 0; k < dirs.size(); ++k) {
    Case& c = cases[k];
    c.dir = dirs[k];
    c.label = dirs.size() == 1 ? "" : dirs[k].filename().string() + ": ";
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(c.dir, ec))
      if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) c.sets.push_back(e.path());
    std::sort(c.sets.begin(), c.sets.end());
    if (ec) {
      fail_case(c, c.dir.string() + ": cannot list: " + ec.message(), log);
      continue;
    }
    std::string name = dirs.size() == 1 ? "loam_case" : "loam_case_" + std::to_string(k);
    try {
      // The graph is model.onnx, or a model.onnxtext whose weights a checkpoint its options name
      // supplies (a published one, read through its architecture's table).
      const std::string graph_file = case_graph_file(c.dir).empty() ? "model.onnx" : case_graph_file(c.dir);
      Model model = read_model_file(c.dir / graph_file);
      std::vector<std::string> graph_inputs;
      for (const auto& v : model.graph.inputs) graph_inputs.push_back(v.name);
      Options options;
      std::string report;
      for (bool built = false; !built;) {
        try {
          // An options file without a layout or an architecture (one that fixes values or extents)
          // gets the layout `loam layout` would propose with it. A case may carry its own (an exporter's shape to
          // restate, say) beside model.onnx; --options overrides it.
          std::vector<fs::path> checkpoints;
          if (auto file = o.options_file ? std::optional<fs::path>(*o.options_file)
                                         : fs::exists(c.dir / "options.json") ? std::optional<fs::path>(c.dir / "options.json")
                                                                              : std::nullopt) {
            options = load_options(*file);
            checkpoints = resolve_checkpoint_paths(options, *file);
          }
          if (!checkpoints.empty() && options.architecture)
            if (auto bound = driver::bind_checkpoint_names(model, load_checkpoint(checkpoints),
                                                           axes::find_architecture(*options.architecture, graph_file), graph_file))
              model = std::move(*bound);
          if (options.layout.empty() && !options.architecture) options.layout = driver::propose_layout(model, options, graph_file);
          c.module = driver::build_module(model, options, checkpoints, graph_file, name, o.fuse, {&report, true},
                                            driver::payload_path(work / (name + ".hpp")));
          built = true;
        } catch (const stage0::ValueRequired& e) {
          if (!bind_input_from_sets(model, e.tensor(), graph_inputs, c.sets)) throw;
          log << c.label << "input '" << e.tensor() << "' is bound at build time to its data sets' value\n";
        }
      }
      for (const auto& in : c.module.interface.inputs) {
        auto pos = std::find(graph_inputs.begin(), graph_inputs.end(), in.graph_name);
        if (pos == graph_inputs.end()) fail(graph_file + ": the module takes '" + in.graph_name + "', which is no graph input");
        c.input_files.push_back(static_cast<std::size_t>(pos - graph_inputs.begin()));
      }
      // The fusion report accounts for every node of the graph the passes read (an If taken is its
      // branch's nodes), once.
      const auto decisions = nlohmann::json::parse(report).at("decisions");
      const auto specialized = driver::specialize(model, options, graph_file);
      const std::size_t nodes = (specialized ? *specialized : model).graph.nodes.size();
      if (decisions.size() != nodes)
        fail(graph_file + ": the fusion report has " + std::to_string(decisions.size()) + " decisions for " + std::to_string(nodes) +
             " nodes");
      driver::write_module_files(c.module, work / (name + ".hpp"));
      c.active = true;
      c.result.built = true;
    } catch (const Error& e) {
      c.result.refusal = e.what();
      fail_case(c, std::string("build refused: ") + e.what(), log);
    }
  }

  // One harness for every case that built; a case whose module does not compile leaves it.
  fs::path harness = work / "harness";
  for (int attempt = 0; attempt < 8; ++attempt) {
    std::vector<emit::ModuleInterface> ifaces;
    std::vector<std::string> headers;
    for (auto& c : cases)
      if (c.active) ifaces.push_back(c.module.interface), headers.push_back(c.module.interface.name + ".hpp");
    if (ifaces.empty()) break;
    {
      std::ofstream h(work / "harness.cpp", std::ios::binary | std::ios::trunc);
      h << (dirs.size() == 1 ? write_harness(ifaces[0], headers[0]) : write_batch_harness(ifaces, headers));
      if (!h) fail(work.string() + ": cannot write the harness");
    }
    std::vector<std::string> cc = split_flags(o.cxx);
    for (auto& f : split_flags(o.cxx_flags)) cc.push_back(f);
    cc.push_back("-o");
    cc.push_back(harness.string());
    cc.push_back((work / "harness.cpp").string());
    Exec compiled = run_process(cc, 3600);
    if (compiled.status == 0) break;
    bool dropped = false;
    const auto blamed = modules_in_error(compiled.output);
    for (auto& c : cases) {
      if (!c.active) continue;
      auto it = blamed.find(c.module.interface.name);
      if (it == blamed.end()) continue;
      fail_case(c, "the module did not compile:\n" + it->second, log);
      dropped = true;
    }
    if (!dropped || dirs.size() == 1) {
      for (auto& c : cases)
        if (c.active) fail_case(c, "the harness did not compile:\n" + first_lines(compiled.output, 30), log);
      break;
    }
  }

  for (auto& c : cases) {
    if (!c.active) continue;
    const auto& iface = c.module.interface;
    for (const auto& set : c.sets) {
      std::string name = set.filename().string();
      fs::path run_dir = work / (iface.name + "_" + name);
      fs::create_directories(run_dir);
      std::string why;
      try {
        for (std::size_t i = 0; i < iface.inputs.size(); ++i) {
          TensorData t = read_tensor_proto_file(set / ("input_" + std::to_string(c.input_files.at(i)) + ".pb"));
          // ONNX's older test data stores bfloat16 tensors as uint16 bit patterns.
          if (t.elem == ElementType::U16 && iface.inputs[i].elem == ElementType::BF16) t.elem = ElementType::BF16;
          if (t.elem != iface.inputs[i].elem)
            fail("input " + std::to_string(i) + " is " + element_type_name(t.elem) + ", the module takes " +
                 element_type_name(iface.inputs[i].elem));
          write_raw_tensor(run_dir / ("input_" + std::to_string(i) + ".bin"), t);
        }
        std::vector<std::string> backends = {"cpu"};
        const std::string threaded = "cpu:" + std::to_string(o.threads);
        if (o.threads > 1) backends.push_back(threaded);
        if (o.opaque) backends.push_back("opaque");
        for (const auto& b : backends) {
          std::vector<std::string> argv = {harness.string()};
          if (dirs.size() != 1) argv.push_back(iface.name);
          argv.push_back(run_dir.string());
          argv.push_back(b);
          Exec r = run_process(argv, o.run_timeout_seconds);
          if (r.timed_out) fail(b + ": timed out");
          if (r.status != 0) fail(b + ": " + first_lines(r.output, 5));
          for (std::size_t i = 0; i < iface.outputs.size(); ++i) {
            TensorData expected = read_tensor_proto_file(set / ("output_" + std::to_string(i) + ".pb"));
            if (expected.elem == ElementType::U16 && iface.outputs[i].elem == ElementType::BF16) expected.elem = ElementType::BF16;
            TensorData actual = read_raw_tensor(run_dir / (output_tag(b) + "_output_" + std::to_string(i) + ".bin"), iface.outputs[i].elem);
            std::string d = compare_tensors(expected, actual, o.rtol, o.atol);
            if (!d.empty()) fail(b + ": output " + std::to_string(i) + " '" + iface.outputs[i].graph_name + "': " + d);
          }
        }
        // Threads change which thread computes an element, never its value.
        if (o.threads > 1)
          for (std::size_t i = 0; i < iface.outputs.size(); ++i) {
            const std::string file = "_output_" + std::to_string(i) + ".bin";
            if (read_whole_file(run_dir / ("cpu" + file)) != read_whole_file(run_dir / (output_tag(threaded) + file)))
              fail(threaded + ": output " + std::to_string(i) + " '" + iface.outputs[i].graph_name + "' differs in its bits from one thread's");
          }
      } catch (const Error& e) {
        why = e.what();
      }
      if (why.empty()) {
        ++c.result.passed;
        log << c.label << name << ": passed\n";
      } else {
        ++c.result.failed;
        log << c.label << name << ": FAILED: " << why << "\n";
      }
    }
  }
  std::vector<TestCaseResult> out;
  for (auto& c : cases) out.push_back(c.result);
  return out;
}

TestCaseResult run_test_case(const fs::path& dir, const TestCaseOptions& o, std::ostream& log) {
  return run_test_cases({dir}, o, log).at(0);
}

}  // namespace loam::testcase

#include "testcase/scope.hpp"

namespace loam::testcase {

std::set<std::string> read_case_list(const fs::path& file) {
  std::ifstream in(file);
  if (!in) fail(file.string() + ": cannot open for reading");
  std::set<std::string> names;
  std::string line;
  while (std::getline(in, line)) {
    auto b = line.find_first_not_of(" \t\r");
    auto e = line.find_last_not_of(" \t\r");
    if (b == std::string::npos || line[b] == '#') continue;
    names.insert(line.substr(b, e - b + 1));
  }
  return names;
}

SuiteReport run_suites(const std::vector<fs::path>& suites, const TestCaseOptions& o, std::size_t batch,
                       std::ostream& log, const std::optional<std::set<std::string>>& only, std::size_t jobs) {
  SuiteReport rep;
  std::vector<fs::path> in_scope;
  std::set<std::string> found;
  for (const auto& suite : suites) {
    std::vector<fs::path> cases;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(suite, ec))
      if (e.is_directory() && !case_graph_file(e.path()).empty() &&
          (!only || only->count(e.path().filename().string()))) {
        cases.push_back(e.path());
        found.insert(e.path().filename().string());
      }
    if (ec) fail(suite.string() + ": cannot list: " + ec.message());
    std::sort(cases.begin(), cases.end());
    for (const auto& c : cases) {
      std::string out = case_graph_file(c) == "model.onnx" ? model_out_of_scope(c / "model.onnx") : std::string();
      if (out.empty()) {
        try {
          Model m = read_model_file(c / case_graph_file(c));
          out = first_out_of_scope(m.graph);
        } catch (const Error& e) {
          out = "";  // unreadable: attempted, and it will fail with the reader's error
        }
      }
      if (!out.empty()) {
        ++rep.out_of_scope;
        log << c.filename().string() << ": out of scope (" << out << ")\n";
      } else {
        in_scope.push_back(c);
      }
    }
  }
  if (only)
    for (const auto& name : *only)
      if (!found.count(name)) {
        ++rep.missing;
        log << name << ": missing (listed, but no suite directory holds it)\n";
      }
  rep.attempted = static_cast<int>(in_scope.size());
  // Batches run `jobs` at a time (each compiles its own harness); their lines are printed in batch
  // order, so the log does not depend on which finishes first.
  std::vector<std::vector<fs::path>> parts;
  for (std::size_t start = 0; start < in_scope.size(); start += batch)
    parts.emplace_back(in_scope.begin() + static_cast<std::ptrdiff_t>(start),
                       in_scope.begin() + static_cast<std::ptrdiff_t>(std::min(in_scope.size(), start + batch)));
  struct BatchOutcome {
    std::vector<TestCaseResult> results;
    std::string detail;
  };
  auto run_part = [&o](const std::vector<fs::path>& part) {
    BatchOutcome b;
    std::ostringstream detail;
    try {
      b.results = run_test_cases(part, o, detail);
    } catch (const Error& e) {
      detail << "error: " << e.what() << "\n";
      b.results.assign(part.size(), TestCaseResult{0, 1, false, e.what()});
    }
    b.detail = detail.str();
    return b;
  };
  const std::size_t width = std::max<std::size_t>(1, jobs);
  for (std::size_t first = 0; first < parts.size(); first += width) {
    std::vector<std::future<BatchOutcome>> running;
    for (std::size_t k = first; k < std::min(parts.size(), first + width); ++k)
      running.push_back(std::async(std::launch::async, run_part, std::cref(parts[k])));
    for (std::size_t j = 0; j < running.size(); ++j) {
      const auto& part = parts[first + j];
      BatchOutcome b = running[j].get();
      for (std::size_t k = 0; k < part.size(); ++k) {
        bool ok = b.results[k].failed == 0 && b.results[k].passed > 0;
        rep.passed += ok ? 1 : 0;
        log << part[k].filename().string() << ": " << (ok ? "PASS" : "FAIL") << "\n";
      }
      // Why each failure failed, after the batch's verdicts.
      std::istringstream lines(b.detail);
      std::string line;
      while (std::getline(lines, line))
        if (line.find(": passed") == std::string::npos) log << "  " << line << "\n";
      log.flush();
    }
  }
  return rep;
}

}  // namespace loam::testcase
