#include "wai/whg1_plan.hpp"

namespace loam::wai {

namespace {

// C·H·W of a planned tensor against the graph's max_elems (too_large).
void check_elems(const Whg1Graph& g, const Shape& s, const std::string& where) {
  const __int128 n = static_cast<__int128>(s.c) * s.h * s.w;
  if (n > g.max_elems) {
    refuse(RefusalCode::too_large, where + ": " + to_string(s) + " has more than max_elems " +
                                       std::to_string(g.max_elems) + " elements");
  }
}

// One walk over the operators. `sizes` false: channels only (load's first part).
std::vector<Shape> walk(const PlanContext& ctx, std::vector<Shape> shapes, bool check_channels) {
  const Whg1Graph& g = ctx.graph;
  std::vector<Shape> in;
  for (std::size_t k = 0; k < g.ops.size(); ++k) {
    const Operator& op = g.ops[k];
    in.clear();
    for (auto t : op.inputs) in.push_back(shapes[t]);
    std::vector<Shape> out = plan_operator(ctx, k, in);
    for (std::size_t j = 0; j < out.size(); ++j) {
      const auto t = op.outputs[j];
      if (check_channels && out[j].c != static_cast<std::int64_t>(g.tensors[t].channels)) {
        refuse(RefusalCode::model_mismatch,
               detail::op_where(g, k) + ": output " + std::to_string(j) + " has " +
                   std::to_string(out[j].c) + " channels, its tensor " + std::to_string(t) +
                   " records " + std::to_string(g.tensors[t].channels));
      }
      if (ctx.sizes_known) {
        check_elems(g, out[j], detail::op_where(g, k) + ": output tensor " + std::to_string(t));
      }
      shapes[t] = out[j];
    }
  }
  return shapes;
}

}  // namespace

std::optional<std::vector<Shape>> plan_at_load(const Whg1Graph& g, const std::string& source) {
  try {
    std::vector<Shape> shapes(g.tensors.size());
    for (const auto& in : g.inputs) shapes[in.tensor] = Shape{g.tensors[in.tensor].channels, 1, 1};
    PlanContext channels{g, PlanStage::load, false, {}};
    walk(channels, shapes, true);
    if (!g.declares_sizes()) {
      for (std::size_t k = 0; k < g.ops.size(); ++k) {
        const auto op = g.ops[k].opcode;
        if (op == Opcode::gram || op == Opcode::l2norm || op == Opcode::softmax) {
          refuse(RefusalCode::model_mismatch,
                 detail::op_where(g, k) + ": the graph's inputs do not declare their sizes, which a " +
                     op_name(op) + " needs (§8.1)");
        }
      }
      return std::nullopt;
    }
    for (std::size_t i = 0; i < g.inputs.size(); ++i) {
      const auto& in = g.inputs[i];
      shapes[in.tensor] = Shape{g.tensors[in.tensor].channels, in.max_h, in.max_w};
      check_elems(g, shapes[in.tensor], "input " + std::to_string(i) + " at its declared sizes");
    }
    PlanContext sized{g, PlanStage::load, true, {}};
    return walk(sized, shapes, false);
  } catch (const RefusalError& e) {
    throw RefusalError(Refusal{e.refusal().code, source + ": " + e.refusal().message});
  }
}

std::vector<Shape> plan_at_run(const Whg1Graph& g, std::span<const Shape> input_shapes,
                               std::span<const std::int64_t> scalar_values) {
  std::vector<Shape> shapes(g.tensors.size());
  for (std::size_t i = 0; i < g.inputs.size(); ++i) shapes[g.inputs[i].tensor] = input_shapes[i];
  PlanContext ctx{g, PlanStage::run, true, scalar_values};
  return walk(ctx, std::move(shapes), false);
}

}  // namespace loam::wai
