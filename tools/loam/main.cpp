#include <cstdio>
#include <exception>
#include <map>

#include "subcommand.hpp"
#include "support/error.hpp"

namespace loam::cli {
std::vector<Setup>& registry() {
  static std::vector<Setup> r;
  return r;
}
}  // namespace loam::cli

int main(int argc, char** argv) {
  CLI::App app{"loam: an ahead-of-time compiler from model graphs to typed C++ modules"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "loam 0.1.0");
  std::vector<std::pair<CLI::App*, loam::cli::Run>> runs;
  for (auto& setup : loam::cli::registry()) {
    std::size_t before = app.get_subcommands({}).size();
    loam::cli::Run run = setup(app);
    auto subs = app.get_subcommands({});
    if (subs.size() > before) runs.emplace_back(subs.back(), std::move(run));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    for (auto& [sub, run] : runs)
      if (sub->parsed()) return run();
  } catch (const loam::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: internal: %s\n", e.what());
    return 2;
  }
  return 0;
}
