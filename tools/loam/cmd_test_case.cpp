// loam test-case DIR [--options F] [--keep DIR] [--no-opaque]
// Builds the model of an ONNX backend-test directory, compiles a harness with $CXX (default g++),
// runs every test_data_set_* and compares; prints `N passed, N failed` and exits 0 only if all pass.
#include <cstdlib>
#include <iostream>
#include <memory>

#include "subcommand.hpp"
#include "testcase/test_case.hpp"

namespace {

struct TestCaseArgs {
  std::string dir;
  std::string options;
  std::string keep;
  bool no_opaque = false;
};

const loam::cli::SubcommandRegistration test_case_registration([](CLI::App& app) -> loam::cli::Run {
  auto args = std::make_shared<TestCaseArgs>();
  CLI::App* sub = app.add_subcommand("test-case", "Build, compile and run a model in ONNX's backend-test layout");
  sub->add_option("dir", args->dir, "directory holding model.onnx and test_data_set_*")->required();
  sub->add_option("--options", args->options, "options JSON (default: a layout inferred from the model)");
  sub->add_option("--keep", args->keep, "keep the generated module, harness and outputs in this directory");
  sub->add_flag("--no-opaque", args->no_opaque, "run on Cpu only, not also through OpaqueBackend");
  return [args]() -> int {
    loam::testcase::TestCaseOptions o;
    if (!args->options.empty()) o.options_file = args->options;
    if (!args->keep.empty()) o.work_dir = args->keep;
    if (const char* cxx = std::getenv("CXX"); cxx && *cxx) o.cxx = cxx;
    o.opaque = !args->no_opaque;
    auto r = loam::testcase::run_test_case(args->dir, o, std::cout);
    std::cout << r.passed << " passed, " << r.failed << " failed\n";
    return r.failed == 0 && r.passed > 0 ? 0 : 1;
  };
});

}  // namespace
