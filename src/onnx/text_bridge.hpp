// A lexical bridge between ONNX's textual format as the current ONNX parser reads it and the parser
// in the ONNX library we build against (Debian's libonnx 1.12), which predates part of that
// grammar. The bridge rewrites what 1.12 cannot read into spellings it can, and records how to
// restore the ModelProto the parser builds:
//
//   quoted identifiers ("input.1")          -> placeholder identifiers, restored in every name field
//   string literals with escapes (\" \\)   -> placeholder literals, restored in every string field
//   float words nan / inf / infinity (±)    -> sentinel float literals, restored in float fields
//   float16 / bfloat16 types and literals   -> uint16 plus a tag dimension, restored to the type
//   a tensor attribute's name               -> a tag dimension carrying the name
//   node names ([name] y = Op(x))           -> a tag attribute carrying the name
//   attribute type annotations (a: ints = []) -> dropped; an empty list becomes a tagged literal
//
// It also bounds the input for the parser: no NUL byte, balanced brackets, nesting at most
// kMaxTextDepth, and every string literal terminated. An initializer naming an external data
// file (`w = ["location": "w.bin"]`) is refused here, naming the tensor.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace loam::onnx_front {

inline constexpr int kMaxTextDepth = 64;

struct TextFixups {
  std::string ident_prefix;    // placeholder identifiers: ident_prefix + index into `idents`
  std::string string_prefix;   // placeholder string literals: string_prefix + index into `strings`
  std::string node_attr;       // name of the tag attribute carrying a node's name
  std::vector<std::string> idents;
  struct StringFix {
    std::string text;              // the literal's value
    int empty_list_kind = 0;       // an AttributeProto type: the literal stands for an empty list
  };
  std::vector<StringFix> strings;
  struct TypeFix {
    int32_t elem = 0;                        // element type to restore (0: keep)
    enum class Shape : uint8_t { Dims, Scalar, UnknownRank } shape = Shape::Dims;
    std::optional<std::string> tensor_name;  // an attribute tensor's name
  };
  std::vector<TypeFix> types;  // tag dimension -(kTypeTagBase + index)
  std::vector<std::string> node_names;
  std::vector<std::pair<double, double>> float_words;  // sentinel value -> value it stands for
};

inline constexpr int64_t kTypeTagBase = 7000000000;

// Rewrites `text` for the 1.12 parser. Throws loam::Error starting with `origin`.
std::string bridge_text(std::string_view text, const std::string& origin, TextFixups& fixups);

// Restores what bridge_text rewrote, in place. Throws loam::Error on a sentinel it finds where the
// grammar allows no float word (an integer tensor), naming the tensor.
void restore_fixups(onnx::ModelProto& model, const TextFixups& fixups, const std::string& origin);

}  // namespace loam::onnx_front
