// Canonical JSON (wai-ops/1 §8.5): members in ascending byte order of their keys, integers as
// decimal strings, no whitespace, strings of printable ASCII with only \" and \\ escaped.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace loam::wai {

class CanonJson {
 public:
  enum class Kind : std::uint8_t { null, boolean, integer, string, array, object };

  CanonJson() = default;  // null
  static CanonJson boolean(bool b);
  static CanonJson integer(std::string decimal);  // already canonical decimal digits
  static CanonJson integer(std::int64_t v);
  static CanonJson integer(std::uint64_t v);
  static CanonJson string(std::string s);  // throws loam::Error outside printable ASCII
  static CanonJson array();
  static CanonJson object();

  Kind kind() const { return kind_; }
  // Arrays: append. Objects: set a member (replacing one of the same key).
  CanonJson& push(CanonJson v);
  CanonJson& set(const std::string& key, CanonJson v);

  // The canonical bytes.
  std::string dump() const;
  void dump_to(std::string& out) const;

 private:
  Kind kind_ = Kind::null;
  bool b_ = false;
  std::string s_;  // integer digits or string text
  std::vector<CanonJson> items_;
  std::vector<std::string> keys_;
};

}  // namespace loam::wai
