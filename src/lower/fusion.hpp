// Epilogue fusion and weight preparation for the contractions (Conv, MatMul, Gemm), decided on the
// graph before any node is lowered. Internal to the lower room.
//
// A contraction's kernel adds a bias and applies Relu in the store of its product (the SGEMM's
// epilogue), and reads a constant weight packed once when the weights load. So the plan, for each
// Conv / MatMul / Gemm:
//
// - which constant weight it reads packed: an initializer, possibly through regroupings (Reshape,
//   Flatten, Squeeze, Unsqueeze) that nothing else reads; those regroupings happen at load;
// - which of the nodes after it it computes: an Add of a constant bias that varies along the
//   product's channel axis only (Conv: axis 1; MatMul, Gemm: the last axis), then a Relu, then (a
//   2-D Conv with a packed weight) a MaxPool or AveragePool, which pools each image's product while
//   it is in cache — each only when the value before it has no other reader and is not a graph
//   output, so no value the graph can observe goes missing.
//
// And for the elementwise operators: a node whose readers are all computed by one elementwise
// kernel, under the same axes, is computed inside that kernel (an elementwise chain, or a DAG such
// as GELU's, which reads x three times: one loop nest, no value in between written to memory). A
// kernel whose row is the last axis computes a reduction along that row the same way (a LayerNorm
// written as ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul, Add is one kernel), and the
// values computed from reductions alone, which its row broadcasts. A value the graph returns,
// nodes of several kernels read, a branch reads, or a reader broadcasts to more elements is
// materialised.
//
// Then each contraction whose result (or a regrouping of it nothing else reads) only one such
// kernel reads, at that kernel's elements, runs the kernel as its epilogue: the product's rows are
// the kernel's work items (a MatMul's or Gemm's row of N columns, a Conv's (image, channel) plane),
// each run as soon as the product finishes it. So GPT-2's Gemm + GELU, or Gemm + the residual Add,
// is one call, and the product is read back from cache, not memory.
//
// Every node gets a decision with the reason its value is materialised, from FusionReason's closed
// list; `--no-fuse` keeps only the weight preparation (packing at load) and fuses nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "axes/naming.hpp"
#include "graph/graph.hpp"
#include "lower/decision.hpp"
#include "lower/module.hpp"
#include "stage0/stage0.hpp"

namespace loam::lower {

// The elementwise work reading a contraction's result, as one generated kernel the contraction runs
// on its result's rows as it finishes them (RowEpilogue in the runtime), while they are in cache.
struct ProductEpilogue {
  std::size_t kernel = 0;                // the node whose generated kernel it is (its group's root)
  std::string operand;                   // the tensor that kernel reads the product as
  std::vector<std::size_t> regroupings;  // between the product and `operand` (no call of their own)
  std::size_t row_axis = 0;              // the kernel's row: its result's axes from this one on
};

// A constant operand a contraction reads in packed form.
struct PackedOperand {
  std::size_t input = 1;  // the head's input index it replaces
  std::string weight;     // the initializer the packed form is built from
  std::string operand;    // the tensor as the head reads it (the weight, or its regrouping)
};

struct ProductFusion {
  std::size_t head = 0;                 // index into the planned graph's nodes: the Conv, MatMul or Gemm
  std::optional<PackedOperand> packed;  // the weight read packed, if it is a constant
  std::optional<PreparedWeight::Normalization> norm;  // an absorbed BatchNormalization (a Conv's)
  std::string bias;                     // the constant the absorbed Add adds ("" for none)
  bool relu = false;                    // an absorbed Relu
  std::optional<std::size_t> pool;      // an absorbed MaxPool or AveragePool (a node index)
  std::string pooled;                   // the tensor that pool reads: the product's result
  std::optional<ProductEpilogue> epilogue;  // a generated kernel run on the result's rows
  std::string result;                   // the tensor the fused call defines
  std::vector<std::size_t> absorbed;    // the nodes the head's call computes besides itself
  std::optional<std::size_t> transposed_at_load;  // a Transpose of the packed weight, run as it is packed
  std::string label() const;            // "Conv + Add + Relu", for the comment above the call
  std::string head_op;
  std::string pool_op;                  // "MaxPool" or "AveragePool" with `pool`
};

// The plan for one graph: the top-level graph, or an If branch's (its block of forward).
struct FusionPlan {
  const Graph* graph = nullptr;                // the graph whose node indices the plan speaks of
  std::map<std::size_t, ProductFusion> heads;  // by head node index
  std::set<std::size_t> absorbed;              // node indices no call of their own computes
  // Elementwise nodes and row reductions a reader's kernel computes (lower/elementwise.cpp inlines
  // them), by node index: the node whose kernel computes them.
  std::map<std::size_t, std::size_t> inlined;
  // Kernels a contraction runs as its epilogue: the kernel's root node -> the contraction's.
  std::map<std::size_t, std::size_t> epilogues;
  std::map<std::size_t, NodeDecision> decisions;  // every node of the graph, by index
};

FusionPlan plan_fusion(const Graph& graph, const stage0::Stage0Result& analysed, const axes::AxisNaming& naming,
                       const FusionOptions& options = {});

}  // namespace loam::lower
