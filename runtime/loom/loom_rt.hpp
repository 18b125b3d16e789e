// The Loom runtime for the interpreter and tests: the prelude, then every body file of MANIFEST, in
// order, inside namespace loom_rt. Emitted C++ pastes the same body files inside a namespace of its
// own choosing, so the interpreter and an emitted kernel compute with the same functions.
#pragma once

#include "prelude.hpp"

namespace loom_rt {
#include "lanes.inc.hpp"
#include "floats.inc.hpp"
#include "math.inc.hpp"
#include "ops.inc.hpp"
}  // namespace loom_rt
