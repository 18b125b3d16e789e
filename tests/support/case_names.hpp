// The cases of a directory of test cases, sorted: the stems of its files ending in `extension`
// (".loom"), or, with no extension, the names of its subdirectories (a case per directory).
#pragma once

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace loam_test {

inline std::vector<std::string> case_names(const std::filesystem::path& dir, const std::string& extension = "") {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (extension.empty() ? e.is_directory() : e.path().extension() == extension)
      names.push_back(extension.empty() ? e.path().filename().string() : e.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace loam_test
