#include "stage0/extent.hpp"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cmath>
#include <deque>
#include <map>
#include <mutex>
#include <unordered_map>

#include "support/error.hpp"

namespace loam::stage0 {

namespace {

int64_t checked_add(int64_t a, int64_t b, const char* op) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    fail(std::string("extent arithmetic: a coefficient of ") + op + " is past 2^63 (" +
         std::to_string(a) + " and " + std::to_string(b) + ")");
  return r;
}
int64_t checked_mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    fail("extent arithmetic: a coefficient of a product is past 2^63 (" + std::to_string(a) + " * " +
         std::to_string(b) + ")");
  return r;
}

Monomial mono_mul(const Monomial& a, const Monomial& b) {
  Monomial r;
  r.reserve(a.size() + b.size());
  std::size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (j == b.size() || (i < a.size() && a[i].first < b[j].first)) r.push_back(a[i++]);
    else if (i == a.size() || b[j].first < a[i].first) r.push_back(b[j++]);
    else {
      r.emplace_back(a[i].first, a[i].second + b[j].second);
      ++i, ++j;
    }
  }
  return r;
}

// Whether b divides a; the quotient in `q`.
bool mono_div(const Monomial& a, const Monomial& b, Monomial& q) {
  q.clear();
  std::size_t i = 0;
  for (const auto& [s, p] : b) {
    while (i < a.size() && a[i].first < s) q.push_back(a[i++]);
    if (i == a.size() || a[i].first != s || a[i].second < p) return false;
    if (a[i].second > p) q.emplace_back(s, a[i].second - p);
    ++i;
  }
  while (i < a.size()) q.push_back(a[i++]);
  return true;
}

}  // namespace

// Builds a canonical extent from unsorted terms.
struct ExtentBuilder {
  static Extent make(int64_t constant, std::vector<Term> terms) {
    std::sort(terms.begin(), terms.end(), [](const Term& x, const Term& y) { return x.mono < y.mono; });
    Extent e;
    e.constant_ = constant;
    for (auto& t : terms) {
      if (t.mono.empty()) {
        e.constant_ = checked_add(e.constant_, t.coeff, "a sum");
        continue;
      }
      if (!e.terms_.empty() && e.terms_.back().mono == t.mono) {
        e.terms_.back().coeff = checked_add(e.terms_.back().coeff, t.coeff, "a sum");
        if (e.terms_.back().coeff == 0) e.terms_.pop_back();
        continue;
      }
      if (t.coeff != 0) e.terms_.push_back(std::move(t));
    }
    // A pop above may leave two equal neighbours apart only if a zero sat between them, which
    // the sort rules out (equal monomials are adjacent).
    return e;
  }
};

Extent Extent::symbol(SymbolId s) {
  Extent e;
  e.terms_.push_back(Term{1, Monomial{{s, 1u}}});
  return e;
}

std::optional<SymbolId> Extent::as_symbol() const {
  if (constant_ != 0 || terms_.size() != 1) return std::nullopt;
  const Term& t = terms_[0];
  if (t.coeff != 1 || t.mono.size() != 1 || t.mono[0].second != 1) return std::nullopt;
  return t.mono[0].first;
}

std::vector<SymbolId> Extent::symbols() const {
  std::vector<SymbolId> r;
  for (const auto& t : terms_)
    for (const auto& [s, p] : t.mono) r.push_back(s);
  std::sort(r.begin(), r.end());
  r.erase(std::unique(r.begin(), r.end()), r.end());
  return r;
}

uint32_t Extent::degree() const {
  uint32_t d = 0;
  for (const auto& t : terms_) {
    uint32_t td = 0;
    for (const auto& [s, p] : t.mono) td += p;
    d = std::max(d, td);
  }
  return d;
}

Extent operator+(const Extent& a, const Extent& b) {
  Extent r;
  r.constant_ = checked_add(a.constant_, b.constant_, "a sum");
  r.terms_.reserve(a.terms_.size() + b.terms_.size());
  std::size_t i = 0, j = 0;
  while (i < a.terms_.size() || j < b.terms_.size()) {
    if (j == b.terms_.size() || (i < a.terms_.size() && a.terms_[i].mono < b.terms_[j].mono)) {
      r.terms_.push_back(a.terms_[i++]);
    } else if (i == a.terms_.size() || b.terms_[j].mono < a.terms_[i].mono) {
      r.terms_.push_back(b.terms_[j++]);
    } else {
      int64_t c = checked_add(a.terms_[i].coeff, b.terms_[j].coeff, "a sum");
      if (c != 0) r.terms_.push_back(Term{c, a.terms_[i].mono});
      ++i, ++j;
    }
  }
  return r;
}

Extent Extent::operator-() const {
  Extent r = *this;
  if (r.constant_ == INT64_MIN) fail("extent arithmetic: negating -2^63 is past 2^63");
  r.constant_ = -r.constant_;
  for (auto& t : r.terms_) {
    if (t.coeff == INT64_MIN) fail("extent arithmetic: negating a coefficient of -2^63 is past 2^63");
    t.coeff = -t.coeff;
  }
  return r;
}

