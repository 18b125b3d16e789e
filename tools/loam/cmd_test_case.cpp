// loam test-case DIR... [--options F] [--keep DIR] [--no-opaque]
// Builds the model of each ONNX backend-test directory, compiles one harness with $CXX (default
// g++), runs every test_data_set_* on Cpu and OpaqueBackend and compares; prints `N passed, N failed`
// (data sets) and exits 0 only if all pass. Several directories share one harness compile.
#include <cstdlib>
#include <iostream>
#include <memory>

#include "subcommand.hpp"
#include "testcase/test_case.hpp"

namespace {

struct TestCaseArgs {
  std::vector<std::string> dirs;
  std::string options;
  std::string keep;
  bool no_opaque = false;
  bool suite = false;
  std::size_t batch = 24;
};

const loam::cli::SubcommandRegistration test_case_registration([](CLI::App& app) -> loam::cli::Run {
  auto args = std::make_shared<TestCaseArgs>();
  CLI::App* sub = app.add_subcommand("test-case", "Build, compile and run models in ONNX's backend-test layout");
  sub->add_option("dirs", args->dirs, "directories holding model.onnx and test_data_set_*")->required();
  sub->add_option("--options", args->options, "options JSON (default: a layout inferred from each model)");
  sub->add_option("--keep", args->keep, "keep the generated modules, harness and outputs in this directory");
  sub->add_flag("--no-opaque", args->no_opaque, "run on Cpu only, not also through OpaqueBackend");
  sub->add_flag("--suite", args->suite,
                "each DIR is a suite of case directories: run those whose operators are in scope and "
                "report passed / attempted / out of scope");
  sub->add_option("--batch", args->batch, "cases compiled into one harness in --suite mode (default 24)");
  return [args]() -> int {
    loam::testcase::TestCaseOptions o;
    if (!args->options.empty()) o.options_file = args->options;
    if (!args->keep.empty()) o.work_dir = args->keep;
    if (const char* cxx = std::getenv("CXX"); cxx && *cxx) o.cxx = cxx;
    o.opaque = !args->no_opaque;
    std::vector<std::filesystem::path> dirs(args->dirs.begin(), args->dirs.end());
    if (args->suite) {
      auto rep = loam::testcase::run_suites(dirs, o, args->batch == 0 ? 1 : args->batch, std::cout);
      std::cout << rep.passed << " passed / " << rep.attempted << " attempted / " << rep.out_of_scope
                << " out of scope\n";
      return rep.passed == rep.attempted ? 0 : 1;
    }
    auto results = loam::testcase::run_test_cases(dirs, o, std::cout);
    int passed = 0, failed = 0;
    for (const auto& r : results) passed += r.passed, failed += r.failed;
    std::cout << passed << " passed, " << failed << " failed\n";
    return failed == 0 && passed > 0 ? 0 : 1;
  };
});

}  // namespace
