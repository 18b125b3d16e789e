// `loam test-case DIR`: a model in ONNX's backend-test layout (model.onnx, test_data_set_*/
// input_*.pb and output_*.pb) through the whole path. Infers a layout when none is given, builds the
// module, compiles a harness with the system C++ compiler, runs every data set on Cpu and on
// OpaqueBackend, and compares each output with ONNX's backend tolerances. A build refusal, a compile
// failure or a refused run counts every data set as failed.
#pragma once

#include <filesystem>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "graph/graph.hpp"

namespace loam::testcase {

struct TestCaseOptions {
  std::optional<std::filesystem::path> options_file;  // none: a layout is inferred
  std::string cxx = "g++";                            // $CXX
  std::string cxx_flags = "-std=c++23 -O2 -march=native";
  double rtol = 1e-3;
  double atol = 1e-7;
  bool opaque = true;                                 // also run through OpaqueBackend
  int threads = 1;                                    // above 1: also run on Cpu with this many threads, bit-identical to one
  bool fuse = true;                                   // false: build one kernel per node (--no-fuse)
  std::optional<std::filesystem::path> work_dir;      // kept when given; else a temporary one
  int run_timeout_seconds = 300;
};

struct TestCaseResult {
  int passed = 0;
  int failed = 0;
  bool built = false;     // the module built and the harness compiled
  std::string refusal;    // the build's error, when it refused
};

// Runs the case, printing one line per data set (and any error) to `log`.
TestCaseResult run_test_case(const std::filesystem::path& dir, const TestCaseOptions& options, std::ostream& log);

// Runs several cases with one harness compiled for all of them (each module in its own namespace):
// a case whose module does not compile is dropped from the harness and counted failed. Lines are
// prefixed with the case directory's name.
std::vector<TestCaseResult> run_test_cases(const std::vector<std::filesystem::path>& dirs,
                                           const TestCaseOptions& options, std::ostream& log);

// Whether `actual` matches `expected` (same element type, extents, and every element within
// atol + rtol * |expected|, rtol at least 2^-7 for bfloat16, a spacing of its 8 bits; NaN matches
// NaN; integers and bools exactly). Returns "" on a match, else what differs first.
std::string compare_tensors(const TensorData& expected, const TensorData& actual,
                            double rtol, double atol);

}  // namespace loam::testcase

namespace loam::testcase {

struct SuiteReport {
  int passed = 0;        // cases whose every data set passed
  int attempted = 0;     // cases in scope
  int out_of_scope = 0;  // cases with an operator outside the set
  int missing = 0;       // listed cases (`only`) no suite directory holds
};

// Runs every case directory under each suite directory whose operators are all in scope, `batch`
// cases to one harness compile, printing one line per case. Out-of-scope cases are listed with
// the operator that put them there. With `only`, just the cases of those names (a name no suite
// holds is printed as missing and counted). `jobs` batches compile and run at once.
SuiteReport run_suites(const std::vector<std::filesystem::path>& suites, const TestCaseOptions& options,
                       std::size_t batch, std::ostream& log, const std::optional<std::set<std::string>>& only = std::nullopt,
                       std::size_t jobs = 1);

// The case names of a list file: one a line; blank lines and lines starting with '#' are skipped.
std::set<std::string> read_case_list(const std::filesystem::path& file);

}  // namespace loam::testcase