Extent operator-(const Extent& a, const Extent& b) { return a + (-b); }

Extent operator*(const Extent& a, const Extent& b) {
  if (a.is_constant() && b.is_constant()) return Extent(checked_mul(a.constant_, b.constant_));
  std::vector<Term> terms;
  terms.reserve((a.terms_.size() + 1) * (b.terms_.size() + 1));
  auto each = [&](int64_t ca, const Monomial& ma, int64_t cb, const Monomial& mb) {
    if (ca == 0 || cb == 0) return;
    terms.push_back(Term{checked_mul(ca, cb), mono_mul(ma, mb)});
  };
  static const Monomial kOne;
  each(a.constant_, kOne, b.constant_, kOne);
  for (const auto& tb : b.terms_) each(a.constant_, kOne, tb.coeff, tb.mono);
  for (const auto& ta : a.terms_) {
    each(ta.coeff, ta.mono, b.constant_, kOne);
    for (const auto& tb : b.terms_) each(ta.coeff, ta.mono, tb.coeff, tb.mono);
  }
  return ExtentBuilder::make(0, std::move(terms));
}

bool Extent::operator<(const Extent& o) const {
  if (constant_ != o.constant_) return constant_ < o.constant_;
  if (terms_.size() != o.terms_.size()) return terms_.size() < o.terms_.size();
  for (std::size_t i = 0; i < terms_.size(); ++i) {
    if (terms_[i].mono != o.terms_[i].mono) return terms_[i].mono < o.terms_[i].mono;
    if (terms_[i].coeff != o.terms_[i].coeff) return terms_[i].coeff < o.terms_[i].coeff;
  }
  return false;
}

std::optional<Extent> Extent::divide_exactly(const Extent& d) const {
  if (auto dc = d.constant()) {
    if (*dc == 0) return std::nullopt;
    Extent r;
    if (constant_ % *dc != 0) return std::nullopt;
    if (*dc == -1 && constant_ == INT64_MIN) return std::nullopt;
    r.constant_ = constant_ / *dc;
    for (const auto& t : terms_) {
      if (t.coeff % *dc != 0) return std::nullopt;
      if (*dc == -1 && t.coeff == INT64_MIN) return std::nullopt;
      r.terms_.push_back(Term{t.coeff / *dc, t.mono});
    }
    return r;
  }
  // A monomial divisor c * m (no constant term): every term must divide.
  if (d.constant_ == 0 && d.terms_.size() == 1) {
    const Term& dt = d.terms_[0];
    if (constant_ != 0) return std::nullopt;
    std::vector<Term> q;
    Monomial m;
    for (const auto& t : terms_) {
      if (t.coeff % dt.coeff != 0 || !mono_div(t.mono, dt.mono, m)) return std::nullopt;
      q.push_back(Term{t.coeff / dt.coeff, m});
    }
    return ExtentBuilder::make(0, std::move(q));
  }
  // A polynomial divisor: try the quotient one leading term gives (dividend == q * d exactly).
  if (terms_.empty() || d.terms_.empty()) return std::nullopt;
  const Term& lead = terms_.back();
  const Term& dlead = d.terms_.back();
  Monomial m;
  if (lead.coeff % dlead.coeff != 0 || !mono_div(lead.mono, dlead.mono, m)) return std::nullopt;
  Extent q = ExtentBuilder::make(0, {Term{lead.coeff / dlead.coeff, m}});
  if (m.empty()) q = Extent(lead.coeff / dlead.coeff);
  try {
    if (q * d == *this) return q;
  } catch (const Error&) {
  }
  return std::nullopt;
}

Extent Extent::substitute(SymbolId s, const Extent& e) const {
  Extent r(constant_);
  for (const auto& t : terms_) {
    Extent term(t.coeff);
    bool has = false;
    Monomial rest;
    uint32_t power = 0;
    for (const auto& [x, p] : t.mono) {
      if (x == s) has = true, power = p;
      else rest.emplace_back(x, p);
    }
    if (!has) {
      r = r + ExtentBuilder::make(0, {t});
      continue;
    }
    Extent prod = rest.empty() ? Extent(t.coeff) : ExtentBuilder::make(0, {Term{t.coeff, rest}});
    for (uint32_t k = 0; k < power; ++k) prod = prod * e;
    r = r + prod;
  }
  return r;
}

std::size_t Extent::hash() const {
  std::size_t h = std::hash<int64_t>()(constant_);
  for (const auto& t : terms_) {
    h = h * 1000003u ^ std::hash<int64_t>()(t.coeff);
    for (const auto& [s, p] : t.mono) h = h * 31u + s * 7u + p;
  }
  return h;
}

