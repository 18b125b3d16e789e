// libFuzzer target: the text ONNX reader (the lexical bridge and ONNX's own parser), then the
// schema, structural and ONNX checker checks, opset normalisation and the printer. A loam::Error is
// a refusal; anything else escaping, a crash or a sanitizer report is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "onnx/normalize.hpp"
#include "onnx/printer.hpp"
#include "onnx/reader.hpp"
#include "support/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    loam::Model m = loam::read_model_bytes(text, loam::ModelForm::Text, "fuzz.onnxtext");
    loam::normalize_opsets(m);
    (void)loam::print_onnxtext(m);
  } catch (const loam::Error&) {
  }
  return 0;
}
