#include "testcase/harness.hpp"

#include <cstring>
#include <fstream>

#include "support/error.hpp"

namespace loam::testcase {

namespace {

const char* kHelpers = R"(namespace loam_harness {

inline std::vector<char> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) { std::fprintf(stderr, "harness: cannot read %s\n", path.c_str()); std::exit(2); }
  return std::vector<char>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

template <class T>
T read_tensor(const std::string& path) {
  std::vector<char> b = read_file(path);
  std::uint64_t rank = 0;
  if (b.size() < 8) { std::fprintf(stderr, "harness: %s is short\n", path.c_str()); std::exit(2); }
  std::memcpy(&rank, b.data(), 8);
  if (rank != T::RANK) { std::fprintf(stderr, "harness: %s has rank %llu, the module's input %zu\n", path.c_str(), (unsigned long long)rank, T::RANK); std::exit(2); }
  typename T::Extents ext{};
  std::size_t off = 8;
  for (std::size_t i = 0; i < T::RANK; ++i, off += 8) std::memcpy(&ext[i], b.data() + off, 8);
  auto t = T::uninitialized(ext);
  std::size_t bytes = sizeof(typename T::ElementType) * static_cast<std::size_t>(t.count());
  if (b.size() - off != bytes) { std::fprintf(stderr, "harness: %s holds %zu bytes, expected %zu\n", path.c_str(), b.size() - off, bytes); std::exit(2); }
  if (bytes) std::memcpy(t.data(), b.data() + off, bytes);
  return t;
}

template <class T>
void write_tensor(const std::string& path, const T& t) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  std::uint64_t rank = T::RANK;
  out.write(reinterpret_cast<const char*>(&rank), 8);
  for (std::size_t i = 0; i < T::RANK; ++i) {
    std::int64_t e = t.extents()[i];
    out.write(reinterpret_cast<const char*>(&e), 8);
  }
  if (t.count() > 0) out.write(reinterpret_cast<const char*>(t.data()), static_cast<std::streamsize>(sizeof(typename T::ElementType) * t.count()));
}

}  // namespace loam_harness

)";

// namespace <ns> { int main_case(dir, backend, checkpoint) } for one module.
std::string module_part(const emit::ModuleInterface& m, const std::string& ns) {
  std::string s = "namespace " + ns + " {\nusing namespace " + m.name + ";  // the module's axis markers and Tensor, unqualified\nusing namespace loam_harness;\n\n";
  // The backend parameter is spelled with a name the module reserves: a plain `B` would hide an
  // axis marker the model calls B (so would a local named after one, hence the loam_ prefixes).
  s += "template <class LoamBackend>\nint run(LoamBackend& backend, const Weights& weights, const std::string& loam_dir, const std::string& loam_tag) {\n";
  for (std::size_t i = 0; i < m.inputs.size(); ++i)
    s += "  auto loam_in" + std::to_string(i) + " = read_tensor<" + m.inputs[i].cpp_type + ">(loam_dir + \"/input_" +
         std::to_string(i) + ".bin\");\n";
  s += "  auto loam_result = " + m.name + "::forward(backend, weights";
  for (std::size_t i = 0; i < m.inputs.size(); ++i) s += ", loam_in" + std::to_string(i);
  s += ");\n  if (!loam_result) { std::fprintf(stderr, \"%s\\n\", loam_result.error().what().c_str()); return 3; }\n";
  for (std::size_t i = 0; i < m.outputs.size(); ++i) {
    std::string v = m.outputs_struct ? "loam_result->" + m.outputs[i].ident : "*loam_result";
    s += "  write_tensor(loam_dir + \"/\" + loam_tag + \"_output_" + std::to_string(i) + ".bin\", " + v + ");\n";
  }
  s += "  return 0;\n}\n\n";
  s += "inline int main_case(const std::string& dir, const std::string& backend, const char* checkpoint) {\n";
  s += "  Weights weights;\n";
  s += "  if (checkpoint) {\n"
       "    std::vector<char> bytes = read_file(checkpoint);\n"
       "    auto loaded = Weights::load(std::span<const std::byte>(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()));\n"
       "    if (!loaded) { std::fprintf(stderr, \"%s\\n\", loaded.error().what().c_str()); return 4; }\n"
       "    weights = std::move(*loaded);\n"
       "  }";
  if (m.has_embedded) s += " else {\n    weights = Weights::embedded();\n  }\n";
  else s += "\n";
  // BACKEND or BACKEND:THREADS; the outputs are tagged BACKEND or BACKEND_THREADS.
  s += "  std::string loam_kind = backend, loam_tag = backend;\n"
       "  int loam_threads = 1;\n"
       "  if (const auto loam_colon = backend.find(':'); loam_colon != std::string::npos) {\n"
       "    loam_kind = backend.substr(0, loam_colon);\n"
       "    loam_threads = std::atoi(backend.c_str() + loam_colon + 1);\n"
       "    loam_tag[loam_colon] = '_';\n"
       "  }\n"
       "  try {\n"
       "    if (loam_kind == \"cpu\") { Cpu cpu(loam_threads); return run(cpu, weights, dir, loam_tag); }\n"
       "    if (loam_kind == \"opaque\") { OpaqueBackend opaque(loam_threads); return run(opaque, weights, dir, loam_tag); }\n"
       "  } catch (const std::exception& e) {\n"
       "    std::fprintf(stderr, \"kernel: %s\\n\", e.what());\n"
       "    return 5;\n"
       "  }\n"
       "  std::fprintf(stderr, \"harness: unknown backend %s\\n\", backend.c_str());\n"
       "  return 2;\n}\n\n}  // namespace " + ns + "\n\n";
  return s;
}

