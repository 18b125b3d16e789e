// The Loom files the tests run over: every .loom under tests/loom/, and the directives their
// comments carry for a run:
//   // run: @ENTRY ARG...            one run, each ARG as `loam loom run --arg` takes it
//   // bind: CONTRACT=@FUNCTION       the func.def a func.apply contract runs
//   // subgroup: N                    target.subgroup.size (default 8)
#pragma once

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "support/file.hpp"

namespace loom_test {

namespace fs = std::filesystem;

struct Run {
  std::string entry;
  std::vector<std::string> args;
};

struct KernelFile {
  fs::path path;
  std::string name;  // the file's stem, unique under tests/loom/
  std::string text;
  std::vector<Run> runs;
  std::map<std::string, std::string> contracts;
  std::int64_t subgroup = 8;
};

inline std::vector<KernelFile> kernel_files() {
  std::vector<KernelFile> files;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(LOAM_SOURCE_DIR) / "tests/loom"))
    if (e.path().extension() == ".loom") {
      KernelFile k;
      k.path = e.path();
      k.name = e.path().stem().string();
      k.text = loam::read_whole_file(e.path());
      std::istringstream lines(k.text);
      for (std::string line; std::getline(lines, line);) {
        auto directive = [&](const std::string& head) { return line.rfind("// " + head + ":", 0) == 0; };
        std::istringstream words(line.substr(line.find(':') + 1));
        if (directive("run")) {
          Run r;
          words >> r.entry;
          r.entry = r.entry.substr(1);
          for (std::string w; words >> w;) r.args.push_back(w);
          k.runs.push_back(r);
        } else if (directive("bind")) {
          std::string b;
          words >> b;
          k.contracts[b.substr(0, b.find("=@"))] = b.substr(b.find("=@") + 2);
        } else if (directive("subgroup")) {
          words >> k.subgroup;
        }
      }
      files.push_back(std::move(k));
    }
  std::sort(files.begin(), files.end(), [](const KernelFile& a, const KernelFile& b) { return a.name < b.name; });
  return files;
}

// The text without its comment lines: what the printer gives back for a canonical file.
inline std::string without_comments(const std::string& text) {
  std::istringstream lines(text);
  std::string out;
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("//", 0) != 0) out += line + "\n";
  return out;
}

}  // namespace loom_test
