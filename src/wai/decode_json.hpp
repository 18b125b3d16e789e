// The JSON forms of §14.1 for decodes and stage vectors: tensors { "data", "shape" } with every
// integer a decimal string (plain JSON numbers are accepted on input), and canonical output
// (sorted keys, no whitespace).
#pragma once

#include "wai/decode.hpp"
#include "wai/ops.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace loam::wai {

struct DecodeRequest {
  std::vector<Tensor> inputs;          // data inputs, in input-table order
  std::vector<std::int64_t> scalars;   // in scalar-table order
  std::optional<nlohmann::json> expect;  // the vector's expectation, when given
};

// An integer written as a decimal string or a JSON integer; throws loam::Error naming `where`.
std::int64_t json_i64(const nlohmann::json& v, const std::string& where);
nlohmann::json json_int(std::int64_t v);  // the canonical form: a decimal string
Tensor json_tensor(const nlohmann::json& v, const std::string& where);
nlohmann::json tensor_json(const Tensor& t);

// A decodes file: an array of decode objects, an object with a "decodes" array (a §14.1 vector),
// or one decode object.
std::vector<DecodeRequest> parse_decodes(const nlohmann::json& doc);

// { "outputs": [tensor …] } or { "refuse": code }.
nlohmann::json outcome_json(const DecodeOutcome& outcome);

// Runs a stage operator on a §14.1 stage vector's `in` and `modes`, and returns its `expect`
// form, or { "at", "refuse" } for a refusal. Throws loam::Error for an unknown operator
// (rans64_decode among them) or a malformed `in`.
nlohmann::json run_stage_json(const std::string& op, const nlohmann::json& in, const nlohmann::json& modes);

}  // namespace loam::wai
