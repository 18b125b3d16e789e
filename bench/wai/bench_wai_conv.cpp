// bench_wai_conv [REPEATS]: decodes a conv of 64→64 channels, 3×3, padding 1, on a 1×64×64×64
// input (i8-range values and weights, rq shift 8, floor) REPEATS times through loam::wai::Decoder
// and prints the median time of one decode in milliseconds, then a checksum of the output (so the
// work cannot be skipped). Single-threaded.
#include "wai/decode.hpp"
#include "wai/whg1.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::atoi(argv[1]) : 20;
  using namespace loam::wai;
  constexpr std::uint32_t C = 64, S = 64;
  Whg1Graph g;
  g.max_elems = C * S * S;
  g.tensors = {TensorRecord{C, kNoExponent, Policy::check, -128, 127}, TensorRecord{C, kNoExponent, Policy::derived, 0, 0}};
  g.inputs = {InputRecord{0, S, S, InputKind::data, 0, 0}};
  g.outputs = {1};
  ConvParams p;
  p.cout = C; p.kh = 3; p.kw = 3; p.ph = 1; p.pw = 1; p.w_bytes = 1;
  p.rq.round = Round::floor;
  p.rq.s_kind = 1;
  p.rq.shift = {8};
  p.weights.resize(C * C * 9);
  std::uint32_t seed = 12345;
  auto next = [&] { seed = seed * 1664525u + 1013904223u; return static_cast<std::int64_t>(static_cast<std::int8_t>(seed >> 24)); };
  for (auto& w : p.weights) w = next();
  Operator op;
  op.opcode = Opcode::conv;
  op.inputs = {0};
  op.outputs = {1};
  op.params = p;
  g.ops = {op};
  Decoder d(read_whg1(write_whg1(g)));
  Tensor x(Shape{C, S, S});
  for (auto& v : x.data) v = next();
  std::vector<double> ms;
  std::int64_t checksum = 0;
  for (int r = 0; r < repeats + 2; ++r) {
    std::vector<Tensor> in{x};  // handed over to the decode (the copy is not timed)
    const auto t0 = std::chrono::steady_clock::now();
    const auto out = d.decode(std::move(in), {});
    const auto t1 = std::chrono::steady_clock::now();
    if (!out.completed()) {
      std::fprintf(stderr, "refused: %s\n", out.refusal->message.c_str());
      return 1;
    }
    checksum += out.outputs[0].data[static_cast<std::size_t>(r) % out.outputs[0].data.size()];
    if (r >= 2) ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());  // 2 warm-up runs
  }
  std::sort(ms.begin(), ms.end());
  std::printf("%.4f\n%lld\n", ms[ms.size() / 2], static_cast<long long>(checksum));
  return 0;
}
