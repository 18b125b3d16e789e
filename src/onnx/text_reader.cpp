#include <onnx/defs/parser.h>

#include <cstdlib>
#include <exception>

#include "onnx/from_proto.hpp"
#include "onnx/proto_parse.hpp"
#include "onnx/reader.hpp"
#include "onnx/text_bridge.hpp"
#include "support/error.hpp"

namespace loam {

namespace {
// ONNX's parser reports over several lines; a loam::Error is one line.
std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

// ONNX's parser reports "[ParseError at position (line: L column: C)]\nError context: ...\nWHAT"
// over the bridged text, whose lines are the original's but whose columns are not. Restate it as
// "line L: WHAT (near: <the original line>)".
std::string parse_error(const std::string& msg, std::string_view text) {
  std::size_t line_at = msg.find("(line: ");
  std::size_t what_at = msg.rfind('\n');
  if (line_at == std::string::npos || what_at == std::string::npos) return one_line(msg);
  long line = std::strtol(msg.c_str() + line_at + 7, nullptr, 10);
  std::string what = one_line(msg.substr(what_at + 1));
  std::size_t start = 0;
  for (long k = 1; k < line && start != std::string_view::npos; ++k) {
    start = text.find('\n', start);
    if (start != std::string_view::npos) ++start;
  }
  std::string near;
  if (start != std::string_view::npos && start < text.size()) {
    std::size_t end = text.find('\n', start);
    near = std::string(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    std::size_t b = near.find_first_not_of(" \t\r");
    near = b == std::string::npos ? "" : near.substr(b);
    while (!near.empty() && (near.back() == ' ' || near.back() == '\r' || near.back() == '\t')) near.pop_back();
    if (near.size() > 120) near = near.substr(0, 117) + "...";
  }
  return "line " + std::to_string(line) + ": " + what + (near.empty() ? "" : " (near: " + near + ")");
}
}  // namespace

onnx::ModelProto parse_onnx_text(std::string_view text, const std::string& origin) {
  if (text.size() > kMaxModelBytes) fail(origin + ": text model larger than the model size limit");
  onnx_front::TextFixups fixups;
  std::string bridged = onnx_front::bridge_text(text, origin, fixups);
  // The parser reads a NUL-terminated string and, on an unterminated literal, steps one past its
  // end; padding keeps every such read inside this buffer.
  bridged.append(4, '\0');
  onnx::ModelProto proto;
  try {
    onnx::Common::Status st = onnx::OnnxParser::Parse(proto, bridged.c_str());
    if (!st.IsOK()) fail(origin + ": " + parse_error(st.ErrorMessage(), text));
  } catch (const Error&) {
    throw;
  } catch (const std::out_of_range&) {
    fail(origin + ": a number in the text model is out of range");
  } catch (const std::exception& e) {
    fail(origin + ": malformed text model (" + one_line(e.what()) + ")");
  }
  onnx_front::restore_fixups(proto, fixups, origin);
  return proto;
}

Model read_onnx_text(std::string_view text, const std::string& origin) {
  return onnx_front::model_from_proto(parse_onnx_text(text, origin), origin);
}

}  // namespace loam
