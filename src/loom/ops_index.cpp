// The address domains' operations: index (signed coordinates) and offset (unsigned byte counts).
// Arithmetic never wraps: a result outside its carrier stops the run, in the interpreter and in
// emitted code, unless the facts prove it cannot happen (then the emitted code is plain C++).
#include <algorithm>

#include "loom/ops_common.hpp"
#include "support/error.hpp"

namespace loam::loom {

namespace {

using namespace detail;
namespace c = constraint;

enum class Binary { Add, Sub, Mul, Div, Rem, Min, Max };

struct BinaryInfo {
  Binary kind;
  std::string_view name;
  std::string_view summary;
  std::string_view symbol;  // for messages: "+" ...
};

constexpr BinaryInfo kBinaries[] = {
    {Binary::Add, "index.add", "the sum of two address values", "+"},
    {Binary::Sub, "index.sub", "the difference of two address values", "-"},
    {Binary::Mul, "index.mul", "the product of two address values", "*"},
    {Binary::Div, "index.div", "the quotient, rounded toward zero (offset: unsigned)", "/"},
    {Binary::Rem, "index.rem", "the remainder, with the dividend's sign (offset: unsigned)", "%"},
    {Binary::Min, "index.min", "the smaller of two address values", "min"},
    {Binary::Max, "index.max", "the larger of two address values", "max"},
};

std::string describe(const Op& op, Binary kind, std::string_view symbol) {
  const std::string a = ref(op.operands[0]), b = ref(op.operands[1]);
  const std::string r = ref(op.result());
  const std::string_view domain = scalar_name(op.result()->type.element());
  switch (kind) {
    case Binary::Div:
    case Binary::Rem:
      return r + " = " + a + " " + std::string(symbol) + " " + b + " divides by zero or overflows " + std::string(domain);
    default:
      return r + " = " + a + " " + std::string(symbol) + " " + b + " leaves " + std::string(domain);
  }
}

// Exact in 128 bits; the caller checks the carrier.
std::optional<Int> apply(Binary kind, Int a, Int b) {
  switch (kind) {
    case Binary::Add: return a + b;
    case Binary::Sub: return a - b;
    case Binary::Mul: return mul_saturating(a, b);
    case Binary::Div:
      if (b == 0) return std::nullopt;
      return a / b;  // C++ truncates toward zero, as index.div does
    case Binary::Rem:
      if (b == 0) return std::nullopt;
      return a % b;
    case Binary::Min: return std::min(a, b);
    case Binary::Max: return std::max(a, b);
  }
  return std::nullopt;
}

Range range_of(Binary kind, const Range& a, const Range& b, Scalar type) {
  switch (kind) {
    case Binary::Add: return range_add(a, b);
    case Binary::Sub: return range_sub(a, b);
    case Binary::Mul: return range_mul(a, b);
    case Binary::Div: {
      if (b.lo <= 0 && b.hi >= 0) return carrier_range(type);
      const Int c[4] = {a.lo / b.lo, a.lo / b.hi, a.hi / b.lo, a.hi / b.hi};
      return {*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
    }
    case Binary::Rem: {
      if (b.lo <= 0 && b.hi >= 0) return carrier_range(type);
      const Int m = std::max(b.lo < 0 ? -b.lo : b.lo, b.hi < 0 ? -b.hi : b.hi) - 1;
      if (a.lo >= 0) return {0, std::min(a.hi, m)};
      if (a.hi <= 0) return {std::max(a.lo, -m), 0};
      return {-m, m};
    }
    case Binary::Min: return {std::min(a.lo, b.lo), std::min(a.hi, b.hi)};
    case Binary::Max: return {std::max(a.lo, b.lo), std::max(a.hi, b.hi)};
  }
  return carrier_range(type);
}

Range range_or_carrier(const Facts& f, Scalar type) { return f.range ? *f.range : carrier_range(type); }

// Whether the facts prove the op cannot fail where it runs.
bool proven_safe(const Op& op, Binary kind, const FactAnalysis& facts) {
  const Scalar type = op.result()->type.element();
  const Range a = range_or_carrier(facts.at(&op, op.operands[0]), type);
  const Range b = range_or_carrier(facts.at(&op, op.operands[1]), type);
  if ((kind == Binary::Div || kind == Binary::Rem) && b.lo <= 0 && b.hi >= 0) return false;
  if (kind == Binary::Min || kind == Binary::Max) return true;
  return range_within(range_of(kind, a, b, type), carrier_range(type));
}

std::string plain_expr(Binary kind, const std::string& a, const std::string& b) {
  switch (kind) {
    case Binary::Add: return "(" + a + " + " + b + ")";
    case Binary::Sub: return "(" + a + " - " + b + ")";
    case Binary::Mul: return "(" + a + " * " + b + ")";
    case Binary::Div: return "(" + a + " / " + b + ")";
    case Binary::Rem: return "(" + a + " % " + b + ")";
    case Binary::Min: return "(" + a + " < " + b + " ? " + a + " : " + b + ")";
    case Binary::Max: return "(" + a + " < " + b + " ? " + b + " : " + a + ")";
  }
  return a;
}

std::string_view checked_function(Binary kind) {
  switch (kind) {
    case Binary::Add: return "add";
    case Binary::Sub: return "sub";
    case Binary::Mul: return "mul";
    case Binary::Div: return "div";
    case Binary::Rem: return "rem";
    default: return "";
  }
}

void add_binary(OpTable& t, const BinaryInfo& info) {
  const Binary kind = info.kind;
  const std::string_view symbol = info.symbol;
  OpDef d;
  d.name = info.name;
  d.summary = info.summary;
  d.operands = {{"lhs", c::address}, {"rhs", c::address}};
  d.results = {{"result", c::address}};
  d.format = "$lhs, $rhs : type(lhs, rhs, result)";
  d.traits = kPure;
  d.facts = [kind](const Op& op, FactScope& s) {
    const Scalar type = op.result()->type.element();
    const Facts a = s.of(op.operands[0]), b = s.of(op.operands[1]);
    Facts f;
    f.range = range_of(kind, range_or_carrier(a, type), range_or_carrier(b, type), type);
    if (kind == Binary::Add || kind == Binary::Sub || kind == Binary::Min || kind == Binary::Max)
      f.align = align_min(a.align, b.align);
    else if (kind == Binary::Mul)
      f.align = align_mul(a.align, b.align);
    s.set(op.result(), f);
  };
  d.eval = [kind, symbol](const Op& op, Frame& fr) {
    const Scalar type = op.result()->type.element();
    const Int a = value_of(fr.bits(op.operands[0]), type), b = value_of(fr.bits(op.operands[1]), type);
    auto r = apply(kind, a, b);
    if (!r || !range_within({*r, *r}, carrier_range(type)))
      fr.fail(op, describe(op, kind, symbol) + " (" + std::to_string(static_cast<long long>(a)) + " " +
                      std::string(symbol) + " " + std::to_string(static_cast<long long>(b)) + ")");
    fr.set(op.result(), RtValue::scalar(bits_of(*r, type)));
  };
  d.emit = [kind, symbol](const Op& op, CppEmitter& e) {
    const std::string a = e.use(op.operands[0]), b = e.use(op.operands[1]);
    if (proven_safe(op, kind, e.facts())) {
      e.define(op.result(), plain_expr(kind, a, b));
      return;
    }
    const std::string domain(scalar_name(op.result()->type.element()));
    const std::string msg = cpp_string(fail_message(e.module(), op, describe(op, kind, symbol)));
    e.define(op.result(), e.rt() + domain + "_" + std::string(checked_function(kind)) + "(" + a + ", " + b + ", " + msg + ")");
  };
  t.add(std::move(d));
}

enum class Predicate { Eq, Ne, Slt, Sle, Sgt, Sge, Ult, Ule, Ugt, Uge };
const std::vector<std::string_view> kPredicates{"eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"};

bool is_signed_predicate(Predicate p) { return p >= Predicate::Slt && p <= Predicate::Sge; }

Predicate negate(Predicate p) {
  switch (p) {
    case Predicate::Eq: return Predicate::Ne;
    case Predicate::Ne: return Predicate::Eq;
    case Predicate::Slt: return Predicate::Sge;
    case Predicate::Sle: return Predicate::Sgt;
    case Predicate::Sgt: return Predicate::Sle;
    case Predicate::Sge: return Predicate::Slt;
    case Predicate::Ult: return Predicate::Uge;
    case Predicate::Ule: return Predicate::Ugt;
    case Predicate::Ugt: return Predicate::Ule;
    case Predicate::Uge: return Predicate::Ult;
  }
  return p;
}

bool compare(Predicate p, std::uint64_t a, std::uint64_t b) {
  const auto sa = static_cast<std::int64_t>(a), sb = static_cast<std::int64_t>(b);
  switch (p) {
    case Predicate::Eq: return a == b;
    case Predicate::Ne: return a != b;
    case Predicate::Slt: return sa < sb;
    case Predicate::Sle: return sa <= sb;
    case Predicate::Sgt: return sa > sb;
    case Predicate::Sge: return sa >= sb;
    case Predicate::Ult: return a < b;
    case Predicate::Ule: return a <= b;
    case Predicate::Ugt: return a > b;
    case Predicate::Uge: return a >= b;
  }
  return false;
}

// a < b (strict) or a <= b, as facts: a's top and b's bottom tighten, and the relation is kept.
void imply_less(FactScope& s, const Value* a, const Value* b, bool strict, bool is_unsigned) {
  const Facts fa = s.of(a), fb = s.of(b);
  if (!fa.range || !fb.range) return;
  const Int gap = strict ? 1 : 0;
  if (is_unsigned && a->type.is_scalar(Scalar::Index)) {
    // As unsigned, a negative index is above every non-negative one; only b >= 0 says a >= 0.
    if (fb.range->lo < 0) return;
    Facts na;
    na.range = Range{0, fb.range->hi - gap};
    s.refine(a, na);
  } else {
    Facts na, nb;
    na.range = Range{fa.range->lo, fb.range->hi - gap};
    nb.range = Range{fa.range->lo + gap, fb.range->hi};
    s.refine(a, na);
    s.refine(b, nb);
  }
  s.relate(Relation{a, b, strict, is_unsigned});
}

void add_cmp(OpTable& t) {
  OpDef d;
  d.name = "index.cmp";
  d.summary = "compares two address values; signed (s..) and unsigned (u..) predicates";
  d.operands = {{"lhs", c::address}, {"rhs", c::address}};
  d.results = {{"result", c::i1}};
  d.attrs = {{"predicate", AttrKind::Choice, kPredicates}};
  d.format = "$predicate, $lhs, $rhs : type(lhs, rhs)";
  d.traits = kPure;
  d.infer = [](Op& op) { op.result()->type = Type::scalar(Scalar::I1); };
  d.verify = [](const Op& op, OpVerifier& v) {
    const auto p = static_cast<Predicate>(op.attr("predicate").i);
    if (op.operands[0]->type.is_scalar(Scalar::Offset) && is_signed_predicate(p))
      v.fail(op, "offset is unsigned: compare " + ref(op.operands[0]) + " and " + ref(op.operands[1]) +
                     " with eq, ne, ult, ule, ugt or uge");
  };
  d.eval = [](const Op& op, Frame& fr) {
    const auto p = static_cast<Predicate>(op.attr("predicate").i);
    fr.set(op.result(), RtValue::scalar(compare(p, fr.bits(op.operands[0]), fr.bits(op.operands[1])) ? 1 : 0));
  };
  d.emit = [](const Op& op, CppEmitter& e) {
    const auto p = static_cast<Predicate>(op.attr("predicate").i);
    std::string a = e.use(op.operands[0]), b = e.use(op.operands[1]);
    const bool is_index = op.operands[0]->type.is_scalar(Scalar::Index);
    if (is_index && p >= Predicate::Ult) {
      a = "std::uint64_t(" + a + ")";
      b = "std::uint64_t(" + b + ")";
    }
    static const char* kCpp[] = {"==", "!=", "<", "<=", ">", ">=", "<", "<=", ">", ">="};
    e.define(op.result(), "(" + a + " " + kCpp[static_cast<int>(p)] + " " + b + ")");
  };
  t.add(std::move(d));
}

void add_constant(OpTable& t) {
  OpDef d;
  d.name = "index.constant";
  d.summary = "an address-domain literal";
  d.results = {{"result", c::address}};
  d.attrs = {{"value", AttrKind::Literal, {}}};
  d.format = "$value : type(result)";
  d.traits = kPure;
  d.facts = [](const Op& op, FactScope& s) {
    s.set(op.result(), exact(value_of(op.attr("value").bits, op.result()->type.element())));
  };
  d.eval = [](const Op& op, Frame& fr) { fr.set(op.result(), RtValue::scalar(op.attr("value").bits)); };
  d.emit = [](const Op& op, CppEmitter& e) {
    e.define(op.result(), cpp_literal(op.attr("value").bits, op.result()->type.element(), e.rt()));
  };
  t.add(std::move(d));
}

void add_madd(OpTable& t) {
  OpDef d;
  d.name = "index.madd";
  d.summary = "a * b + c, as one address computation that never wraps";
  d.operands = {{"a", c::address}, {"b", c::address}, {"c", c::address}};
  d.results = {{"result", c::address}};
  d.format = "$a, $b, $c : type(a, b, c, result)";
  d.traits = kPure;
  d.facts = [](const Op& op, FactScope& s) {
    const Scalar type = op.result()->type.element();
    const Facts a = s.of(op.operands[0]), b = s.of(op.operands[1]), cc = s.of(op.operands[2]);
    Facts f;
    const Range p = range_mul(range_or_carrier(a, type), range_or_carrier(b, type));
    f.range = range_add(p, range_or_carrier(cc, type));
    f.align = align_min(align_mul(a.align, b.align), cc.align);
    s.set(op.result(), f);
  };
  d.eval = [](const Op& op, Frame& fr) {
    const Scalar type = op.result()->type.element();
    const Int r = mul_saturating(value_of(fr.bits(op.operands[0]), type), value_of(fr.bits(op.operands[1]), type));
    const Range carrier = carrier_range(type);
    const Int sum = r + value_of(fr.bits(op.operands[2]), type);
    if (!range_within({r, r}, carrier) || !range_within({sum, sum}, carrier))
      fr.fail(op, ref(op.result()) + " = " + ref(op.operands[0]) + " * " + ref(op.operands[1]) + " + " +
                      ref(op.operands[2]) + " leaves " + std::string(scalar_name(type)));
    fr.set(op.result(), RtValue::scalar(bits_of(sum, type)));
  };
  d.emit = [](const Op& op, CppEmitter& e) {
    const Scalar type = op.result()->type.element();
    const FactAnalysis& facts = e.facts();
    auto range = [&](int i) { return range_or_carrier(facts.at(&op, op.operands[static_cast<std::size_t>(i)]), type); };
    const Range p = range_mul(range(0), range(1));
    const bool safe = range_within(p, carrier_range(type)) && range_within(range_add(p, range(2)), carrier_range(type));
    const std::string a = e.use(op.operands[0]), b = e.use(op.operands[1]), cc = e.use(op.operands[2]);
    if (safe) {
      e.define(op.result(), "(" + a + " * " + b + " + " + cc + ")");
      return;
    }
    const std::string msg = cpp_string(fail_message(e.module(), op, ref(op.result()) + " = " + ref(op.operands[0]) + " * " +
                                                                        ref(op.operands[1]) + " + " + ref(op.operands[2]) +
                                                                        " leaves " + std::string(scalar_name(type))));
    e.define(op.result(), e.rt() + std::string(scalar_name(type)) + "_madd(" + a + ", " + b + ", " + cc + ", " + msg + ")");
  };
  t.add(std::move(d));
}

void add_scale(OpTable& t) {
  OpDef d;
  d.name = "index.scale";
  d.summary = "a coordinate times a byte stride: the logical-to-physical boundary";
  d.operands = {{"index", c::index}, {"stride", c::offset}};
  d.results = {{"result", c::offset}};
  d.format = "$index, $stride : type(index), type(stride) -> type(result)";
  d.traits = kPure;
  d.verify = [](const Op& op, OpVerifier& v) { v.require_nonnegative(op, op.operands[0], "as a coordinate scaled to bytes"); };
  d.facts = [](const Op& op, FactScope& s) {
    const Facts a = s.of(op.operands[0]), b = s.of(op.operands[1]);
    Facts f;
    f.range = range_mul(range_or_carrier(a, Scalar::Index), range_or_carrier(b, Scalar::Offset));
    f.align = align_mul(a.align, b.align);
    s.set(op.result(), f);
  };
  d.eval = [](const Op& op, Frame& fr) {
    const Int a = value_of(fr.bits(op.operands[0]), Scalar::Index);
    const Int b = value_of(fr.bits(op.operands[1]), Scalar::Offset);
    const Int r = mul_saturating(a, b);
    if (a < 0 || r > kOffsetMax)
      fr.fail(op, ref(op.result()) + " = " + ref(op.operands[0]) + " * " + ref(op.operands[1]) + " leaves offset");
    fr.set(op.result(), RtValue::scalar(static_cast<std::uint64_t>(r)));
  };
  d.emit = [](const Op& op, CppEmitter& e) {
    const Range a = range_or_carrier(e.facts().at(&op, op.operands[0]), Scalar::Index);
    const Range b = range_or_carrier(e.facts().at(&op, op.operands[1]), Scalar::Offset);
    const std::string x = e.use(op.operands[0]), s = e.use(op.operands[1]);
    if (a.lo >= 0 && range_within(range_mul(a, b), {0, kOffsetMax})) {
      e.define(op.result(), "(std::uint64_t(" + x + ") * " + s + ")");
      return;
    }
    const std::string msg = cpp_string(fail_message(e.module(), op, ref(op.result()) + " = " + ref(op.operands[0]) + " * " +
                                                                        ref(op.operands[1]) + " leaves offset"));
    e.define(op.result(), e.rt() + "offset_mul(std::uint64_t(" + x + "), " + s + ", " + msg + ")");
  };
  t.add(std::move(d));
}

// index.cast's ends: the address domains and the payload integers i8..i64.
bool castable(Scalar s) { return is_address(s) || s == Scalar::I8 || s == Scalar::I16 || s == Scalar::I32 || s == Scalar::I64; }

void add_cast(OpTable& t) {
  OpDef d;
  d.name = "index.cast";
  d.summary = "converts between the address domains and fixed-width payloads, never wrapping";
  d.operands = {{"input", c::integer_or_address}};
  d.results = {{"result", c::integer_or_address}};
  d.format = "$input : type(input) to type(result)";
  d.traits = kPure;
  d.verify = [](const Op& op, OpVerifier& v) {
    const Scalar from = op.operands[0]->type.element(), to = op.result()->type.element();
    if (!castable(from) || !castable(to))
      v.fail(op, "converts between index, offset and i8, i16, i32, i64; not " + ref(op.operands[0]) + " (" + std::string(scalar_name(from)) + ") to " +
                     std::string(scalar_name(to)));
    if (!is_address(from) && !is_address(to))
      v.fail(op, ref(op.operands[0]) + " (" + std::string(scalar_name(from)) + ") to " + std::string(scalar_name(to)) +
                     " stays among payloads: use scalar.extsi, scalar.extui or scalar.trunci");
    if (from == to) v.fail(op, ref(op.operands[0]) + " is already " + std::string(scalar_name(to)));
    if (to == Scalar::Offset) v.require_nonnegative(op, op.operands[0], "through the cast");
  };
  d.facts = [](const Op& op, FactScope& s) {
    Facts f = s.of(op.operands[0]);
    f.noalias_group = nullptr;
    s.set(op.result(), f);  // clamped to the result's range: a value outside it stops the run
  };
  d.eval = [](const Op& op, Frame& fr) {
    const Scalar from = op.operands[0]->type.element(), to = op.result()->type.element();
    const Int v = value_of(fr.bits(op.operands[0]), from);
    const auto to_range = type_range(op.result()->type);
    Range bounds = *to_range;
    if (!is_address(to)) bounds = *type_range(Type::scalar(to));
    if (!range_within({v, v}, bounds))
      fr.fail(op, ref(op.operands[0]) + " = " + std::to_string(static_cast<long long>(v)) + " does not fit in " +
                      std::string(scalar_name(to)));
    fr.set(op.result(), RtValue::scalar(bits_of(v, to)));
  };
  d.emit = [](const Op& op, CppEmitter& e) {
    const Scalar from = op.operands[0]->type.element(), to = op.result()->type.element();
    const std::string x = e.use(op.operands[0]);
    // The value as a signed or unsigned 64-bit C++ integer.
    std::string wide;
    if (from == Scalar::Index || from == Scalar::Offset) wide = x;
    else wide = "std::int64_t(std::int" + std::to_string(scalar_bits(from)) + "_t(" + x + "))";
    const Facts f = e.facts().at(&op, op.operands[0]);
    const Range have = f.range ? *f.range : *type_range(op.operands[0]->type);
    const Range need = *type_range(op.result()->type);
    const std::string target = cpp_scalar(to);
    if (range_within(have, need)) {
      e.define(op.result(), target + "(" + wide + ")");
      return;
    }
    const std::string msg = cpp_string(fail_message(e.module(), op, ref(op.operands[0]) + " does not fit in " +
                                                                        std::string(scalar_name(to))));
    const std::string lo = to == Scalar::Offset ? "0"
                           : need.lo == kIndexMin ? "(-9223372036854775807LL - 1)"
                                                  : std::to_string(static_cast<long long>(need.lo)) + "LL";
    const std::string hi = to == Scalar::Offset || to == Scalar::I64 || to == Scalar::Index
                               ? "9223372036854775807LL"
                               : std::to_string(static_cast<long long>(need.hi)) + "LL";
    const std::string fn = from == Scalar::Offset ? "cast_unsigned" : "cast_signed";
    e.define(op.result(), target + "(" + e.rt() + fn + "(" + wide + ", " + lo + ", " + hi + ", " + msg + "))");
  };
  t.add(std::move(d));
}

void add_assume(OpTable& t) {
  OpDef d;
  d.name = "index.assume";
  d.summary = "the operand, with facts a caller promises (range, alignment)";
  d.operands = {{"input", c::integer_or_address}};
  d.results = {{"result", c::integer_or_address}};
  d.attrs = {{"facts", AttrKind::Facts, {}}};
  d.format = "$input [$facts] : type(input, result)";
  d.traits = kPure;
  d.verify = [](const Op& op, OpVerifier& v) {
    const auto bounds = *type_range(op.operands[0]->type);
    for (const Fact& f : op.attr("facts").facts) {
      if (f.kind == Fact::Kind::Range) {
        if (f.lo > f.hi) v.fail(op, "range(" + ref(op.operands[0]) + ", " + std::to_string(f.lo) + ", " + std::to_string(f.hi) + ") is empty");
        if (!range_within({f.lo, f.hi}, bounds))
          v.fail(op, "range(" + ref(op.operands[0]) + ", " + std::to_string(f.lo) + ", " + std::to_string(f.hi) +
                         ") reaches outside " + print_type(op.operands[0]->type));
      } else if (f.align <= 0 || (f.align & (f.align - 1)) != 0) {
        v.fail(op, "align(" + ref(op.operands[0]) + ", " + std::to_string(f.align) + ") is not a power of two");
      }
    }
  };
  d.facts = [](const Op& op, FactScope& s) {
    Facts f = s.of(op.operands[0]);
    for (const Fact& fact : op.attr("facts").facts) {
      if (fact.kind == Fact::Kind::Range) {
        const Range r{fact.lo, fact.hi};
        f.range = f.range ? Range{std::max(f.range->lo, r.lo), std::min(f.range->hi, r.hi)} : r;
        if (f.range->lo > f.range->hi) f.range = r;
      } else {
        f.align = std::max(f.align, fact.align);
      }
    }
    s.set(op.result(), f);
  };
  d.eval = [](const Op& op, Frame& fr) {
    const Scalar type = op.operands[0]->type.element();
    const Int v = value_of(fr.bits(op.operands[0]), type);
    for (const Fact& f : op.attr("facts").facts) {
      const bool holds = f.kind == Fact::Kind::Range ? (v >= f.lo && v <= f.hi) : (v % f.align == 0);
      if (!holds) {
        const std::string fact = f.kind == Fact::Kind::Range
                                     ? "range(" + std::to_string(f.lo) + ", " + std::to_string(f.hi) + ")"
                                     : "align(" + std::to_string(f.align) + ")";
        fr.fail(op, "the promise " + fact + " on " + ref(op.operands[0]) + " does not hold: it is " +
                        std::to_string(static_cast<long long>(v)));
      }
    }
    fr.set(op.result(), RtValue::scalar(fr.bits(op.operands[0])));
  };
  d.emit = [](const Op& op, CppEmitter& e) {
    const Scalar type = op.operands[0]->type.element();
    e.define(op.result(), e.use(op.operands[0]));
    const std::string v = e.use(op.result());
    const std::string wide = is_address(type) ? v : "std::int64_t(std::int" + std::to_string(scalar_bits(type)) + "_t(" + v + "))";
    for (const Fact& f : op.attr("facts").facts) {
      std::string cond;
      if (f.kind == Fact::Kind::Range) {
        auto lit = [&](std::int64_t x) {
          return type == Scalar::Offset ? std::to_string(static_cast<std::uint64_t>(x)) + "ULL"
                                        : (x == std::numeric_limits<std::int64_t>::min() ? std::string("(-9223372036854775807LL - 1)")
                                                                                         : std::to_string(x) + "LL");
        };
        cond = wide + " >= " + lit(f.lo) + " && " + wide + " <= " + lit(f.hi);
      } else {
        cond = "(std::uint64_t(" + wide + ") & " + std::to_string(f.align - 1) + "ULL) == 0";
      }
      e.line(e.rt() + "assume(" + cond + ", " + cpp_string(fail_message(e.module(), op, "a promise on " + ref(op.operands[0]) + " does not hold")) + ");");
    }
  };
  t.add(std::move(d));
}

}  // namespace

namespace detail {

void imply_condition(const Value* condition, bool truth, FactScope& s, int depth) {
  const Op* def = condition->def;
  // Conditions nest as a tree of andi/ori; past a few levels the facts are not worth the walk
  // (and a chain reusing one value would double the work at every level).
  if (!def || depth > 6) return;
  const bool both = (def->name() == "scalar.andi" && truth) || (def->name() == "scalar.ori" && !truth);
  if (both) {
    imply_condition(def->operands[0], truth, s, depth + 1);
    if (def->operands[1] != def->operands[0]) imply_condition(def->operands[1], truth, s, depth + 1);
    return;
  }
  if (def->name() != "index.cmp") return;
  auto p = static_cast<Predicate>(def->attr("predicate").i);
  if (!truth) p = negate(p);
  const Value* a = def->operands[0];
  const Value* b = def->operands[1];
  switch (p) {
    case Predicate::Slt: imply_less(s, a, b, true, false); break;
    case Predicate::Sle: imply_less(s, a, b, false, false); break;
    case Predicate::Sgt: imply_less(s, b, a, true, false); break;
    case Predicate::Sge: imply_less(s, b, a, false, false); break;
    case Predicate::Ult: imply_less(s, a, b, true, true); break;
    case Predicate::Ule: imply_less(s, a, b, false, true); break;
    case Predicate::Ugt: imply_less(s, b, a, true, true); break;
    case Predicate::Uge: imply_less(s, b, a, false, true); break;
    case Predicate::Eq: {
      const Facts fa = s.of(a), fb = s.of(b);
      if (fa.range && fb.range) {
        Facts both;
        both.range = Range{std::max(fa.range->lo, fb.range->lo), std::min(fa.range->hi, fb.range->hi)};
        s.refine(a, both);
        s.refine(b, both);
      }
      break;
    }
    case Predicate::Ne: break;
  }
}

}  // namespace detail

void register_index_ops(OpTable& t) {
  add_constant(t);
  for (const auto& info : kBinaries) add_binary(t, info);
  add_madd(t);
  add_scale(t);
  add_cmp(t);
  add_cast(t);
  add_assume(t);
}

}  // namespace loam::loom
