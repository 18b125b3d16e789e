// What a generated module computes, as data: its boundary (inputs, outputs, weights), the tensors the
// build folded that a kernel reads, and the kernel calls `forward` makes in order, each with the axis
// lists it is spelled with. Lowering (this room) produces it; the module writer (src/emit/) prints it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <optional>
#include <string>
#include <vector>

#include "axes/naming.hpp"
#include "lower/decision.hpp"
#include "loom/ir.hpp"
#include "graph/graph.hpp"
#include "stage0/stage0.hpp"

namespace loam::lower {

using axes::AxisName;
using stage0::Extent;

// A tensor the module holds: its element type, axis names and extents.
struct TensorInfo {
  std::string name;  // the graph's tensor name
  ElementType elem = ElementType::Undefined;
  std::vector<AxisName> axes;
  std::vector<Extent> dims;
};

// A number or flag a kernel call passes (an axis, a window's lengths, epsilon, whether Relu
// follows): how `forward`'s Loom form spells it, as a constant of a Loom scalar type.
struct CallConstant {
  loom::Scalar type = loom::Scalar::Index;
  std::uint64_t bits = 0;  // the literal's bits (index: the value; f32: its IEEE bits; i1: 0 or 1)
  std::string hint;        // the Loom value's name
};

// One argument of a kernel call.
struct Arg {
  enum class Kind : uint8_t {
    Tensor,   // `tensor`: a graph tensor (a local, an input or a weight)
    Extents,  // `extents`: a brace list of lengths, printed with the symbols forward binds
    Code,     // `code`: C++ text as is (a kernel's name, a WindowParams, a number), and `constants`
    Scalar,   // `extents[0]`: one length or index, printed as an int64 expression
  };
  Kind kind = Kind::Code;
  std::string tensor;
  std::vector<Extent> extents;
  std::string code;
  // What a Code argument is in Loom: the constants it passes, none for text that is no data (an
  // absent optional operand, the name an error message quotes).
  std::vector<CallConstant> constants;
  // A Code argument that builds an object the call only reads and that no call changes (a
  // WindowParams, whose lists allocate): forward builds it once, as a static const.
  bool built_once = false;

