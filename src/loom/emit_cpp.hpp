// The C++ emitter: a verified module becomes C++ functions over raw memory. A kernel.def becomes
// one function taking its configuration parameters, then its launch parameters; its workgroups and
// work items become loops around the launch region. A buffer crosses as a pointer and a byte
// count, and every view made from it is checked to fit inside it once, where it is made; an access
// through a view is checked against the view's extents unless the facts prove it in bounds.
// `vector<N x T>` becomes a GCC/Clang vector-extension value, so the host compiler emits SIMD.
// Facts become what the host compiler can use: `__restrict` for buffers promised not to alias,
// `__builtin_assume_aligned` for aligned ones, and `__builtin_unreachable` for assumed ranges.
#pragma once

#include <map>
#include <set>
#include <string_view>
#include <optional>
#include <string>
#include <vector>

#include "loom/facts.hpp"
#include "loom/ir.hpp"

namespace loam::loom {

struct CppOptions {
  // The namespace the emitted functions live in; empty for the global namespace.
  std::string ns = "loom_kernels";
  // Paste the runtime's text (headers, then its body inside `ns`) ahead of the functions. Without
  // it the output expects the runtime in `runtime_ns` (the interpreter's loom_rt, for tests).
  bool include_runtime = true;
  // A header of its own (a guard, the runtime's #include lines); false: text another header pastes
  // inside its own namespace, having included the runtime's prelude itself.
  bool standalone = true;
  std::string runtime_ns = "loom_rt";
  Target target{8};
  std::map<std::string, std::string> contracts;  // func.apply contract -> the func.def providing it
  // Functions of the module another writer prints (Loam's module writer prints `forward`).
  std::set<std::string> written_elsewhere;
};

std::string emit_cpp(const Module& m, const CppOptions& options = {});

// A main() for a module emitted with `options`, for tests and measurements: it reads `symbol`'s
// arguments from the file argv[1], calls it, and writes to argv[2] what the run leaves. Both files
// hold, argument by argument in order, a scalar as the 8 little-endian bytes of its bits, and a
// buffer or tensor as an 8-byte length and its bytes; argv[2] holds each buffer and tensor
// argument after the run, then each result's bits. argv[3], when given, repeats the call that
// many times (the arguments' bytes are restored before each call) and prints the best time in ns.
std::string cpp_harness(const Module& m, const std::string& symbol, const CppOptions& options = {});

// The runtime's text, read from runtime/loom/ when Loom is built.
struct LoomRuntimeText {
  std::string_view prelude;        // #include lines
  std::string_view body;           // the body files, in MANIFEST order
  std::string_view reserved_list;  // unused: Loom's runtime lives in a namespace of its own
  std::vector<std::string> body_files;
};
const LoomRuntimeText& loom_runtime_text();

// How emitted code reaches a buffer, view or tensor: C++ expressions for its first byte, its byte
// count (buffers, tensors), and each dimension's extent and byte stride (views).
struct CppMemory {
  std::string data;
  std::string bytes;
  std::vector<std::string> dims;
  std::vector<std::string> strides;
};

// What an op's emit hook sees: names of values, C++ types, and a place to write statements.
class CppEmitter {
 public:
  virtual ~CppEmitter() = default;
  virtual std::string use(const Value* v) = 0;           // the C++ expression naming v
  virtual std::string cpp_type(const Type& t) = 0;      // the C++ type a value of t is held in
  virtual std::string rt() const = 0;                   // the runtime's qualifier, "loom_rt::"
  virtual void define(const Value* v, const std::string& expr) = 0;  // const T v = expr;
  virtual void declare(const Value* v) = 0;                          // T v;  (set in branches)
  virtual void assign(const std::string& name, const std::string& expr) = 0;
  virtual std::string name_of(const Value* v) = 0;      // the variable holding v (mints it)
  virtual void bind_name(const Value* v, const std::string& name) = 0;  // v lives in this variable
  virtual std::string fresh(const std::string& hint) = 0;  // a new local name
  virtual void line(const std::string& statement) = 0;
  virtual void open(const std::string& head) = 0;       // head {
  virtual void close() = 0;                             // }
  virtual void emit_block(const Block& b) = 0;
  virtual void emit_ops(const std::vector<const Op*>& ops) = 0;
  // Where the terminator of the region being emitted puts what it yields.
  virtual void set_yield_targets(std::vector<std::string> names) = 0;
  virtual const std::vector<std::string>& yield_targets() const = 0;
  // `if (!(ok)) fail("FILE:L:C: OP: message");`
  virtual void check(const Op& op, const std::string& ok, const std::string& message) = 0;
  virtual const FactAnalysis& facts() const = 0;
  virtual const Module& module() const = 0;
  virtual const CppOptions& options() const = 0;
  // The value of an index value the facts pin to one number, if they do.
  virtual std::optional<std::int64_t> known_index(const Op& at, const Value* v) const = 0;
  // A top-level op's hook writes one C++ function between these; names start afresh in each.
  virtual void begin_function(const Op& op) = 0;
  virtual void end_function() = 0;
  // The C++ parameter list for these values (a buffer is a pointer and a byte count; `restrict`
  // marks the buffers promised not to alias), binding each value's name and memory.
  virtual std::string parameters(const std::vector<const Value*>& params, const std::vector<bool>& restrict) = 0;
  // Checks at function entry that each tensor parameter's bytes hold its extents.
  virtual void check_tensor_parameters(const Op& op, const std::vector<const Value*>& params) = 0;
  // The loop variables of the kernel being emitted: role "group", "group_size", "group_count" or
  // "item", dimension 0..2.
  virtual void set_work_variable(const std::string& role, int dim, const std::string& name) = 0;
  virtual std::string work_variable(const std::string& role, int dim) = 0;
  // The C++ name a func.def or kernel.def is emitted as.
  virtual std::string function_name(const std::string& symbol) = 0;
  virtual void set_memory(const Value* v, CppMemory m) = 0;
  virtual const CppMemory& memory(const Op& at, const Value* v) = 0;
  [[noreturn]] virtual void refuse(const Op& op, const std::string& message) = 0;
};

// The C++ spelling of a string literal.
std::string cpp_string(const std::string& s);

}  // namespace loam::loom
