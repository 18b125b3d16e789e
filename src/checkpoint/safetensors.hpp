// The safetensors header, read at build time. A safetensors file is an 8-byte little-endian length
// N, then N bytes of JSON naming each tensor's dtype, shape and data_offsets (relative to the
// payload, which starts at byte 8 + N), then the payload. The build reads the first 8 + N bytes and
// nothing further down the file: the header is the checkpoint's schema, the payload is data.
//
// The reader refuses what the published format forbids, as the reference implementation does:
// a header past the file, invalid JSON, an unknown dtype, offsets outside the payload, tensors that
// overlap or leave a gap, a byte range that does not hold product(shape) elements of the dtype.
// It also refuses a header longer than 100 MiB (no real checkpoint comes near it; a reader must stay
// bounded on hostile input) and JSON nested deeper than any header needs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "graph/graph.hpp"

namespace loam {

inline constexpr uint64_t kSafetensorsMaxHeaderBytes = 100ull * 1024 * 1024;

// The dtypes the safetensors format names. F4/F6 pack several elements into bytes; C64 is a pair
// of float32.
enum class SafetensorsDtype : uint8_t {
  BOOL, U8, I8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64, C64,
  F8_E5M2, F8_E4M3, F8_E8M0, F6_E2M3, F6_E3M2, F4,
};

// The spelling the header uses ("F32", "BF16", ...).
const char* safetensors_dtype_name(SafetensorsDtype d);
std::optional<SafetensorsDtype> parse_safetensors_dtype(std::string_view name);
// Bits one element occupies.
unsigned safetensors_dtype_bits(SafetensorsDtype d);
// The graph's element type with the same storage, or nullopt for a dtype ONNX graphs in our IR do
// not carry (the 8-, 6- and 4-bit floats).
std::optional<ElementType> safetensors_dtype_to_element(SafetensorsDtype d);

// A tensor name as messages quote it: 'name', with control bytes written \xNN so that a hostile
// name cannot break the one-line message.
std::string quote_tensor_name(std::string_view name);

struct SafetensorsTensor {
  std::string name;
  SafetensorsDtype dtype = SafetensorsDtype::F32;
  std::vector<int64_t> shape;
  uint64_t begin = 0;  // data_offsets[0], relative to the payload
  uint64_t end = 0;    // data_offsets[1], exclusive
  bool operator==(const SafetensorsTensor&) const = default;
};

struct SafetensorsHeader {
  std::string origin;               // the file (or buffer) name errors carry
  uint64_t header_length = 0;       // N, the JSON's length
  uint64_t payload_size = 0;        // bytes the tensors cover: the last tensor's end
  std::optional<uint64_t> file_size;  // when known: the payload was checked to end there
  std::vector<SafetensorsTensor> tensors;  // ordered by data_offsets
  std::map<std::string, std::string> metadata;  // `__metadata__`
  std::vector<std::byte> header_bytes;  // the first 8 + N bytes exactly as read (what a probe keys on)

  uint64_t payload_offset() const { return 8 + header_length; }
  const SafetensorsTensor* find(std::string_view name) const;
};

// Reads the header from `bytes`, which start at the file's first byte. `file_size` is the whole
// file's length when `bytes` is only a prefix of it; when nullopt, `bytes` is the whole file. The
// header must lie inside `bytes`; tensors are checked to end exactly where the file does.
SafetensorsHeader read_safetensors_header(std::span<const std::byte> bytes, const std::string& origin,
                                          std::optional<uint64_t> file_size = std::nullopt);

// Reads the 8-byte length and then only the header bytes of `file`; the payload is never read.
// Errors name the file as `origin` (default: the path as given).
SafetensorsHeader read_safetensors_header_file(const std::filesystem::path& file,
                                               const std::string& origin = {});

// A safetensors file holding `tensors` (each with its data), by name: the header lists them in name
// order, the payload holds them in that order with no gap, and the header is padded with spaces to
// a multiple of 8 bytes, as the reference writer pads it. The same tensors give the same bytes.
// Throws loam::Error for a tensor without data, of an element type safetensors has no dtype for,
// or a name given twice.
std::vector<std::byte> write_safetensors(const std::vector<const TensorData*>& tensors);

}  // namespace loam
