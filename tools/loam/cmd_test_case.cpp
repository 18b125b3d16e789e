// loam test-case DIR... [--options F] [--keep DIR] [--no-opaque] [--threads N] [--no-fuse] [--rtol R] [--atol A]
//                [--suite [--batch N] [--jobs N] [--cases FILE]] [--cxx-flags F]
// Builds the model of each ONNX backend-test directory, compiles one harness with $CXX (default
// g++), runs every test_data_set_* on Cpu and OpaqueBackend and compares; prints `N passed, N failed`
// (data sets) and exits 0 only if all pass. Several directories share one harness compile.
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <set>

#include "subcommand.hpp"
#include "testcase/test_case.hpp"

namespace {

struct TestCaseArgs {
  std::vector<std::string> dirs;
  std::string options;
  std::string keep;
  bool no_opaque = false;
  int threads = 1;
  bool no_fuse = false;
  bool suite = false;
  std::size_t batch = 24;
  std::string cases;
  std::string cxx_flags;
  std::size_t jobs = 1;
  std::optional<double> rtol, atol;
};

const loam::cli::SubcommandRegistration test_case_registration([](CLI::App& app) -> loam::cli::Run {
  auto args = std::make_shared<TestCaseArgs>();
  CLI::App* sub = app.add_subcommand("test-case", "Build, compile and run models in ONNX's backend-test layout");
  sub->add_option("dirs", args->dirs, "directories holding model.onnx and test_data_set_*")->required();
  sub->add_option("--options", args->options, "options JSON for every case (default: a case's own options.json beside its model, if any; a layout inferred from each model where the options give none)");
  sub->add_option("--keep", args->keep, "keep the generated modules, harness and outputs in this directory");
  sub->add_flag("--no-opaque", args->no_opaque, "run on Cpu only, not also through OpaqueBackend");
  sub->add_option("--threads", args->threads,
                  "also run each data set on Cpu with this many threads, whose outputs must equal one thread's bit for bit (default 1: not)")
      ->check(CLI::Range(1, 256));
  sub->add_flag("--no-fuse", args->no_fuse, "build one kernel per node (loam build --no-fuse)");
  sub->add_option("--rtol", args->rtol, "relative tolerance: |actual - expected| <= atol + rtol * |expected| (default 1e-3)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--atol", args->atol, "absolute tolerance (default 1e-7)")->check(CLI::NonNegativeNumber);
  sub->add_flag("--suite", args->suite,
                "each DIR is a suite of case directories: run those whose operators are in scope and "
                "report passed / attempted / out of scope");
  sub->add_option("--batch", args->batch, "cases compiled into one harness in --suite mode (default 24)");
  sub->add_option("--cases", args->cases,
                  "with --suite: run only the cases named in this file (one a line, '#' comments); every "
                  "one must be found, in scope and pass");
  sub->add_option("--jobs", args->jobs, "with --suite: batches compiled and run at once (default 1)");
  sub->add_option("--cxx-flags", args->cxx_flags,
                  "flags for compiling the harness (default \"-std=c++23 -O2 -march=native\")");
  return [args]() -> int {
    loam::testcase::TestCaseOptions o;
    if (!args->options.empty()) o.options_file = args->options;
    if (!args->keep.empty()) o.work_dir = args->keep;
    if (const char* cxx = std::getenv("CXX"); cxx && *cxx) o.cxx = cxx;
    o.opaque = !args->no_opaque;
    o.threads = args->threads;
    o.fuse = !args->no_fuse;
    if (args->rtol) o.rtol = *args->rtol;
    if (args->atol) o.atol = *args->atol;
    if (!args->cxx_flags.empty()) o.cxx_flags = args->cxx_flags;
    std::vector<std::filesystem::path> dirs(args->dirs.begin(), args->dirs.end());
    if (!args->cases.empty() && !args->suite) {
      std::cerr << "loam test-case: --cases needs --suite\n";
      return 2;
    }
    if (args->suite) {
      std::optional<std::set<std::string>> only;
      if (!args->cases.empty()) only = loam::testcase::read_case_list(args->cases);
      auto rep = loam::testcase::run_suites(dirs, o, args->batch == 0 ? 1 : args->batch, std::cout, only,
                                            args->jobs == 0 ? 1 : args->jobs);
      std::cout << rep.passed << " passed / " << rep.attempted << " attempted / " << rep.out_of_scope
                << " out of scope";
      if (only) std::cout << " / " << rep.missing << " missing";
      std::cout << "\n";
      // A listed case must be found, in scope and pass.
      bool listed_ok = !only || (rep.out_of_scope == 0 && rep.missing == 0);
      return rep.passed == rep.attempted && listed_ok ? 0 : 1;
    }
    auto results = loam::testcase::run_test_cases(dirs, o, std::cout);
    int passed = 0, failed = 0;
    for (const auto& r : results) passed += r.passed, failed += r.failed;
    std::cout << passed << " passed, " << failed << " failed\n";
    return failed == 0 && passed > 0 ? 0 : 1;
  };
});

}  // namespace
