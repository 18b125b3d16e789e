#include "wai/certificate.hpp"

#include "wai/whg1_plan.hpp"

#include <algorithm>
#include <set>

namespace loam::wai {

namespace {

CanonJson integer(const Big& v) { return CanonJson::integer(to_decimal(v)); }
CanonJson integer(std::uint64_t v) { return CanonJson::integer(v); }

CanonJson interval_json(const Interval& iv) {
  CanonJson o = CanonJson::object();
  o.set("bits", integer(std::uint64_t{bits(iv)}));
  o.set("hi", integer(iv.hi));
  o.set("lo", integer(iv.lo));
  return o;
}

CanonJson strings(const std::vector<std::string>& v) {
  CanonJson a = CanonJson::array();
  for (const std::string& s : v) a.push(CanonJson::string(s));
  return a;
}

std::string_view policy_name(Policy p) {
  switch (p) {
    case Policy::derived: return "derived";
    case Policy::clamp: return "clamp";
    case Policy::check: return "check";
  }
  return "derived";
}

CanonJson failure_json(const Failure& f) {
  CanonJson o = CanonJson::object();
  if (f.bits) o.set("bits", integer(std::uint64_t{*f.bits}));
  o.set("graph", CanonJson::string(f.graph));
  o.set("index", integer(std::uint64_t{f.index}));
  o.set("key", CanonJson::string(f.key));
  o.set("where", CanonJson::string(f.where));
  return o;
}

const char* term_key(Opcode op) {
  switch (op) {
    case Opcode::conv: return "conv.term";
    case Opcode::conv_transpose: return "convT.term";
    case Opcode::igdn: return "igdn.term";
    case Opcode::gram: return "gram.term";
    case Opcode::apply: return "apply.term";
    default: return nullptr;
  }
}

const std::vector<std::int64_t>* mac_weights(const Operator& op) {
  switch (op.opcode) {
    case Opcode::conv: return &std::get<ConvParams>(op.params).weights;
    case Opcode::conv_transpose: return &std::get<ConvTransposeParams>(op.params).weights;
    case Opcode::chscale: return &std::get<ChscaleParams>(op.params).m;
    default: return nullptr;
  }
}

bool has_mac(Opcode op) {
  return op == Opcode::conv || op == Opcode::conv_transpose || op == Opcode::chscale ||
         op == Opcode::mul || op == Opcode::gram || op == Opcode::apply;
}

struct GraphResult {
  CanonJson json;
  std::optional<Failure> first[2];  // acc32, acc64
  std::set<std::string> flags, reasons;
};

GraphResult certify_one(const std::string& role, std::span<const std::uint8_t> bytes) {
  ReadOptions ro;
  ro.source = role;
  const Whg1Graph g = read_whg1(bytes, ro);
  const std::optional<std::vector<Shape>> shapes = plan_at_load(g, role);
  const GraphBounds gb = bounds_pass(g, shapes, role);
  GraphResult r;
  const Profile profiles[2] = {Profile::acc32, Profile::acc64};

  CanonJson inputs = CanonJson::array();
  for (std::size_t k = 0; k < g.inputs.size(); ++k) {
    const InputRecord& in = g.inputs[k];
    const TensorRecord& t = g.tensors[in.tensor];
    CanonJson o = CanonJson::object();
    o.set("hi", CanonJson::integer(t.hi));
    o.set("lo", CanonJson::integer(t.lo));
    o.set("kind", CanonJson::string(in.kind == InputKind::state ? "state" : "data"));
    o.set("max_h", integer(std::uint64_t{in.max_h}));
    o.set("max_w", integer(std::uint64_t{in.max_w}));
    o.set("policy", CanonJson::string(std::string(policy_name(t.policy))));
    o.set("tensor", integer(std::uint64_t{in.tensor}));
    if (in.kind == InputKind::state) {
      o.set("init", CanonJson::integer(in.init));
      o.set("src", integer(std::uint64_t{in.src}));
    }
    inputs.push(std::move(o));
    const Interval range{Big(t.lo), Big(t.hi)};
    for (int p = 0; p < 2; ++p)
      if (!r.first[p] && !fits_bits(range, class_width(profiles[p], WidthClass::tensor)))
        r.first[p] = Failure{role, "input", k, "range", bits(range)};
  }
  CanonJson scalars = CanonJson::array();
  for (std::size_t k = 0; k < g.scalars.size(); ++k) {
    const ScalarRecord& s = g.scalars[k];
    CanonJson o = CanonJson::object();
    o.set("hi", CanonJson::integer(s.hi));
    o.set("index", integer(std::uint64_t{k}));
    o.set("lo", CanonJson::integer(s.lo));
    scalars.push(std::move(o));
    const Interval range{Big(s.lo), Big(s.hi)};
    for (int p = 0; p < 2; ++p)
      if (!r.first[p] && !fits_bits(range, class_width(profiles[p], WidthClass::tensor)))
        r.first[p] = Failure{role, "scalar", k, "range", bits(range)};
  }

  CanonJson nodes = CanonJson::array();
  for (std::size_t i = 0; i < g.ops.size(); ++i) {
    const Operator& op = g.ops[i];
    const NodeBounds& nb = gb.nodes[i];
    const std::vector<std::string> params = acc32_params(g, op);
    CanonJson fits = CanonJson::array();
    for (int p = 0; p < 2; ++p) {
      std::optional<Failure> f = node_failure(g, op, nb, profiles[p], params);
      if (!f) {
        fits.push(CanonJson::string(std::string(profile_name(profiles[p]))));
      } else if (!r.first[p]) {
        f->graph = role;
        f->index = i;
        r.first[p] = std::move(f);
      }
    }
    const std::vector<std::string> flags = npu_flags(g, op);
    r.flags.insert(flags.begin(), flags.end());
    for (std::string& s : npu_op_reasons(g, op)) r.reasons.insert(std::move(s));

    CanonJson node = CanonJson::object();
    node.set("acc32_params", strings(params));
    node.set("fits", std::move(fits));
    node.set("index", integer(std::uint64_t{i}));
    CanonJson im = CanonJson::object();
    for (const NamedInterval& ni : nb.intermediates) im.set(ni.key, interval_json(ni.iv));
    node.set("intermediates", std::move(im));
    if (const char* key = term_key(op.opcode)) {
      for (const NamedInterval& ni : nb.intermediates)
        if (std::string_view(ni.key) == key) {
          const Big P = std::max(abs(ni.iv.lo), abs(ni.iv.hi));
          node.set("k_c", P == 0 ? CanonJson::string("unbounded") : integer(Big((pow2(31) - 1) / P)));
        }
    }
    if (has_mac(op.opcode)) {
      CanonJson mac = CanonJson::object();
      CanonJson a = CanonJson::array();
      for (std::uint32_t t : op.inputs) a.push(integer(std::uint64_t{bits(gb.tensors[t])}));
      mac.set("a_bits", std::move(a));
      if (const auto* w = mac_weights(op)) {
        const auto [mn, mx] = std::minmax_element(w->begin(), w->end());
        mac.set("w_bits", integer(std::uint64_t{bits(Interval{Big(*mn), Big(*mx)})}));
      }
      node.set("mac", std::move(mac));
    }
    node.set("npu_flags", strings(flags));
    node.set("op", CanonJson::string(op_name(op.opcode)));
    CanonJson outs = CanonJson::array();
    for (std::size_t k = 0; k < op.outputs.size(); ++k) {
      CanonJson o = interval_json(nb.outputs[k]);
      o.set("policy", CanonJson::string(std::string(policy_name(g.tensors[op.outputs[k]].policy))));
      o.set("result", interval_json(nb.results[k]));
      o.set("tensor", integer(std::uint64_t{op.outputs[k]}));
      outs.push(std::move(o));
    }
    node.set("out", std::move(outs));
    node.set("saturated", CanonJson::boolean(nb.saturated));
    nodes.push(std::move(node));
  }

  r.json = CanonJson::object();
  r.json.set("graph_sha256", CanonJson::string(to_hex(sha256(bytes))));
  r.json.set("inputs", std::move(inputs));
  r.json.set("name", CanonJson::string(role));
  r.json.set("nodes", std::move(nodes));
  r.json.set("scalars", std::move(scalars));
  return r;
}

}  // namespace

CanonJson verdict_json(const Verdict& v) {
  CanonJson o = CanonJson::object();
  o.set("acc32", CanonJson::boolean(v.acc32));
  if (v.acc32_first_failure) o.set("acc32_first_failure", failure_json(*v.acc32_first_failure));
  o.set("acc64", CanonJson::boolean(v.acc64));
  if (v.acc64_first_failure) o.set("acc64_first_failure", failure_json(*v.acc64_first_failure));
  o.set("npu", CanonJson::boolean(v.npu));
  o.set("npu_flags", strings(v.npu_flags));
  o.set("npu_reasons", strings(v.npu_reasons));
  return o;
}

Certificate certify(std::span<const RoleGraph> graphs, const CertifyOptions& options) {
  Certificate cert;
  Verdict& v = cert.verdict;
  std::set<std::string> flags, reasons;
  CanonJson gs = CanonJson::array();
  for (const RoleGraph& rg : graphs) {
    GraphResult r = certify_one(rg.role, rg.bytes);
    if (!v.acc32_first_failure && r.first[0]) v.acc32_first_failure = r.first[0];
    if (!v.acc64_first_failure && r.first[1]) v.acc64_first_failure = r.first[1];
    flags.insert(r.flags.begin(), r.flags.end());
    reasons.insert(r.reasons.begin(), r.reasons.end());
    gs.push(std::move(r.json));
  }
  v.acc32 = !v.acc32_first_failure;
  v.acc64 = !v.acc64_first_failure;
  if (!v.acc32) reasons.insert("acc32");
  v.npu = reasons.empty();
  v.npu_flags.assign(flags.begin(), flags.end());
  v.npu_reasons.assign(reasons.begin(), reasons.end());

  CanonJson c = CanonJson::object();
  c.set("capability", options.capability ? CanonJson::string(*options.capability) : CanonJson());
  c.set("certificate", CanonJson::string("wai-ops/1 bounds"));
  c.set("graphs", std::move(gs));
  c.set("lowering", CanonJson::string(options.lowering));
  c.set("set_sha256", options.set_sha256 ? CanonJson::string(*options.set_sha256) : CanonJson());
  c.set("verdict", verdict_json(v));
  cert.json = c.dump();
  return cert;
}

Certificate certify_graph(std::string role, std::span<const std::uint8_t> bytes) {
  RoleGraph rg{std::move(role), std::vector<std::uint8_t>(bytes.begin(), bytes.end())};
  return certify(std::span<const RoleGraph>(&rg, 1));
}

Whg1Graph load_with_profile(std::span<const std::uint8_t> bytes, Profile profile,
                            const std::string& source) {
  const Certificate c = certify_graph(source, bytes);
  if (!c.verdict.meets(profile)) {
    const Failure& f = profile == Profile::acc32 ? *c.verdict.acc32_first_failure : *c.verdict.acc64_first_failure;
    refuse(RefusalCode::model_mismatch,
           source + ": the certificate does not meet " + std::string(profile_name(profile)) + ": " + f.where +
               " " + std::to_string(f.index) + ", " + f.key +
               (f.bits ? " (" + std::to_string(*f.bits) + " bits)" : std::string()));
  }
  ReadOptions ro;
  ro.source = source;
  return read_whg1(bytes, ro);
}

Whg1Graph load_in_npu_subset(std::span<const std::uint8_t> bytes, const std::string& source) {
  const Certificate c = certify_graph(source, bytes);
  if (!c.verdict.npu) {
    std::string reasons;
    for (const std::string& r : c.verdict.npu_reasons) reasons += (reasons.empty() ? "" : ", ") + r;
    refuse(RefusalCode::model_mismatch, source + ": the graph is outside wai-ops/1-npu: " + reasons);
  }
  ReadOptions ro;
  ro.source = source;
  return read_whg1(bytes, ro);
}

}  // namespace loam::wai
