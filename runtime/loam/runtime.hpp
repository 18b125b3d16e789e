// The Loam runtime for tests and hand-written users: the prelude, then every body file of MANIFEST,
// in order, inside namespace loam_runtime. A generated module pastes the same body files inside its
// own namespace instead, so two modules never share a Tensor type or an axis marker.
#pragma once

#include "prelude.hpp"

namespace loam_runtime {
#include "half.inc.hpp"
#include "axes.inc.hpp"
#include "errors.inc.hpp"
#include "tensor.inc.hpp"
#include "arena_plan.inc.hpp"
#include "arena.inc.hpp"
#include "safetensors.inc.hpp"
#include "workers.inc.hpp"
#include "sgemm.inc.hpp"
#include "cpu_base.inc.hpp"
#include "cpu_boundary.inc.hpp"
#include "cpu_products.inc.hpp"
#include "cpu_windows.inc.hpp"
#include "cpu_movement.inc.hpp"
#include "cpu_resampling.inc.hpp"
#include "cpu_recurrent.inc.hpp"
#include "cpu_attention.inc.hpp"
#include "cpu_reductions.inc.hpp"
#include "cpu.inc.hpp"
#include "kernels.inc.hpp"
#include "backend.inc.hpp"
}  // namespace loam_runtime
