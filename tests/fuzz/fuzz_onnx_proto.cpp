// libFuzzer target: the protobuf ONNX reader, then the schema, structural and ONNX checker checks,
// opset normalisation and the text printer over whatever it accepts. A loam::Error is a refusal;
// anything else escaping, a crash or a sanitizer report is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "onnx/normalize.hpp"
#include "onnx/printer.hpp"
#include "onnx/reader.hpp"
#include "support/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    loam::Model m = loam::read_model_bytes(bytes, loam::ModelForm::Proto, "fuzz.onnx");
    loam::normalize_opsets(m);
    (void)loam::print_onnxtext(m);
  } catch (const loam::Error&) {
  }
  return 0;
}
