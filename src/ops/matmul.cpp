// Contractions: MatMul (numpy semantics, with a rank-1 operand's axis added and dropped) and Gemm:
// their shape rules, axis naming and lowering to the runtime's products.
#include <algorithm>

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
    std::string w = cx.prepared(PreparedWeight::Form::PackedMatrix, f->packed->weight, cx.info(f->packed->operand));
    if (!f->bias.empty()) {
      cx.call("matmul_bias", {},
              {Arg::of_tensor(cx.in(0)), Arg::of_tensor(w), cx.channel_bias(f->bias, out.axes.back(), out.dims.back()),
               Arg::of_flag(f->relu, "relu")},
              {out.name});
    } else {
      std::vector<Arg> args = {Arg::of_tensor(cx.in(0)), Arg::of_tensor(w)};
      if (f->relu) args.push_back(Arg::of_flag(true, "relu"));
      cx.call("matmul", {}, args, {out.name});
    }
    cx.out.calls.back().op = f->label();
    return;
  }
  TensorInfo a = cx.info(cx.in(0)), b = cx.info(cx.in(1)), out = cx.info(n.outputs.at(0));
  if (a.elem != ElementType::F32 || b.elem != ElementType::F32) cx.error("MatMul computes in float only");
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
  if (f && f->relu) args.push_back(Arg::of_flag(true, "relu"));
  cx.call("gemm", targs, args, {out.name});
  if (f) cx.out.calls.back().op = f->label();
}

}  // namespace

void register_matmul(std::vector<Operator>& r) {
  r.push_back({.op_type = "MatMul", .infer = matmul, .name_axes = name_matmul, .lower = lower_matmul, .in_scope = true});
  r.push_back({.op_type = "Gemm", .infer = gemm, .name_axes = name_gemm, .lower = lower_gemm, .in_scope = true});
}

}  // namespace loam::ops