std::string Extent::to_string() const {
  struct Printed {
    uint32_t degree;
    std::string mono;
    int64_t coeff;
  };
  std::vector<Printed> ps;
  for (const auto& t : terms_) {
    Printed p{0, {}, t.coeff};
    std::vector<std::string> factors;
    for (const auto& [s, pow] : t.mono) {
      p.degree += pow;
      for (uint32_t k = 0; k < pow; ++k) factors.push_back(symbol_display(s));
    }
    std::sort(factors.begin(), factors.end());
    for (std::size_t k = 0; k < factors.size(); ++k) p.mono += (k ? " * " : "") + factors[k];
    ps.push_back(std::move(p));
  }
  if (constant_ != 0) ps.push_back(Printed{0, {}, constant_});
  // Positive terms first ("1024 - S", not "-S + 1024"), each sign by descending degree, then name.
  std::sort(ps.begin(), ps.end(), [](const Printed& a, const Printed& b) {
    if ((a.coeff > 0) != (b.coeff > 0)) return a.coeff > 0;
    if (a.degree != b.degree) return a.degree > b.degree;
    return a.mono < b.mono;
  });
  std::string out;
  auto append = [&](int64_t c, const std::string& mono) {
    bool neg = c < 0;
    // |c| as unsigned so -2^63 prints
    uint64_t mag = neg ? (uint64_t)0 - (uint64_t)c : (uint64_t)c;
    if (out.empty()) out += neg ? "-" : "";
    else out += neg ? " - " : " + ";
    if (mono.empty()) out += std::to_string(mag);
    else if (mag == 1) out += mono;
    else out += std::to_string(mag) + " * " + mono;
  };
  for (const auto& p : ps) append(p.coeff, p.mono);
  if (out.empty()) append(0, "");
  return out;
}

// ---------------------------------------------------------------------------------------------
// Intervals

namespace {
constexpr __int128 kTwo64 = static_cast<__int128>(1) << 64;
__int128 sat_mul(__int128 a, __int128 b) {
  if (a == 0 || b == 0) return 0;
  __int128 r;
  if (__builtin_mul_overflow(a, b, &r)) return ((a < 0) != (b < 0)) ? -Interval::kInfinity : Interval::kInfinity;
  if (r > Interval::kInfinity) return Interval::kInfinity;
  if (r < -Interval::kInfinity) return -Interval::kInfinity;
  return r;
}
std::string i128_string(__int128 v) {
  if (v >= Interval::kInfinity) return "inf";
  if (v <= -Interval::kInfinity) return "-inf";
  bool neg = v < 0;
  unsigned __int128 m = neg ? -(unsigned __int128)v : (unsigned __int128)v;
  std::string s;
  do {
    s.push_back(char('0' + int(m % 10)));
    m /= 10;
  } while (m);
  if (neg) s.push_back('-');
  std::reverse(s.begin(), s.end());
  return s;
}
}  // namespace

Interval Interval::normalise(Interval i) {
  // An endpoint past 2^64 is none on its outer side, and weakened to 2^64 on its inner side.
  if (i.lo < -kTwo64) i.lo = -kInfinity;
  if (i.lo > kTwo64) i.lo = kTwo64;
  if (i.hi > kTwo64) i.hi = kInfinity;
  if (i.hi < -kTwo64) i.hi = -kTwo64;
  return i;
}

bool Interval::fits_i64() const { return lo >= INT64_MIN && hi <= INT64_MAX; }

Interval operator+(const Interval& a, const Interval& b) {
  return Interval::normalise({a.lo + b.lo, a.hi + b.hi});
}

Interval operator*(const Interval& a, const Interval& b) {
  __int128 c[4] = {sat_mul(a.lo, b.lo), sat_mul(a.lo, b.hi), sat_mul(a.hi, b.lo), sat_mul(a.hi, b.hi)};
  return Interval::normalise({*std::min_element(c, c + 4), *std::max_element(c, c + 4)});
}

Interval Interval::hull(const Interval& o) const { return {std::min(lo, o.lo), std::max(hi, o.hi)}; }

std::string Interval::to_string() const { return "[" + i128_string(lo) + ", " + i128_string(hi) + "]"; }

// ---------------------------------------------------------------------------------------------
// The symbol table

namespace {

struct SymbolKey {
  SymbolKind kind;
  std::string name;
  std::vector<Extent> operands;
  bool operator==(const SymbolKey&) const = default;
};
struct SymbolKeyHash {
  std::size_t operator()(const SymbolKey& k) const {
    std::size_t h = std::hash<std::string>()(k.name) ^ (std::size_t(k.kind) << 3);
    for (const auto& e : k.operands) h = h * 1000003u ^ e.hash();
    return h;
  }
};

struct SymbolTable {
  std::mutex mu;
  std::deque<SymbolInfo> infos;  // deque: references stay valid as it grows
  std::unordered_map<SymbolKey, SymbolId, SymbolKeyHash> index;

