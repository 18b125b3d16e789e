// Loom IR's program structure: a Module holds top-level operations (func.def, kernel.def); an
// operation consumes values, defines values and may own regions; a region holds one block of
// operations with the block's arguments. Control flow is structured (scf.if, scf.for), so a region
// never has more than one block and dominance is lexical: a value is visible after its definition in
// its block and in every region nested below it, up to the nearest op isolated from above.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "loom/type.hpp"

namespace loam::loom {

struct OpDef;
struct Op;
struct Block;

// Where a piece of text was: 1-based line and column. {0, 0} for built IR.
struct Location {
  int line = 0;
  int col = 0;
  bool known() const { return line > 0; }
};

// An SSA value: an operation's result or a block's argument. `name` is its source name without
// the '%'; names are unique within an isolated region, so a printed module reads back the same.
struct Value {
  std::string name;
  Type type;
  Op* def = nullptr;        // the defining op, for a result
  Block* owner = nullptr;   // the block, for a block argument
  unsigned index = 0;       // which result or argument
  Location loc;
};

// A fact an index.assume states about its operand: a closed range, or an alignment (the value is a
// multiple of `align`, a power of two).
struct Fact {
  enum class Kind : std::uint8_t { Range, Align };
  Kind kind = Kind::Range;
  std::int64_t lo = 0;
  std::int64_t hi = 0;
  std::int64_t align = 1;
  friend bool operator==(const Fact&, const Fact&) = default;
};

// An attribute's value. Which fields mean something depends on the attribute's kind in its OpDef:
// integers and keyword choices in `i`, a literal's bits in `bits` (a float constant's pattern in
// its own format, an integer constant's two's-complement payload), names in `text`.
struct Attr {
  std::int64_t i = 0;
  std::uint64_t bits = 0;
  std::string text;
  std::vector<Fact> facts;
  std::vector<Type> types;  // a function's result types
  bool present = false;
};

struct Region;

struct Block {
  std::vector<std::unique_ptr<Value>> args;
  std::vector<std::unique_ptr<Op>> ops;
  Region* parent = nullptr;

  Value* add_arg(std::string name, Type type, Location loc = {});
  Op* append(std::unique_ptr<Op> op);
};

struct Region {
  Block block;
  Op* parent = nullptr;
  Region() { block.parent = this; }
  Region(const Region&) = delete;
  Region& operator=(const Region&) = delete;
};

struct Op {
  const OpDef* def = nullptr;
  std::vector<Value*> operands;
  std::vector<std::unique_ptr<Value>> results;
  std::vector<Attr> attrs;  // one per OpDef::attrs entry, in its order
  std::vector<std::unique_ptr<Region>> regions;
  Block* parent = nullptr;
  Location loc;

  explicit Op(const OpDef* d);
  std::string_view name() const;
  Value* result(unsigned i = 0) const { return results[i].get(); }
  Value* add_result(std::string name, Type type, Location at = {});
  Region& add_region();
  // An attribute by its OpDef name; refuses a name the op does not declare.
  Attr& attr(std::string_view name);
  const Attr& attr(std::string_view name) const;
  // The operand (or operand group) named in the OpDef, for ops with variadic groups.
  std::vector<Value*> operand_group(std::string_view name) const;
  Value* operand(std::string_view name) const;
  // The op that owns the region this op sits in, or null at the top of a module.
  Op* parent_op() const;
  // The symbol a func.def / kernel.def defines, or a func.call names.
  const std::string& symbol() const;
};

struct Module {
  std::string file;  // for messages: the file it was read from, or a label
  std::vector<std::unique_ptr<Op>> ops;
  // The func.def or kernel.def named `symbol`, or null.
  Op* lookup(std::string_view symbol) const;
};

// "file:line:col: " for an op or value, empty parts left out for built IR.
std::string where(const Module& m, Location loc);
// `%name` for messages.
std::string ref(const Value* v);
// "1 value", "2 values" (and "1 index", "2 indices"), for messages.
std::string counted(std::size_t n, std::string_view noun);

}  // namespace loam::loom
