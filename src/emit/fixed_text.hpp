// The module's own fixed declarations (beside the runtime's): reading tensors out of bytes, and
// the safetensors header reader Weights::load uses. Printed inside the module namespace after the
// runtime. Every name declared here is in module_fixed_names() (reserved.cpp).
#pragma once

namespace loam::emit {

inline constexpr const char* kModuleFixedText = R"loam_fixed(
// ---- module support: tensors from bytes, the safetensors header a checkpoint starts with
static_assert(std::endian::native == std::endian::little, "a Loam module reads little-endian bytes");

template <class E, class L>
Tensor<E, L> loam_tensor_from_bytes(const typename Tensor<E, L>::Extents& extents, const void* bytes) {
  auto t = Tensor<E, L>::uninitialized(extents);
  if (t.count() > 0) std::memcpy(t.data(), bytes, sizeof(E) * static_cast<std::size_t>(t.count()));
  return t;
}

struct loam_safetensors_entry {
  std::string name;
  std::string dtype;
  std::vector<std::int64_t> shape;
  std::uint64_t begin = 0, end = 0;
};

struct loam_safetensors_header {
  std::vector<loam_safetensors_entry> entries;
  std::uint64_t payload_offset = 0;
  std::uint64_t payload_size = 0;
  const loam_safetensors_entry* find(std::string_view name) const {
    for (const auto& e : entries)
      if (e.name == name) return &e;
    return nullptr;
  }
};

// A bounded reader of the JSON subset a safetensors header uses: an object of objects holding
// strings, integers and lists of integers (and `__metadata__`, an object of strings).
class loam_safetensors_reader {
 public:
  explicit loam_safetensors_reader(std::string_view text) : s_(text) {}
  std::expected<loam_safetensors_header, LoadError> read() {
    loam_safetensors_header h;
    skip();
    if (!eat('{')) return fail("the header is not a JSON object");
    skip();
    if (eat('}')) return h;
    while (true) {
      std::string key;
      if (!string(key)) return fail("expected a tensor name");
      skip();
      if (!eat(':')) return fail("expected ':' after '" + key + "'");
      skip();
      if (key == "__metadata__") {
        if (!skip_string_object()) return fail("__metadata__ must be an object of strings");
      } else {
        loam_safetensors_entry e;
        e.name = key;
        if (!entry(e)) return std::unexpected(LoadError{key, "", error_.empty() ? "malformed header entry" : error_});
        for (const auto& other : h.entries)
          if (other.name == key) return std::unexpected(LoadError{key, "", "named twice in the header"});
        h.entries.push_back(std::move(e));
      }
      skip();
      if (eat(',')) { skip(); continue; }
      if (eat('}')) break;
      return fail("expected ',' or '}'");
    }
    skip();
    if (pos_ != s_.size()) return fail("bytes after the header object");
    return h;
  }