  // The symbol `key` names: the one already interned, or `info` as a new one.
  SymbolId intern(SymbolKey key, SymbolInfo info) {
    std::lock_guard<std::mutex> lock(mu);
    auto it = index.find(key);
    if (it != index.end()) return it->second;
    SymbolId id = static_cast<SymbolId>(infos.size());
    infos.push_back(std::move(info));
    index.emplace(std::move(key), id);
    return id;
  }
};
SymbolTable& table() {
  static SymbolTable t;
  return t;
}

std::string operand_list(const std::vector<Extent>& ops) {
  std::string s;
  for (std::size_t i = 0; i < ops.size(); ++i) s += (i ? ", " : "") + ops[i].to_string();
  return s;
}

std::string paren(const Extent& e) {
  std::string s = e.to_string();
  return e.terms().size() + (e.constant_term() != 0) > 1 ? "(" + s + ")" : s;
}

std::string display_of(SymbolKind kind, const std::vector<Extent>& ops) {
  switch (kind) {
    case SymbolKind::Input: return {};
    case SymbolKind::Min: return "min(" + operand_list(ops) + ")";
    case SymbolKind::Max: return "max(" + operand_list(ops) + ")";
    case SymbolKind::CountMax0: return "max(0, " + ops[0].to_string() + ")";
    case SymbolKind::FromEnd: return "from_end(" + operand_list(ops) + ")";
    case SymbolKind::FloorDiv: return "floor(" + paren(ops[0]) + " / " + paren(ops[1]) + ")";
    case SymbolKind::CeilDiv: return "ceil(" + paren(ops[0]) + " / " + paren(ops[1]) + ")";
    case SymbolKind::WrapI32: return "wrap_i32(" + ops[0].to_string() + ")";
    case SymbolKind::RoundF16: return "round_f16(" + ops[0].to_string() + ")";
    case SymbolKind::RoundF32: return "round_f32(" + ops[0].to_string() + ")";
    case SymbolKind::Branch: return "branch(" + operand_list(ops) + ")";
  }
  return "?";
}

}  // namespace

const char* symbol_kind_name(SymbolKind k) {
  switch (k) {
    case SymbolKind::Input: return "input";
    case SymbolKind::Min: return "min";
    case SymbolKind::Max: return "max";
    case SymbolKind::CountMax0: return "count_max0";
    case SymbolKind::FromEnd: return "from_end";
    case SymbolKind::FloorDiv: return "floor_div";
    case SymbolKind::CeilDiv: return "ceil_div";
    case SymbolKind::WrapI32: return "wrap_i32";
    case SymbolKind::RoundF16: return "round_f16";
    case SymbolKind::RoundF32: return "round_f32";
    case SymbolKind::Branch: return "branch";
  }
  return "?";
}

const SymbolInfo& symbol_info(SymbolId s) {
  SymbolTable& t = table();
  std::lock_guard<std::mutex> lock(t.mu);
  if (s >= t.infos.size()) fail("stage 0: unknown symbol id " + std::to_string(s));
  return t.infos[s];
}

bool reads_branch_length(const Extent& e) {
  for (SymbolId s : e.symbols()) {
    const SymbolInfo& info = symbol_info(s);
    if (info.kind == SymbolKind::Branch) return true;
    for (const auto& op : info.operands)
      if (reads_branch_length(op)) return true;
  }
  return false;
}

const std::string& symbol_display(SymbolId s) { return symbol_info(s).display; }

namespace {
thread_local const std::map<std::string, Interval>* symbol_ranges = nullptr;
}  // namespace

ScopedSymbolRanges::ScopedSymbolRanges(std::map<std::string, Interval> ranges)
    : ranges_(std::move(ranges)), saved_(symbol_ranges) {
  symbol_ranges = &ranges_;
}
ScopedSymbolRanges::~ScopedSymbolRanges() { symbol_ranges = saved_; }

SymbolId input_symbol(std::string_view name) {
  SymbolInfo info;
  info.kind = SymbolKind::Input;
  info.name = std::string(name);
  info.range = Interval::of(0, INT32_MAX);
  info.display = info.name;
  std::string key(name);
  if (symbol_ranges)
    if (auto it = symbol_ranges->find(info.name); it != symbol_ranges->end()) {
      info.range = it->second;
      // The key holds the range (after a byte no name read from a graph holds), the name does not.
      key += '\0' + std::to_string(static_cast<int64_t>(it->second.lo)) + ":" + std::to_string(static_cast<int64_t>(it->second.hi));
    }
  return table().intern(SymbolKey{SymbolKind::Input, std::move(key), {}}, std::move(info));
}

SymbolId derived_symbol(SymbolKind kind, std::vector<Extent> operands, Interval range) {
  SymbolInfo info;
  info.kind = kind;
  info.display = display_of(kind, operands);  // before taking the lock: it reads the table
  info.operands = operands;
  info.range = range;
  return table().intern(SymbolKey{kind, {}, std::move(operands)}, std::move(info));
}

