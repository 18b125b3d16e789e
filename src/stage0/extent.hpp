// Extents: the lengths stage 0 carries through the shape algebra, and the integers it folds.
//
// An Extent is a polynomial over symbols with int64 coefficients, kept in one canonical normal form
// (monomials sorted, no zero coefficient), so two extents are equal exactly when their forms are.
// Arithmetic is exact: a coefficient past int64 is refused with loam::Error, never wrapped.
//
// A Symbol is either an input symbol — a dim_param name, a length in [0, INT32_MAX] — or a derived
// symbol: a value forward computes from the input symbols before any kernel runs, for the shape
// arithmetic that leaves the polynomials (clamps, a bound read from the end, a step count clamped at
// none, a rounded quotient, an int32 wrap, a float rounding). A derived symbol carries its operands
// and the range its operation leaves, and is interned: the same operation on equal operands is the
// same symbol. The symbol table is process-wide (and guarded by a mutex), so an Extent is a plain
// value that prints and compares without a context object; symbols are immutable once made.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace loam::stage0 {

using SymbolId = uint32_t;

// One monomial: symbols with their powers, sorted by symbol id, no zero power.
using Monomial = std::vector<std::pair<SymbolId, uint32_t>>;

struct Term {
  int64_t coeff = 0;
  Monomial mono;  // never empty: the constant term lives in Extent::constant_
  bool operator==(const Term&) const = default;
};

class Extent {
 public:
  Extent() = default;
  Extent(int64_t c) : constant_(c) {}  // NOLINT: a number is an extent
  static Extent symbol(SymbolId s);

  bool is_constant() const { return terms_.empty(); }
  // The value if constant.
  std::optional<int64_t> constant() const {
    if (terms_.empty()) return constant_;
    return std::nullopt;
  }
  int64_t constant_term() const { return constant_; }
  const std::vector<Term>& terms() const { return terms_; }
  // The single symbol this extent is (coefficient 1, power 1, no constant), if it is one.
  std::optional<SymbolId> as_symbol() const;
  // Every symbol occurring, sorted, unique.
  std::vector<SymbolId> symbols() const;
  // Highest total degree (0 for a constant).
  uint32_t degree() const;

  // Exact arithmetic; throws loam::Error naming the operation on a coefficient past int64.
  friend Extent operator+(const Extent& a, const Extent& b);
  friend Extent operator-(const Extent& a, const Extent& b);
  friend Extent operator*(const Extent& a, const Extent& b);
  Extent operator-() const;
  Extent& operator+=(const Extent& o) { return *this = *this + o; }
  Extent& operator-=(const Extent& o) { return *this = *this - o; }
  Extent& operator*=(const Extent& o) { return *this = *this * o; }
  bool operator==(const Extent& o) const = default;
  // A total order on canonical forms (for maps and deduplication), not a numeric comparison.
  bool operator<(const Extent& o) const;

  // Exact division by `d`: the quotient if every term divides (as a polynomial), else nullopt.
  // Handles a constant or a monomial divisor, and a polynomial divisor the dividend is a multiple
  // of by one monomial (q = dividend / d where dividend == q * d).
  std::optional<Extent> divide_exactly(const Extent& d) const;

  // Substitute `e` for symbol `s`.
  Extent substitute(SymbolId s, const Extent& e) const;

  // Readable form: terms by descending degree then by name, e.g. "2 * N * S + S - 1".
  std::string to_string() const;

  // Used by the normal form; exposed for the symbol table.
  std::size_t hash() const;

 private:
  int64_t constant_ = 0;
  std::vector<Term> terms_;  // sorted by monomial, no zero coefficient
  friend struct ExtentBuilder;
};

// ---------------------------------------------------------------------------------------------
// Intervals: bounds over the symbols' ranges. Endpoints are exact 128-bit integers; an endpoint
// past 2^64 in magnitude is taken as none (infinite), as the known gaps describe.

struct Interval {
  __int128 lo = 0, hi = 0;  // inclusive; kInfinity marks none on that side
  static constexpr __int128 kInfinity = (static_cast<__int128>(1) << 100);
  static Interval point(__int128 v) { return normalise({v, v}); }
  static Interval of(__int128 lo, __int128 hi) { return normalise({lo, hi}); }
  static Interval everything() { return {-kInfinity, kInfinity}; }
  bool lo_bounded() const { return lo > -kInfinity; }
  bool hi_bounded() const { return hi < kInfinity; }
  bool fits_i64() const;
  static Interval normalise(Interval i);
  friend Interval operator+(const Interval& a, const Interval& b);
  friend Interval operator*(const Interval& a, const Interval& b);
  Interval hull(const Interval& o) const;
  std::string to_string() const;
};

// ---------------------------------------------------------------------------------------------
// Symbols.

enum class SymbolKind : uint8_t {
  Input,     // a dim_param name
  Min,       // min(value, limit): a bound clamped from above; reads as `value`
  Max,       // max(value, limit): a bound clamped from below; reads as `value`
  CountMax0, // max(0, span): a count clamped at none; reads as `span`
  FromEnd,   // i < 0 ? i + length : i — a Slice bound whose sign the build cannot tell; reads as `i`
  FloorDiv,  // floor(a / b), b >= 1: Reshape's -1 and a truncating Div of a never-negative operand
  CeilDiv,   // ceil(a / k), k >= 1 a number: a Slice or Range step count; a rounded quotient
  WrapI32,   // the low 32 bits of a, as int32; reads as `a`
  RoundF16,  // a rounded to the nearest float16; reads as `a`
  RoundF32,  // a rounded to the nearest float32; reads as `a`
  Branch,    // the length an If output takes where its branches give two: `then` or `else` as the run
             // decides; named by the node and axis (`name`), read as nothing but itself
};
const char* symbol_kind_name(SymbolKind k);