 private:
  std::string_view s_;
  std::size_t pos_ = 0;
  std::string error_;
  std::unexpected<LoadError> fail(std::string m) { return std::unexpected(LoadError{"", "", "checkpoint header: " + m}); }
  void skip() { while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\r' || s_[pos_] == '\t')) ++pos_; }
  bool eat(char c) { if (pos_ < s_.size() && s_[pos_] == c) { ++pos_; return true; } return false; }
  bool string(std::string& out) {
    if (!eat('"')) return false;
    while (pos_ < s_.size()) {
      char c = s_[pos_++];
      if (c == '"') return true;
      if (c != '\\') { out += c; continue; }
      if (pos_ >= s_.size()) return false;
      char e = s_[pos_++];
      switch (e) {
        case '"': case '\\': case '/': out += e; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          if (s_.size() - pos_ < 4) return false;
          unsigned v = 0;
          for (int i = 0; i < 4; ++i) {
            char h = s_[pos_++];
            v <<= 4;
            if (h >= '0' && h <= '9') v |= static_cast<unsigned>(h - '0');
            else if (h >= 'a' && h <= 'f') v |= static_cast<unsigned>(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F') v |= static_cast<unsigned>(h - 'A' + 10);
            else return false;
          }
          if (v < 0x80) out += static_cast<char>(v);
          else if (v < 0x800) { out += static_cast<char>(0xC0 | (v >> 6)); out += static_cast<char>(0x80 | (v & 0x3F)); }
          else { out += static_cast<char>(0xE0 | (v >> 12)); out += static_cast<char>(0x80 | ((v >> 6) & 0x3F)); out += static_cast<char>(0x80 | (v & 0x3F)); }
          break;
        }
        default: return false;
      }
    }
    return false;
  }
  bool integer(std::uint64_t& v) {
    std::size_t start = pos_;
    v = 0;
    while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') {
      if (v > (UINT64_MAX - 9) / 10) return false;
      v = v * 10 + static_cast<std::uint64_t>(s_[pos_++] - '0');
    }
    return pos_ > start;
  }
  bool integers(std::vector<std::uint64_t>& out) {
    if (!eat('[')) return false;
    skip();
    if (eat(']')) return true;
    while (true) {
      std::uint64_t v;
      if (!integer(v) || out.size() > 64) return false;
      out.push_back(v);
      skip();
      if (eat(',')) { skip(); continue; }
      return eat(']');
    }
  }
  bool skip_string_object() {
    if (!eat('{')) return false;
    skip();
    if (eat('}')) return true;
    while (true) {
      std::string k, v;
      if (!string(k)) return false;
      skip();
      if (!eat(':')) return false;
      skip();
      if (!string(v)) return false;
      skip();
      if (eat(',')) { skip(); continue; }
      return eat('}');
    }
  }
  bool entry(loam_safetensors_entry& e) {
    if (!eat('{')) return false;
    bool dtype = false, shape = false, offsets = false;
    skip();
    if (eat('}')) { error_ = "the entry is empty"; return false; }
    while (true) {
      std::string key;
      if (!string(key)) return false;
      skip();
      if (!eat(':')) return false;
      skip();
      if (key == "dtype") {
        if (!string(e.dtype)) return false;
        dtype = true;
      } else if (key == "shape") {
        std::vector<std::uint64_t> v;
        if (!integers(v)) { error_ = "shape must be a list of lengths"; return false; }
        for (auto x : v) {
          if (x > static_cast<std::uint64_t>(INT64_MAX)) { error_ = "a length past int64"; return false; }
          e.shape.push_back(static_cast<std::int64_t>(x));
        }
        shape = true;
      } else if (key == "data_offsets") {
        std::vector<std::uint64_t> v;
        if (!integers(v) || v.size() != 2) { error_ = "data_offsets must be two offsets"; return false; }
        e.begin = v[0];
        e.end = v[1];
        offsets = true;
      } else {
        error_ = "unknown key '" + key + "'";
        return false;
      }
      skip();
      if (eat(',')) { skip(); continue; }
      if (eat('}')) break;
      return false;
    }
    if (!dtype || !shape || !offsets) { error_ = "the entry needs dtype, shape and data_offsets"; return false; }
    return true;
  }
};

inline std::expected<loam_safetensors_header, LoadError> loam_safetensors_parse(std::span<const std::byte> bytes) {
  if (bytes.size() < 8) return std::unexpected(LoadError{"", "", "checkpoint: shorter than the 8-byte header length"});
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<std::uint64_t>(bytes[static_cast<std::size_t>(i)]);
  if (n > bytes.size() - 8 || n > 100u * 1024 * 1024)
    return std::unexpected(LoadError{"", "", "checkpoint: the header length " + std::to_string(n) + " runs past the " +
                                                  std::to_string(bytes.size()) + " bytes given"});
  std::string_view text(reinterpret_cast<const char*>(bytes.data()) + 8, static_cast<std::size_t>(n));
  auto h = loam_safetensors_reader(text).read();
  if (!h) return h;
  h->payload_offset = 8 + n;
  h->payload_size = bytes.size() - 8 - n;
  return h;
}

// One weight out of a checkpoint: present, of the dtype, with the graph's extents (-1: any), and a
// byte range inside the payload holding exactly its elements.
template <class E, class L>
std::expected<Tensor<E, L>, LoadError> loam_safetensors_take(const loam_safetensors_header& h, std::span<const std::byte> bytes,
                                                             const char* name, const char* dtype,
                                                             const typename Tensor<E, L>::Extents& extents,
                                                             std::initializer_list<const char*> axis_names) {
  const loam_safetensors_entry* e = h.find(name);
  if (!e) return std::unexpected(LoadError{name, "", "not in the checkpoint"});
  if (e->dtype != dtype) return std::unexpected(LoadError{name, "", "has dtype " + e->dtype + " in the checkpoint; the graph holds " + dtype});
  if (e->shape.size() != extents.size())
    return std::unexpected(LoadError{name, "", "has " + std::to_string(e->shape.size()) + " axes in the checkpoint; the graph gives it " +
                                                   std::to_string(extents.size())});
  auto axis = axis_names.begin();
  typename Tensor<E, L>::Extents actual{};
  for (std::size_t i = 0; i < extents.size(); ++i, ++axis) {
    if (extents[i] >= 0 && e->shape[i] != extents[i])
      return std::unexpected(LoadError{name, *axis, "is " + std::to_string(e->shape[i]) + " long in the checkpoint; the graph fixes " +
                                                     std::to_string(extents[i])});
    actual[i] = e->shape[i];
  }
  std::uint64_t count = 1;
  for (auto x : actual)
    if (__builtin_mul_overflow(count, static_cast<std::uint64_t>(x), &count) || count > (UINT64_MAX / 8))
      return std::unexpected(LoadError{name, "", "its element count overflows"});
  if (e->begin > e->end || e->end > h.payload_size)
    return std::unexpected(LoadError{name, "", "its bytes [" + std::to_string(e->begin) + ", " + std::to_string(e->end) +
                                                   ") lie outside the payload of " + std::to_string(h.payload_size) + " bytes"});
  if (e->end - e->begin != count * sizeof(E))
    return std::unexpected(LoadError{name, "", "its payload holds " + std::to_string(e->end - e->begin) + " bytes; its shape needs " +
                                                   std::to_string(count * sizeof(E))});
  return loam_tensor_from_bytes<E, L>(actual, bytes.data() + h.payload_offset + e->begin);
}

inline std::int64_t loam_floor_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
inline std::int64_t loam_ceil_div(std::int64_t a, std::int64_t b) { return -loam_floor_div(-a, b); }
)loam_fixed";

}  // namespace loam::emit
