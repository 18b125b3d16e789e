#include "wai/lowering_common.hpp"

namespace loam::wai {

std::int64_t json_i64(const nlohmann::json& v, const std::string& code, const std::string& where) {
  if (v.is_number_integer()) {
    if (v.is_number_unsigned()) {
      const std::uint64_t u = v.get<std::uint64_t>();
      if (u > static_cast<std::uint64_t>(INT64_MAX)) throw LoweringError(code, where + ": " + std::to_string(u) + " does not fit i64");
      return static_cast<std::int64_t>(u);
    }
    return v.get<std::int64_t>();
  }
  throw LoweringError(code, where + ": not an integer that fits i64");
}

std::uint32_t json_u32(const nlohmann::json& v, const std::string& code, const std::string& where) {
  const std::int64_t x = json_i64(v, code, where);
  if (x < 0 || x > static_cast<std::int64_t>(UINT32_MAX))
    throw LoweringError(code, where + ": " + std::to_string(x) + " is not in 0..2^32-1");
  return static_cast<std::uint32_t>(x);
}

nlohmann::json parse_json(const std::vector<std::uint8_t>& bytes, const std::string& code,
                          const std::string& where) {
  try {
    return nlohmann::json::parse(bytes.begin(), bytes.end());
  } catch (const nlohmann::json::exception& e) {
    throw LoweringError(code, where + ": not JSON: " + e.what());
  }
}

std::uint8_t smallest_width(const std::vector<std::int64_t>& values,
                            std::initializer_list<std::uint8_t> allowed) {
  for (std::uint8_t w : allowed) {
    if (w == 8) return w;
    const std::int64_t top = (std::int64_t{1} << (8 * w - 1)) - 1;
    bool ok = true;
    for (std::int64_t v : values)
      if (v < -top - 1 || v > top) {
        ok = false;
        break;
      }
    if (ok) return w;
  }
  return 8;
}

TensorRecord lowered_tensor(std::uint32_t channels, Policy policy, std::int64_t lo, std::int64_t hi) {
  TensorRecord t;
  t.channels = channels;
  t.exponent = kNoExponent;
  t.policy = policy;
  t.lo = lo;
  t.hi = hi;
  return t;
}

std::uint32_t append_op(Whg1Graph& g, Opcode code, std::vector<std::uint32_t> inputs, OpParams params,
                        std::uint32_t channels, Policy policy, std::int64_t lo, std::int64_t hi) {
  g.tensors.push_back(lowered_tensor(channels, policy, lo, hi));
  Operator op;
  op.opcode = code;
  op.inputs = std::move(inputs);
  op.outputs = {static_cast<std::uint32_t>(g.tensors.size() - 1)};
  op.params = std::move(params);
  g.ops.push_back(std::move(op));
  return g.ops.back().outputs[0];
}

}  // namespace loam::wai
