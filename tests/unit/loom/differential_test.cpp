// For every `// run:` of every kernel under tests/loom/: the interpreter runs it, the module's
// emitted C++ (with its harness) is compiled by the system compiler and runs it too, and every
// buffer and result must agree: integers exactly, floats bit for bit (any NaN matches any NaN,
// since hardware may keep another payload).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <set>
#include <system_error>
#include <vector>

#include "kernel_files.hpp"
#include "loom/emit_cpp.hpp"
#include "loom/interpreter.hpp"
#include "loom/ops_common.hpp"
#include "loom/run_args.hpp"
#include "loom/syntax.hpp"
#include "support/error.hpp"
#include "support/process.hpp"

namespace {

using namespace loam::loom;
namespace fs = std::filesystem;

fs::path work_dir() {
  fs::path d = fs::temp_directory_path() / ("loom_differential_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

void put_word(std::string& out, std::uint64_t v) { out.append(reinterpret_cast<const char*>(&v), 8); }

std::string encode_args(const std::vector<RunArgument>& args) {
  std::string out;
  for (const auto& a : args) {
    if (a.value.kind == RtValue::Kind::Scalar) {
      put_word(out, a.value.bits);
    } else {
      const auto& bytes = a.value.storage->bytes;
      put_word(out, bytes.size());
      if (!bytes.empty()) out.append(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    }
  }
  return out;
}

bool same_bits(std::uint64_t a, std::uint64_t b, Scalar t) {
  if (a == b) return true;
  if (!is_float(t)) return false;
  auto nan = [t](std::uint64_t x) {
    switch (t) {
      case Scalar::F64: return std::isnan(std::bit_cast<double>(x));
      case Scalar::F32: return std::isnan(std::bit_cast<float>(static_cast<std::uint32_t>(x)));
      case Scalar::F16: return (x & 0x7C00) == 0x7C00 && (x & 0x3FF) != 0;
      case Scalar::BF16: return (x & 0x7F80) == 0x7F80 && (x & 0x7F) != 0;
      case Scalar::F8E4M3: return (x & 0x7F) == 0x7F;
      default: return (x & 0x7C) == 0x7C && (x & 0x3) != 0;
    }
  };
  return nan(a) && nan(b);
}

struct Compiled {
  fs::path binary;
  std::string error;
};

// The harness for a file's entry, compiled once: ctest runs each case in a process of its own, so
// binaries are kept in the build tree under the hash of their source, and a case whose source is
// unchanged reuses the binary.
Compiled compile_harness(const loom_test::KernelFile& k, const std::string& entry) {
  Compiled c;
  std::string source, harness;
  try {
    Module m = parse_module(k.text, k.path.filename().string());
    CppOptions o;
    o.ns = "k_" + k.name;
    o.target.subgroup_size = k.subgroup;
    o.contracts = k.contracts;
    source = emit_cpp(m, o);
    harness = cpp_harness(m, entry, o);
  } catch (const loam::Error& e) {
    c.error = e.what();
    return c;
  }
  const std::string flags = LOOM_EMIT_FLAGS;
  const fs::path cache = LOOM_HARNESS_CACHE;
  fs::create_directories(cache);
  const std::string key = k.name + "_" + entry + "_" + std::to_string(std::hash<std::string>{}(source + harness + flags));
  c.binary = cache / key;
  if (fs::exists(c.binary)) return c;
  // The module is a header, as a user includes it; the harness is the program around it. Each
  // process writes its own copies: the runs of one file start together and compile the same
  // source, and one must never truncate the header another's compiler is reading.
  const std::string mine = "." + std::to_string(::getpid());
  const fs::path header = cache / (key + mine + ".hpp");
  const fs::path src = cache / (key + mine + ".cpp");
  const fs::path partial = cache / (key + ".partial" + mine);
  std::ofstream(header) << source;
  std::ofstream(src) << "#include \"" << header.filename().string() << "\"\n" << harness;
  // Promises are checked, so a run whose promise fails stops in the emitted code as it does in the
  // interpreter.
  std::vector<std::string> argv{LOAM_CXX, "-std=c++20", "-DLOOM_CHECK_ASSUMES", "-Wall", "-Werror", "-Wno-unused-variable",
                                "-Wno-unused-but-set-variable"};
  for (std::size_t at = 0; at < flags.size();) {
    std::size_t end = flags.find(' ', at);
    if (end == std::string::npos) end = flags.size();
    if (end > at) argv.push_back(flags.substr(at, end - at));
    at = end + 1;
  }
  argv.insert(argv.end(), {src.string(), "-o", partial.string()});
  const loam::Exec r = loam::run_process(argv, 600);
  if (r.status != 0) {
    c.error = "the emitted C++ (" + src.string() + ") does not compile:\n" + r.output.substr(0, 4000);
    return c;
  }
  fs::rename(partial, c.binary);  // atomic: a concurrent case sees the whole binary or none
  fs::remove(header);  // kept only when the compile fails, for the message that names them
  fs::remove(src);
  return c;
}

struct Case {
  loom_test::KernelFile file;
  std::size_t run = 0;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const auto& k : loom_test::kernel_files())
    for (std::size_t r = 0; r < k.runs.size(); ++r) out.push_back({k, r});
  return out;
}

void PrintTo(const Case& c, std::ostream* os) { *os << c.file.name << " run " << c.run; }

class EmittedAgainstInterpreter : public ::testing::TestWithParam<Case> {};

TEST_P(EmittedAgainstInterpreter, AgreeBitForBit) {
  const auto& k = GetParam().file;
  const auto& run = k.runs[GetParam().run];
  Module m = parse_module(k.text, k.path.filename().string());
  // The interpreter.
  auto args = make_run_arguments(m, run.entry, run.args);
  const std::string encoded = encode_args(args);
  InterpreterOptions io;
  io.target.subgroup_size = k.subgroup;
  io.contracts = k.contracts;
  Interpreter interpreter(m, io);
  std::vector<RtValue> values;
  for (const auto& a : args) values.push_back(a.value);
  std::vector<RtValue> results;
  std::string interpreted_error;
  try {
    results = interpreter.call(run.entry, values);
  } catch (const loam::Error& e) {
    interpreted_error = e.what();
  }
  // The emitted C++.
  const Compiled c = compile_harness(k, run.entry);
  ASSERT_EQ(c.error, "");
  const fs::path dir = work_dir();
  const std::string tag = k.name + "_" + std::to_string(GetParam().run);
  const fs::path in = dir / (tag + ".in"), out = dir / (tag + ".out");
  // The run's files go when the case ends, and the directory with the process's last case.
  struct Removed {
    std::vector<fs::path> files;
    ~Removed() {
      std::error_code ignored;
      for (const auto& f : files) fs::remove(f, ignored);
      fs::remove(files.front().parent_path(), ignored);  // fails, as it should, while not empty
    }
  } removed{{in, out}};
  std::ofstream(in, std::ios::binary) << encoded;
  const loam::Exec r = loam::run_process({c.binary.string(), in.string(), out.string()}, 120);
  if (!interpreted_error.empty()) {
    // A run the interpreter refuses must stop the emitted code too, naming the same op.
    EXPECT_NE(r.status, 0) << "the interpreter stopped (" << interpreted_error << ") but the emitted code ran";
    const std::string where = interpreted_error.substr(0, interpreted_error.find(": ", interpreted_error.find(": ") + 2));
    EXPECT_NE(r.output.find(where), std::string::npos) << r.output << "\nexpected the place " << where;
    return;
  }
  ASSERT_EQ(r.status, 0) << r.output;
  std::ifstream got(out, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(got)), std::istreambuf_iterator<char>());
  std::size_t pos = 0;
  auto word = [&] {
    std::uint64_t v = 0;
    if (pos + 8 <= bytes.size()) std::memcpy(&v, bytes.data() + pos, 8);
    pos += 8;
    return v;
  };
  const Op* fn = m.lookup(run.entry);
  const auto params = run_parameters(*fn);
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i].value.kind == RtValue::Kind::Scalar) continue;
    const std::uint64_t n = word();
    const auto& want = args[i].value.storage->bytes;
    ASSERT_EQ(n, want.size()) << ref(params[i]);
    const Scalar e = args[i].element;
    const std::size_t size = static_cast<std::size_t>(scalar_bytes(e));
    Storage emitted;
    emitted.bytes.resize(n);
    if (n > 0) std::memcpy(emitted.bytes.data(), bytes.data() + pos, n);
    pos += n;
    for (std::size_t at = 0; at + size <= n; at += size) {
      const std::uint64_t a = detail::read_scalar(*args[i].value.storage, at, e);
      const std::uint64_t b = detail::read_scalar(emitted, at, e);
      ASSERT_TRUE(same_bits(a, b, e)) << ref(params[i]) << " element " << at / size << ": interpreter " << print_literal(a, e)
                                      << ", emitted " << print_literal(b, e);
    }
  }
  const auto& types = fn->name() == "func.def" ? fn->attr("results").types : std::vector<Type>{};
  for (std::size_t i = 0; i < results.size(); ++i) {
    const std::uint64_t b = word();
    const Scalar e = types[i].element();
    EXPECT_TRUE(same_bits(results[i].bits, b, e)) << "result " << i << ": interpreter " << print_literal(results[i].bits, e)
                                                  << ", emitted " << print_literal(b, e);
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, EmittedAgainstInterpreter, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& i) {
                           return i.param.file.name + "_run" + std::to_string(i.param.run);
                         });

}  // namespace
