// Arguments for a run, written as text (the CLI's --arg and the tests' `// run:` lines), and the
// text of what a run leaves in its buffers. One spelling per parameter:
//   a scalar    its literal: 42, -1, 0.5, inf, 0x7FC00000
//   a buffer    ELEMENT[N]:FILL, FILL one of zeros, iota, random, random(SEED), or a list 1,2,3
//               (then [N] may be left out); ELEMENT a scalar type or `bytes`
//   a tensor    random, random(SEED) or zeros: its bytes for the extents its type binds (for an
//               encoded tensor, whole blocks with finite scales)
// Random fills are the same on every machine: floats uniform in [-4, 4), integers any payload.
#pragma once

#include <string>
#include <vector>

#include "loom/interpreter.hpp"

namespace loam::loom {

struct RunArgument {
  RtValue value;
  Scalar element = Scalar::F32;  // how a buffer's bytes are read back for printing
  bool shown = false;            // a buffer, printed after the run
};

// The arguments for `symbol`'s parameters (a kernel's configuration ones first), in order.
std::vector<RunArgument> make_run_arguments(const Module& m, const std::string& symbol, const std::vector<std::string>& specs);

// The parameters a run binds, in the order make_run_arguments reads them.
std::vector<const Value*> run_parameters(const Op& fn);

// Each buffer argument after the run, one line each: "%name = f32[4]: 1.0, 2.5, ...".
std::string print_run_buffers(const Op& fn, const std::vector<RunArgument>& args);

}  // namespace loam::loom
