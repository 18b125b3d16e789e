// loam loom verify|print|run|emit-cpp|ops: Loom IR files from the command line.
//   verify FILE                 parses and verifies; prints nothing on success
//   print FILE                  the canonical text
//   run FILE --entry NAME --arg SPEC...   runs a func.def or kernel.def in the interpreter and prints
//                               its results and every buffer argument after the run
//   emit-cpp FILE [-o OUT]      the C++ the module becomes
//   ops                         the operation reference (markdown)
#include <cstdio>
#include <fstream>
#include <memory>

#include "loom/emit_cpp.hpp"
#include "loom/interpreter.hpp"
#include "loom/op_def.hpp"
#include "loom/run_args.hpp"
#include "loom/syntax.hpp"
#include "subcommand.hpp"
#include "support/error.hpp"
#include "support/file.hpp"

namespace {

struct LoomArgs {
  std::string file;
  std::string entry;
  std::vector<std::string> args;
  std::vector<std::string> binds;
  std::string out;
  std::string ns = "loom_kernels";
  std::int64_t subgroup = 8;
};

loam::loom::Module read(const std::string& file) {
  return loam::loom::parse_module(loam::read_whole_file(file), file);
}

std::map<std::string, std::string> contracts(const std::vector<std::string>& binds) {
  std::map<std::string, std::string> out;
  for (const auto& b : binds) {
    const auto eq = b.find("=@");
    if (eq == std::string::npos || eq == 0) loam::fail("--bind takes CONTRACT=@FUNCTION, not '" + b + "'");
    out[b.substr(0, eq)] = b.substr(eq + 2);
  }
  return out;
}

const loam::cli::SubcommandRegistration loom_registration([](CLI::App& app) -> loam::cli::Run {
  auto a = std::make_shared<LoomArgs>();
  CLI::App* loom = app.add_subcommand("loom", "Loom IR: verify, print, run in the interpreter, emit C++");
  loom->require_subcommand(1);
  CLI::App* verify = loom->add_subcommand("verify", "Parse and verify a Loom file");
  verify->add_option("file", a->file, "the .loom file")->required();
  CLI::App* print = loom->add_subcommand("print", "Print a Loom file in canonical form");
  print->add_option("file", a->file, "the .loom file")->required();
  CLI::App* run = loom->add_subcommand("run", "Run a func.def or kernel.def in the interpreter");
  run->add_option("file", a->file, "the .loom file")->required();
  run->add_option("--entry", a->entry, "the func.def or kernel.def to run (without '@')")->required();
  run->add_option("--arg", a->args, "one per parameter, in order (kernel: configuration parameters first)");
  run->add_option("--bind", a->binds, "CONTRACT=@FUNCTION: the func.def a func.apply contract runs");
  run->add_option("--subgroup", a->subgroup, "target.subgroup.size (default 8)");
  CLI::App* emit = loom->add_subcommand("emit-cpp", "Write the C++ a Loom module becomes");
  emit->add_option("file", a->file, "the .loom file")->required();
  emit->add_option("-o", a->out, "the output file (default: standard output)");
  emit->add_option("--namespace", a->ns, "the C++ namespace of the emitted functions");
  emit->add_option("--bind", a->binds, "CONTRACT=@FUNCTION: the func.def a func.apply contract calls");
  emit->add_option("--subgroup", a->subgroup, "target.subgroup.size (default 8)");
  CLI::App* ops = loom->add_subcommand("ops", "Print the operation reference (markdown)");
  return [a, verify, print, run, emit, ops]() -> int {
    if (ops->parsed()) {
      std::fputs(loam::loom::op_reference_markdown().c_str(), stdout);
      return 0;
    }
    loam::loom::Module m = read(a->file);
    if (verify->parsed()) return 0;
    if (print->parsed()) {
      std::fputs(loam::loom::print_module(m).c_str(), stdout);
      return 0;
    }
    if (a->subgroup < 1 || a->subgroup > 1024) loam::fail("--subgroup takes 1 to 1024 lanes");
    if (run->parsed()) {
      loam::loom::InterpreterOptions options;
      options.target.subgroup_size = a->subgroup;
      options.contracts = contracts(a->binds);
      auto args = loam::loom::make_run_arguments(m, a->entry, a->args);
      std::vector<loam::loom::RtValue> values;
      for (const auto& arg : args) values.push_back(arg.value);
      loam::loom::Interpreter interpreter(m, options);
      const auto results = interpreter.call(a->entry, values);
      const loam::loom::Op* fn = m.lookup(a->entry);
      const auto& types = fn->name() == "func.def" ? fn->attr("results").types : std::vector<loam::loom::Type>{};
      for (std::size_t i = 0; i < results.size(); ++i) {
        if (i < types.size() && types[i].is_scalar())
          std::printf("result %zu = %s : %s\n", i, loam::loom::print_literal(results[i].bits, types[i].element()).c_str(),
                      loam::loom::print_type(types[i]).c_str());
        else
          std::printf("result %zu : %s\n", i, i < types.size() ? loam::loom::print_type(types[i]).c_str() : "?");
      }
      std::fputs(loam::loom::print_run_buffers(*fn, args).c_str(), stdout);
      return 0;
    }
    loam::loom::CppOptions options;
    options.ns = a->ns;
    options.target.subgroup_size = a->subgroup;
    options.contracts = contracts(a->binds);
    const std::string cpp = loam::loom::emit_cpp(m, options);
    if (a->out.empty()) {
      std::fputs(cpp.c_str(), stdout);
    } else {
      std::ofstream out(a->out, std::ios::binary);
      out << cpp;
      if (!out) loam::fail("cannot write " + a->out);
    }
    return 0;
  };
});

}  // namespace
