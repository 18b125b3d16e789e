// The memory plan's layout: the generator gives each intermediate it can place the calls it lives
// over, forward the bytes each takes at this call's extents, and plan_arena lays them into one
// arena so that values alive at once never share a byte, reusing a block as soon as its value
// dies. The generator runs the same function where every extent is known at build time, to report
// the arena's size (src/lower/memory_plan.cpp includes this file alone).

// The calls a value lives over, both included: the one that writes it to the last that reads it
// (or reads a view of it).
struct ArenaInterval {
  std::uint32_t first = 0, last = 0;
};

inline constexpr std::size_t ARENA_ALIGN = 64;

// Offsets for values sharing one arena, each a multiple of ARENA_ALIGN, such that two values whose
// intervals meet lie apart; returns the arena's bytes. Largest value first (ties: the earlier
// value), each into the smallest gap between the values it meets that holds it, else above them
// all: deterministic, and O(N^2 log N), run once per distinct set of sizes. A value of 0 bytes
// takes no space (offset 0). `scratch` holds 2N indices.
constexpr std::size_t plan_arena(std::span<const ArenaInterval> life, std::span<const std::size_t> bytes, std::span<std::size_t> offset,
                                 std::span<std::uint32_t> scratch) {
  const auto rounded = [](std::size_t b) { return (b + ARENA_ALIGN - 1) / ARENA_ALIGN * ARENA_ALIGN; };
  const std::size_t n = life.size();
  const std::span<std::uint32_t> order = scratch.first(n), met = scratch.subspan(n, n);
  for (std::uint32_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return bytes[a] != bytes[b] ? bytes[a] > bytes[b] : a < b;
  });
  // The values placed so far are order's first `placed`.
  std::size_t peak = 0;
  for (std::size_t placed = 0; placed < n; ++placed) {
    const std::uint32_t v = order[placed];
    offset[v] = 0;
    const std::size_t need = rounded(bytes[v]);
    if (need == 0) continue;
    std::size_t met_count = 0;
    for (std::size_t i = 0; i < placed; ++i) {
      const std::uint32_t u = order[i];
      if (bytes[u] > 0 && life[u].first <= life[v].last && life[v].first <= life[u].last) met[met_count++] = u;
    }
    std::sort(met.begin(), met.begin() + static_cast<std::ptrdiff_t>(met_count),
              [&](std::uint32_t a, std::uint32_t b) { return offset[a] != offset[b] ? offset[a] < offset[b] : a < b; });
    std::size_t at = 0, best = 0, best_gap = 0;
    bool found = false;
    for (std::size_t i = 0; i < met_count; ++i) {
      const std::uint32_t u = met[i];
      if (offset[u] >= at + need && (!found || offset[u] - at < best_gap)) {
        found = true;
        best = at;
        best_gap = offset[u] - at;
      }
      at = std::max(at, offset[u] + rounded(bytes[u]));
    }
    offset[v] = found ? best : at;
    peak = std::max(peak, offset[v] + need);
  }
  return peak;
}

