// The C++ module writer: prints a lowered module as one self-contained header. Everything sits
// inside `namespace NAME`, with the runtime's text inlined (no runtime library to link, and two
// modules never share a Tensor type or an axis marker):
//
//   axis markers        struct Batch {};  struct In { static constexpr std::int64_t EXTENT = 784; };
//   Weights             one member per weight; load(std::span<const std::byte>) checks the
//                       safetensors header it is given and every payload, returning a LoadError
//                       naming tensor and axis; embedded() where the graph carries every weight
//   Outputs             one field per output, where the graph returns several
//   forward             template <Backend B> RunResult<...> forward(B&, const Weights&, inputs...):
//                       binds every symbol, checks every input extent and owed condition (naming the
//                       input, axis and node) before any kernel runs, then calls the kernels
//
// Every identifier is minted from one reserved set (see names.hpp). The output is a function of
// its input only: equal modules print equal bytes.
#pragma once

#include <string>
#include <vector>

#include "lower/module.hpp"

namespace loam::emit {

struct ModuleOptions {
  std::string name;         // the C++ namespace
  std::string source_name;  // the graph file, for the header comment (no directories)
  // Checkpoint payloads to embed (`inline_weights`): weight name -> bytes, for weights whose data
  // the graph does not carry.
  std::map<std::string, std::vector<std::byte>> inline_payloads;
  // Where the embedded weights go when they are large (kLargePayload bytes or more): a file the
  // header assembles in with `.incbin` (absolute; written by whoever writes the header), so no
  // compiler reads them as text. Empty: always a literal in the header.
  std::string payload_file;
};

// Embedded weights of this many bytes or more go to the payload file, when there is one.
inline constexpr std::size_t kLargePayload = std::size_t{1} << 20;

// What a program calling the module needs to know, as C++ spellings inside the module namespace.
struct ModuleInterface {
  struct Tensor {
    std::string graph_name;
    std::string ident;      // parameter or Outputs field name
    std::string cpp_type;   // "Tensor<float, Axes<Batch, In>>"
    ElementType elem = ElementType::Undefined;
    std::size_t rank = 0;
  };
  std::string name;
  std::vector<Tensor> inputs;
  std::vector<Tensor> outputs;
  bool outputs_struct = false;  // several outputs: forward returns Outputs
  bool has_embedded = false;    // Weights::embedded() exists
};

struct WrittenModule {
  std::string text;
  std::vector<std::byte> payload;  // for ModuleOptions::payload_file (empty: the header holds them)
  ModuleInterface interface;
};

// Throws loam::Error for a name the build must refuse (an axis named after a reserved name, a
// module name that is not an identifier) or an element type the boundary cannot carry.
WrittenModule write_module(const lower::LoweredModule& module, const ModuleOptions& options);

}  // namespace loam::emit
