// The one set every identifier of a generated module is minted from (the WEP's "Every Name Is
// Minted From One Set"): C++ keywords and alternative tokens, the names the inlined runtime
// declares (read from the runtime's text, so a declaration added there is reserved with no other
// edit), and the module's own fixed names (forward, Weights, ...).
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace loam::emit {

// Names a generated module itself declares at namespace or member scope, besides the runtime's.
const std::vector<std::string>& module_fixed_names();
// C++23 keywords and alternative tokens, plus identifiers the standard library's macros take.
const std::vector<std::string>& cpp_reserved_words();
// Names the runtime declares: its RESERVED list plus every struct/class/concept/using/enum/function
// it declares at namespace scope, found by scanning its text.
std::vector<std::string> runtime_declared_names(std::string_view reserved_list, std::string_view body);

class ReservedSet {
 public:
  ReservedSet() = default;
  // The standard set: keywords, the embedded runtime's names and the module's fixed names.
  static const ReservedSet& standard();

  void add(std::string name) { names_.insert(std::move(name)); }
  bool contains(std::string_view name) const { return names_.count(std::string(name)) != 0; }
  // Why a name is reserved, for an error message ("a C++ keyword", "a runtime name", ...).
  std::string why(std::string_view name) const;
  const std::set<std::string>& names() const { return names_; }

 private:
  std::set<std::string> names_;
  std::set<std::string> keywords_, runtime_, fixed_;
  friend ReservedSet make_standard();
};

// Whether `s` is an identifier C++ lets a program declare: [A-Za-z_][A-Za-z0-9_]*, without a double
// underscore and not starting with an underscore (those are the implementation's).
bool is_plain_identifier(std::string_view s);

}  // namespace loam::emit
