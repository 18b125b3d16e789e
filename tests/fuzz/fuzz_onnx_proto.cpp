// libFuzzer target: the protobuf ONNX reader, then the schema and structural checks, opset normalisation and
// the text printer over whatever it accepts. A loam::Error is a refusal; anything else escaping,
// a crash or a sanitizer report is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "graph/verify.hpp"
#include "onnx/schema_check.hpp"
#include "onnx/normalize.hpp"
#include "onnx/printer.hpp"
#include "onnx/reader.hpp"
#include "support/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    loam::Model m = loam::read_onnx_proto(bytes, "fuzz.onnx");
    loam::check_against_schemas(m, "fuzz.onnx");
    loam::verify_graph(m, "fuzz.onnx");
    loam::normalize_opsets(m);
    (void)loam::print_onnxtext(m);
  } catch (const loam::Error&) {
  }
  return 0;
}
