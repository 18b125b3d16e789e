#include "checkpoint/safetensors.hpp"

#include <algorithm>
#include <array>
#include <fstream>
#include <system_error>

#include <nlohmann/json.hpp>

#include "options/strict_json.hpp"
#include "support/error.hpp"

namespace loam {

namespace {

using json = nlohmann::json;

struct DtypeInfo {
  SafetensorsDtype dtype;
  const char* name;
  unsigned bits;
  std::optional<ElementType> element;
};

constexpr std::array<DtypeInfo, 20> kDtypes{{
    {SafetensorsDtype::BOOL, "BOOL", 8, ElementType::Bool},
    {SafetensorsDtype::U8, "U8", 8, ElementType::U8},
    {SafetensorsDtype::I8, "I8", 8, ElementType::I8},
    {SafetensorsDtype::I16, "I16", 16, ElementType::I16},
    {SafetensorsDtype::U16, "U16", 16, ElementType::U16},
    {SafetensorsDtype::I32, "I32", 32, ElementType::I32},
    {SafetensorsDtype::U32, "U32", 32, ElementType::U32},
    {SafetensorsDtype::I64, "I64", 64, ElementType::I64},
    {SafetensorsDtype::U64, "U64", 64, ElementType::U64},
    {SafetensorsDtype::F16, "F16", 16, ElementType::F16},
    {SafetensorsDtype::BF16, "BF16", 16, ElementType::BF16},
    {SafetensorsDtype::F32, "F32", 32, ElementType::F32},
    {SafetensorsDtype::F64, "F64", 64, ElementType::F64},
    {SafetensorsDtype::C64, "C64", 64, ElementType::C64},
    {SafetensorsDtype::F8_E5M2, "F8_E5M2", 8, std::nullopt},
    {SafetensorsDtype::F8_E4M3, "F8_E4M3", 8, std::nullopt},
    {SafetensorsDtype::F8_E8M0, "F8_E8M0", 8, std::nullopt},
    {SafetensorsDtype::F6_E2M3, "F6_E2M3", 6, std::nullopt},
    {SafetensorsDtype::F6_E3M2, "F6_E3M2", 6, std::nullopt},
    {SafetensorsDtype::F4, "F4", 4, std::nullopt},
}};

const DtypeInfo& info(SafetensorsDtype d) {
  for (const auto& i : kDtypes)
    if (i.dtype == d) return i;
  return kDtypes[0];  // unreachable: every enumerator is in the table
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}


class HeaderReader {
 public:
  HeaderReader(const std::string& origin, uint64_t payload_base)
      : origin_(origin), payload_base_(payload_base) {}

  [[noreturn]] void fail_tensor(const std::string& name, const std::string& why) const {
    fail(origin_ + ": tensor " + quote_tensor_name(name) + ": " + why);
  }

  // "[begin, end] (file bytes X..Y)": the offsets as written, and where they land in the file.
  std::string offsets_text(uint64_t begin, uint64_t end) const {
    std::string s = "data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) + "]";
    uint64_t fb, fe;
    if (!__builtin_add_overflow(payload_base_, begin, &fb) &&
        !__builtin_add_overflow(payload_base_, end, &fe))
      s += " (file bytes " + std::to_string(fb) + ".." + std::to_string(fe) + ")";
    return s;
  }

