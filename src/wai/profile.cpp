#include "wai/profile.hpp"

#include <algorithm>
#include <set>

namespace loam::wai {

namespace {
bool fits_i32(std::int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; }
bool all_i32(const std::vector<std::int64_t>& v) { return std::all_of(v.begin(), v.end(), fits_i32); }

const RqBlock* rq_of(const Operator& op) {
  switch (op.opcode) {
    case Opcode::conv: return &std::get<ConvParams>(op.params).rq;
    case Opcode::conv_transpose: return &std::get<ConvTransposeParams>(op.params).rq;
    case Opcode::rescale:
    case Opcode::mul: return &std::get<RqParams>(op.params).rq;
    case Opcode::gram:
    case Opcode::apply: return &std::get<ContractionParams>(op.params).rq;
    default: return nullptr;
  }
}
}  // namespace

std::string_view profile_name(Profile p) { return p == Profile::acc32 ? "acc32" : "acc64"; }

std::optional<Profile> parse_profile(std::string_view name) {
  if (name == "acc32") return Profile::acc32;
  if (name == "acc64") return Profile::acc64;
  return std::nullopt;
}

unsigned class_width(Profile p, WidthClass c) {
  if (p == Profile::acc64) return (c == WidthClass::wide || c == WidthClass::product) ? 128 : 64;
  return c == WidthClass::product ? 64 : 32;
}

std::vector<std::string> acc32_params(const Whg1Graph&, const Operator& op) {
  std::vector<std::string> keys;
  if (const RqBlock* rq = rq_of(op)) {
    if (!all_i32(rq->mult)) keys.emplace_back("rq.mult");
    if (std::any_of(rq->shift.begin(), rq->shift.end(), [](std::uint8_t s) { return s > 63; }))
      keys.emplace_back("rq.shift");
    if (rq->bias == BiasPlacement::post && !all_i32(rq->bias_values)) keys.emplace_back("rq.post_bias");
  }
  switch (op.opcode) {
    case Opcode::conv:
      if (!all_i32(std::get<ConvParams>(op.params).weights)) keys.emplace_back("weights");
      break;
    case Opcode::conv_transpose:
      if (!all_i32(std::get<ConvTransposeParams>(op.params).weights)) keys.emplace_back("weights");
      break;
    case Opcode::chscale: {
      const auto& p = std::get<ChscaleParams>(op.params);
      if (!all_i32(p.m)) keys.emplace_back("chscale.m");
      if (p.shift > 63) keys.emplace_back("chscale.s");
      break;
    }
    case Opcode::igdn: {
      const auto& p = std::get<IgdnParams>(op.params);
      if (!all_i32(p.gamma)) keys.emplace_back("igdn.gamma");
      if (p.gf > 63 || p.frac > 63) keys.emplace_back("igdn.shift");
      break;
    }
    case Opcode::leaky:
      if (!fits_i32(std::get<LeakyParams>(op.params).a)) keys.emplace_back("leaky.a");
      break;
    default:
      break;
  }
  return keys;
}

std::vector<std::string> npu_flags(const Whg1Graph& g, const Operator& op) {
  std::set<std::string> f;
  if (op.opcode == Opcode::lut16) f.insert("lut16");
  if (op.opcode == Opcode::chscale) f.insert("chscale");
  if (op.opcode == Opcode::add || op.opcode == Opcode::chunk_add) {
    for (std::uint32_t t : op.inputs)
      for (const InputRecord& in : g.inputs)
        if (in.kind == InputKind::state && in.tensor == t) f.insert("state_add");
  }
  auto rq_flags = [&](Round round, bool has_mult, const std::vector<std::int64_t>& mults,
                      bool post, bool shift_out) {
    if (round == Round::half_even) f.insert("rq_half_even");
    if (round == Round::floor && has_mult) f.insert("rq_floor_mult");
    if (post) f.insert("rq_post_bias");
    if (std::any_of(mults.begin(), mults.end(), [](std::int64_t m) { return m < 0; })) f.insert("rq_neg_mult");
    if (shift_out) f.insert("rq_shift_range");
  };
  if (const RqBlock* rq = rq_of(op)) {
    rq_flags(rq->round, rq->m_kind != 0, rq->mult, rq->bias == BiasPlacement::post,
             std::any_of(rq->shift.begin(), rq->shift.end(), [](std::uint8_t s) { return s > 31; }));
  } else if (op.opcode == Opcode::chscale) {
    const auto& p = std::get<ChscaleParams>(op.params);
    rq_flags(p.round, true, p.m, false, p.shift > 31);
  }
  return {f.begin(), f.end()};
}

std::vector<std::string> npu_op_reasons(const Whg1Graph& g, const Operator& op) {
  std::vector<std::string> r;
  switch (op.opcode) {
    case Opcode::igdn:
    case Opcode::layernorm_c:
    case Opcode::l2norm:
    case Opcode::softmax:
    case Opcode::sigmoid:
    case Opcode::elu:
    case Opcode::gram:
    case Opcode::apply:
      r.push_back("op:" + op_name(op.opcode));
      break;
    case Opcode::conv: {
      const auto& p = std::get<ConvParams>(op.params);
      const std::uint32_t cin = g.tensors[op.inputs[0]].channels;
      if ((p.groups != 1 && p.groups != cin) || (p.groups == cin && p.groups > 1 && p.cout != cin))
        r.emplace_back("conv_groups");
      break;
    }
    case Opcode::crop: {
      const auto& p = std::get<CropParams>(op.params);
      for (const Operand* o : {&p.y0, &p.x0, &p.h, &p.w})
        if (o->kind == OperandKind::scalar) {
          r.emplace_back("crop_scalar");
          break;
        }
      break;
    }
    default:
      break;
  }
  return r;
}

std::optional<Failure> node_failure(const Whg1Graph& g, const Operator& op, const NodeBounds& nb,
                                    Profile p, const std::vector<std::string>& params) {
  Failure f;
  f.where = "node";
  if (nb.saturated) {
    f.key = "saturated";
    return f;
  }
  // The failing interval with the most bits, a tie going to the smallest key in byte order.
  std::optional<std::pair<unsigned, std::string>> worst;
  auto consider = [&](const std::string& key, const Interval& iv, WidthClass c) {
    if (fits_bits(iv, class_width(p, c))) return;
    const unsigned b = bits(iv);
    if (!worst || b > worst->first || (b == worst->first && key < worst->second)) worst.emplace(b, key);
  };
  for (const NamedInterval& ni : nb.intermediates) consider(ni.key, ni.iv, class_of(ni.key));
  for (std::size_t k = 0; k < nb.results.size(); ++k)
    consider("out." + std::to_string(k), nb.results[k], WidthClass::tensor);
  if (worst) {
    f.key = worst->second;
    f.bits = worst->first;
    return f;
  }
  if (p == Profile::acc32) {
    if (!params.empty()) {
      f.key = params.front();
      return f;
    }
    for (std::uint32_t t : op.outputs)
      if (g.tensors[t].policy == Policy::check) {
        f.key = "policy.check";
        return f;
      }
  }
  return std::nullopt;
}

}  // namespace loam::wai
