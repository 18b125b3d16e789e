#include "ops/op.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>

#include "support/error.hpp"

namespace loam::ops {

using stage0::EqualityRule;
using stage0::OwedKind;

std::optional<std::vector<int64_t>> constant_shape(const std::vector<Extent>& dims) {
  std::vector<int64_t> r;
  for (const auto& d : dims) {
    auto c = d.constant();
    if (!c) return std::nullopt;
    r.push_back(*c);
  }
  return r;
}

bool is_integer_type(ElementType t) {
  switch (t) {
    case ElementType::I64: case ElementType::I32: case ElementType::Bool: case ElementType::I8:
    case ElementType::U8: case ElementType::I16: case ElementType::U16: case ElementType::U32:
      return true;
    default: return false;
  }
}

bool held_in_float(ElementType t) { return t == ElementType::F32 || t == ElementType::F16 || t == ElementType::BF16; }

bool is_float_type(ElementType t) {
  return t == ElementType::F32 || t == ElementType::F16 || t == ElementType::BF16 || t == ElementType::F64;
}

std::optional<std::vector<Extent>> integral_values(const ValueState& v) {
  if (!v.value) return std::nullopt;
  if (v.value->kind == FoldedValue::Kind::Integer) return v.value->ints;
  std::vector<Extent> r;
  for (float f : v.value->floats) {
    if (!std::isfinite(f) || f != std::trunc(f) || std::fabs(f) > 9.2e18f) return std::nullopt;
    r.emplace_back(static_cast<int64_t>(f));
  }
  return r;
}

// For each element of `out` (row-major), the index of the element of `in` (right-aligned numpy
// broadcast) it reads.
std::vector<std::size_t> broadcast_map(const std::vector<int64_t>& out, const std::vector<int64_t>& in) {
  int64_t n = 1;
  for (int64_t d : out) n *= d;
  std::vector<std::size_t> map(static_cast<std::size_t>(n));
  std::size_t r = out.size(), off = r - in.size();
  std::vector<int64_t> in_stride(r, 0);
  int64_t s = 1;
  for (std::size_t k = in.size(); k-- > 0;) {
    in_stride[off + k] = in[k] == 1 ? 0 : s;
    s *= in[k];
  }
  std::vector<int64_t> idx(r, 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t src = 0;
    for (std::size_t k = 0; k < r; ++k) src += idx[k] * in_stride[k];
    map[static_cast<std::size_t>(i)] = static_cast<std::size_t>(src);
    for (std::size_t k = r; k-- > 0;) {
      if (++idx[k] < out[k]) break;
      idx[k] = 0;
    }
  }
  return map;
}

std::vector<std::size_t> first_input(const Node& n) {
  if (n.inputs.empty() || n.inputs[0].empty()) return {};
  return {0};
}

std::vector<std::size_t> no_inputs(const Node&) { return {}; }

void name_like_input(axes::NodeNaming& x) {
  for (std::size_t k = 0; k < x.node.outputs.size(); ++k)
    if (!x.node.outputs[k].empty()) x.same_as_input(k);
}

void name_created(axes::NodeNaming& x) { x.complete(0, axes::Partial(x.out_rank(0))); }

void name_broadcast(axes::NodeNaming& x) {
  std::vector<std::string> operands;
  for (auto i : x.tensor_operands()) operands.push_back(x.in(i));
  x.complete(0, x.broadcast(operands, x.out_rank(0)));
}

FusionRole elementwise_role(const Node& n, const stage0::Stage0Result&) {
  return n.outputs.size() == 1 && !n.outputs[0].empty() ? FusionRole::Elementwise : FusionRole::None;
}

FusionRole contraction_role(const Node&, const stage0::Stage0Result&) { return FusionRole::Contraction; }

bool reads_float_rows(const Node& n, const stage0::Stage0Result& st, std::int64_t axis) {
  if (n.inputs.empty() || n.outputs.empty() || n.outputs[0].empty()) return false;
  const auto* x = st.find(n.inputs[0]);
  if (!x || x->elem != ElementType::F32 || x->dims.empty()) return false;
  return axis == -1 || axis == static_cast<std::int64_t>(x->dims.size()) - 1;
}

const OperatorTable& operators() {
  static const OperatorTable table = [] {
    std::vector<Operator> all;
    register_elementwise(all);
    register_unary(all);
    register_binary(all);
    register_shape_ops(all);
    register_reshape(all);
    register_slice(all);
    register_conv_pool(all);
    register_matmul(all);
    register_reduce(all);
    register_normalization(all);
    register_resize(all);
    register_rotary_embedding(all);
    register_attention(all);
    register_recurrent(all);
    // If: stage 0, axis naming and lowering run its branches themselves (a block of forward each).
    all.push_back({.domain = "", .op_type = "If", .in_scope = true});
    return OperatorTable(std::move(all));
  }();
  return table;
}

std::string float_literal(float v) {
  if (!std::isfinite(v)) return "std::bit_cast<float>(std::uint32_t(" + std::to_string(std::bit_cast<std::uint32_t>(v)) + "u))";
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, end);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s + "f";
}

Arg quoted_name(const std::string& tensor) {
  std::string quoted = "\"";
  for (char c : tensor) {
    if (c == '"' || c == '\\') quoted += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    quoted += c;
  }
  return Arg::of_code(quoted + "\"");
}

}  // namespace loam::ops