  SafetensorsTensor read_tensor(const std::string& name, const json& entry) const {
    if (!entry.is_object())
      fail_tensor(name, "expected an object with dtype, shape and data_offsets");
    for (auto it = entry.begin(); it != entry.end(); ++it)
      if (it.key() != "dtype" && it.key() != "shape" && it.key() != "data_offsets")
        fail_tensor(name, "unknown key " + json(it.key()).dump() +
                              " (a tensor entry has dtype, shape and data_offsets)");
    SafetensorsTensor t;
    t.name = name;

    auto dt = entry.find("dtype");
    if (dt == entry.end()) fail_tensor(name, "missing 'dtype'");
    if (!dt->is_string()) fail_tensor(name, "'dtype' is not a string");
    auto parsed = parse_safetensors_dtype(dt->get_ref<const std::string&>());
    if (!parsed) fail_tensor(name, "unknown dtype " + dt->dump());
    t.dtype = *parsed;

    auto sh = entry.find("shape");
    if (sh == entry.end()) fail_tensor(name, "missing 'shape'");
    if (!sh->is_array()) fail_tensor(name, "'shape' is not an array");
    for (std::size_t i = 0; i < sh->size(); ++i) {
      const json& d = (*sh)[i];
      if (!d.is_number_unsigned() && !(d.is_number_integer() && d.get<int64_t>() >= 0))
        fail_tensor(name, "shape[" + std::to_string(i) + "] is " + d.dump() +
                              ", not a non-negative integer");
      uint64_t u = d.is_number_unsigned() ? d.get<uint64_t>() : static_cast<uint64_t>(d.get<int64_t>());
      if (u > static_cast<uint64_t>(INT64_MAX))
        fail_tensor(name, "shape[" + std::to_string(i) + "] is " + d.dump() + ", past int64");
      t.shape.push_back(static_cast<int64_t>(u));
    }

    auto off = entry.find("data_offsets");
    if (off == entry.end()) fail_tensor(name, "missing 'data_offsets'");
    if (!off->is_array() || off->size() != 2 || !(*off)[0].is_number_unsigned() ||
        !(*off)[1].is_number_unsigned())
      fail_tensor(name, "'data_offsets' is " + off->dump() +
                            ", not a pair [begin, end] of non-negative integers");
    t.begin = (*off)[0].get<uint64_t>();
    t.end = (*off)[1].get<uint64_t>();
    if (t.end < t.begin) fail_tensor(name, offsets_text(t.begin, t.end) + " end before they begin");

    // product(shape) * bits / 8, each step checked: a header may claim any shape.
    uint64_t count = 1;
    for (int64_t d : t.shape)
      if (__builtin_mul_overflow(count, static_cast<uint64_t>(d), &count))
        fail_tensor(name, "shape " + shape_text(t.shape) + " has more elements than 64 bits count");
    uint64_t bits;
    if (__builtin_mul_overflow(count, static_cast<uint64_t>(safetensors_dtype_bits(t.dtype)), &bits))
      fail_tensor(name, "shape " + shape_text(t.shape) + " of " + safetensors_dtype_name(t.dtype) +
                            " needs more bytes than 64 bits count");
    if (bits % 8 != 0)
      fail_tensor(name, "shape " + shape_text(t.shape) + " of " + safetensors_dtype_name(t.dtype) +
                            " does not fill a whole number of bytes");
    uint64_t needed = bits / 8;
    if (t.end - t.begin != needed)
      fail_tensor(name, offsets_text(t.begin, t.end) + " hold " + std::to_string(t.end - t.begin) +
                            " bytes, but shape " + shape_text(t.shape) + " of " +
                            safetensors_dtype_name(t.dtype) + " needs " + std::to_string(needed));
    return t;
  }

 private:
  std::string origin_;
  uint64_t payload_base_;
};

uint64_t read_le64(const std::byte* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<uint64_t>(std::to_integer<uint8_t>(p[i]));
  return v;
}

// The checks on the 8-byte length that need only the length and the file's size.
void check_header_length(uint64_t n, uint64_t file_size, const std::string& origin) {
  if (n > kSafetensorsMaxHeaderBytes)
    fail(origin + ": header length " + std::to_string(n) + " (bytes 0..8) is over the limit of " +
         std::to_string(kSafetensorsMaxHeaderBytes) + " bytes");
  if (n > file_size - 8)
    fail(origin + ": header length " + std::to_string(n) + " (bytes 0..8) runs past the end of the file (" +
         std::to_string(file_size) + " bytes)");
}

}  // namespace

