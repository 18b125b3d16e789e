#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace loam::test {

inline std::filesystem::path fixture(const std::string& rel) {
  return std::filesystem::path(LOAM_SOURCE_DIR) / "tests/unit/checkpoint/data" / rel;
}

inline std::vector<std::byte> read_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  std::string t = s.str();
  std::vector<std::byte> out(t.size());
  for (std::size_t i = 0; i < t.size(); ++i) out[i] = static_cast<std::byte>(t[i]);
  return out;
}

// A scratch directory of its own per test, removed at the end.
struct ScratchDir {
  std::filesystem::path path;
  explicit ScratchDir(const std::string& tag)
      : path(std::filesystem::temp_directory_path() / ("loam_" + tag + "_" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~ScratchDir() { std::filesystem::remove_all(path); }
};

}  // namespace loam::test
