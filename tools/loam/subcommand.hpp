// How a `loam` subcommand joins the CLI: a cmd_*.cpp file defines one static SubcommandRegistration
// whose `setup` adds its options to the CLI11 app and returns the function that runs it. No logic
// lives in the CLI: a subcommand parses arguments and calls into the library.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <vector>

namespace loam::cli {

using Run = std::function<int()>;
using Setup = std::function<Run(CLI::App& parent)>;

std::vector<Setup>& registry();

struct SubcommandRegistration {
  explicit SubcommandRegistration(Setup s) { registry().push_back(std::move(s)); }
};

}  // namespace loam::cli
