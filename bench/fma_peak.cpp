// Prints one core's measured FMA peak as "GFLOPS LANES" (bench/models/bench.py reads it at the
// start and the end of a run, so the fractions it reports are of a peak measured beside them).
#include <cstdio>

#include "fma_peak.hpp"

int main() {
  const loam_bench::FmaPeak peak = loam_bench::measure_fma_peak();
  std::printf("%.3f %d\n", peak.gflops, peak.lanes);
  return peak.lanes > 0 ? 0 : 1;
}
