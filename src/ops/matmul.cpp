// Contractions: MatMul (numpy semantics, with a rank-1 operand's axis added and dropped) and Gemm.
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

}  // namespace

void register_matmul(std::vector<OpRule>& r) {
  r.push_back({"", "MatMul", matmul});
  r.push_back({"", "Gemm", gemm});
}

}  // namespace loam::ops
