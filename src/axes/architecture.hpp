// The architecture tables (the `architecture` option): what Loam knows of a model family that
// neither the graph nor the checkpoint says. A table names the axes of the family's graph inputs,
// parameters and the values its exporters write with an axis no operator determines, and says how
// a published checkpoint's names differ from the graph's (a prefix one of them drops, a tensor the
// checkpoint ties to another).
//
// A table is consulted after the options' `layout`, so one rule there overrides an entry here.
// Its rules over parameters use the parameter's own name in the orientation the checkpoint stores
// it; a graph that holds a parameter under a name its exporter made (`onnx::MatMul_296`, a Linear
// weight stored transposed for a MatMul) is reached through the node that reads it
// (`/encoder/layer.0/attention/self/query/MatMul` reads `encoder.layer.0.attention.self.query.weight`
// transposed), so the table's rule names it with its axes reversed.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graph/graph.hpp"
#include "options/options.hpp"
#include "stage0/stage0.hpp"

namespace loam::axes {

struct Architecture {
  std::string name;
  // The table's layout, one per form the family's graphs take (Llama's attention with and without
  // grouped keys): a build reads the first its graph takes without two names meeting.
  std::vector<std::vector<LayoutRule>> forms;
  // Prefixes a published checkpoint may lack where the graph has them, or have where it lacks them
  // (GPT-2's `transformer.`, a BertForMaskedLM's `bert.`).
  std::vector<std::string> prefixes;
  // A parameter a published checkpoint may omit, and the one it shares storage with (a tied output
  // projection: `lm_head.weight` -> `wte.weight`). Both sides are names before any prefix.
  std::vector<std::pair<std::string, std::string>> ties;
};

// The built-in table of that name; throws naming `origin` and the tables Loam has if there is none.
const Architecture& find_architecture(std::string_view name, const std::string& origin);

// What a graph initializer stores: the module parameter's name and whether the graph holds it
// transposed from the checkpoint's orientation.
struct ParameterName {
  std::string name;
  bool transposed = false;
};

// The parameter each initializer of the main graph stores. An initializer keeps its own name unless
// torch made it (`onnx::...`): then the name comes from the module path of the node reading it
// (`/a/b.0/c/MatMul` -> `a.b.0.c`), `.weight` for a MatMul's or a Gemm's B (transposed unless the
// Gemm reads it transposed), `.bias` for a Gemm's C. An initializer no such node reads, or that
// readers of two module paths share, keeps its own name.
std::map<std::string, ParameterName> parameter_names(const Graph& graph);

// A table's rules (one form's) as `layout` rules over this model's tensor names: one exact rule per
// initializer stored under another name (axes reversed where transposed), then the table's own.
std::vector<LayoutRule> architecture_layout(const Model& model, const std::vector<LayoutRule>& table);

// The layout axis naming reads: the options' own, or, where they name an architecture, the
// options' rules, then the table's (its first form the graph takes), completed through the
// operators (axes::complete_layout).
std::vector<LayoutRule> effective_layout(const Model& model, const stage0::Stage0Result& analysed, const Options& options,
                                         const std::string& origin);

}  // namespace loam::axes
