#include <onnx/defs/parser.h>

#include <exception>

#include "onnx/from_proto.hpp"
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
}  // namespace

Model read_onnx_text(std::string_view text, const std::string& origin) {
  if (text.size() > kMaxModelBytes) fail(origin + ": text model larger than the model size limit");
  onnx_front::TextFixups fixups;
  std::string bridged = onnx_front::bridge_text(text, origin, fixups);
  // The parser reads a NUL-terminated string and, on an unterminated literal, steps one past its
  // end; padding keeps every such read inside this buffer.
  bridged.append(4, '\0');
  onnx::ModelProto proto;
  try {
    onnx::Common::Status st = onnx::OnnxParser::Parse(proto, bridged.c_str());
    if (!st.IsOK()) fail(origin + ": " + one_line(st.ErrorMessage()));
  } catch (const Error&) {
    throw;
  } catch (const std::out_of_range&) {
    fail(origin + ": a number in the text model is out of range");
  } catch (const std::exception& e) {
    fail(origin + ": malformed text model (" + one_line(e.what()) + ")");
  }
  onnx_front::restore_fixups(proto, fixups, origin);
  return onnx_front::model_from_proto(proto, origin);
}

}  // namespace loam
