// Reductions over axes: ReduceMean, ReduceSum, ReduceMax, ReduceMin, ReduceProd, ... and
// ArgMax/ArgMin. Integer ReduceProd/ReduceSum/ReduceMax/ReduceMin fold over known values.
#include "ops/op.hpp"
#include "support/error.hpp"

namespace loam::ops {

namespace {

void reduce(OpContext& c) {
  const auto& x = c.input(0);
  std::size_t r = x.dims.size();
  std::optional<std::vector<int64_t>> axes;
  if (c.has_input(1)) axes = c.constant_ints(1, "the axes");
  else axes = c.attr_ints("axes");
  bool keep = c.attr_int("keepdims", 1) != 0;
  bool noop = c.attr_int("noop_with_empty_axes", 0) != 0;
  std::vector<bool> reduced(r, false);
  if (!axes || axes->empty()) {
    if (noop) {
      c.set_output(0, x.elem, x.dims);
      if (x.value) c.out[0].value = x.value;
      return;
    }
    reduced.assign(r, true);
  } else {
    for (int64_t a : *axes) {
      std::size_t k = c.axis(a, r, "axis");
      if (reduced[k]) c.error("axis " + std::to_string(a) + " is given twice");
      reduced[k] = true;
    }
  }
  std::vector<Extent> out;
  for (std::size_t k = 0; k < r; ++k) {
    if (!reduced[k]) out.push_back(x.dims[k]);
    else if (keep) out.emplace_back(1);
  }
  c.set_output(0, x.elem, out);
  const std::string& op = c.node.op_type;
  bool int_fold = op == "ReduceProd" || op == "ReduceSum" || op == "ReduceMax" || op == "ReduceMin";
  if (!int_fold || !c.ints(0) || !c.foldable_count(0)) return;
  auto is = constant_shape(x.dims);
  if (!is) return;
  // Accumulate each input element into its output slot.
  std::vector<int64_t> os;
  for (std::size_t k = 0; k < r; ++k)
    if (!reduced[k]) os.push_back((*is)[k]);
  std::vector<int64_t> ostride(os.size(), 1);
  for (std::size_t k = os.size(); k-- > 1;) ostride[k - 1] = ostride[k] * os[k];
  int64_t n_out = 1;
  for (int64_t d : os) n_out *= d;
  std::vector<std::optional<Extent>> acc(static_cast<std::size_t>(n_out));
  const auto& v = *c.ints(0);
  std::vector<int64_t> idx(r, 0);
  for (std::size_t i = 0; i < v.size(); ++i) {
    int64_t slot = 0;
    std::size_t j = 0;
    for (std::size_t k = 0; k < r; ++k)
      if (!reduced[k]) slot += idx[k] * ostride[j++];
    auto& a = acc[static_cast<std::size_t>(slot)];
    const Extent& e = v[i];
    if (!a) a = e;
    else if (op == "ReduceProd") a = *a * e;
    else if (op == "ReduceSum") a = *a + e;
    else if (op == "ReduceMax") a = stage0::max_of(*a, e);
    else a = stage0::min_of(*a, e);
    for (std::size_t k = r; k-- > 0;) {
      if (++idx[k] < (*is)[k]) break;
      idx[k] = 0;
    }
  }
  std::vector<Extent> res;
  Extent empty = op == "ReduceProd" ? Extent(1) : Extent(0);
  for (auto& a : acc) {
    if (!a && (op == "ReduceMax" || op == "ReduceMin")) return;  // an empty max: the run's
    res.push_back(a ? *a : empty);
  }
  c.fold_ints(0, std::move(res));
}

void arg_reduce(OpContext& c) {
  const auto& x = c.input(0);
  std::size_t r = x.dims.size();
  std::size_t ax = c.axis(c.attr_int("axis", 0), r, "attribute 'axis'");
  bool keep = c.attr_int("keepdims", 1) != 0;
  std::vector<Extent> out;
  for (std::size_t k = 0; k < r; ++k) {
    if (k != ax) out.push_back(x.dims[k]);
    else if (keep) out.emplace_back(1);
  }
  c.set_output(0, ElementType::I64, out);
}

}  // namespace

void register_reduce(std::vector<OpRule>& r) {
  for (const char* op : {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
                         "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"})
    r.push_back({"", op, reduce});
  r.push_back({"", "ArgMax", arg_reduce});
  r.push_back({"", "ArgMin", arg_reduce});
}

}  // namespace loam::ops
