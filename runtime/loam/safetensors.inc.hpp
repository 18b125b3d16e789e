// A safetensors checkpoint read from bytes, for Weights::load: an 8-byte little-endian header
// length, a JSON header {"name": {"dtype": "F32", "shape": [...], "data_offsets": [begin, end]},
// "__metadata__": {...}}, then the payload. Every length, offset and element count is checked
// (overlaps, out-of-buffer offsets, unknown dtypes, counts that do not match the bytes); nothing
// is read past the buffer; each refusal is a LoadError naming the tensor (and axis).

struct SafetensorsEntry {
  std::string name;
  std::string dtype;
  std::vector<std::int64_t> shape;
  std::uint64_t begin = 0;  // payload offsets
  std::uint64_t end = 0;
};

class SafetensorsView {
 public:
  static constexpr std::uint64_t MAX_HEADER = std::uint64_t{100} << 20;

  static LoadResult<SafetensorsView> parse(std::span<const std::byte> bytes) {
    SafetensorsView v;
    if (bytes.size() < 8) return fail("", "", "the checkpoint holds " + std::to_string(bytes.size()) + " bytes, fewer than its 8-byte header length");
    std::uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<std::uint8_t>(bytes[static_cast<std::size_t>(i)]);
    if (n > MAX_HEADER || n > bytes.size() - 8)
      return fail("", "", "the header length " + std::to_string(n) + " runs past the " + std::to_string(bytes.size()) + "-byte checkpoint");
    const std::string_view header(reinterpret_cast<const char*>(bytes.data()) + 8, static_cast<std::size_t>(n));
    v.payload_ = bytes.subspan(8 + static_cast<std::size_t>(n));
    Json j{header, 0};
    std::string error;
    if (!j.read_header(v.entries_, error)) return fail("", "", "the header is not valid: " + error);
    // Offsets lie within the payload and no two tensors share a byte.
    std::vector<const SafetensorsEntry*> order;
    for (const auto& e : v.entries_) {
      if (e.begin > e.end || e.end > v.payload_.size())
        return fail(e.name, "", "data_offsets [" + std::to_string(e.begin) + ", " + std::to_string(e.end) + "] lie outside the " +
                                    std::to_string(v.payload_.size()) + "-byte payload");
      const std::int64_t size = dtype_size(e.dtype);
      if (size == 0) return fail(e.name, "", "unknown dtype '" + e.dtype + "'");
      std::int64_t count = 1;
      for (auto d : e.shape)
        if (d < 0 || __builtin_mul_overflow(count, d, &count)) return fail(e.name, "", "an element count past int64");
      std::int64_t want = 0;
      if (__builtin_mul_overflow(count, size, &want) || static_cast<std::uint64_t>(want) != e.end - e.begin)
        return fail(e.name, "", std::to_string(e.end - e.begin) + " bytes for " + std::to_string(count) + " " + e.dtype + " elements");
      order.push_back(&e);
    }
    std::sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->begin < b->begin; });
    for (std::size_t i = 1; i < order.size(); ++i)
      if (order[i]->begin < order[i - 1]->end && order[i]->end > order[i]->begin)
        return fail(order[i]->name, "", "its bytes overlap those of '" + order[i - 1]->name + "'");
    return v;
  }

  const std::vector<SafetensorsEntry>& entries() const noexcept { return entries_; }
  const SafetensorsEntry* find(std::string_view name) const {
    for (const auto& e : entries_)
      if (e.name == name) return &e;
    return nullptr;
  }
  std::span<const std::byte> bytes(const SafetensorsEntry& e) const {
    return payload_.subspan(static_cast<std::size_t>(e.begin), static_cast<std::size_t>(e.end - e.begin));
  }

  // The tensor `name` as Tensor<E, L>: each extent must equal `extents[i]` (or, where that is -1,
  // is taken from the checkpoint), naming `axis_names[i]` when it does not. F16 and BF16 widen to
  // float; F32 is copied as bytes.
  template <class E, class L>
  LoadResult<Tensor<E, L>> tensor(std::string_view name, const typename Tensor<E, L>::Extents& extents,
                                  const std::array<std::string_view, AxisRank<L>>& axis_names) const {
    constexpr std::size_t R = AxisRank<L>;
    const SafetensorsEntry* e = find(name);
    if (e == nullptr) return fail(std::string(name), "", "absent from the checkpoint");
    if (e->shape.size() != R)
      return fail(e->name, "", "has " + std::to_string(e->shape.size()) + " axes, the graph " + std::to_string(R));
    typename Tensor<E, L>::Extents got{};
    for (std::size_t i = 0; i < R; ++i) {
      got[i] = e->shape[i];
      if (extents[i] >= 0 && extents[i] != got[i])
        return fail(e->name, std::string(axis_names[i]), "extent " + std::to_string(got[i]) + ", the graph says " + std::to_string(extents[i]));
    }
    const auto raw = bytes(*e);
    auto out = Tensor<E, L>::uninitialized(got);
    E* d = out.mutable_data_unchecked();
    const std::size_t n = static_cast<std::size_t>(out.count());
    const auto u16 = [&](std::size_t i) {
      return static_cast<std::uint16_t>(static_cast<std::uint8_t>(raw[2 * i]) | (static_cast<std::uint8_t>(raw[2 * i + 1]) << 8));
    };
    if constexpr (std::is_same_v<E, float>) {
      if (e->dtype == "F32") {
        if (n) std::memcpy(d, raw.data(), n * sizeof(float));
      } else if (e->dtype == "F16") {
        for (std::size_t i = 0; i < n; ++i) d[i] = Half::widen(Half::from_bits(u16(i)));
      } else if (e->dtype == "BF16") {
        for (std::size_t i = 0; i < n; ++i) d[i] = BFloat16::widen(BFloat16::from_bits(u16(i)));
      } else {
        return fail(e->name, "", "dtype " + e->dtype + " where the graph has float");
      }
    } else if constexpr (std::is_same_v<E, double>) {
      if (e->dtype != "F64") return fail(e->name, "", "dtype " + e->dtype + " where the graph has double");
      if (n) std::memcpy(d, raw.data(), n * sizeof(double));
    } else if constexpr (std::is_same_v<E, std::int64_t>) {
      if (e->dtype != "I64") return fail(e->name, "", "dtype " + e->dtype + " where the graph has int64");
      if (n) std::memcpy(d, raw.data(), n * sizeof(std::int64_t));
    } else if constexpr (std::is_same_v<E, bool>) {
      if (e->dtype != "BOOL") return fail(e->name, "", "dtype " + e->dtype + " where the graph has bool");
      for (std::size_t i = 0; i < n; ++i) {
        const auto b = static_cast<std::uint8_t>(raw[i]);
        if (b > 1) return fail(e->name, "", "a bool element holds " + std::to_string(b));
        d[i] = b != 0;
      }
    } else if constexpr (std::is_same_v<E, Half> || std::is_same_v<E, BFloat16>) {
      if (e->dtype != (std::is_same_v<E, Half> ? "F16" : "BF16")) return fail(e->name, "", "dtype " + e->dtype + " where the graph has a half type");
      for (std::size_t i = 0; i < n; ++i) d[i] = E::from_bits(u16(i));
    } else if constexpr (NarrowInteger<E>) {
      constexpr std::string_view want = std::is_same_v<E, std::int8_t> ? "I8" : std::is_same_v<E, std::uint8_t> ? "U8"
                                      : std::is_same_v<E, std::int16_t> ? "I16" : std::is_same_v<E, std::uint16_t> ? "U16"
                                      : std::is_same_v<E, std::int32_t> ? "I32" : "U32";
      if (e->dtype != want) return fail(e->name, "", "dtype " + e->dtype + " where the graph has " + std::string(want));
      if (n) std::memcpy(d, raw.data(), n * sizeof(E));
    }
    return out;
  }

  static std::int64_t dtype_size(std::string_view d) {
    if (d == "F64" || d == "I64" || d == "U64") return 8;
    if (d == "F32" || d == "I32" || d == "U32") return 4;
    if (d == "F16" || d == "BF16" || d == "I16" || d == "U16") return 2;
    if (d == "I8" || d == "U8" || d == "BOOL" || d == "F8_E4M3" || d == "F8_E5M2") return 1;
    return 0;
  }

 private:
  static std::unexpected<LoadError> fail(std::string tensor, std::string axis, std::string message) {
    return std::unexpected(LoadError{std::move(tensor), std::move(axis), std::move(message)});
  }

  // The JSON the header holds: objects, arrays, strings, integers, and (in metadata) anything.
  struct Json {
    std::string_view s;
    std::size_t at;
    int depth = 0;

    void space() {
      while (at < s.size() && (s[at] == ' ' || s[at] == '\t' || s[at] == '\n' || s[at] == '\r')) ++at;
    }
    bool eat(char c) {
      space();
      if (at < s.size() && s[at] == c) {
        ++at;
        return true;
      }
      return false;
    }
    bool string(std::string& out, std::string& error) {
      if (!eat('"')) return error = "a string expected at byte " + std::to_string(at), false;
      out.clear();
      while (at < s.size()) {
        const char c = s[at++];
        if (c == '"') return true;
        if (static_cast<unsigned char>(c) < 0x20) return error = "a control character in a string", false;
        if (c != '\\') {
          out += c;
          continue;
        }
        if (at >= s.size()) break;
        const char e = s[at++];
        switch (e) {
          case '"': out += '"'; break;
          case '\\': out += '\\'; break;
          case '/': out += '/'; break;
          case 'b': out += '\b'; break;
          case 'f': out += '\f'; break;
          case 'n': out += '\n'; break;
          case 'r': out += '\r'; break;
          case 't': out += '\t'; break;
          case 'u': {
            std::uint32_t cp = 0;
            if (!hex4(cp)) return error = "a bad \\u escape", false;
            if (cp >= 0xD800 && cp < 0xDC00) {
              std::uint32_t lo = 0;
              if (at + 1 < s.size() && s[at] == '\\' && s[at + 1] == 'u') {
                at += 2;
                if (!hex4(lo) || lo < 0xDC00 || lo >= 0xE000) return error = "a bad surrogate pair", false;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
              } else {
                return error = "a lone surrogate", false;
              }
            } else if (cp >= 0xDC00 && cp < 0xE000) {
              return error = "a lone surrogate", false;
            }
            utf8(cp, out);
            break;
          }
          default: return error = "a bad escape", false;
        }
      }
      return error = "an unterminated string", false;
    }
    bool hex4(std::uint32_t& v) {
      if (at + 4 > s.size()) return false;
      for (int i = 0; i < 4; ++i) {
        const char c = s[at++];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= static_cast<std::uint32_t>(c - '0');
        else if (c >= 'a' && c <= 'f') v |= static_cast<std::uint32_t>(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= static_cast<std::uint32_t>(c - 'A' + 10);
        else return false;
      }
      return true;
    }
    static void utf8(std::uint32_t cp, std::string& out) {
      if (cp < 0x80) {
        out += static_cast<char>(cp);
      } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
      } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
      } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
      }
    }
    // A non-negative integer that fits int64.
    bool natural(std::uint64_t& v, std::string& error) {
      space();
      const std::size_t start = at;
      v = 0;
      while (at < s.size() && s[at] >= '0' && s[at] <= '9') {
        if (v > (static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) - static_cast<std::uint64_t>(s[at] - '0')) / 10)
          return error = "an integer past int64", false;
        v = v * 10 + static_cast<std::uint64_t>(s[at++] - '0');
      }
      if (at == start) return error = "a non-negative integer expected at byte " + std::to_string(start), false;
      if (at < s.size() && (s[at] == '.' || s[at] == 'e' || s[at] == 'E')) return error = "an integer expected, not a fraction", false;
      return true;
    }
    // Any value, skipped (metadata).
    bool skip(std::string& error) {
      if (++depth > 64) return error = "nesting deeper than 64", false;
      space();
      if (at >= s.size()) return error = "a value expected", false;
      std::string tmp;
      bool ok = true;
      const char c = s[at];
      if (c == '"') {
        ok = string(tmp, error);
      } else if (c == '{') {
        ++at;
        if (!eat('}')) {
          do {
            ok = string(tmp, error) && (eat(':') || (error = "':' expected", false)) && skip(error);
          } while (ok && eat(','));
          ok = ok && (eat('}') || (error = "'}' expected", false));
        }
      } else if (c == '[') {
        ++at;
        if (!eat(']')) {
          do ok = skip(error);
          while (ok && eat(','));
          ok = ok && (eat(']') || (error = "']' expected", false));
        }
      } else {
        const std::size_t start = at;
        while (at < s.size() && (std::isalnum(static_cast<unsigned char>(s[at])) || s[at] == '-' || s[at] == '+' || s[at] == '.')) ++at;
        const std::string_view word = s.substr(start, at - start);
        const bool number = !word.empty() && (word[0] == '-' || (word[0] >= '0' && word[0] <= '9'));
        ok = word == "true" || word == "false" || word == "null" || number;
        if (!ok) error = "an unknown value at byte " + std::to_string(start);
      }
      --depth;
      return ok;
    }
    bool entry(SafetensorsEntry& e, std::string& error) {
      if (!eat('{')) return error = "tensor '" + e.name + "': an object expected", false;
      bool has_dtype = false, has_shape = false, has_offsets = false;
      if (!eat('}')) {
        do {
          std::string key;
          if (!string(key, error) || !eat(':')) return error = "tensor '" + e.name + "': a key expected", false;
          if (key == "dtype") {
            if (has_dtype || !string(e.dtype, error)) return error = "tensor '" + e.name + "': a bad dtype", false;
            has_dtype = true;
          } else if (key == "shape") {
            if (has_shape || !eat('[')) return error = "tensor '" + e.name + "': a bad shape", false;
            if (!eat(']')) {
              do {
                std::uint64_t d;
                if (!natural(d, error)) return error = "tensor '" + e.name + "': shape: " + error, false;
                e.shape.push_back(static_cast<std::int64_t>(d));
              } while (eat(','));
              if (!eat(']')) return error = "tensor '" + e.name + "': shape: ']' expected", false;
            }
            has_shape = true;
          } else if (key == "data_offsets") {
            if (has_offsets || !eat('[') || !natural(e.begin, error) || !eat(',') || !natural(e.end, error) || !eat(']'))
              return error = "tensor '" + e.name + "': data_offsets must be [begin, end]", false;
            has_offsets = true;
          } else if (!skip(error)) {
            return false;
          }
        } while (eat(','));
        if (!eat('}')) return error = "tensor '" + e.name + "': '}' expected", false;
      }
      if (!has_dtype || !has_shape || !has_offsets) return error = "tensor '" + e.name + "': dtype, shape and data_offsets are all required", false;
      return true;
    }
    bool read_header(std::vector<SafetensorsEntry>& entries, std::string& error) {
      if (!eat('{')) return error = "the header is not a JSON object", false;
      if (!eat('}')) {
        do {
          std::string name;
          if (!string(name, error) || !eat(':')) return error.empty() ? (error = "':' expected", false) : false;
          if (name == "__metadata__") {
            if (!skip(error)) return false;
            continue;
          }
          for (const auto& e : entries)
            if (e.name == name) return error = "tensor '" + name + "' is named twice", false;
          SafetensorsEntry e;
          e.name = name;
          if (!entry(e, error)) return false;
          entries.push_back(std::move(e));
        } while (eat(','));
        if (!eat('}')) return error = "'}' expected", false;
      }
      space();
      if (at != s.size()) return error = "bytes after the header object", false;
      return true;
    }
    // model.safetensors.index.json: {"metadata": {...}, "weight_map": {"tensor": "shard file", ...}}.
    bool read_index(std::vector<std::pair<std::string, std::string>>& map, std::string& error) {
      if (!eat('{')) return error = "the index is not a JSON object", false;
      if (!eat('}')) {
        do {
          std::string key;
          if (!string(key, error) || !eat(':')) return error.empty() ? (error = "':' expected", false) : false;
          if (key != "weight_map") {
            if (!skip(error)) return false;
            continue;
          }
          if (!eat('{')) return error = "weight_map is not an object", false;
          if (!eat('}')) {
            do {
              std::pair<std::string, std::string> kv;
              if (!string(kv.first, error) || !eat(':') || !string(kv.second, error))
                return error.empty() ? (error = "weight_map maps a tensor to a shard's file name", false) : false;
              map.push_back(std::move(kv));
            } while (eat(','));
            if (!eat('}')) return error = "'}' expected", false;
          }
        } while (eat(','));
        if (!eat('}')) return error = "'}' expected", false;
      }
      space();
      if (at != s.size()) return error = "bytes after the index object", false;
      return true;
    }
  };
  friend class ShardedSafetensors;

  std::vector<SafetensorsEntry> entries_;
  std::span<const std::byte> payload_;
};

