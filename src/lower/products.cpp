// Lowering of MatMul and Gemm. A product whose operands carry the matmul signature's form
// ([..Bs, M, K] x [..Bs, K, N], or a rank-2 side) calls `matmul`, whose signature checks the axes;
// every other form ONNX admits (a rank-1 operand, a stretched batch axis of 1) `matmul_broadcast`,
// which takes the result's axes as the build computed them.
#include "lower/context.hpp"

namespace loam::lower {

bool lower_products(LowerContext& cx, const Node& n) {
  if (!n.domain.empty()) return false;
  const ProductFusion* f = cx.fusion;
  if (n.op_type == "MatMul" && f && f->packed) {
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
    return true;
  }
  if (n.op_type == "MatMul") {
    TensorInfo a = cx.info(cx.in(0)), b = cx.info(cx.in(1)), out = cx.info(n.outputs.at(0));
    if (a.elem != ElementType::F32 || b.elem != ElementType::F32) cx.error("MatMul computes in float only");
    bool plain = a.axes.size() >= 2 && b.axes.size() >= 2;
    if (plain && a.axes.size() > 2 && b.axes.size() > 2) {
      plain = a.axes.size() == b.axes.size() &&
              std::equal(a.axes.begin(), a.axes.end() - 2, b.axes.begin());
    }
    if (plain) cx.call("matmul", {}, {Arg::of_tensor(a.name), Arg::of_tensor(b.name)});
    else cx.call("matmul_broadcast", {TypeArg::of_axes(out.axes)}, {Arg::of_tensor(a.name), Arg::of_tensor(b.name)});
    return true;
  }
  if (n.op_type == "Gemm") {
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
      args.insert(args.end(), {cx.channel_bias(f->bias, out.axes.back(), out.dims.back()), al,
                               Arg::of_float(1.0f, "beta")});
    } else {
      args.push_back(al);
    }
    if (f && f->relu) args.push_back(Arg::of_flag(true, "relu"));
    cx.call("gemm", targs, args, {out.name});
    if (f) cx.out.calls.back().op = f->label();
    return true;
  }
  return false;
}

}  // namespace loam::lower
