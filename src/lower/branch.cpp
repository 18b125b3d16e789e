// If (WEP, "A Branch Is a Block of `forward`"): one `if` over the condition's single element, with a
// block of forward per branch. Both blocks compile and the run takes one. What the branches read from
// the scope around them is held ahead of the `if`, so a constant both read is spelled once; a block
// reading one under other axes relabels it at its top, and a block whose value carries other axes
// than the node's output relabels it before assigning it.
#include "lower/context.hpp"
#include "lower/fusion.hpp"
#include "support/error.hpp"

namespace loam::lower {

namespace {

KernelCall relabel_call(const Node& n, const std::string& attribute, const TensorInfo& from,
                        const std::vector<AxisName>& to, const std::string& result) {
  KernelCall c;
  c.node = n.label() + ", " + attribute + ": '" + from.name + "' under the axes the block holds it with";
  c.op = "relabel";
  c.kernel = "relabel";
  c.template_args = {TypeArg::of_axes(to)};
  c.args = {Arg::of_tensor(from.name)};
  c.results = {result};
  c.result_types = {TensorInfo{result, from.elem, to, from.dims}};
  return c;
}

}  // namespace

void lower_if(LowerContext& cx, const Node& n, const stage0::IfBranches& br, std::set<std::string>& defined) {
  for (std::size_t side = 0; side < 2; ++side)
    for (const auto& t : axes::branch_reads(cx.st, br.at(side))) provide_tensor(cx, t, defined);
  auto blocks_it = cx.naming.branches.find(&n);
  if (blocks_it == cx.naming.branches.end() || blocks_it->second.size() != 2)
    cx.error("its branches have no axis names");
  auto call = std::make_shared<BranchCall>();
  call->condition = cx.in(0);
  KernelCall c;
  c.node = n.label();
  c.op = n.op_type;
  c.kernel = "if";
  c.graph_node = cx.graph_node;
  for (const auto& o : n.outputs) {
    if (o.empty()) continue;
    c.results.push_back(o);
    c.result_types.push_back(cx.info(o));
  }
  for (std::size_t side = 0; side < 2; ++side) {
    const stage0::IfBranch& b = br.at(side);
    const axes::AxisNaming& naming = blocks_it->second[side];
    Block& block = side == 0 ? call->then_block : call->else_block;
    stage0::Stage0Result scope = stage0::branch_scope(cx.st, b);
    LoweredModule sub;
    // The blocks' generated kernels join the module's, under names it keeps unique.
    if (!cx.out.kernels) cx.out.kernels = std::make_shared<loom::Module>();
    if (!cx.out.narrow_kernels) cx.out.narrow_kernels = std::make_shared<loom::Module>();
    sub.kernels = cx.out.kernels;
    sub.narrow_kernels = cx.out.narrow_kernels;
    sub.loom_kernels = std::move(cx.out.loom_kernels);
    sub.kernel_texts = std::move(cx.out.kernel_texts);
    // The weights the blocks read prepared (packed at load) join the module's too: one list, so a
    // weight both blocks pack is packed once.
    sub.prepared = std::move(cx.out.prepared);
    LowerContext bx(cx.model, scope, naming, cx.origin, sub);
    bx.fresh_counter = cx.fresh_counter;
    // The block is planned as the graph is: packed weights, epilogues, fused elementwise kernels.
    const FusionPlan plan = plan_fusion(*b.graph, scope, naming, cx.fusion_options);
    bx.plan = &plan;
    bx.fusion_options = cx.fusion_options;
    block.graph = b.graph;
    block.attribute = b.attribute;
    block.decisions = plan.decisions;
    std::set<std::string> held = defined;
    for (const auto& r : naming.relabels) {
      TensorInfo from = cx.info(r.tensor);
      sub.calls.push_back(relabel_call(n, b.attribute, from, r.to, r.tensor));
    }
    lower_nodes(bx, *b.graph, b.nodes, held);
    if (!bx.deferred.empty()) cx.error("a contraction's epilogue kernel in the " + b.attribute + " was never lowered");
    bx.node = &n;
    for (std::size_t k = 0; k < n.outputs.size(); ++k) {
      if (n.outputs[k].empty()) continue;
      const std::string& given = b.outputs.at(k);
      provide_tensor(bx, given, held);  // a value the branch folded (a Constant it returns)
      TensorInfo gi = bx.info(given);
      const TensorInfo& want = c.result_types.at(block.outputs.size());
      if (gi.axes == want.axes) {
        block.outputs.push_back(given);
        continue;
      }
      std::string local = given + "@" + b.attribute;
      sub.calls.push_back(relabel_call(n, b.attribute, gi, want.axes, local));
      block.outputs.push_back(local);
    }
    cx.fresh_counter = bx.fresh_counter;
    cx.out.loom_kernels = std::move(sub.loom_kernels);
    cx.out.kernel_texts = std::move(sub.kernel_texts);
    cx.out.prepared = std::move(sub.prepared);
    block.owed = b.owed;
    block.folded = std::move(sub.folded);
    block.calls = std::move(sub.calls);
    // A weight only a branch reads is held ahead of the if like every read of the scope around it.
    for (auto& w : sub.weights) {
      bool have = false;
      for (const auto& x : cx.out.weights) have = have || x.info.name == w.info.name;
      if (!have) cx.out.weights.push_back(std::move(w));
    }
  }
  c.branch = std::move(call);
  cx.out.calls.push_back(std::move(c));
}

}  // namespace loam::lower