  static Arg of_tensor(std::string t) { Arg a; a.kind = Kind::Tensor; a.tensor = std::move(t); return a; }
  static Arg of_extents(std::vector<Extent> e) { Arg a; a.kind = Kind::Extents; a.extents = std::move(e); return a; }
  static Arg of_scalar(Extent e) { Arg a; a.kind = Kind::Scalar; a.extents = {std::move(e)}; return a; }
  static Arg of_code(std::string c, std::vector<CallConstant> constants = {}) {
    Arg a; a.kind = Kind::Code; a.code = std::move(c); a.constants = std::move(constants); return a;
  }
  // The usual constants: a flag (`true`), an axis or count, a float, a value of a tensor's element
  // type (`static_cast<T>(v)`, T its compute type).
  static Arg of_flag(bool b, const std::string& hint);
  static Arg of_index(std::int64_t v, const std::string& hint);
  static Arg of_float(float v, const std::string& hint);
  static Arg of_element(ElementType t, double v, const std::string& hint);
  static Arg of_integer_element(ElementType t, std::int64_t v, const std::string& hint);
};

// One template argument: an axis list (printed as Axes<...>) or C++ text (an element type, a bool).
struct TypeArg {
  std::optional<std::vector<AxisName>> axes;
  std::string code;
  std::vector<CallConstant> constants;  // a flag's value in Loom; none for an element type
  static TypeArg of_axes(std::vector<AxisName> a) { TypeArg t; t.axes = std::move(a); return t; }
  static TypeArg of_code(std::string c) { TypeArg t; t.code = std::move(c); return t; }
  static TypeArg of_flag(bool b, const std::string& hint) {
    TypeArg t;
    t.code = b ? "true" : "false";
    t.constants = {{loom::Scalar::I1, b ? 1u : 0u, hint}};
    return t;
  }
};

struct BranchCall;
struct EpilogueCall;

// `result = backend.kernel<template_args>(args);` — or, with several results, a structured binding.
// An If is a call too: its results are declared ahead of the `if` and assigned in each block.
struct KernelCall {
  std::string node;  // the node's label, for the comment above the call
  std::string op;    // its op_type
  std::string kernel;
  std::vector<TypeArg> template_args;
  std::vector<Arg> args;
  std::vector<std::string> results;  // graph tensor names the call defines
  std::vector<TensorInfo> result_types;  // one per result
  std::shared_ptr<const BranchCall> branch;  // an If (kernel "if"): its condition and its two blocks
  std::optional<std::size_t> graph_node;     // the node it computes (index into its graph's nodes: the top-level graph's, or its block's branch's)
  // A product's fused epilogue: a generated kernel the product runs on its result's rows as it
  // finishes them. The call then defines the kernel's result (`results`), not the product's.
  std::shared_ptr<const EpilogueCall> epilogue;
};

// Every argument the call passes: its own, then its epilogue kernel's.
std::vector<const Arg*> passed_args(const KernelCall& c);

struct EpilogueCall {
  KernelCall kernel;   // the generated kernel's call (kernel "loom"); its first tensor is the product
  TensorInfo product;  // the product's result, as the product kernel returns it
  TensorInfo operand;  // the product as the kernel reads it (regrouped, where regroupings came between)
  Extent rows;         // the product's rows, the kernel's work items
};

// A tensor the build knows that a kernel reads or the graph returns: spelled in the module.
struct FoldedTensor {
  TensorInfo info;               // as the graph declares it
  ElementType held = ElementType::Undefined;  // the type `bytes` hold: a narrow integer as int64, a half as float
  std::vector<std::byte> bytes;  // little-endian elements of `held`
};

// One block of `forward` an If runs (WEP, "A Branch Is a Block of `forward`").
struct Block {
  const Graph* graph = nullptr;             // its branch's graph
  std::string attribute;                    // then_branch or else_branch
  std::map<std::size_t, NodeDecision> decisions;  // the fusion plan's, for every node of the graph
  std::vector<stage0::OwedCondition> owed;  // what its branch owes, checked at the top of the block
  std::vector<FoldedTensor> folded;         // tensors its branch folded that a kernel reads
  std::vector<KernelCall> calls;            // relabels of what it reads under other axes come first
  std::vector<std::string> outputs;         // the tensor assigned to each result of the If, in order
};

struct BranchCall {
  std::string condition;  // the If's bool tensor of one element, read through the backend
  Block then_block, else_block;
};

struct Weight {
  TensorInfo info;
  const TensorData* data = nullptr;  // the graph's data, if it carries it; else the checkpoint's
};

// A weight in the form a kernel reads it, built once when the weights load (in Weights::load and
// Weights::embedded), so forward never packs or regroups a constant. Kernels read it by `name`.
struct PreparedWeight {
  enum class Form : uint8_t {
    PackedConv,              // PackedConv<info.axes>(source, group)
    PackedMatrix,            // PackedMatrix<K, N>(source), info.axes = [K, N]
    PackedMatrixTransposed,  // PackedMatrix<K, N>::from_transposed(source), info.axes = [N, K] (Gemm's transB)
    Regrouped,               // the source's elements under info's axes and extents (a bias [C, 1, 1] read as [C])
    FoldedBias,              // batch_norm_folded_bias(norm...), info.axes = [Cout]
  };
  // The inference BatchNormalization after a Conv, folded in at load: a PackedConv then packs
  // batch_norm_folded_weight(source, scale, var, epsilon); a FoldedBias is the bias it leaves
  // (from the Conv's own bias, when it has one). Each name is an initializer.
  struct Normalization {
    std::string scale, shift, mean, var, conv_bias;
    float epsilon = 1e-5f;
    bool operator==(const Normalization&) const = default;
  };
  Form form = Form::Regrouped;
  std::string name;    // "<source>@packed", "<source>@channels", ...: never a graph tensor's spelling
  std::string source;  // the weight (an initializer) it is built from
  TensorInfo info;     // the source as the form reads it: regrouped to these axes and extents first
  int64_t group = 1;   // PackedConv
  std::optional<Normalization> norm;
  bool packed() const { return form != Form::Regrouped && form != Form::FoldedBias; }
};

// The memory plan (src/lower/memory_plan.cpp): the results of forward's top-level calls that share
// one arena, each with the calls it lives over. A result is placed when its kernel always writes
// storage of its own (runtime/loam/kernels.inc.hpp's fresh list) and nothing forward returns can
// be it or a view of it; every other tensor keeps storage of its own.
struct PlannedValue {
  std::string tensor;             // the call's one result
  std::size_t call = 0;           // the index in `calls` of the call that writes it
  std::size_t last = 0;           // the last call that reads it, or anything that may be a view of it
  Extent elements;                // its element count, in the symbols forward binds
  std::size_t element_bytes = 0;  // of the type kernels compute it in
  std::optional<std::size_t> bytes;  // elements x element_bytes, where the build knows the count and it fits
};
struct MemoryPlan {
  std::vector<PlannedValue> values;  // in call order
  // Where every value's size is known at build time: the arena's bytes, each value's offset in
  // it (the runtime's own layout, arena_plan.inc.hpp), and what they would take one block each.
  std::optional<std::size_t> arena_bytes;
  std::vector<std::size_t> offsets;
  std::size_t separate_bytes = 0;
};

struct LoweredModule {
  std::vector<TensorInfo> inputs;   // forward's tensor parameters, in graph order
  std::vector<TensorInfo> outputs;  // what forward returns, in order
  std::vector<Weight> weights;
  std::vector<PreparedWeight> prepared;  // in order of first use; each source is in `weights`
  std::vector<FoldedTensor> folded;
  std::vector<KernelCall> calls;
  std::vector<std::string> axes;              // plain axis names, first appearance
  std::map<std::string, int64_t> fixed_extent;  // EXTENT of an axis every value fixes
  std::vector<stage0::OwedCondition> owed;
  std::vector<stage0::SymbolBinding> bindings;
  // The Loom kernels the calls of kernel "loom" run (elementwise groups), one kernel.def each, and
  // what a call passes each: its extents, its operands.
  std::shared_ptr<loom::Module> kernels;
  // The same kernels (the same symbols) with vectors of kNarrowLanes, for a target without 512-bit
  // vectors; `kernels` holds them at kWideLanes.
  std::shared_ptr<loom::Module> narrow_kernels;
  struct LoomKernel {
    std::string symbol;
    std::size_t extents = 0;
    std::size_t operands = 0;
  };
  std::vector<LoomKernel> loom_kernels;
  // Each kernel's Loom text under a name of its kind alone -> its symbol: a kernel built again (a
  // transformer's layers each normalise and activate alike) is the one built first, compiled once.
  std::map<std::string, std::string> kernel_texts;
  // What fusion decided for each node of the top-level graph, by index.
  std::map<std::size_t, NodeDecision> decisions;
  MemoryPlan memory;
};

// The C++ type a module stores an element type in ("float", "std::int64_t", "Half", "std::int8_t",
// …), and the one kernels compute it in (half precision in float, the narrower integers in int64);
// empty for a type the module cannot hold.
std::string cpp_element_type(ElementType t);
std::string cpp_compute_type(ElementType t);

// The module as text, one kernel call a line (`loam build --emit=lowered`).
std::string print_lowered(const LoweredModule& m);

// Adds `forward` to the module's Loom kernels as a func.def calling them and the runtime's kernels
// (src/lower/forward.cpp), for the Loom verifier and `--emit=loom`.
void build_forward(LoweredModule& m, const std::string& origin);

// Stops the build if a call names a kernel the backend seam does not list (a generator's mistake,
// which the module's compile would otherwise report).
void verify_lowered(const LoweredModule& m, const std::string& where);

// The memory plan of the module's calls (`loam build --emit=memory`), and its check: every placed
// value is the one result of a call of a fresh-result kernel, no output is placed, and where the
// offsets are known no two values alive at once share a byte.
MemoryPlan plan_memory(const LoweredModule& m);
void verify_memory_plan(const LoweredModule& m, const std::string& where);
std::string print_memory_plan(const LoweredModule& m);

// Lowers every kernel node. Throws loam::Error naming the file and node for an operator (or a form
// of one) no kernel computes.
LoweredModule lower_module(const Model& model, const stage0::Stage0Result& analysed,
                           const axes::AxisNaming& naming, const std::string& origin, const FusionOptions& fusion = {});
// For every node of the top-level graph: the kernel its call runs, the nodes that call also
// computes, or why it has no call of its own (`loam build --report`); JSON with `json`.
std::string fusion_report(const Model& model, const LoweredModule& m, bool json);

}  // namespace loam::lower
