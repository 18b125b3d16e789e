// Two generated modules in one program: each pastes the runtime's body files (in MANIFEST order)
// inside its own namespace, as the emitter does. They must compile side by side (no redefinition,
// no macro clash) and declare distinct Tensor types. This file is compiled with -Werror.
#include <gtest/gtest.h>

#include "loam/prelude.hpp"

namespace model_a {
#include "loam/half.inc.hpp"
#include "loam/axes.inc.hpp"
#include "loam/errors.inc.hpp"
#include "loam/tensor.inc.hpp"
#include "loam/arena_plan.inc.hpp"
#include "loam/arena.inc.hpp"
#include "loam/safetensors.inc.hpp"
#include "loam/workers.inc.hpp"
#include "loam/sgemm.inc.hpp"
#include "loam/cpu_base.inc.hpp"
#include "loam/cpu_boundary.inc.hpp"
#include "loam/cpu_products.inc.hpp"
#include "loam/cpu_windows.inc.hpp"
#include "loam/cpu_movement.inc.hpp"
#include "loam/cpu_resampling.inc.hpp"
#include "loam/cpu_recurrent.inc.hpp"
#include "loam/cpu_attention.inc.hpp"
#include "loam/cpu_reductions.inc.hpp"
#include "loam/cpu.inc.hpp"
#include "loam/kernels.inc.hpp"
#include "loam/backend.inc.hpp"
struct Batch {};
struct In {
  static constexpr std::int64_t EXTENT = 3;
};
struct Out {};
}  // namespace model_a

namespace model_b {
#include "loam/half.inc.hpp"
#include "loam/axes.inc.hpp"
#include "loam/errors.inc.hpp"
#include "loam/tensor.inc.hpp"
#include "loam/arena_plan.inc.hpp"
#include "loam/arena.inc.hpp"
#include "loam/safetensors.inc.hpp"
#include "loam/workers.inc.hpp"
#include "loam/sgemm.inc.hpp"
#include "loam/cpu_base.inc.hpp"
#include "loam/cpu_boundary.inc.hpp"
#include "loam/cpu_products.inc.hpp"
#include "loam/cpu_windows.inc.hpp"
#include "loam/cpu_movement.inc.hpp"
#include "loam/cpu_resampling.inc.hpp"
#include "loam/cpu_recurrent.inc.hpp"
#include "loam/cpu_attention.inc.hpp"
#include "loam/cpu_reductions.inc.hpp"
#include "loam/cpu.inc.hpp"
#include "loam/kernels.inc.hpp"
#include "loam/backend.inc.hpp"
struct Batch {};
struct In {};
struct Out {};
}  // namespace model_b

namespace {

static_assert(!std::is_same_v<model_a::Tensor<float, model_a::Axes<model_a::Batch>>, model_b::Tensor<float, model_b::Axes<model_b::Batch>>>);
static_assert(model_a::Backend<model_a::Cpu> && model_b::Backend<model_b::OpaqueBackend>);

TEST(TwoModules, EachRunsItsOwnRuntime) {
  model_a::Cpu a;
  model_a::Tensor<float, model_a::Axes<model_a::Batch, model_a::In>> xa({1, model_a::In::EXTENT}, {1, 2, 3});
  model_a::Tensor<float, model_a::Axes<model_a::In, model_a::Out>> wa({3, 1}, {1, 1, 1});
  EXPECT_EQ(a.matmul(xa, wa).data()[0], 6.0f);

  model_b::OpaqueBackend b;
  model_b::Tensor<float, model_b::Axes<model_b::Batch, model_b::In>> xb({1, 2}, {1, 2});
  model_b::Tensor<float, model_b::Axes<model_b::In, model_b::Out>> wb({2, 1}, {3, 4});
  EXPECT_EQ(b.download(b.matmul(b.upload(xb), b.upload(wb))).data()[0], 11.0f);
}

}  // namespace