std::vector<SymbolId> input_symbols_of(const Extent& e) {
  std::vector<SymbolId> out;
  std::vector<SymbolId> work = e.symbols();
  while (!work.empty()) {
    SymbolId s = work.back();
    work.pop_back();
    const SymbolInfo& info = symbol_info(s);
    if (info.kind == SymbolKind::Input) {
      out.push_back(s);
      continue;
    }
    for (const auto& op : info.operands)
      for (SymbolId x : op.symbols()) work.push_back(x);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// ---------------------------------------------------------------------------------------------
// Bounds and proofs

namespace {
Interval term_bound(const Term& t) {
  Interval r = Interval::point(t.coeff);
  for (const auto& [s, p] : t.mono) {
    const Interval& si = symbol_info(s).range;
    Interval pw = si;
    for (uint32_t k = 1; k < p; ++k) {
      // An even power of an interval straddling 0 is never negative.
      pw = pw * si;
    }
    if (p % 2 == 0 && pw.lo < 0) pw.lo = 0;
    r = r * pw;
  }
  return r;
}

// Expressions bounding a derived symbol from above (upper) or below (lower) for every input.
std::vector<Extent> bounding_expressions(SymbolId s, bool upper) {
  const SymbolInfo& info = symbol_info(s);
  switch (info.kind) {
    case SymbolKind::Min: return upper ? info.operands : std::vector<Extent>{};
    case SymbolKind::Max: return upper ? std::vector<Extent>{} : info.operands;
    case SymbolKind::CountMax0: return upper ? std::vector<Extent>{} : std::vector<Extent>{info.operands[0], Extent(0)};
    case SymbolKind::FloorDiv:
      // floor(a / b) <= a where a >= 0 and b >= 1.
      if (upper && bound(info.operands[0]).lo >= 0) return {info.operands[0]};
      return {};
    case SymbolKind::CeilDiv:
      // ceil(a / k) >= 0 where a >= 0; ceil(a / k) <= a where a >= 0 (k >= 1)
      if (upper && bound(info.operands[0]).lo >= 0) return {info.operands[0]};
      return {};
    default: return {};
  }
}

Proof prove_search(const Extent& e, int& budget) {
  Interval b = bound(e);
  if (b.lo >= 0) return Proof::Holds;
  if (b.hi < 0) return Proof::Fails;
  if (budget <= 0) return Proof::Unknown;
  // Replace one derived symbol standing alone in a term by an expression bounding it on the side
  // that keeps e' <= e, and try to show e' >= 0.
  for (const auto& t : e.terms()) {
    if (t.mono.size() != 1 || t.mono[0].second != 1) continue;
    SymbolId s = t.mono[0].first;
    if (is_input_symbol(s)) continue;
    // max(a, b) <= x where a <= x and b <= x; min(a, b) >= x where a >= x and b >= x.
    const SymbolInfo& info = symbol_info(s);
    if ((info.kind == SymbolKind::Max && t.coeff < 0) || (info.kind == SymbolKind::Min && t.coeff > 0)) {
      bool all = true;
      for (const Extent& operand : info.operands) {
        if (--budget < 0) return Proof::Unknown;
        Extent e2;
        try {
          e2 = e.substitute(s, operand);
        } catch (const Error&) {
          all = false;
          break;
        }
        if (prove_search(e2, budget) != Proof::Holds) {
          all = false;
          break;
        }
      }
      if (all) return Proof::Holds;
    }
    for (const Extent& repl : bounding_expressions(s, /*upper=*/t.coeff < 0)) {
      if (--budget < 0) return Proof::Unknown;
      Extent e2;
      try {
        e2 = e.substitute(s, repl);
      } catch (const Error&) {
        continue;
      }
      if (prove_search(e2, budget) == Proof::Holds) return Proof::Holds;
    }
  }
  return Proof::Unknown;
}
}  // namespace

Interval bound(const Extent& e) {
  Interval r = Interval::point(e.constant_term());
  for (const auto& t : e.terms()) r = r + term_bound(t);
  return r;
}

const char* proof_name(Proof p) {
  switch (p) {
    case Proof::Holds: return "holds";
    case Proof::Fails: return "fails";
    case Proof::Unknown: return "unknown";
  }
  return "?";
}

Proof prove_nonnegative(const Extent& e) {
  int budget = 32;
  Proof p = prove_search(e, budget);
  if (p != Proof::Unknown) return p;
  // False for every input: -e - 1 >= 0 holds.
  budget = 32;
  try {
    if (prove_search(-e - Extent(1), budget) == Proof::Holds) return Proof::Fails;
  } catch (const Error&) {
  }
  return Proof::Unknown;
}

bool fits_i64(const Extent& e) {
  __int128 total = e.constant_term() < 0 ? -(__int128)e.constant_term() : e.constant_term();
  for (const auto& t : e.terms()) {
    Interval b = term_bound(t);
    total += std::max(b.hi, -b.lo);
    if (!b.fits_i64() || total > INT64_MAX) return false;
  }
  return true;
}

void require_fits_i64(const Extent& e, const std::string& what) {
  __int128 total = e.constant_term() < 0 ? -(__int128)e.constant_term() : e.constant_term();
  for (const auto& t : e.terms()) {
    Interval b = term_bound(t);
    __int128 mag = std::max(b.hi, -b.lo);
    total += mag;
    if (!b.fits_i64() || total > INT64_MAX)
      fail(what + ": " + e.to_string() + " would pass 2^63 for some input (term bound " + b.to_string() +
           " with every symbol as large as a length can be)");
  }
}

// ---------------------------------------------------------------------------------------------
// Derived-symbol builders

namespace {
bool holds(const Extent& e) { return prove_nonnegative(e) == Proof::Holds; }
Interval range_min(const Interval& a, const Interval& b) { return {std::min(a.lo, b.lo), std::min(a.hi, b.hi)}; }
Interval range_max(const Interval& a, const Interval& b) { return {std::max(a.lo, b.lo), std::max(a.hi, b.hi)}; }
__int128 floor_div128(__int128 a, __int128 b) {
  __int128 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
__int128 ceil_div128(__int128 a, __int128 b) { return -floor_div128(-a, b); }
}  // namespace

Extent min_of(const Extent& value, const Extent& limit) {
  if (value == limit) return value;
  Extent d = limit - value;
  if (holds(d)) return value;
  if (holds(-d)) return limit;
  return Extent::symbol(derived_symbol(SymbolKind::Min, {value, limit}, range_min(bound(value), bound(limit))));
}

Extent max_of(const Extent& value, const Extent& limit) {
  if (value == limit) return value;
  Extent d = value - limit;
  if (holds(d)) return value;
  if (holds(-d)) return limit;
  return Extent::symbol(derived_symbol(SymbolKind::Max, {value, limit}, range_max(bound(value), bound(limit))));
}

Extent count_max0(const Extent& span) {
  if (holds(span)) return span;
  if (holds(-span)) return Extent(0);
  Interval b = bound(span);
  return Extent::symbol(derived_symbol(SymbolKind::CountMax0, {span}, {std::max<__int128>(0, b.lo), std::max<__int128>(0, b.hi)}));
}

Extent from_end(const Extent& index, const Extent& length) {
  if (holds(index)) return index;
  if (holds(-index - Extent(1))) return index + length;
  Interval bi = bound(index), bl = bound(length);
  Interval neg = Interval{bi.lo, -1} + bl;
  Interval pos{0, bi.hi};
  return Extent::symbol(derived_symbol(SymbolKind::FromEnd, {index, length}, Interval::normalise(neg.hull(pos))));
}

Extent floor_div(const Extent& a, const Extent& b) {
  if (auto bc = b.constant()) {
    if (*bc == 0) fail("extent arithmetic: division by 0");
    if (auto ac = a.constant()) return Extent(static_cast<int64_t>(floor_div128(*ac, *bc)));
    if (*bc == 1) return a;
  }
  if (auto q = a.divide_exactly(b)) return *q;
  Interval ba = bound(a), bb = bound(b);
  Interval r;
  if (auto bc = b.constant(); bc && *bc > 0) {
    r = {ba.lo <= -Interval::kInfinity ? -Interval::kInfinity : floor_div128(ba.lo, *bc),
         ba.hi >= Interval::kInfinity ? Interval::kInfinity : floor_div128(ba.hi, *bc)};
  } else {
    // b >= 1: the quotient lies between min(a, 0) and max(a, 0)
    r = {std::min<__int128>(ba.lo, 0), std::max<__int128>(ba.hi, 0)};
  }
  (void)bb;
  return Extent::symbol(derived_symbol(SymbolKind::FloorDiv, {a, b}, Interval::normalise(r)));
}

Extent ceil_div(const Extent& a, int64_t k) {
  if (k < 1) fail("extent arithmetic: a step count divides by " + std::to_string(k));
  if (auto ac = a.constant()) return Extent(static_cast<int64_t>(ceil_div128(*ac, k)));
  if (k == 1) return a;
  if (auto q = a.divide_exactly(Extent(k))) return *q;
  Interval ba = bound(a);
  Interval r{ba.lo <= -Interval::kInfinity ? -Interval::kInfinity : ceil_div128(ba.lo, k),
             ba.hi >= Interval::kInfinity ? Interval::kInfinity : ceil_div128(ba.hi, k)};
  return Extent::symbol(derived_symbol(SymbolKind::CeilDiv, {a, Extent(k)}, Interval::normalise(r)));
}

Extent wrap_i32(const Extent& a) {
  if (auto c = a.constant()) return Extent(static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(*c))));
  Interval b = bound(a);
  if (b.lo >= INT32_MIN && b.hi <= INT32_MAX) return a;
  return Extent::symbol(derived_symbol(SymbolKind::WrapI32, {a}, Interval::of(INT32_MIN, INT32_MAX)));
}

namespace {
Extent round_float(const Extent& a, SymbolKind kind, int mantissa_bits, __int128 max_finite) {
  const char* type = kind == SymbolKind::RoundF16 ? "float16" : "float32";
  __int128 exact = static_cast<__int128>(1) << (mantissa_bits + 1);
  auto round_number = [&](int64_t v) -> int64_t {
    if (v >= -exact && v <= exact) return v;
    if (v > max_finite || v < -max_finite)
      fail(std::string("extent arithmetic: ") + std::to_string(v) + " is past every finite " + type);
    // Round to nearest even with `mantissa_bits` fraction bits.
    uint64_t m = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    int top = 63 - __builtin_clzll(m);
    int drop = top - mantissa_bits;
    uint64_t unit = uint64_t(1) << drop, rem = m & (unit - 1), half = unit >> 1;
    uint64_t base = m - rem;
    if (rem > half || (rem == half && ((base >> drop) & 1))) base += unit;
    return v < 0 ? -(int64_t)base : (int64_t)base;
  };
  if (auto c = a.constant()) return Extent(round_number(*c));
  Interval b = bound(a);
  if (b.lo >= -exact && b.hi <= exact) return a;
  if (b.hi > max_finite || b.lo < -max_finite)
    fail(std::string("extent arithmetic: ") + a.to_string() + " may pass every finite " + type + " (range " +
         b.to_string() + ")");
  Interval r{round_number(static_cast<int64_t>(b.lo)), round_number(static_cast<int64_t>(b.hi))};
  return Extent::symbol(derived_symbol(kind, {a}, r));
}
}  // namespace

Extent round_f16(const Extent& a) { return round_float(a, SymbolKind::RoundF16, 10, 65504); }
Extent branch_length(const std::string& name, const Extent& then_len, const Extent& else_len) {
  if (then_len == else_len) return then_len;
  SymbolInfo info;
  info.kind = SymbolKind::Branch;
  info.name = name;
  info.operands = {then_len, else_len};
  info.range = Interval::normalise(bound(then_len).hull(bound(else_len)));
  info.display = "branch(" + operand_list(info.operands) + ")";
  // Keyed by the node and axis as well: two Ifs with the same two lengths decide them apart.
  return Extent::symbol(table().intern(SymbolKey{SymbolKind::Branch, name, info.operands}, std::move(info)));
}

Extent round_f32(const Extent& a) {
  return round_float(a, SymbolKind::RoundF32, 23, static_cast<__int128>(INT64_MAX));
}

Extent read_derived(const Extent& e, std::vector<ReadingCondition>& owed) {
  Extent out = e;
  // Each pass replaces the derived symbols present; operands may hold derived symbols of their
  // own, read on the next pass. A bounded number of passes keeps a pathological nest finite.
  for (int pass = 0; pass < 16; ++pass) {
    bool changed = false;
    for (SymbolId s : out.symbols()) {
      const SymbolInfo& info = symbol_info(s);
      Extent reading;
      switch (info.kind) {
        case SymbolKind::Input:
        case SymbolKind::Branch: continue;
        case SymbolKind::Min:
          reading = info.operands[0];
          owed.push_back({info.operands[1] - info.operands[0],
                          "the clamp " + info.display + " reads as " + info.operands[0].to_string()});
          break;
        case SymbolKind::Max:
          reading = info.operands[0];
          owed.push_back({info.operands[0] - info.operands[1],
                          "the clamp " + info.display + " reads as " + info.operands[0].to_string()});
          break;
        case SymbolKind::CountMax0:
          reading = info.operands[0];
          owed.push_back({info.operands[0], "the count " + info.display + " reads as its span " +
                                                info.operands[0].to_string()});
          break;
        case SymbolKind::FromEnd:
          reading = info.operands[0];
          owed.push_back({info.operands[0], "the index " + info.display + " reads as counted from the start"});
          break;
        case SymbolKind::WrapI32:
          reading = info.operands[0];
          owed.push_back({Extent(INT32_MAX) - info.operands[0], info.display + " reads as " + info.operands[0].to_string()});
          owed.push_back({info.operands[0] - Extent(INT32_MIN), info.display + " reads as " + info.operands[0].to_string()});
          break;
        case SymbolKind::RoundF16:
        case SymbolKind::RoundF32: {
          int64_t exact = info.kind == SymbolKind::RoundF16 ? 2048 : (int64_t(1) << 24);
          reading = info.operands[0];
          owed.push_back({Extent(exact) - info.operands[0], info.display + " reads as " + info.operands[0].to_string()});
          owed.push_back({info.operands[0] + Extent(exact), info.display + " reads as " + info.operands[0].to_string()});
          break;
        }
        case SymbolKind::FloorDiv:
        case SymbolKind::CeilDiv: {
          // A rounded quotient takes no operand unchanged: only its operands are read.
          std::vector<ReadingCondition> inner;
          Extent a = read_derived(info.operands[0], inner);
          Extent b = read_derived(info.operands[1], inner);
          if (a == info.operands[0] && b == info.operands[1]) continue;
          reading = info.kind == SymbolKind::FloorDiv ? floor_div(a, b) : ceil_div(a, *b.constant());
          owed.insert(owed.end(), inner.begin(), inner.end());
          break;
        }
      }
      out = out.substitute(s, reading);
      changed = true;
    }
    if (!changed) break;
  }
  return out;
}

std::optional<int64_t> evaluate(const Extent& e, const std::map<std::string, int64_t>& inputs) {
  auto value_of = [&](SymbolId s) -> std::optional<int64_t> {
    const SymbolInfo& info = symbol_info(s);
    if (info.kind == SymbolKind::Input) {
      auto it = inputs.find(info.name);
      if (it == inputs.end()) return std::nullopt;
      return it->second;
    }
    std::vector<int64_t> ops;
    for (const auto& op : info.operands) {
      auto v = evaluate(op, inputs);
      if (!v) return std::nullopt;
      ops.push_back(*v);
    }
    switch (info.kind) {
      case SymbolKind::Input: return std::nullopt;
      case SymbolKind::Min: return std::min(ops[0], ops[1]);
      case SymbolKind::Max: return std::max(ops[0], ops[1]);
      case SymbolKind::CountMax0: return std::max<int64_t>(0, ops[0]);
      case SymbolKind::FromEnd: {
        if (ops[0] >= 0) return ops[0];
        int64_t r;
        if (__builtin_add_overflow(ops[0], ops[1], &r)) return std::nullopt;
        return r;
      }
      case SymbolKind::FloorDiv:
        if (ops[1] < 1) return std::nullopt;
        return static_cast<int64_t>(floor_div128(ops[0], ops[1]));
      case SymbolKind::CeilDiv:
        if (ops[1] < 1) return std::nullopt;
        return static_cast<int64_t>(ceil_div128(ops[0], ops[1]));
      case SymbolKind::WrapI32: return static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(ops[0])));
      case SymbolKind::RoundF16:
        try {
          return *round_f16(Extent(ops[0])).constant();
        } catch (const Error&) {
          return std::nullopt;
        }
      case SymbolKind::RoundF32: return *round_f32(Extent(ops[0])).constant();
      case SymbolKind::Branch: return std::nullopt;  // the run's condition decides it
    }
    return std::nullopt;
  };
  __int128 total = e.constant_term();
  for (const auto& t : e.terms()) {
    __int128 term = t.coeff;
    for (const auto& [s, p] : t.mono) {
      auto v = value_of(s);
      if (!v) return std::nullopt;
      for (uint32_t k = 0; k < p; ++k) {
        if (__builtin_mul_overflow(term, static_cast<__int128>(*v), &term)) return std::nullopt;
        if (term > INT64_MAX || term < INT64_MIN) return std::nullopt;
      }
    }
    total += term;
    if (total > INT64_MAX || total < INT64_MIN) return std::nullopt;
  }
  return static_cast<int64_t>(total);
}

