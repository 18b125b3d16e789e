// The text form: parse_module reads Loom text into a verified Module; print_module writes the
// canonical text, which parse_module reads back to the same module byte for byte. OpParser and
// OpPrinter are what an op's custom parse/print hooks see; every other op goes through its
// declarative format.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "loom/ir.hpp"

namespace loam::loom {

// Reads and verifies. Every error is "FILE:LINE:COL: ..." and names the value it is about.
Module parse_module(std::string_view text, std::string file = "<text>");
// Reads without verifying (the verifier's own tests build on it).
Module parse_module_unverified(std::string_view text, std::string file = "<text>");

std::string print_module(const Module& m);
std::string print_op(const Op& op);

class OpParser {
 public:
  virtual ~OpParser() = default;
  virtual Location loc() const = 0;
  virtual bool at_punct(std::string_view p) const = 0;
  virtual bool accept_punct(std::string_view p) = 0;
  virtual void expect_punct(std::string_view p) = 0;
  virtual bool at_keyword(std::string_view k) const = 0;
  virtual bool accept_keyword(std::string_view k) = 0;
  virtual void expect_keyword(std::string_view k) = 0;
  virtual bool at_value() const = 0;
  // A use: `%name`, resolved in the scope in force.
  virtual Value* parse_operand() = 0;
  // A name being defined: `%name`, not yet visible.
  virtual std::string parse_value_name(Location* at) = 0;
  virtual Type parse_type() = 0;
  virtual std::string parse_symbol() = 0;  // @name
  virtual std::int64_t parse_integer() = 0;
  // Regions: begin makes a scope (isolated: nothing outside it is visible); define_arg adds a
  // block argument visible from then on; parse_region_body reads `{ ops }`.
  virtual void begin_region(Region& r, bool isolated) = 0;
  virtual Value* define_arg(Region& r, const std::string& name, Type type, Location at) = 0;
  virtual void parse_region_body(Region& r) = 0;
  virtual void end_region(Region& r) = 0;
  // A value stated at a boundary must have the stated type: "%x is index, but OP states offset".
  virtual void check_stated(const Value* v, const Type& stated, Location at, std::string_view op) = 0;
  [[noreturn]] virtual void fail(Location at, const std::string& message) = 0;
};

class OpPrinter {
 public:
  virtual ~OpPrinter() = default;
  virtual void text(std::string_view s) = 0;
  virtual void operand(const Value* v) = 0;
  virtual void type(const Type& t) = 0;
  virtual void value_decl(const Value* v) = 0;  // `%name: type`
  // ` {`, the block's ops one per line one level deeper, then `}` at this level.
  virtual void region(const Region& r) = 0;
};

// Literals: the canonical spelling of a constant's bits in a scalar type, and the bits a spelling
// gives (refusing what the type cannot hold exactly as written: 1.5 for i32, 300 for i8).
std::string print_literal(std::uint64_t bits, Scalar type);
std::uint64_t parse_literal(const std::string& text, Scalar type);

}  // namespace loam::loom
