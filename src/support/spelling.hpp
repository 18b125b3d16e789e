// A name as words: its letters and digits, each run of other characters one '_', none at either
// end ("/model/h.0/Add_1" -> "model_h_0_Add_1", "unk__214" -> "unk_214"); empty when it has no
// letter or digit. The generated module's identifiers, Loom value names and proposed axis names
// are all spelled from it.
#pragma once

#include <cctype>
#include <string>
#include <string_view>

namespace loam {

inline std::string word_spelling(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c))) out += c;
    else if (!out.empty() && out.back() != '_') out += '_';
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

}  // namespace loam
