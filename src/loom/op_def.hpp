// How an operation is declared: once, with everything Loom knows about it. An OpDef names its
// operands, results and attributes with their type constraints, gives its text form as a
// declarative format (or custom parse/print hooks for the structured ops), and carries its verifier,
// its fact transfer, its interpreter semantics and its C++ emission. Passes never switch on op
// names; they ask the op's definition. MLIR's ODS is the model.
//
// Format strings: the printed form after the op's name, with directives substituted and every
// other character printed as written (whitespace prints as one space; the parser skips it):
//   $name                 an operand (or variadic group, comma-separated), an attribute or a region
//   type(a, b, result)    one type that every named operand has and every named result gets
//   types(group)          the comma-separated types of a variadic operand or result group
//   functype(args, res)   `(types of args) -> (types of res)`
//   [[ ... ]]             an optional group, present when its first directive is: a flag attribute
//                         that is set, or a variadic group that is not empty
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "loom/ir.hpp"

namespace loam::loom {

class OpParser;
class OpPrinter;
class OpVerifier;
class Frame;
class CppEmitter;
class FactScope;
struct Facts;

// A predicate on a type at an operation boundary, with the words an error uses for it.
struct TypeConstraint {
  std::string_view description;  // "index or offset", "a vector of floats"
  bool (*accepts)(const Type&) = nullptr;
};

struct OperandSpec {
  std::string_view name;
  TypeConstraint constraint;
  bool variadic = false;
};

struct ResultSpec {
  std::string_view name;
  TypeConstraint constraint;
  bool variadic = false;
};

enum class AttrKind : std::uint8_t {
  Choice,    // a keyword from `choices`, stored as its position in `i`
  Integer,   // a decimal integer in `i`
  Symbol,    // @name, in `text`
  Contract,  // a dotted name (func.apply's contract), in `text`
  Flag,      // a keyword that is present or not
  Facts,     // [range(%v, lo, hi), align(%v, n)], in `facts`
  Literal,   // a constant's value in the result type's format, in `bits`
  Types,     // a list of types, in `types` (custom syntax only)
};

struct AttrSpec {
  std::string_view name;
  AttrKind kind = AttrKind::Integer;
  std::vector<std::string_view> choices;
};

enum Trait : unsigned {
  kPure = 1u << 0,               // reads and writes no memory (it may still stop the run)
  kTerminator = 1u << 1,         // ends its block
  kIsolatedFromAbove = 1u << 2,  // its regions see no value defined outside them
  kLaunchOnly = 1u << 3,         // only inside a kernel's launch region
  kTopLevel = 1u << 4,           // only at the top of a module
};

// One directive of a parsed format string.
struct FormatItem {
  enum class Kind : std::uint8_t { Space, Punct, Keyword, Operand, Attr, Region, TypeOf, TypesOf, FuncType, Optional };
  Kind kind = Kind::Space;
  std::string text;  // Punct, Keyword
  // Operand, Attr, Region: the spec index. TypeOf: the targets, each an operand (>= 0) or a result
  // (-1 - result index). TypesOf: one operand group (>= 0) or the result group (-1). FuncType: the
  // operand group and the result group.
  std::vector<int> targets;
  std::vector<FormatItem> group;  // Optional
};

using ParseFn = std::function<void(Op&, OpParser&)>;
using PrintFn = std::function<void(const Op&, OpPrinter&)>;
using InferFn = std::function<void(Op&)>;
using VerifyFn = std::function<void(const Op&, OpVerifier&)>;
using FactsFn = std::function<void(const Op&, FactScope&)>;
using EvalFn = std::function<void(const Op&, Frame&)>;
using EmitFn = std::function<void(const Op&, CppEmitter&)>;

struct OpDef {
  std::string_view name;     // "index.add"
  std::string_view summary;  // one line, for the op reference
  std::vector<OperandSpec> operands;
  std::vector<ResultSpec> results;
  std::vector<AttrSpec> attrs;
  std::vector<std::string_view> regions;
  std::string_view format;  // empty when `parse` and `print` are given
  ParseFn parse;
  PrintFn print;
  InferFn infer;    // result types the format does not state
  VerifyFn verify;  // rules beyond the constraints and the format's type groups
  FactsFn facts;    // what the op's results are known to be, from what its operands are known to be
  EvalFn eval;      // the reference semantics
  EmitFn emit;      // C++
  unsigned traits = 0;

  std::vector<FormatItem> parsed_format;  // filled when the op is registered
  bool has(Trait t) const { return (traits & t) != 0; }
  int operand_index(std::string_view n) const;
  int result_index(std::string_view n) const;
  int attr_index(std::string_view n) const;
  int region_index(std::string_view n) const;
};

// The table of every operation, built once. Lookups by name.
class OpTable {
 public:
  const OpDef* find(std::string_view name) const;
  const OpDef& get(std::string_view name) const;  // refuses a name the table lacks
  const std::vector<std::unique_ptr<OpDef>>& all() const { return defs_; }
  void add(OpDef def);

 private:
  std::vector<std::unique_ptr<OpDef>> defs_;
};

const OpTable& op_table();

// The reference of every op, as docs/loom-ops.md holds it: name, what it gives, text form.
std::string op_reference_markdown();

// Stable storage for names and formats a family builds at registration (OpDef holds views).
std::string_view intern(std::string s);

// The families, each in its own ops_*.cpp; op_table() calls them in this order.
void register_index_ops(OpTable& t);
void register_arith_ops(OpTable& t);
void register_vector_ops(OpTable& t);
void register_memory_ops(OpTable& t);
void register_control_ops(OpTable& t);
void register_func_ops(OpTable& t);
void register_kernel_ops(OpTable& t);

// Type constraints the families share.
namespace constraint {
extern const TypeConstraint any;
extern const TypeConstraint index;
extern const TypeConstraint offset;
extern const TypeConstraint address;
extern const TypeConstraint i1;
extern const TypeConstraint integer;
extern const TypeConstraint integer_or_address;
extern const TypeConstraint scalar_float;
extern const TypeConstraint scalar_integer;
extern const TypeConstraint scalar_value;  // any fixed-width integer or float scalar
extern const TypeConstraint buffer;
extern const TypeConstraint view;
extern const TypeConstraint tensor;
extern const TypeConstraint vector;
extern const TypeConstraint vector_float;
extern const TypeConstraint vector_integer;
extern const TypeConstraint vector_mask;
extern const TypeConstraint storable;  // a fixed-width scalar
}  // namespace constraint

}  // namespace loam::loom
