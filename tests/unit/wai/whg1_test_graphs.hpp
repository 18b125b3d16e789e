// Building small WHG1 graphs from a description, for the wai tests. Every graph goes through the
// canonical writer and the reader (so every load check runs) before it is decoded.
#pragma once

#include "wai/decode.hpp"
#include "wai/whg1.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace loam::wai::testing {

struct GraphBuilder {
  Whg1Graph g;

  std::uint32_t tensor(std::uint32_t channels, Policy p = Policy::derived, std::int64_t lo = 0,
                       std::int64_t hi = 0, std::int8_t exponent = kNoExponent) {
    g.tensors.push_back(TensorRecord{channels, exponent, p, lo, hi});
    return static_cast<std::uint32_t>(g.tensors.size() - 1);
  }
  // A data input with a check range (the default) or a clamp range.
  std::uint32_t input(std::uint32_t channels, std::int64_t lo, std::int64_t hi, std::uint32_t max_h = 0,
                      std::uint32_t max_w = 0, Policy p = Policy::check) {
    const auto t = tensor(channels, p, lo, hi);
    g.inputs.push_back(InputRecord{t, max_h, max_w, InputKind::data, 0, 0});
    return t;
  }
  std::uint32_t state(std::uint32_t channels, std::int64_t lo, std::int64_t hi, std::uint32_t src,
                      std::int64_t init, std::uint32_t max_h = 0, std::uint32_t max_w = 0) {
    const auto t = tensor(channels, Policy::check, lo, hi);
    g.inputs.push_back(InputRecord{t, max_h, max_w, InputKind::state, src, init});
    return t;
  }
  std::uint32_t scalar(std::int64_t lo, std::int64_t hi) {
    g.scalars.push_back(ScalarRecord{lo, hi});
    return static_cast<std::uint32_t>(g.scalars.size() - 1);
  }
  void op(Opcode code, std::vector<std::uint32_t> in, std::vector<std::uint32_t> out, OpParams p = std::monostate{}) {
    Operator o;
    o.opcode = code;
    o.inputs = std::move(in);
    o.outputs = std::move(out);
    o.params = std::move(p);
    g.ops.push_back(std::move(o));
  }
  void output(std::uint32_t t) { g.outputs.push_back(t); }
};

// An RQ block with one shift and, optionally, one multiplier.
inline RqBlock rq_shift(unsigned shift, Round round = Round::floor) {
  RqBlock r;
  r.round = round;
  r.s_kind = 1;
  r.shift = {static_cast<std::uint8_t>(shift)};
  return r;
}

inline Tensor tensor_of(Shape s, std::vector<std::int64_t> data) {
  Tensor t;
  t.shape = s;
  t.data = std::move(data);
  return t;
}

// Writes, reads (load checks) and decodes once.
inline DecodeOutcome decode_once(const Whg1Graph& g, std::vector<Tensor> inputs,
                                 std::vector<std::int64_t> scalars = {}) {
  const auto bytes = write_whg1(g);
  Decoder d(read_whg1(bytes));
  return d.decode(inputs, scalars);
}

// The one output of a decode that must complete.
inline Tensor decode_ok(const Whg1Graph& g, std::vector<Tensor> inputs, std::vector<std::int64_t> scalars = {}) {
  DecodeOutcome r = decode_once(g, std::move(inputs), std::move(scalars));
  if (!r.completed()) {
    ADD_FAILURE() << "refused: " << r.refusal->code_name() << ": " << r.refusal->message;
    return Tensor{};
  }
  return r.outputs.at(0);
}

// The code a load refuses with, or "ok".
inline std::string load_verdict(const std::vector<std::uint8_t>& bytes) {
  auto r = try_read_whg1(bytes);
  if (auto* ref = std::get_if<Refusal>(&r)) return std::string(ref->code_name());
  return "ok";
}
inline std::string load_verdict(const Whg1Graph& g) { return load_verdict(write_whg1(g)); }

// A one-operator graph: one data input [cin] with a check range, one output.
inline GraphBuilder unary(Opcode code, OpParams p, std::uint32_t cin, std::uint32_t cout,
                          std::int64_t lo = INT64_MIN, std::int64_t hi = INT64_MAX,
                          std::uint32_t max_h = 0, std::uint32_t max_w = 0) {
  GraphBuilder b;
  const auto x = b.input(cin, lo, hi, max_h, max_w);
  const auto y = b.tensor(cout);
  b.op(code, {x}, {y}, std::move(p));
  b.output(y);
  return b;
}

}  // namespace loam::wai::testing
