#include "wai/certificate_json.hpp"

#include "support/error.hpp"

#include <algorithm>
#include <numeric>

namespace loam::wai {

namespace {
void write_string(std::string& out, const std::string& s) {
  out.push_back('"');
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('"');
}
void check_ascii(const std::string& s) {
  for (unsigned char c : s)
    if (c < 0x20 || c > 0x7E)
      throw loam::Error("canonical JSON: string \"" + s + "\" holds a byte outside printable ASCII");
}
}  // namespace

CanonJson CanonJson::boolean(bool b) {
  CanonJson j;
  j.kind_ = Kind::boolean;
  j.b_ = b;
  return j;
}
CanonJson CanonJson::integer(std::string decimal) {
  CanonJson j;
  j.kind_ = Kind::integer;
  j.s_ = std::move(decimal);
  return j;
}
CanonJson CanonJson::integer(std::int64_t v) { return integer(std::to_string(v)); }
CanonJson CanonJson::integer(std::uint64_t v) { return integer(std::to_string(v)); }
CanonJson CanonJson::string(std::string s) {
  check_ascii(s);
  CanonJson j;
  j.kind_ = Kind::string;
  j.s_ = std::move(s);
  return j;
}
CanonJson CanonJson::array() {
  CanonJson j;
  j.kind_ = Kind::array;
  return j;
}
CanonJson CanonJson::object() {
  CanonJson j;
  j.kind_ = Kind::object;
  return j;
}

CanonJson& CanonJson::push(CanonJson v) {
  items_.push_back(std::move(v));
  return *this;
}

CanonJson& CanonJson::set(const std::string& key, CanonJson v) {
  check_ascii(key);
  for (std::size_t i = 0; i < keys_.size(); ++i)
    if (keys_[i] == key) {
      items_[i] = std::move(v);
      return *this;
    }
  keys_.push_back(key);
  items_.push_back(std::move(v));
  return *this;
}

std::string CanonJson::dump() const {
  std::string out;
  dump_to(out);
  return out;
}

void CanonJson::dump_to(std::string& out) const {
  switch (kind_) {
    case Kind::null:
      out += "null";
      return;
    case Kind::boolean:
      out += b_ ? "true" : "false";
      return;
    case Kind::integer:
      out.push_back('"');
      out += s_;
      out.push_back('"');
      return;
    case Kind::string:
      write_string(out, s_);
      return;
    case Kind::array:
      out.push_back('[');
      for (std::size_t i = 0; i < items_.size(); ++i) {
        if (i) out.push_back(',');
        items_[i].dump_to(out);
      }
      out.push_back(']');
      return;
    case Kind::object: {
      std::vector<std::size_t> order(keys_.size());
      std::iota(order.begin(), order.end(), 0);
      // Ascending order of the keys' bytes: compare as unsigned bytes.
      std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return std::lexicographical_compare(
            keys_[a].begin(), keys_[a].end(), keys_[b].begin(), keys_[b].end(),
            [](char x, char y) { return static_cast<unsigned char>(x) < static_cast<unsigned char>(y); });
      });
      out.push_back('{');
      for (std::size_t n = 0; n < order.size(); ++n) {
        if (n) out.push_back(',');
        write_string(out, keys_[order[n]]);
        out.push_back(':');
        items_[order[n]].dump_to(out);
      }
      out.push_back('}');
      return;
    }
  }
}

}  // namespace loam::wai
