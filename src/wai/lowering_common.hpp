// Shared pieces of the §13 lowerings: the refusal a lowering reports (its capability's code, which
// may be outside §4's set, e.g. int_synth's payload_malformed), reading integers out of JSON, and
// the canonical widths of §13.0.
#pragma once

#include "support/error.hpp"
#include "wai/whg1.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace loam::wai {

// A lowering's refusal: `code` is the capability's refusal code ("payload_malformed",
// "model_mismatch", ...); what() is "<code>: <message>".
class LoweringError : public loam::Error {
 public:
  LoweringError(std::string code, const std::string& message)
      : loam::Error(code + ": " + message), code_(std::move(code)) {}
  const std::string& code() const { return code_; }

 private:
  std::string code_;
};

// The JSON value as an integer that fits i64; throws LoweringError(code) naming `where` otherwise.
std::int64_t json_i64(const nlohmann::json& v, const std::string& code, const std::string& where);
// The same for a non-negative integer below 2^32.
std::uint32_t json_u32(const nlohmann::json& v, const std::string& code, const std::string& where);
// Parses JSON text; a syntax error is LoweringError(code).
nlohmann::json parse_json(const std::vector<std::uint8_t>& bytes, const std::string& code,
                          const std::string& where);

// §13.0: the smallest of `allowed` (byte widths, ascending) holding every value.
std::uint8_t smallest_width(const std::vector<std::int64_t>& values,
                            std::initializer_list<std::uint8_t> allowed);

// A tensor record as §13.0 writes it: exponent none, derived with lo = hi = 0 unless given.
TensorRecord lowered_tensor(std::uint32_t channels, Policy policy = Policy::derived,
                            std::int64_t lo = 0, std::int64_t hi = 0);

// Appends an operator whose one output is a new tensor of `channels` (numbered in operator order,
// §13.0) and returns that tensor's index.
std::uint32_t append_op(Whg1Graph& g, Opcode code, std::vector<std::uint32_t> inputs, OpParams params,
                        std::uint32_t channels, Policy policy = Policy::derived, std::int64_t lo = 0,
                        std::int64_t hi = 0);

}  // namespace loam::wai
