// The reference semantics: runs any verified func.def or kernel.def over host memory. Workgroups
// and work items run as loops, in order. Every check an emitted kernel makes, the interpreter
// makes too, and more: an access outside a view, an index overflow, a cast that would wrap, a
// division by zero and an index.assume that does not hold all stop the run with an Error naming
// the op, where an emitted kernel would trap or trust its facts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <new>
#include <unordered_map>
#include <string>
#include <vector>

#include "loom/facts.hpp"
#include "loom/ir.hpp"

namespace loam::loom {

// Bytes at a 64-byte boundary: a run's alignment promises (buffer.assume.align) hold or fail on
// every machine alike, and the harness of emitted code allocates the same way.
template <class T>
struct Aligned64 {
  using value_type = T;
  Aligned64() = default;
  template <class U>
  Aligned64(const Aligned64<U>&) {}
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(64))); }
  void deallocate(T* p, std::size_t) { ::operator delete(p, std::align_val_t(64)); }
  bool operator==(const Aligned64&) const { return true; }
};

// Storage a buffer, view or tensor reads: bytes the caller owns alongside the run.
struct Storage {
  std::vector<std::byte, Aligned64<std::byte>> bytes;
};

// A value at run time. Scalars hold their payload in `bits`: index as a two's-complement int64,
// offset as a uint64, iN in its low N bits (zero above), floats as their bit pattern.
struct RtValue {
  enum class Kind : std::uint8_t { None, Scalar, Vector, Buffer, View, Tensor };
  Kind kind = Kind::None;
  std::uint64_t bits = 0;
  std::vector<std::uint64_t> lanes;     // a vector's lanes, each as a scalar's bits
  std::shared_ptr<Storage> storage;     // buffer, view, tensor
  std::uint64_t base = 0;               // view, tensor: the first byte in storage
  std::uint64_t bytes = 0;              // buffer: bytes visible from base
  std::vector<std::int64_t> dims;       // view, tensor
  std::vector<std::uint64_t> strides;   // view: byte stride of each dimension

  static RtValue scalar(std::uint64_t b) {
    RtValue v;
    v.kind = Kind::Scalar;
    v.bits = b;
    return v;
  }
  static RtValue buffer(std::shared_ptr<Storage> s);
};

struct InterpreterOptions {
  Target target{8};  // the subgroup size work items run in
  // func.apply<contract> runs the func.def bound to the contract here, or one named after it.
  std::map<std::string, std::string> contracts;
  std::uint64_t max_steps = 2'000'000'000;  // operations run before the run stops as runaway
};

class Interpreter;

// What an op's eval hook sees: its operands' values, its results to set, and its surroundings.
class Frame {
 public:
  Frame(Interpreter& in, const Module& m) : interp_(in), module_(m) {}

  const RtValue& get(const Value* v) const;
  void set(const Value* v, RtValue x);
  std::uint64_t bits(const Value* v) const { return get(v).bits; }
  std::int64_t index(const Value* v) const { return static_cast<std::int64_t>(get(v).bits); }

  // Runs a region's block with its arguments bound; gives what its terminator yields.
  std::vector<RtValue> run_region(const Region& r, std::vector<RtValue> args);
  void yield(std::vector<RtValue> values) { yielded_ = std::move(values); }

  struct WorkItem {
    std::int64_t group[3] = {0, 0, 0};
    std::int64_t group_size[3] = {1, 1, 1};
    std::int64_t group_count[3] = {1, 1, 1};
    std::int64_t item[3] = {0, 0, 0};
  };
  const WorkItem& work() const { return work_; }
  void set_work(const WorkItem& w) { work_ = w; }

  Interpreter& interpreter() { return interp_; }
  const Module& module() const { return module_; }
  [[noreturn]] void fail(const Op& op, const std::string& message) const;

 private:
  Interpreter& interp_;
  const Module& module_;
  std::unordered_map<const Value*, RtValue> values_;
  std::vector<RtValue> yielded_;
  WorkItem work_;
};

class Interpreter {
 public:
  Interpreter(const Module& m, InterpreterOptions options = {});

  // Calls a func.def (its parameters) or a kernel.def (its configuration parameters, then its
  // launch parameters); gives the function's results (none for a kernel).
  std::vector<RtValue> call(const std::string& symbol, std::vector<RtValue> args);

  const InterpreterOptions& options() const { return options_; }
  const Module& module() const { return module_; }
  // The func.def a func.apply contract runs.
  const Op& contract(const Op& apply) const;
  void count_step(const Op& op);

 private:
  const Module& module_;
  InterpreterOptions options_;
  std::uint64_t steps_ = 0;
  int depth_ = 0;
  friend class Frame;
};

}  // namespace loam::loom
