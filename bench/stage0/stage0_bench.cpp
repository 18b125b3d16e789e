// Stage 0 over the GPT-2-shaped graph (tests/fixtures/stage0/gpt2_style.onnx: 2,384 nodes, 12
// layers, symbolic batch and sequence, weights absent). The bar: under 1 s, single thread.
#include <benchmark/benchmark.h>

#include "onnx/reader.hpp"
#include "stage0/stage0.hpp"

namespace {

const std::string kModel = std::string(LOAM_SOURCE_DIR) + "/tests/fixtures/stage0/gpt2_style.onnx";

void BM_Stage0Gpt2(benchmark::State& state) {
  loam::Model model = loam::read_model_file(kModel);
  for (auto _ : state) {
    auto r = loam::stage0::run_stage0(model, {});
    benchmark::DoNotOptimize(r.owed.data());
  }
  state.counters["nodes"] = static_cast<double>(model.graph.nodes.size());
}
BENCHMARK(BM_Stage0Gpt2)->Unit(benchmark::kMillisecond);

void BM_ReadAndStage0Gpt2(benchmark::State& state) {
  for (auto _ : state) {
    loam::Model model = loam::read_model_file(kModel);
    auto r = loam::stage0::run_stage0(model, {});
    benchmark::DoNotOptimize(r.owed.data());
  }
}
BENCHMARK(BM_ReadAndStage0Gpt2)->Unit(benchmark::kMillisecond);

void BM_Stage0Gpt2FixedLength(benchmark::State& state) {
  loam::Model model = loam::read_model_file(kModel);
  loam::stage0::Stage0Options o;
  o.dims = {{"batch_size", 1}, {"sequence_length", 128}};
  for (auto _ : state) {
    auto r = loam::stage0::run_stage0(model, o);
    benchmark::DoNotOptimize(r.owed.data());
  }
}
BENCHMARK(BM_Stage0Gpt2FixedLength)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
