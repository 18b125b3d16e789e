// Arithmetic in one lane form, scalars or vectors of N lanes, for code that writes the same
// computation both ways (a generated kernel's vector loop and its scalar tail): each call builds
// `scalar.op` or `vector.op` at the builder's insertion point, constants splatted to the form.
#pragma once

#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "loom/builder.hpp"

namespace loam::loom {

class Lanes {
 public:
  // lanes 0: scalars. `real` is the float format a float form computes in (f32 or f64).
  Lanes(Builder& b, int lanes, Scalar real = Scalar::F32) : b_(b), lanes_(lanes), real_(real) {}

  int lanes() const { return lanes_; }
  Scalar real_type() const { return real_; }
  // The same lane form computing in another float format.
  Lanes in_real(Scalar real) const { return Lanes(b_, lanes_, real); }
  Builder& builder() const { return b_; }

  Type type(Scalar s) const { return lanes_ ? Type::shaped(TypeKind::Vector, {Extent::of(lanes_)}, s) : Type::scalar(s); }
  std::string prefix() const { return lanes_ ? "vector." : "scalar."; }

  Value* splat(Value* scalar, Scalar s) const {
    if (!lanes_) return scalar;
    return b_.value("vector.splat", {scalar}, "k", type(s));
  }
  Value* f32(double v) const { return splat(b_.constant(Scalar::F32, std::bit_cast<std::uint32_t>(static_cast<float>(v)), "k"), Scalar::F32); }
  // A constant of the float format, v rounded to it.
  Value* real(double v) const {
    if (real_ == Scalar::F32) return f32(v);
    return splat(b_.constant(real_, float_bits(v, real_), "k"), real_);
  }
  Value* i64(std::int64_t v) const { return splat(b_.constant(Scalar::I64, static_cast<std::uint64_t>(v), "k"), Scalar::I64); }
  Value* boolean(bool v) const { return splat(b_.constant(Scalar::I1, v ? 1 : 0, "k"), Scalar::I1); }

  // `prefix() + suffix` over args, of result element type `s`.
  Value* op(const std::string& suffix, std::vector<Value*> args, Scalar s, const std::string& hint = "t") const {
    return b_.value(prefix() + suffix, std::move(args), hint, type(s));
  }
  Value* cmpf(int predicate, Value* a, Value* b) const {
    return b_.value(prefix() + "cmpf", {a, b}, "cmp", Type{}, [predicate](Op& o) { o.attr("predicate").i = predicate; });
  }
  Value* cmpi(int predicate, Value* a, Value* b) const {
    return b_.value(prefix() + "cmpi", {a, b}, "cmp", Type{}, [predicate](Op& o) { o.attr("predicate").i = predicate; });
  }
  Value* select(Value* c, Value* a, Value* b, Scalar s) const { return op("select", {c, a, b}, s, "s"); }

  // Loom's predicates, by position in their lists.
  static constexpr int OEQ = 0, OLT = 2, OLE = 3, OGT = 4, OGE = 5, UNE = 8, UNO = 13;
  static constexpr int EQ = 0, NE = 1, SLT = 2, SLE = 3, SGT = 4, SGE = 5;

 private:
  Builder& b_;
  int lanes_;
  Scalar real_;
};

}  // namespace loam::loom
