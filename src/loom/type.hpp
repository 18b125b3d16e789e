// Loom IR's types: the scalar domains, the shaped types (tensor, tile, vector, view), buffer, and
// the attachment slot that carries a tensor's or tile's encoding and a view's address layout.
//
// A dynamic dimension (and a dynamic stride of a layout) is not text: it points at the `index` (or
// `offset`) SSA value that binds it, so two types are equal only when their dynamic extents are the
// same values. Types are small values and are copied freely.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace loam::loom {

struct Value;

// The scalar vocabulary. `index` (signed) and `offset` (unsigned) are the address domains whose
// carriers the target selects; the rest carry their width in the program.
enum class Scalar : std::uint8_t { Index, Offset, I1, I8, I16, I32, I64, F8E4M3, F8E5M2, F16, BF16, F32, F64 };

std::string_view scalar_name(Scalar s);
std::optional<Scalar> scalar_from_name(std::string_view name);
constexpr bool is_address(Scalar s) { return s == Scalar::Index || s == Scalar::Offset; }
constexpr bool is_integer(Scalar s) { return s >= Scalar::I1 && s <= Scalar::I64; }
constexpr bool is_float(Scalar s) { return s >= Scalar::F8E4M3; }
// Bits of a fixed-width integer or float; an address domain has no width of its own (0).
int scalar_bits(Scalar s);
// Bytes one element occupies in memory; 0 for the address domains, which have no storage width.
int scalar_bytes(Scalar s);

// A float format's bits as the value they hold (exact: every format widens into f64), and a value
// rounded to the nearest of a format (ties to even; saturate sends f8 overflow to the largest
// finite value instead of NaN or infinity).
double float_value(std::uint64_t bits, Scalar type);
std::uint64_t float_bits(double value, Scalar type, bool saturate = false);
// A signalling NaN of f16, bf16 or f8E5M2 made quiet (sign and payload kept); other bits as they
// are. Loom's narrow-float values are quiet: a NaN becomes quiet as it enters one (a load, a
// bitcast, a literal, an argument), as the hardware conversions that hold them in f32 make it.
std::uint64_t quiet_narrow_nan(std::uint64_t bits, Scalar type);

enum class TypeKind : std::uint8_t { Scalar, Tensor, Tile, Vector, View, Buffer };
std::string_view kind_name(TypeKind k);
constexpr bool is_shaped(TypeKind k) { return k >= TypeKind::Tensor && k <= TypeKind::View; }

// One dimension (or stride): a literal, or the SSA value that binds it.
struct Extent {
  std::int64_t size = 0;
  const Value* value = nullptr;
  bool dynamic() const { return value != nullptr; }
  static Extent of(std::int64_t n) { return {n, nullptr}; }
  static Extent bound_to(const Value* v) { return {0, v}; }
  friend bool operator==(const Extent& a, const Extent& b) {
    return a.value == b.value && (a.value != nullptr || a.size == b.size);
  }
};

// A block-quantised encoding: `block` logical elements (along the last dimension) share one scale
// of type `scale`; each element's code takes `bits` bits (4 or 8) and is stored unsigned, `zero`
// above its logical value (ggml's q4_0 stores q + 8 in a nibble). A block is stored as the scale,
// then the codes; 4-bit codes put element j of a block in the low nibble of byte j and element
// j + block/2 in its high nibble, as ggml does. The logical element is the signed code; the scale
// is read apart (tensor.block_scale).
struct BlockQuant {
  int block = 32;
  int bits = 4;
  int zero = 8;
  Scalar scale = Scalar::F16;
  std::int64_t block_bytes() const;
  friend bool operator==(const BlockQuant&, const BlockQuant&) = default;
};

// A view's address layout: the byte stride of each dimension, each a literal or an `offset` value.
// A view without a layout is dense row-major.
struct StridedLayout {
  std::vector<Extent> strides;
  friend bool operator==(const StridedLayout&, const StridedLayout&) = default;
};

// The attachment slot: an encoding (tensor, tile) or an address layout (view); at most one.
struct Attachment {
  std::optional<BlockQuant> encoding;
  std::optional<StridedLayout> layout;
  bool empty() const { return !encoding && !layout; }
  friend bool operator==(const Attachment&, const Attachment&) = default;
};

class Type {
 public:
  Type() = default;
  static Type scalar(Scalar s);
  static Type buffer();
  static Type shaped(TypeKind kind, std::vector<Extent> dims, Scalar element, Attachment attachment = {});
  static Type index() { return scalar(Scalar::Index); }
  static Type offset() { return scalar(Scalar::Offset); }

  TypeKind kind() const { return kind_; }
  bool is_scalar() const { return kind_ == TypeKind::Scalar; }
  bool is_scalar(Scalar s) const { return kind_ == TypeKind::Scalar && element_ == s; }
  bool is_vector() const { return kind_ == TypeKind::Vector; }
  bool is_view() const { return kind_ == TypeKind::View; }
  bool is_buffer() const { return kind_ == TypeKind::Buffer; }
  bool is_tensor() const { return kind_ == TypeKind::Tensor; }
  // The scalar of a scalar type, or the element type of a shaped one.
  Scalar element() const { return element_; }
  const std::vector<Extent>& dims() const { return dims_; }
  std::size_t rank() const { return dims_.size(); }
  const Attachment& attachment() const { return attachment_; }
  // The type with its element replaced (a vector's mask or conversion type).
  Type with_element(Scalar s) const;

  friend bool operator==(const Type&, const Type&) = default;

 private:
  TypeKind kind_ = TypeKind::Scalar;
  Scalar element_ = Scalar::Index;
  std::vector<Extent> dims_;
  Attachment attachment_;
};

// The canonical text of a type: `index`, `vector<8xf32>`, `view<[%n]x64xf32, #strided<[%pitch]x4>>`.
std::string print_type(const Type& t);
std::string print_extent(const Extent& e);

// Named encodings: a concise alias of a complete record (`#ggml.q4_0`), printed in place of any
// record equal to it; other records print in the parameterised form `#loom.block_quant<...>`.
struct NamedEncoding {
  std::string_view name;  // without the '#'
  BlockQuant record;
};
const std::vector<NamedEncoding>& named_encodings();
std::string print_encoding(const BlockQuant& q);

}  // namespace loam::loom
