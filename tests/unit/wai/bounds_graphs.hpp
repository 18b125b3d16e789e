// Small WHG1 graphs built in memory for the bounds, certificate and profile tests.
#pragma once

#include "wai/certificate.hpp"
#include "wai/whg1.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace loam::wai::testing {

inline std::uint32_t add_tensor(Whg1Graph& g, std::uint32_t ch, Policy p = Policy::derived,
                                std::int64_t lo = 0, std::int64_t hi = 0) {
  TensorRecord t;
  t.channels = ch;
  t.policy = p;
  t.lo = lo;
  t.hi = hi;
  g.tensors.push_back(t);
  return static_cast<std::uint32_t>(g.tensors.size() - 1);
}

inline Whg1Graph with_input(std::uint32_t ch, std::int64_t lo, std::int64_t hi,
                            Policy p = Policy::check, std::uint32_t max_h = 0, std::uint32_t max_w = 0) {
  Whg1Graph g;
  InputRecord in;
  in.tensor = add_tensor(g, ch, p, lo, hi);
  in.max_h = max_h;
  in.max_w = max_w;
  g.inputs.push_back(in);
  return g;
}

inline std::uint32_t add_op(Whg1Graph& g, Opcode code, std::vector<std::uint32_t> ins, OpParams params,
                            std::uint32_t out_ch, Policy p = Policy::derived, std::int64_t lo = 0,
                            std::int64_t hi = 0) {
  Operator op;
  op.opcode = code;
  op.inputs = std::move(ins);
  op.outputs = {add_tensor(g, out_ch, p, lo, hi)};
  op.params = std::move(params);
  g.ops.push_back(std::move(op));
  g.outputs = {g.ops.back().outputs[0]};
  return g.ops.back().outputs[0];
}

// An RQ: no multiplier, one shift, no bias, floor, unless changed.
inline RqBlock rq_plain(unsigned shift = 0) {
  RqBlock rq;
  rq.shift = {static_cast<std::uint8_t>(shift)};
  return rq;
}

inline RqBlock rq_mult(std::int64_t m, unsigned shift, Round r = Round::floor) {
  RqBlock rq = rq_plain(shift);
  rq.round = r;
  rq.m_kind = 1;
  rq.m_bytes = 8;
  rq.mult = {m};
  return rq;
}

// A 1×1 conv over `cin` channels to `cout`, weights given per (o, ci).
inline ConvParams conv1x1(std::uint32_t cout, std::vector<std::int64_t> w, RqBlock rq) {
  ConvParams p;
  p.cout = cout;
  p.w_bytes = 8;
  p.rq = std::move(rq);
  p.weights = std::move(w);
  return p;
}

inline nlohmann::json certify_json(const Whg1Graph& g, const std::string& role = "g") {
  const std::vector<std::uint8_t> b = write_whg1(g);
  return nlohmann::json::parse(certify_graph(role, b).json);
}

inline std::string pow2s(unsigned n) {  // decimal 2^n, for expectations written by hand
  std::string digits = "1";
  for (unsigned i = 0; i < n; ++i) {
    int carry = 0;
    for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
      int d = (*it - '0') * 2 + carry;
      *it = static_cast<char>('0' + d % 10);
      carry = d / 10;
    }
    if (carry) digits.insert(digits.begin(), static_cast<char>('0' + carry));
  }
  return digits;
}

}  // namespace loam::wai::testing