// ---------------------------------------------------------------------------------------------
// dim_param spelling

namespace {
bool is_name(std::string_view w) {
  if (w.empty() || !(std::isalpha((unsigned char)w[0]) || w[0] == '_')) return false;
  for (char c : w)
    if (!(std::isalnum((unsigned char)c) || c == '_' || c == '.')) return false;
  return true;
}
bool is_integer(std::string_view w) {
  if (w.empty() || w.size() > 18) return false;  // 18 digits always fit int64
  for (char c : w)
    if (!std::isdigit((unsigned char)c)) return false;
  return true;
}
std::vector<std::string_view> words(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace((unsigned char)s[i])) ++i;
    std::size_t j = i;
    while (j < s.size() && !std::isspace((unsigned char)s[j])) ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}
bool spelled(const std::vector<std::string_view>& w) {
  if (w.size() < 3 || w.size() % 2 == 0) return false;
  for (std::size_t i = 0; i < w.size(); ++i) {
    if (i % 2 == 0) {
      if (!is_name(w[i]) && !is_integer(w[i])) return false;
    } else if (w[i] != "+" && w[i] != "-" && w[i] != "*") {
      return false;
    }
  }
  return true;
}
}  // namespace

bool is_spelled_arithmetic(std::string_view text) { return spelled(words(text)); }

Extent parse_dim_param(std::string_view text, std::vector<std::string>* names) {
  std::vector<std::string_view> w = words(text);
  if (!spelled(w)) {
    if (names) names->push_back(std::string(text));
    return Extent::symbol(input_symbol(text));
  }
  auto operand = [&](std::string_view word) -> Extent {
    if (is_integer(word)) return Extent(std::stoll(std::string(word)));
    if (names && std::find(names->begin(), names->end(), word) == names->end()) names->push_back(std::string(word));
    return Extent::symbol(input_symbol(word));
  };
  Extent sum(0);
  Extent product = operand(w[0]);
  int sign = 1;
  for (std::size_t i = 1; i < w.size(); i += 2) {
    Extent next = operand(w[i + 1]);
    if (w[i] == "*") {
      product = product * next;
    } else {
      sum = sign > 0 ? sum + product : sum - product;
      sign = w[i] == "+" ? 1 : -1;
      product = next;
    }
  }
  return sign > 0 ? sum + product : sum - product;
}

}  // namespace loam::stage0