// One shard of a checkpoint split over several files: its file name (as the index names it, e.g.
// "model-00001-of-00002.safetensors") and its bytes.
struct CheckpointShard {
  std::string_view name;
  std::span<const std::byte> bytes;
};

// A checkpoint in shards, for Weights::load: each shard's header parsed and checked as a whole
// checkpoint's is (a LoadError names the shard), and a tensor read from the one shard holding it; a
// tensor two shards hold is refused. With the index (model.safetensors.index.json), a tensor no
// shard given holds is named with the shard the index puts it in.
class ShardedSafetensors {
 public:
  static LoadResult<ShardedSafetensors> parse(std::span<const CheckpointShard> shards, std::string_view index = {}) {
    ShardedSafetensors out;
    for (const auto& shard : shards) {
      auto view = SafetensorsView::parse(shard.bytes);
      if (!view) {
        LoadError e = view.error();
        e.message = "shard '" + std::string(shard.name) + "': " + e.message;
        return std::unexpected(std::move(e));
      }
      for (const auto& entry : view->entries())
        for (const auto& [name, other] : out.shards_)
          if (other.find(entry.name))
            return fail(entry.name, "shards '" + name + "' and '" + std::string(shard.name) + "' both hold it");
      out.shards_.emplace_back(std::string(shard.name), std::move(*view));
    }
    if (!index.empty()) {
      SafetensorsView::Json j{index, 0};
      std::string error;
      if (!j.read_index(out.index_, error)) return fail("", "the index is not valid: " + error);
    }
    return out;
  }

  template <class E, class L>
  LoadResult<Tensor<E, L>> tensor(std::string_view name, const typename Tensor<E, L>::Extents& extents,
                                  const std::array<std::string_view, AxisRank<L>>& axis_names) const {
    for (const auto& [shard, view] : shards_)
      if (view.find(name)) return view.template tensor<E, L>(name, extents, axis_names);
    for (const auto& [tensor, shard] : index_)
      if (tensor == name)
        return fail(std::string(name), "absent from the " + std::to_string(shards_.size()) + " shards given; the index puts it in '" +
                                           shard + "'");
    return fail(std::string(name), "absent from the " + std::to_string(shards_.size()) + " shards given" +
                                       (index_.empty() ? std::string() : ", and the index names no shard for it"));
  }

 private:
  static std::unexpected<LoadError> fail(std::string tensor, std::string message) {
    return std::unexpected(LoadError{std::move(tensor), "", std::move(message)});
  }
  std::vector<std::pair<std::string, SafetensorsView>> shards_;
  std::vector<std::pair<std::string, std::string>> index_;  // tensor -> shard file, as the index says
};
