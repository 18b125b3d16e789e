#include "options/strict_json.hpp"

#include <set>
#include <vector>

#include "support/error.hpp"

namespace loam {

namespace {
// nlohmann's what() reads "[json.exception.parse_error.101] parse error at line 1, column 2: <why>";
// the line and column are replaced by the byte offset, so only <why> is kept.
std::string parse_error_reason(const std::string& what) {
  auto col = what.find("column ");
  if (col != std::string::npos) {
    auto colon = what.find(": ", col);
    if (colon != std::string::npos) return what.substr(colon + 2);
  }
  auto bracket = what.find("] ");
  return bracket == std::string::npos ? what : what.substr(bracket + 2);
}

bool is_plain_key(const std::string& key) {
  if (key.empty()) return false;
  for (char c : key)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
      return false;
  return true;
}
}  // namespace

nlohmann::json parse_strict_json(std::string_view text, const std::string& where,
                                 std::size_t byte_base, std::size_t max_depth) {
  std::vector<std::set<std::string>> keys;
  auto callback = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    if (static_cast<std::size_t>(depth) > max_depth)
      fail(where + ": JSON nests deeper than " + std::to_string(max_depth) + " levels");
    switch (event) {
      case E::object_start:
        keys.emplace_back();
        break;
      case E::object_end:
        if (!keys.empty()) keys.pop_back();
        break;
      case E::key: {
        const auto& k = parsed.get_ref<const std::string&>();
        if (!keys.empty() && !keys.back().insert(k).second)
          fail(where + ": key " + nlohmann::json(k).dump() + " appears twice in one object");
        break;
      }
      default:
        break;
    }
    return true;
  };
  try {
    return nlohmann::json::parse(text.begin(), text.end(), callback, /*allow_exceptions=*/true,
                                 /*ignore_comments=*/false);
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is 1-based (the byte the parser stopped at); messages count from 0.
    std::size_t at = e.byte == 0 ? 0 : e.byte - 1;
    fail(where + ": invalid JSON at byte " + std::to_string(byte_base + at) + ": " +
         parse_error_reason(e.what()));
  } catch (const nlohmann::json::exception& e) {
    fail(where + ": invalid JSON: " + parse_error_reason(e.what()));
  }
}

std::string json_key_path_join(const std::string& parent, const std::string& key) {
  if (is_plain_key(key)) return parent.empty() ? key : parent + "." + key;
  return parent + "[" + nlohmann::json(key).dump() + "]";
}

std::string json_key_path_index(const std::string& parent, std::size_t index) {
  return parent + "[" + std::to_string(index) + "]";
}

}  // namespace loam
