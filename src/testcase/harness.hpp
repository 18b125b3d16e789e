// The harness `loam test-case` compiles beside a generated module: it reads each input from a raw
// file loam writes, runs forward on the backend named on its command line (Cpu or OpaqueBackend),
// and writes each output as a raw file loam compares.
//
// The raw tensor file: uint64 rank, rank × int64 extents, then the elements packed little-endian.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "emit/module_writer.hpp"
#include "graph/graph.hpp"

namespace loam::testcase {

// The harness source for a module whose header is `header` (included by that name). Run as
// `harness DIR cpu|opaque[:THREADS] [CHECKPOINT]`: reads DIR/input_K.bin, writes DIR/<backend>_output_K.bin;
// exits 3 printing the InputError if forward refuses, 4 printing the LoadError if loading does.
std::string write_harness(const emit::ModuleInterface& module, const std::string& header);

// One harness for several modules (each in its own namespace), run as `harness K DIR cpu|opaque`
// for the K-th module. Lets a conformance run compile many small cases at once.
std::string write_batch_harness(const std::vector<emit::ModuleInterface>& modules,
                                const std::vector<std::string>& headers);

void write_raw_tensor(const std::filesystem::path& file, const TensorData& t);
// Reads a raw tensor file (as the harness writes it) with the element type the caller expects.
TensorData read_raw_tensor(const std::filesystem::path& file, ElementType elem);

}  // namespace loam::testcase