struct SymbolInfo {
  SymbolKind kind = SymbolKind::Input;
  std::string name;              // Input: the dim_param name
  std::vector<Extent> operands;  // derived: see SymbolKind
  Interval range;                // what the symbol can be for every input
  std::string display;           // printed form
};

// The process-wide symbol table.
const SymbolInfo& symbol_info(SymbolId s);
// Whether an extent reads a length only an If's branch decides (a Branch symbol, or a derived
// symbol over one): forward knows it only once that If has run.
bool reads_branch_length(const Extent& e);
// The input symbol of a dim_param name (interned): its range [0, 2^31 - 1], or the one a live
// ScopedSymbolRanges gives the name.
SymbolId input_symbol(std::string_view name);

// While one lives (on this thread), the input symbols of these names take these ranges (the
// `ranges` option): a ranged symbol is a symbol of its own, printed by its name, so a build with
// other ranges or none never shares it. The pipeline holds one for the whole of a build.
class ScopedSymbolRanges {
 public:
  explicit ScopedSymbolRanges(std::map<std::string, Interval> ranges);
  ~ScopedSymbolRanges();
  ScopedSymbolRanges(const ScopedSymbolRanges&) = delete;
  ScopedSymbolRanges& operator=(const ScopedSymbolRanges&) = delete;

 private:
  std::map<std::string, Interval> ranges_;
  const std::map<std::string, Interval>* saved_;
};
// Interns a derived symbol (no simplification: use the builders below).
SymbolId derived_symbol(SymbolKind kind, std::vector<Extent> operands, Interval range);
// Name of a symbol as printed.
const std::string& symbol_display(SymbolId s);
inline bool is_input_symbol(SymbolId s) { return symbol_info(s).kind == SymbolKind::Input; }

// The input symbols an extent depends on, through derived symbols' operands, sorted unique.
std::vector<SymbolId> input_symbols_of(const Extent& e);

// ---------------------------------------------------------------------------------------------
// Bounds and proofs.

// Interval of `e` over the symbols' ranges, each term bounded apart.
Interval bound(const Extent& e);

enum class Proof : uint8_t { Holds, Fails, Unknown };
const char* proof_name(Proof p);
// Whether `e >= 0` holds for every input (Holds), for none (Fails), or neither is shown (Unknown).
// Besides interval bounds, a derived symbol that occurs alone in a term may be replaced by an
// expression bounding it on the side the term's sign needs (min(v, l) <= v, max(v, l) >= v,
// max(0, s) >= s ...); the search stops after a fixed number of failed attempts.
Proof prove_nonnegative(const Extent& e);

// Refuses (loam::Error naming `what`) an extent some input would carry past int64 when forward
// computes it term by term with every symbol as large as it can be.
void require_fits_i64(const Extent& e, const std::string& what);
// Whether forward computes `e` term by term within int64 for every input (with every symbol as
// large as its range lets it be).
bool fits_i64(const Extent& e);

// ---------------------------------------------------------------------------------------------
// Derived-symbol builders: each decides the operation where the build can tell the answer for
// every input, and otherwise returns the (interned) derived symbol. Throws loam::Error where the
// operation cannot be carried (e.g. a division by a symbol whose sign is unknown).

Extent min_of(const Extent& value, const Extent& limit);
Extent max_of(const Extent& value, const Extent& limit);
Extent count_max0(const Extent& span);
Extent from_end(const Extent& index, const Extent& length);
// floor(a / b) where b >= 1 for every input (caller establishes or owes it).
Extent floor_div(const Extent& a, const Extent& b);
// ceil(a / k), k a number >= 1.
Extent ceil_div(const Extent& a, int64_t k);
Extent wrap_i32(const Extent& a);
Extent round_f16(const Extent& a);
Extent round_f32(const Extent& a);
// The length of an If output axis whose branches give `then_len` and `else_len`: the one length where
// they are equal, else a symbol of its own, named `name` (the node, output and axis), which only the
// run knows, within the hull of the two ranges.
Extent branch_length(const std::string& name, const Extent& then_len, const Extent& else_len);

// One condition a reading owes: `slack >= 0`, with why.
struct ReadingCondition {
  Extent slack;
  std::string message;
};

// Reads every derived symbol in `e` as the operand it takes unchanged (a clamp as its bound, a count
// clamped at none as its span, an index from the end as from the start, a wrap or a rounding as its
// operand); a rounded quotient keeps itself but reads its operands. Appends what the readings owe.
Extent read_derived(const Extent& e, std::vector<ReadingCondition>& owed);

// The value of `e` once every input symbol has a value (by name), computing each derived symbol by
// its operation's definition, as forward does before any kernel runs. nullopt if an input symbol
// has no value, a division meets a divisor below 1, or a value passes int64.
std::optional<int64_t> evaluate(const Extent& e, const std::map<std::string, int64_t>& inputs);

// ---------------------------------------------------------------------------------------------
// dim_param spelling.

// Reads a dim_param: names and integers separated by +, - and * with whitespace around each
// operator, * binding first, reads as that polynomial over input symbols named by the words; any
// other spelling is one opaque input symbol named by the whole text. `names` receives the words
// read (one name for an opaque spelling).
Extent parse_dim_param(std::string_view text, std::vector<std::string>* names = nullptr);
// Whether the text spells arithmetic (and so reads as more than one opaque name).
bool is_spelled_arithmetic(std::string_view text);

}  // namespace loam::stage0
