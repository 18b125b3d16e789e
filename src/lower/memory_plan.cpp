// The memory plan: which results of forward's calls share one arena, and over which calls each
// lives. A call of a kernel that always writes storage of its own (the runtime's fresh list) starts
// a value; a call of any other kernel may hand back an operand's storage (a reshape, a relabel, a
// cast to the same type), so its results are taken as views of every value its operands are or
// view, and a value lives until the last call that reads it or any view of it. An If reads, at
// its own call, everything its blocks read. Whatever forward returns, and everything it may be a
// view of, is not placed: it outlives the call; nor is a value whose size only an If decides.
//
// The layout itself is the runtime's (arena_plan.inc.hpp), run here where every size is known at
// build time to report the arena's bytes, and run by forward otherwise.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <set>
#include <span>
#include <sstream>
#include <string_view>

#include "lower/module.hpp"
#include "support/error.hpp"

#include "loam/kernels.inc.hpp"

namespace loam::lower {
namespace runtime_layout {
#include "loam/arena_plan.inc.hpp"
}  // namespace runtime_layout

namespace {

const std::set<std::string_view>& fresh_result_kernels() {
#define LOAM_KERNEL_NAME(k) #k,
  static const std::set<std::string_view> names = {LOAM_FRESH_RESULT_KERNELS(LOAM_KERNEL_NAME)};
#undef LOAM_KERNEL_NAME
  return names;
}

// The bytes an element takes in the type kernels compute it in (a half in a float, the narrower
// integers in int64).
std::size_t compute_bytes(ElementType t) {
  const std::string c = cpp_compute_type(t);
  if (c == "float") return 4;
  if (c == "double" || c == "std::int64_t" || c == "std::uint64_t") return 8;
  return element_size(t);
}

bool fresh(const KernelCall& c) {
  return !c.branch && c.results.size() == 1 && c.result_types.size() == 1 && fresh_result_kernels().count(c.kernel) > 0;
}

// Every tensor name the call reads: its arguments, its epilogue's, and for an If its condition and
// whatever its blocks read or return.
void reads_of(const KernelCall& c, std::vector<std::string>& out) {
  for (const Arg* a : passed_args(c))
    if (a->kind == Arg::Kind::Tensor) out.push_back(a->tensor);
  if (!c.branch) return;
  out.push_back(c.branch->condition);
  for (const Block* b : {&c.branch->then_block, &c.branch->else_block}) {
    for (const auto& inner : b->calls) reads_of(inner, out);
    out.insert(out.end(), b->outputs.begin(), b->outputs.end());
  }
}

// The element count of a call's one result.
Extent size_of(const KernelCall& c) {
  Extent n(1);
  for (const auto& d : c.result_types.at(0).dims) n = n * d;
  return n;
}

// elements x element_bytes where the count is a constant and the product fits (forward computes
// the others, checked).
std::optional<std::size_t> static_bytes(const Extent& elements, std::size_t element_bytes) {
  const auto n = elements.constant();
  if (!n || *n < 0) return std::nullopt;
  std::size_t bytes = 0;
  if (__builtin_mul_overflow(static_cast<std::size_t>(*n), element_bytes, &bytes)) return std::nullopt;
  return bytes;
}

}  // namespace

MemoryPlan plan_memory(const LoweredModule& m) {
  MemoryPlan plan;
  // The values each tensor is, or may be a view of (indices into plan.values).
  std::map<std::string, std::set<std::size_t>> views;
  std::vector<bool> escapes;
  std::vector<std::string> reads;
  for (std::size_t i = 0; i < m.calls.size(); ++i) {
    const KernelCall& c = m.calls[i];
    reads.clear();
    reads_of(c, reads);
    std::set<std::size_t> read_values;
    for (const auto& t : reads)
      if (auto it = views.find(t); it != views.end()) read_values.insert(it->second.begin(), it->second.end());
    for (const std::size_t v : read_values) plan.values[v].last = std::max(plan.values[v].last, i);
    // A result whose size only an If decides is left out: forward sizes the arena before any If.
    const std::optional<Extent> elements = fresh(c) ? std::optional<Extent>(size_of(c)) : std::nullopt;
    if (elements && !stage0::reads_branch_length(*elements)) {
      PlannedValue v;
      v.tensor = c.results[0];
      v.call = v.last = i;
      v.elements = *elements;
      v.element_bytes = compute_bytes(c.result_types[0].elem);
      v.bytes = static_bytes(v.elements, v.element_bytes);
      views[v.tensor] = {plan.values.size()};
      plan.values.push_back(std::move(v));
      escapes.push_back(false);
      continue;
    }
    for (const auto& r : c.results) views[r] = read_values;
  }
  for (const auto& o : m.outputs)
    if (auto it = views.find(o.name); it != views.end())
      for (const std::size_t v : it->second) escapes[v] = true;
  std::vector<PlannedValue> kept;
  for (std::size_t v = 0; v < plan.values.size(); ++v)
    if (!escapes[v]) kept.push_back(std::move(plan.values[v]));
  plan.values = std::move(kept);

  // The layout, where every size is known now.
  std::vector<std::size_t> bytes;
  std::size_t separate = 0;
  for (const auto& v : plan.values) {
    if (!v.bytes || __builtin_add_overflow(separate, *v.bytes, &separate)) return plan;
    bytes.push_back(*v.bytes);
  }
  plan.separate_bytes = separate;
  std::vector<runtime_layout::ArenaInterval> life;
  for (const auto& v : plan.values) life.push_back({static_cast<std::uint32_t>(v.call), static_cast<std::uint32_t>(v.last)});
  plan.offsets.assign(plan.values.size(), 0);
  std::vector<std::uint32_t> scratch(2 * plan.values.size());
  plan.arena_bytes = runtime_layout::plan_arena(life, bytes, plan.offsets, scratch);
  return plan;
}

void verify_memory_plan(const LoweredModule& m, const std::string& where) {
  const MemoryPlan& plan = m.memory;
  std::set<std::string> outputs;
  for (const auto& o : m.outputs) outputs.insert(o.name);
  std::set<std::size_t> calls;
  for (const auto& v : plan.values) {
    const std::string what = where + ": the memory plan places '" + v.tensor + "'";
    if (v.call >= m.calls.size() || !fresh(m.calls[v.call]) || m.calls[v.call].results[0] != v.tensor)
      fail(what + ", which is not the one result of a call that writes storage of its own");
    if (!calls.insert(v.call).second) fail(what + " where another value is placed by the same call");
    if (v.last < v.call || v.last >= m.calls.size()) fail(what + " with a life that ends before it starts or after forward");
    if (outputs.count(v.tensor)) fail(what + ", which forward returns");
  }
  if (!plan.arena_bytes) return;
  if (plan.offsets.size() != plan.values.size()) fail(where + ": the memory plan has " + std::to_string(plan.offsets.size()) + " offsets for " + std::to_string(plan.values.size()) + " values");
  for (std::size_t a = 0; a < plan.values.size(); ++a) {
    const std::size_t a_bytes = *plan.values[a].bytes;
    if (a_bytes > 0 && plan.offsets[a] + a_bytes > *plan.arena_bytes) fail(where + ": the memory plan puts '" + plan.values[a].tensor + "' past the arena's end");
    for (std::size_t b = a + 1; b < plan.values.size(); ++b) {
      const PlannedValue &x = plan.values[a], &y = plan.values[b];
      const std::size_t b_bytes = *y.bytes;
      const bool alive_together = x.call <= y.last && y.call <= x.last;
      const bool overlap = a_bytes > 0 && b_bytes > 0 && plan.offsets[a] < plan.offsets[b] + b_bytes && plan.offsets[b] < plan.offsets[a] + a_bytes;
      if (alive_together && overlap)
        fail(where + ": the memory plan gives '" + x.tensor + "' and '" + y.tensor + "', alive at once, overlapping bytes");
    }
  }
}

std::string print_memory_plan(const LoweredModule& m) {
  const MemoryPlan& plan = m.memory;
  std::ostringstream out;
  out << "memory plan: " << plan.values.size() << " of " << m.calls.size() << " calls' results in one arena";
  if (plan.arena_bytes) out << " of " << *plan.arena_bytes << " bytes (one block each: " << plan.separate_bytes << ")";
  out << "\n";
  for (std::size_t i = 0; i < plan.values.size(); ++i) {
    const PlannedValue& v = plan.values[i];
    out << "  " << v.tensor << ": calls " << v.call << ".." << v.last << ", " << v.elements.to_string() << " x " << v.element_bytes << " bytes";
    if (plan.arena_bytes) out << " at " << plan.offsets[i];
    out << "\n";
  }
  return out.str();
}

}  // namespace loam::lower
