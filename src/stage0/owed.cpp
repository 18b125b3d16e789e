#include "stage0/owed.hpp"

#include <algorithm>

#include "support/error.hpp"

namespace loam::stage0 {

const char* owed_kind_name(OwedKind k) {
  switch (k) {
    case OwedKind::ReshapeTargetNonzero: return "reshape_target_nonzero";
    case OwedKind::ReshapeDivides: return "reshape_divides";
    case OwedKind::ReshapeNonzeroProduct: return "reshape_nonzero_product";
    case OwedKind::RangeStepNonzero: return "range_step_nonzero";
    case OwedKind::WindowReach: return "window_reach";
    case OwedKind::SplitParts: return "split_parts";
    case OwedKind::DeclaredOutput: return "declared_output";
    case OwedKind::AxisEqual: return "axis_equal";
    case OwedKind::DerivedReading: return "derived_reading";
    case OwedKind::ElementCount: return "element_count";
    case OwedKind::FitsI64: return "fits_i64";
  }
  return "?";
}

std::string OwedCondition::to_string() const {
  const std::string what = kind == OwedKind::FitsI64 ? slack.to_string() + " fits int64" : slack.to_string() + " >= 0";
  return what + " [" + owed_kind_name(kind) + (checked ? ", checked" : "") + "] " + node + ": " + message;
}

void OwedConditions::require(const Extent& slack, OwedKind kind, const std::string& node,
                             const std::string& message) {
  switch (prove_nonnegative(slack)) {
    case Proof::Holds: return;
    case Proof::Fails:
      fail(node + ": the condition that " + message + " fails for every input (" + slack.to_string() + " >= 0 never holds)");
    case Proof::Unknown: break;
  }
  auto it = std::lower_bound(seen_.begin(), seen_.end(), slack);
  if (it != seen_.end() && *it == slack) return;
  seen_.insert(it, slack);
  list_.push_back(OwedCondition{slack, kind, !fits_i64(slack), node, message});
}

void OwedConditions::require_fits(const Extent& e, const std::string& node, const std::string& message) {
  if (fits_i64(e)) return;
  for (const auto& c : list_)
    if (c.kind == OwedKind::FitsI64 && c.slack == e) return;
  list_.push_back(OwedCondition{e, OwedKind::FitsI64, true, node, message});
}

namespace {

bool has_symbols(const Extent& e) { return !e.is_constant(); }

// Owes d == 0 as two inequalities, after refusing it where it fails for every input.
void owe_zero(const Extent& d, OwedKind kind, OwedConditions& owed, const std::string& node,
              const std::string& what) {
  Proof up = prove_nonnegative(d), down = prove_nonnegative(-d);
  if (up == Proof::Fails || down == Proof::Fails)
    fail(node + ": " + what + " differ for every input (their difference is " + d.to_string() + ")");
  owed.require(d, kind, node, what + " are one length");
  owed.require(-d, kind, node, what + " are one length");
}

}  // namespace

void require_equal(const Extent& a, const Extent& b, EqualityRule rule, OwedKind kind,
                   OwedConditions& owed, const std::string& node, const std::string& what) {
  if (a == b) return;
  Extent d = a - b;
  if (d.is_constant())
    fail(node + ": " + what + " differ: " + a.to_string() + " against " + b.to_string());
  // Read the derived symbols in the difference as the operands they take unchanged.
  std::vector<ReadingCondition> readings;
  Extent r = read_derived(d, readings);
  if (r.is_constant() && *r.constant() == 0) {
    for (const auto& c : readings) owed.require(c.slack, OwedKind::DerivedReading, node, c.message + " (" + what + ")");
    return;
  }
  bool number_meets_symbol = (a.is_constant() && has_symbols(b)) || (b.is_constant() && has_symbols(a));
  if (number_meets_symbol && rule == EqualityRule::Axis)
    fail(node + ": " + what + ": the number " + (a.is_constant() ? a : b).to_string() + " meets the symbolic length " +
         (a.is_constant() ? b : a).to_string() + " (fix the symbol with the `dims` option)");
  owe_zero(d, kind, owed, node, what);
}

bool reads_as_one(const Extent& e, OwedConditions& owed, const std::string& node, const std::string& what) {
  if (e == Extent(1)) return true;
  if (e.is_constant()) return false;
  std::vector<ReadingCondition> readings;
  Extent r = read_derived(e - Extent(1), readings);
  if (!(r.is_constant() && *r.constant() == 0)) return false;
  for (const auto& c : readings) owed.require(c.slack, OwedKind::DerivedReading, node, c.message + " (" + what + ")");
  return true;
}

}  // namespace loam::stage0