std::string quote_tensor_name(std::string_view name) {
  static const char* digits = "0123456789abcdef";
  std::string s = "'";
  for (char c : name) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      s += "\\x";
      s += digits[u >> 4];
      s += digits[u & 15];
    } else {
      s += c;
    }
  }
  return s + "'";
}

const char* safetensors_dtype_name(SafetensorsDtype d) { return info(d).name; }
unsigned safetensors_dtype_bits(SafetensorsDtype d) { return info(d).bits; }
std::optional<ElementType> safetensors_dtype_to_element(SafetensorsDtype d) { return info(d).element; }

std::optional<SafetensorsDtype> parse_safetensors_dtype(std::string_view name) {
  for (const auto& i : kDtypes)
    if (name == i.name) return i.dtype;
  return std::nullopt;
}

const SafetensorsTensor* SafetensorsHeader::find(std::string_view name) const {
  for (const auto& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

SafetensorsHeader read_safetensors_header(std::span<const std::byte> bytes, const std::string& origin,
                                          std::optional<uint64_t> file_size) {
  uint64_t fsize = file_size.value_or(bytes.size());
  if (bytes.size() > fsize)
    fail(origin + ": " + std::to_string(bytes.size()) + " bytes given for a file of " +
         std::to_string(fsize));
  if (fsize < 8)
    fail(origin + ": file is " + std::to_string(fsize) +
         " bytes, shorter than the 8-byte header length at its start");
  if (bytes.size() < 8) fail(origin + ": only " + std::to_string(bytes.size()) + " bytes given, fewer than the 8-byte header length");
  uint64_t n = read_le64(bytes.data());
  check_header_length(n, fsize, origin);
  if (bytes.size() - 8 < n)
    fail(origin + ": only " + std::to_string(bytes.size()) + " bytes given, but the header ends at byte " +
         std::to_string(8 + n));

  SafetensorsHeader h;
  h.origin = origin;
  h.header_length = n;
  h.file_size = fsize;
  h.header_bytes.assign(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(8 + n));
  std::string_view text(reinterpret_cast<const char*>(bytes.data()) + 8, static_cast<std::size_t>(n));
  // What the reference reader's parser (serde_json) refuses and nlohmann's would take: a byte order
  // mark, which nlohmann skips, and a NUL, which it reads as the end of the input.
  if (text.substr(0, 3) == "\xEF\xBB\xBF")
    fail(origin + ": the header starts with a UTF-8 byte order mark (bytes 8..11), which a safetensors header does not carry");
  if (const auto nul = text.find('\0'); nul != std::string_view::npos)
    fail(origin + ": byte " + std::to_string(8 + nul) + " of the header is NUL; a header is JSON, padded only with spaces");
  json root = parse_strict_json(text, origin, 8);
  if (!root.is_object()) fail(origin + ": the header is JSON but not an object");

  HeaderReader reader(origin, 8 + n);
  for (auto it = root.begin(); it != root.end(); ++it) {
    if (it.key() == "__metadata__") {
      if (!it->is_object()) fail(origin + ": __metadata__ is not an object of strings");
      for (auto m = it->begin(); m != it->end(); ++m) {
        if (!m->is_string())
          fail(origin + ": __metadata__: value of " + json(m.key()).dump() + " is not a string");
        h.metadata.emplace(m.key(), m->get<std::string>());
      }
      continue;
    }
    h.tensors.push_back(reader.read_tensor(it.key(), it.value()));
  }

  std::sort(h.tensors.begin(), h.tensors.end(), [](const auto& a, const auto& b) {
    if (a.begin != b.begin) return a.begin < b.begin;
    if (a.end != b.end) return a.end < b.end;
    return a.name < b.name;
  });
  const uint64_t available = fsize - 8 - n;
  for (const auto& t : h.tensors)
    if (t.end > available)
      reader.fail_tensor(t.name, reader.offsets_text(t.begin, t.end) +
                                     " end past the payload, which holds " + std::to_string(available) +
                                     " bytes");
  uint64_t covered = 0;
  const SafetensorsTensor* previous = nullptr;
  for (const auto& t : h.tensors) {
    if (t.begin < covered)
      reader.fail_tensor(t.name, reader.offsets_text(t.begin, t.end) + " overlap tensor " +
                                     quote_tensor_name(previous->name) + " at " +
                                     reader.offsets_text(previous->begin, previous->end));
    if (t.begin > covered)
      reader.fail_tensor(t.name, reader.offsets_text(t.begin, t.end) + " leave payload bytes " +
                                     std::to_string(covered) + ".." + std::to_string(t.begin) +
                                     " unused: tensors must be contiguous");
    covered = t.end;
    previous = &t;
  }
  if (covered != available)
    fail(origin + ": the payload holds " + std::to_string(available) + " bytes, but its tensors cover " +
         std::to_string(covered) + " (file bytes " + std::to_string(8 + n + covered) + ".." +
         std::to_string(fsize) + " belong to no tensor)");
  h.payload_size = covered;
  return h;
}

SafetensorsHeader read_safetensors_header_file(const std::filesystem::path& file,
                                               const std::string& origin_in) {
  const std::string origin = origin_in.empty() ? file.string() : origin_in;
  std::error_code ec;
  auto status = std::filesystem::status(file, ec);
  if (!std::filesystem::exists(status)) fail(origin + ": no such file");
  if (ec) fail(origin + ": cannot read the file (" + ec.message() + ")");
  if (!std::filesystem::is_regular_file(status)) fail(origin + ": not a regular file");
  uint64_t fsize = std::filesystem::file_size(file, ec);
  if (ec) fail(origin + ": cannot read its size (" + ec.message() + ")");
  std::ifstream in(file, std::ios::binary);
  if (!in) fail(origin + ": cannot open the file");
  if (fsize < 8)
    fail(origin + ": file is " + std::to_string(fsize) +
         " bytes, shorter than the 8-byte header length at its start");
  std::vector<std::byte> buf(8);
  if (!in.read(reinterpret_cast<char*>(buf.data()), 8)) fail(origin + ": cannot read bytes 0..8");
  uint64_t n = read_le64(buf.data());
  check_header_length(n, fsize, origin);
  buf.resize(static_cast<std::size_t>(8 + n));
  if (n && !in.read(reinterpret_cast<char*>(buf.data()) + 8, static_cast<std::streamsize>(n)))
    fail(origin + ": cannot read the header (bytes 8.." + std::to_string(8 + n) + ")");
  return read_safetensors_header(buf, origin, fsize);
}

std::vector<std::byte> write_safetensors(const std::vector<const TensorData*>& tensors) {
  std::map<std::string, const TensorData*> by_name;
  for (const TensorData* t : tensors) {
    if (!t->has_data) fail("tensor " + quote_tensor_name(t->name) + " has no data to write");
    if (!by_name.emplace(t->name, t).second) fail("tensor " + quote_tensor_name(t->name) + " is given twice");
  }
  json header = json::object();
  uint64_t offset = 0;
  for (const auto& [name, t] : by_name) {
    const char* dtype = nullptr;
    for (const auto& i : kDtypes)
      if (i.element == t->elem) dtype = i.name;
    if (!dtype) fail("tensor " + quote_tensor_name(name) + ": safetensors has no dtype for " + element_type_name(t->elem));
    header[name] = {{"dtype", dtype}, {"shape", t->dims}, {"data_offsets", {offset, offset + t->data.size()}}};
    offset += t->data.size();
  }
  std::string text = header.dump();
  while (text.size() % 8) text += ' ';
  std::vector<std::byte> out(8);
  const uint64_t n = text.size();
  for (int k = 0; k < 8; ++k) out[static_cast<std::size_t>(k)] = static_cast<std::byte>((n >> (8 * k)) & 0xff);
  for (char c : text) out.push_back(static_cast<std::byte>(c));
  for (const auto& [name, t] : by_name) out.insert(out.end(), t->data.begin(), t->data.end());
  return out;
}

}  // namespace loam
