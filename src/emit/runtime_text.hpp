// The runtime a generated module inlines, as text compiled into the generator from runtime/loam/.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace loam::emit {

struct RuntimeText {
  std::string_view prelude;        // system includes, written ahead of `namespace NAME {`
  std::string_view body;           // the MANIFEST's files in order, pasted inside the namespace
  std::string_view reserved_list;  // runtime/loam/RESERVED: one declared name a line
  std::vector<std::string> body_files;
};

const RuntimeText& runtime_text();

}  // namespace loam::emit
