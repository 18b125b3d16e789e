// Reading a whole file into memory, with errors that name the file.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "support/error.hpp"

namespace loam {

inline std::string read_whole_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) fail(file.string() + ": cannot open the file");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) fail(file.string() + ": cannot read the file");
  return text.str();
}

}  // namespace loam
