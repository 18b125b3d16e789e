// libFuzzer target: the options reader and the layout grammar. Properties: the canonical form reads
// back to equal options and is a fixed point; a validated pattern matches exactly as fnmatch(3)
// does.
#include <fnmatch.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "options/layout_syntax.hpp"
#include "options/options.hpp"
#include "support/error.hpp"

namespace {
const char* const kNames[] = {"", "a", "fc.weight", "h.0.attn.c_attn.weight", "h.10.mlp.c_fc.bias", "[", "]",
                              "\\", "*", "?", "a-b", "transformer/h.3/w", "x.y.z", "model.layers.31.q_proj.weight"};
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    loam::Options o = loam::parse_options(text, "fuzz.json");
    std::string canon = loam::canonical_options_json(o);
    loam::Options again = loam::parse_options(canon, "canon.json");
    if (!(again == o)) std::abort();
    if (loam::canonical_options_json(again) != canon) std::abort();
    for (const auto& rule : o.layout) {
      if (rule.pattern.find('\0') != std::string::npos) continue;
      for (const char* name : kNames)
        if (loam::wildcard_match(rule.pattern, name) != (fnmatch(rule.pattern.c_str(), name, 0) == 0)) std::abort();
    }
  } catch (const loam::Error&) {
  }
  // The input itself as a pattern: validated ones agree with fnmatch on the input's halves.
  if (text.find('\0') == std::string::npos && size < 256) {
    std::string pattern = text.substr(0, size / 2), name = text.substr(size / 2);
    bool valid = true;
    try {
      loam::validate_wildcard(pattern);
    } catch (const loam::Error&) {
      valid = false;
    }
    if (valid && loam::wildcard_match(pattern, name) != (fnmatch(pattern.c_str(), name.c_str(), 0) == 0)) std::abort();
    try {
      loam::parse_axis_spec(text);
    } catch (const loam::Error&) {
    }
  }
  return 0;
}
