// What the op families share: payload arithmetic on bits, interval arithmetic for facts, and the
// C++ spellings of literals and scalar types. Internal to src/loom/.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include "loom/emit_cpp.hpp"
#include "loom/facts.hpp"
#include "loom/interpreter.hpp"
#include "loom/op_def.hpp"
#include "loom/verifier.hpp"

namespace loam::loom::detail {

constexpr Int kIndexMin = std::numeric_limits<std::int64_t>::min();
constexpr Int kIndexMax = std::numeric_limits<std::int64_t>::max();
constexpr Int kOffsetMax = Int(std::numeric_limits<std::uint64_t>::max());

// A fixed-width payload's bits masked to its width, and read as signed or unsigned.
std::uint64_t mask_bits(std::uint64_t bits, int width);
std::int64_t signed_payload(std::uint64_t bits, int width);
// The bits of an address or integer value of `type` holding the mathematical value v (which must
// lie in the type's range).
std::uint64_t bits_of(Int v, Scalar type);
// The mathematical value of an address or integer value's bits (integers read signed).
Int value_of(std::uint64_t bits, Scalar type);
// The range of an address value's carrier: index signed, offset unsigned.
Range carrier_range(Scalar type);

// Interval arithmetic, exact in 128 bits (address values are 64-bit, so products fit).
Range range_add(const Range& a, const Range& b);
Range range_sub(const Range& a, const Range& b);
Range range_mul(const Range& a, const Range& b);
Int mul_saturating(Int a, Int b);
bool range_within(const Range& r, const Range& bounds);
Facts exact(Int v);
std::int64_t align_min(std::int64_t a, std::int64_t b);
std::int64_t align_mul(std::int64_t a, std::int64_t b);

// Path facts a condition gives where it holds (truth) or fails: index.cmp relations.
void imply_condition(const Value* condition, bool truth, FactScope& scope, int depth = 0);

// The C++ spelling of a literal of `type` with these bits, in the emitter's representation.
std::string cpp_literal(std::uint64_t bits, Scalar type, const std::string& rt);
// The C++ type holding a scalar: index int64_t, offset uint64_t, iN uintN_t (i1 bool), f32 float,
// f64 double, the narrow floats float (holding a value of the narrow format exactly).
std::string cpp_scalar(Scalar type);

// A function's or kernel region's parameters, `(%a: T, %b: T)`: each visible to the types after it.
void parse_parameters(OpParser& p, Region& r);
void print_parameters(OpPrinter& p, const Block& b);

// An access names one index per dimension of what it reads.
void check_indices(const Op& op, OpVerifier& v, const Value* shaped, std::size_t count);

// A message for a run-time refusal: "FILE:L:C: OP: what".
std::string fail_message(const Module& m, const Op& op, const std::string& what);

// The narrow float formats' rounding, by element type: name of the runtime function that rounds
// a float (or float lanes) to the format and back ("" for f32, f64).
std::string narrow_round_function(Scalar type);

}  // namespace loam::loom::detail

namespace loam::loom::detail {

// Memory as the interpreter reads it: `bytes` bytes at `offset` of a storage, checked in range.
std::uint64_t read_scalar(const Storage& s, std::uint64_t offset, Scalar type);
void write_scalar(Storage& s, std::uint64_t offset, Scalar type, std::uint64_t bits);

// The byte offset in storage of a view's element at `indices` (each an index value), checking
// every index against its extent; `lanes` > 0 reads that many consecutive elements along the last
// dimension, and `mask` (one flag per lane) says which of them must be in bounds.
std::uint64_t view_offset(Frame& fr, const Op& op, const RtValue& view, const std::vector<Value*>& indices, int lanes,
                          const std::vector<std::uint64_t>* mask = nullptr);

// The emitted address of that element: the view's data pointer and a byte offset from it, with
// the checks the facts do not prove emitted first. A masked access checks its lanes itself.
struct CppAddress {
  std::string data;
  std::string offset;
  std::string pointer() const { return "(" + data + " + " + offset + ")"; }
};
CppAddress view_address(CppEmitter& e, const Op& op, const Value* view, const std::vector<Value*>& indices, int lanes,
                        bool masked);

// Emitted loads and stores of one element or one vector held as the emitter holds it.
std::string load_expr(CppEmitter& e, const Type& value_type, const std::string& pointer);
std::string store_stmt(CppEmitter& e, const Type& value_type, const std::string& pointer, const std::string& value);

}  // namespace loam::loom::detail
