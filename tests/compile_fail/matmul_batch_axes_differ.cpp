// expect: the batch axes ..Bs of a and b must be one list
#include "loam/runtime.hpp"
using namespace loam_runtime;
struct Batch {};
struct Head {};
struct Seq {};
struct Dim {};
int main() {
  Cpu cpu;
  Tensor<float, Axes<Batch, Seq, Dim>> q({1, 3, 4});
#ifdef LOAM_CONTROL
  Tensor<float, Axes<Batch, Dim, Seq>> k({1, 4, 3});
#else
  Tensor<float, Axes<Head, Dim, Seq>> k({1, 4, 3});
#endif
  auto s = cpu.matmul(q, k);
  (void)s;
}
