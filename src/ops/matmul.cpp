// Contractions: MatMul (numpy semantics, with a rank-1 operand's axis added and dropped), Gemm and
// Einsum: their shape rules, axis naming and lowering to the runtime's products.
#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <set>

#include "ops/op.hpp"
#include "support/error.hpp"

namespace loam::ops {

namespace {

void matmul(OpContext& c) {
  const auto& a = c.input(0);
  const auto& b = c.input(1);
  if (a.elem != b.elem) c.error(c.tensor(1) + " is " + element_type_name(b.elem) + ", " + c.tensor(0) + " " + element_type_name(a.elem));
  if (a.dims.empty() || b.dims.empty()) c.error("takes no scalar operand");
  std::vector<Extent> ad = a.dims, bd = b.dims;
  bool a_vec = ad.size() == 1, b_vec = bd.size() == 1;
  if (a_vec) ad.insert(ad.begin(), Extent(1));
  if (b_vec) bd.push_back(Extent(1));
  const Extent& k_a = ad[ad.size() - 1];
  const Extent& k_b = bd[bd.size() - 2];
  c.equal(k_a, k_b, "the contracted axis " + std::to_string(a.dims.size() - 1) + " of " + c.tensor(0) + " (" + k_a.to_string() +
                        ") and axis " + std::to_string(b_vec ? 0 : b.dims.size() - 2) + " of " + c.tensor(1) + " (" + k_b.to_string() + ")");
  std::vector<Extent> batch_a(ad.begin(), ad.end() - 2), batch_b(bd.begin(), bd.end() - 2);
  std::vector<Extent> out = c.broadcast_shapes({batch_a, batch_b}, {"the batch axes of " + c.tensor(0), "the batch axes of " + c.tensor(1)});
  if (!a_vec) out.push_back(ad[ad.size() - 2]);
  if (!b_vec) out.push_back(bd[bd.size() - 1]);
  c.set_output(0, a.elem, out);
}

void gemm(OpContext& c) {
  const auto& a = c.input(0);
  const auto& b = c.input(1);
  if (a.dims.size() != 2 || b.dims.size() != 2)
    c.error("takes 2-D operands, not " + c.tensor(0) + " " + a.shape_string() + " and " + c.tensor(1) + " " + b.shape_string());
  bool ta = c.attr_int("transA", 0) != 0, tb = c.attr_int("transB", 0) != 0;
  Extent m = ta ? a.dims[1] : a.dims[0], ka = ta ? a.dims[0] : a.dims[1];
  Extent kb = tb ? b.dims[1] : b.dims[0], n = tb ? b.dims[0] : b.dims[1];
  c.equal(ka, kb, "the contracted axis of " + c.tensor(0) + " (" + ka.to_string() + ") and of " + c.tensor(1) + " (" + kb.to_string() + ")");
  if (c.has_input(2)) {
    const auto& cc = c.input(2);
    std::vector<Extent> r = c.broadcast_shapes({{m, n}, cc.dims}, {"the product", c.tensor(2)});
    if (r.size() != 2 || !(r[0] == m) || !(r[1] == n))
      c.error(c.tensor(2) + " " + cc.shape_string() + " does not broadcast to the product [" + m.to_string() + ", " + n.to_string() + "]");
  }
  c.set_output(0, a.elem, {m, n});
}

// The contracted axes meet; batch axes broadcast.
void name_matmul(axes::NodeNaming& x) {
  const auto& a = x.axes_of(0);
  const auto& b = x.axes_of(1);
  std::size_t ra = a.size(), rb = b.size();
  if (ra == 0 || rb == 0) x.error("MatMul of a rank-0 operand");
  AxisName ka = a[ra - 1], kb = rb == 1 ? b[0] : b[rb - 2];
  x.meet(ka, kb, "contracted axis of '" + x.in(0) + "' and '" + x.in(1) + "'");
  std::size_t ba = ra >= 2 ? ra - 2 : 0, bb = rb >= 2 ? rb - 2 : 0, bo = std::max(ba, bb);
  axes::Partial p(bo);
  for (std::size_t j = 0; j < bo; ++j) {
    std::optional<AxisName> chosen, unit;
    auto take = [&](const std::vector<AxisName>& names, const std::vector<Extent>& dims, std::size_t batch,
                    const std::string& t) {
      if (batch + j < bo) return;
      std::size_t k = batch - (bo - j);
      if (axes::is_one(dims[k])) {
        if (!unit) unit = names[k];
      } else if (!chosen) {
        chosen = names[k];
      } else {
        x.meet(*chosen, names[k], "batch axis of '" + t + "'");
      }
    };
    take(a, x.input_dims(0), ba, x.in(0));
    take(b, x.input_dims(1), bb, x.in(1));
    p[j] = chosen ? chosen : unit;
  }
  if (ra >= 2) p.push_back(a[ra - 2]);
  if (rb >= 2) p.push_back(b[rb - 1]);
  x.complete(0, p);
}

void name_gemm(axes::NodeNaming& x) {
  const auto& a = x.axes_of(0);
  const auto& b = x.axes_of(1);
  if (a.size() != 2 || b.size() != 2) x.error("Gemm operands must have rank 2");
  bool ta = x.int_attr("transA", 0) != 0, tb = x.int_attr("transB", 0) != 0;
  AxisName m = ta ? a[1] : a[0], ka = ta ? a[0] : a[1];
  AxisName kb = tb ? b[1] : b[0], nn = tb ? b[0] : b[1];
  x.meet(ka, kb, "contracted axis of '" + x.in(0) + "' and '" + x.in(1) + "'");
  axes::Partial p = {m, nn};
  if (x.has(2)) {
    const auto& c = x.axes_of(2);
    const auto& cd = x.input_dims(2);
    for (std::size_t k = 0; k < c.size(); ++k)
      if (!axes::is_one(cd[k])) x.meet(*p[2 - c.size() + k], c[k], "bias '" + x.in(2) + "'");
  }
  x.complete(0, p);
}

// A product whose operands carry the matmul signature's form ([..Bs, M, K] x [..Bs, K, N], or a
// rank-2 side) calls `matmul`, whose signature checks the axes; every other form ONNX admits (a
// rank-1 operand, a stretched batch axis of 1) `matmul_broadcast`, which takes the result's axes as
// the build computed them. With a fusion plan entry, B is packed at load and the absorbed bias and
// Relu are applied in the product's store.
void lower_matmul(LowerContext& cx, const Node& n) {
  const lower::ProductFusion* f = cx.fusion;
  if (f && f->packed) {
    // The plan checked the packed form's signature: a [.., K] x [K, N] -> [.., N].
    TensorInfo out = cx.info(f->result);
    // A weight read through a Transpose is packed from its stored [N, K] form.
    std::string w = f->transposed_at_load
                        ? cx.prepared(PreparedWeight::Form::PackedMatrixTransposed, f->packed->weight, cx.info(f->packed->weight))
                        : cx.prepared(PreparedWeight::Form::PackedMatrix, f->packed->weight, cx.info(f->packed->operand));
    if (!f->bias.empty()) {
      cx.call("matmul_bias", {},
              {Arg::of_tensor(cx.in(0)), Arg::of_tensor(w), cx.channel_bias(f->bias, out.axes.back(), out.dims.back()),
               Arg::of_flag(f->relu, "relu")},
              {out.name});
    } else {
      std::vector<Arg> args = {Arg::of_tensor(cx.in(0)), Arg::of_tensor(w)};
      // An epilogue comes after every argument of the product's own.
      if (f->relu || f->epilogue) args.push_back(Arg::of_flag(f->relu, "relu"));
      cx.call("matmul", {}, args, {out.name});
    }
    cx.out.calls.back().op = f->label();
    return;
  }
  TensorInfo a = cx.info(cx.in(0)), b = cx.info(cx.in(1)), out = cx.info(n.outputs.at(0));
  if (!held_in_float(a.elem) || !held_in_float(b.elem))
    cx.error(std::string("MatMul computes in float, not ") + element_type_name(held_in_float(a.elem) ? b.elem : a.elem));
  bool plain = a.axes.size() >= 2 && b.axes.size() >= 2;
  if (plain && a.axes.size() > 2 && b.axes.size() > 2)
    plain = a.axes.size() == b.axes.size() && std::equal(a.axes.begin(), a.axes.end() - 2, b.axes.begin());
  if (plain) cx.call("matmul", {}, {Arg::of_tensor(a.name), Arg::of_tensor(b.name)});
  else cx.call("matmul_broadcast", {TypeArg::of_axes(out.axes)}, {Arg::of_tensor(a.name), Arg::of_tensor(b.name)});
}

void lower_gemm(LowerContext& cx, const Node& n) {
  const lower::ProductFusion* f = cx.fusion;
  bool ta = cx.attr_int("transA", 0) != 0, tb = cx.attr_int("transB", 0) != 0;
  float alpha = cx.attr_float("alpha", 1.0f), beta = cx.attr_float("beta", 1.0f);
  std::vector<TypeArg> targs = {TypeArg::of_flag(ta, "trans_a"), TypeArg::of_flag(tb, "trans_b")};
  const Arg al = Arg::of_float(alpha, "alpha"), be = Arg::of_float(beta, "beta");
  // With a fusion plan entry: B packed at load (gemm<TA> reads a PackedMatrix<K, N>), an absorbed
  // Add's bias as C with beta 1, and Relu in the product's store.
  TensorInfo out = cx.info(f ? f->result : n.outputs.at(0));
  Arg b = Arg::of_tensor(cx.in(1));
  if (f && f->packed) {
    b = Arg::of_tensor(cx.prepared(tb ? PreparedWeight::Form::PackedMatrixTransposed : PreparedWeight::Form::PackedMatrix,
                                   f->packed->weight, cx.info(f->packed->operand)));
    targs.pop_back();
  }
  std::vector<Arg> args = {Arg::of_tensor(cx.in(0)), b};
  if (cx.has(2)) {
    args.insert(args.end(), {cx.broadcast_operand(cx.in(2), out.axes), al, be});
  } else if (f && !f->bias.empty()) {
    args.insert(args.end(), {cx.channel_bias(f->bias, out.axes.back(), out.dims.back()), al, Arg::of_float(1.0f, "beta")});
  } else {
    args.push_back(al);
  }
  // An epilogue comes after every argument of the product's own.
  if (f && (f->relu || f->epilogue)) args.push_back(Arg::of_flag(f->relu, "relu"));
  cx.call("gemm", targs, args, {out.name});
  if (f) cx.out.calls.back().op = f->label();
}

// Einsum: the equation with every ellipsis spelled as digit labels ('0' for the ellipsis's first
// axis), so each operand has one label per axis, and the output given (implicit: the ellipsis, then
// the letters used once, in order). Letters name one extent wherever they appear; an ellipsis axis
// of 1 broadcasts.
struct EinsumEquation {
  std::vector<std::string> inputs;
  std::string output;
  std::string spelled() const {
    std::string s;
    for (std::size_t i = 0; i < inputs.size(); ++i) s += (i ? "," : "") + inputs[i];
    return s + "->" + output;
  }
};

// `fail` refuses through the pass's context, naming the node: it does not return.
EinsumEquation einsum_of(std::string eq, const std::vector<std::size_t>& ranks, const std::function<void(const std::string&)>& fail) {
  eq.erase(std::remove(eq.begin(), eq.end(), ' '), eq.end());
  const auto arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms;
  for (std::size_t at = 0;;) {
    const auto comma = lhs.find(',', at);
    terms.push_back(lhs.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  if (terms.size() != ranks.size())
    fail("the equation names " + std::to_string(terms.size()) + " operands; the node has " + std::to_string(ranks.size()));
  auto letters_only = [&](const std::string& t, std::size_t& dots) {
    dots = t.find("...");
    std::string rest = dots == std::string::npos ? t : t.substr(0, dots) + t.substr(dots + 3);
    for (char ch : rest)
      if (!std::isalpha(static_cast<unsigned char>(ch))) fail(std::string("'") + ch + "' is no label of an equation");
    return rest;
  };
  std::size_t ellipsis = 0;
  std::vector<std::pair<std::string, std::size_t>> parsed;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    std::size_t dots;
    std::string rest = letters_only(terms[i], dots);
    if (rest.size() > ranks[i] || (dots == std::string::npos && rest.size() != ranks[i]))
      fail("term '" + terms[i] + "' does not fit operand " + std::to_string(i) + " of rank " + std::to_string(ranks[i]));
    std::size_t e = dots == std::string::npos ? 0 : ranks[i] - rest.size();
    ellipsis = std::max(ellipsis, e);
    parsed.push_back({terms[i], e});
  }
  if (ellipsis > 10) fail("an ellipsis of more than 10 axes");
  auto digits = [](std::size_t from, std::size_t to) {
    std::string d;
    for (std::size_t k = from; k < to; ++k) d += static_cast<char>('0' + k);
    return d;
  };
  EinsumEquation out;
  for (const auto& [t, e] : parsed) {
    const auto dots = t.find("...");
    out.inputs.push_back(dots == std::string::npos ? t : t.substr(0, dots) + digits(ellipsis - e, ellipsis) + t.substr(dots + 3));
  }
  if (arrow != std::string::npos) {
    std::size_t dots;
    const std::string rhs = eq.substr(arrow + 2);
    letters_only(rhs, dots);
    out.output = dots == std::string::npos ? rhs : rhs.substr(0, dots) + digits(0, ellipsis) + rhs.substr(dots + 3);
    for (std::size_t k = 0; k < out.output.size(); ++k) {
      const char ch = out.output[k];
      if (out.output.find(ch, k + 1) != std::string::npos) fail(std::string("the output names '") + ch + "' twice");
      if (std::none_of(out.inputs.begin(), out.inputs.end(), [&](const std::string& t) { return t.find(ch) != std::string::npos; }))
        fail(std::string("the output's '") + ch + "' is no operand's");
    }
  } else {
    out.output = digits(0, ellipsis);
    std::string all;
    for (const auto& t : out.inputs) all += t;
    for (char ch = 'A'; ch <= 'z'; ++ch)
      if (std::isalpha(static_cast<unsigned char>(ch)) && std::count(all.begin(), all.end(), ch) == 1) out.output += ch;
  }
  return out;
}

void einsum(OpContext& c) {
  std::vector<std::size_t> ranks;
  for (std::size_t i = 0; i < c.input_count(); ++i) ranks.push_back(c.rank(i));
  const std::string equation = c.attr_string("equation", "");
  if (equation.empty()) c.error("attribute 'equation' must be given");
  auto eq = einsum_of(equation, ranks, [&](const std::string& m) { c.error(m); });
  std::map<char, Extent> extent;
  for (std::size_t i = 0; i < eq.inputs.size(); ++i) {
    if (c.input(i).elem != c.input(0).elem) c.error(c.tensor(i) + " is " + element_type_name(c.input(i).elem) + ", " + c.tensor(0) + " " + element_type_name(c.input(0).elem));
    for (std::size_t k = 0; k < eq.inputs[i].size(); ++k) {
      const char l = eq.inputs[i][k];
      const Extent& e = c.input(i).dims[k];
      auto [it, fresh] = extent.emplace(l, e);
      if (fresh || it->second == e) continue;
      const bool ellipsis = std::isdigit(static_cast<unsigned char>(l));
      if (ellipsis && e == Extent(1)) continue;
      if (ellipsis && it->second == Extent(1)) {
        it->second = e;
        continue;
      }
      c.equal(it->second, e, std::string("label '") + l + "' of " + c.tensor(i) + " and its first use");
    }
  }
  std::vector<Extent> out;
  for (char l : eq.output) out.push_back(extent.at(l));
  c.set_output(0, c.input(0).elem, out);
}

// Each output axis is named as the first operand axis of its label names it (the layout's where
// that name is taken already).
void name_einsum(axes::NodeNaming& x) {
  std::vector<std::size_t> ranks;
  for (std::size_t i = 0; i < x.node.inputs.size(); ++i) ranks.push_back(x.input_dims(i).size());
  auto eq = einsum_of(x.attributes().text("equation", ""), ranks, [&](const std::string& m) { x.error(m); });
  axes::Partial p;
  std::set<AxisName> used;
  for (char l : eq.output) {
    std::optional<AxisName> name;
    for (std::size_t i = 0; i < eq.inputs.size() && !name; ++i) {
      const auto k = eq.inputs[i].find(l);
      if (k != std::string::npos && !(x.input_dims(i)[k] == Extent(1) && std::isdigit(static_cast<unsigned char>(l)))) name = x.axes_of(i)[k];
    }
    if (name && !used.insert(*name).second) name.reset();
    p.push_back(name);
  }
  x.complete(0, p);
}

void lower_einsum(LowerContext& cx, const Node& n) {
  TensorInfo out = cx.info(n.outputs.at(0));
  cx.compute_type(out.elem);
  std::vector<std::size_t> ranks;
  for (const auto& in : n.inputs) ranks.push_back(cx.info(in).axes.size());
  auto eq = einsum_of(cx.attr_string("equation", ""), ranks, [&](const std::string& m) { cx.error(m); });
  std::vector<Arg> args = {quoted_name(eq.spelled())};
  for (const auto& in : n.inputs) args.push_back(Arg::of_tensor(in));
  cx.call("einsum", {TypeArg::of_axes(out.axes)}, args);
}

}  // namespace

void register_matmul(std::vector<Operator>& r) {
  r.push_back({.op_type = "MatMul", .infer = matmul, .name_axes = name_matmul, .lower = lower_matmul, .fusion_role = contraction_role,
               .in_scope = true});
  r.push_back({.op_type = "Gemm", .infer = gemm, .name_axes = name_gemm, .lower = lower_gemm, .fusion_role = contraction_role,
               .in_scope = true});
  r.push_back({.op_type = "Einsum", .infer = einsum, .name_axes = name_einsum, .lower = lower_einsum, .computes_double = true,
               .in_scope = true});
}

}  // namespace loam::ops