const char* kIncludes = "#include <cstdio>\n#include <cstdlib>\n#include <cstring>\n#include <fstream>\n#include <iterator>\n#include <string>\n#include <vector>\n\n";

}  // namespace

std::string write_harness(const emit::ModuleInterface& m, const std::string& header) {
  std::string s = "// Test harness for module " + m.name + ", written by loam test-case.\n";
  s += "#include \"" + header + "\"\n\n" + kIncludes + kHelpers + module_part(m, "loam_harness_case");
  s += "int main(int argc, char** argv) {\n"
       "  if (argc < 3) { std::fprintf(stderr, \"usage: harness DIR cpu|opaque[:THREADS] [CHECKPOINT]\\n\"); return 2; }\n"
       "  return loam_harness_case::main_case(argv[1], argv[2], argc > 3 ? argv[3] : nullptr);\n}\n";
  return s;
}

std::string write_batch_harness(const std::vector<emit::ModuleInterface>& modules, const std::vector<std::string>& headers) {
  std::string s = "// Test harness for several modules, written by loam test-case.\n";
  for (const auto& h : headers) s += "#include \"" + h + "\"\n";
  s += std::string("\n") + kIncludes + kHelpers;
  for (std::size_t k = 0; k < modules.size(); ++k) s += module_part(modules[k], "loam_harness_" + modules[k].name);
  s += "int main(int argc, char** argv) {\n"
       "  if (argc < 4) { std::fprintf(stderr, \"usage: harness MODULE DIR cpu|opaque[:THREADS]\\n\"); return 2; }\n"
       "  std::string which = argv[1];\n";
  for (const auto& m : modules)
    s += "  if (which == \"" + m.name + "\") return loam_harness_" + m.name + "::main_case(argv[2], argv[3], nullptr);\n";
  s += "  std::fprintf(stderr, \"harness: no module %s\\n\", which.c_str());\n  return 2;\n}\n";
  return s;
}

void write_raw_tensor(const std::filesystem::path& file, const TensorData& t) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  if (!out) fail(file.string() + ": cannot open for writing");
  uint64_t rank = t.dims.size();
  out.write(reinterpret_cast<const char*>(&rank), 8);
  for (int64_t d : t.dims) out.write(reinterpret_cast<const char*>(&d), 8);
  out.write(reinterpret_cast<const char*>(t.data.data()), static_cast<std::streamsize>(t.data.size()));
  if (!out) fail(file.string() + ": write error");
}

TensorData read_raw_tensor(const std::filesystem::path& file, ElementType elem) {
  std::ifstream in(file, std::ios::binary);
  if (!in) fail(file.string() + ": the harness wrote no output here");
  std::vector<char> b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  TensorData t;
  t.elem = elem;
  uint64_t rank = 0;
  if (b.size() < 8) fail(file.string() + ": shorter than its rank");
  std::memcpy(&rank, b.data(), 8);
  if (rank > 64 || b.size() < 8 + 8 * rank) fail(file.string() + ": malformed");
  for (uint64_t i = 0; i < rank; ++i) {
    int64_t d;
    std::memcpy(&d, b.data() + 8 + 8 * i, 8);
    t.dims.push_back(d);
  }
  std::size_t off = 8 + 8 * rank;
  t.data.resize(b.size() - off);
  if (!t.data.empty()) std::memcpy(t.data.data(), b.data() + off, t.data.size());
  auto n = t.element_count();
  if (!n || static_cast<std::size_t>(*n) * element_size(elem) != t.data.size())
    fail(file.string() + ": its payload does not match its extents");
  return t;
}

}  // namespace loam::testcase
