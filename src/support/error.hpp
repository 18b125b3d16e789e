// The one error type Loam's build-time code throws. Every refusal says where it is: the file, and
// within it the node, tensor and axis (or the byte offset and record for a binary format), so a
// user can find the place without a debugger. The CLI prints `what()` on one line and exits 1.
#pragma once

#include <stdexcept>
#include <string>

namespace loam {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

// Where an error happened, built up as it propagates: "model.onnx: node 'Reshape_3': tensor 'x'".
// Use `with_context` to prefix a message when an error crosses a boundary that knows more.
[[noreturn]] inline void fail(const std::string& message) { throw Error(message); }

inline Error with_context(const std::string& where, const Error& e) {
  return Error(where + ": " + e.what());
}

}  // namespace loam
