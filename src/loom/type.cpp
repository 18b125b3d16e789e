#include "loom/type.hpp"

#include <array>

#include "loom/ir.hpp"
#include "loom/loom_rt.hpp"

namespace loam::loom {

namespace {
struct ScalarInfo {
  Scalar scalar;
  std::string_view name;
  int bits;
};
constexpr std::array<ScalarInfo, 13> kScalars{{
    {Scalar::Index, "index", 0},    {Scalar::Offset, "offset", 0}, {Scalar::I1, "i1", 1},
    {Scalar::I8, "i8", 8},          {Scalar::I16, "i16", 16},      {Scalar::I32, "i32", 32},
    {Scalar::I64, "i64", 64},       {Scalar::F8E4M3, "f8E4M3", 8}, {Scalar::F8E5M2, "f8E5M2", 8},
    {Scalar::F16, "f16", 16},       {Scalar::BF16, "bf16", 16},    {Scalar::F32, "f32", 32},
    {Scalar::F64, "f64", 64},
}};
}  // namespace

std::string_view scalar_name(Scalar s) { return kScalars[static_cast<std::size_t>(s)].name; }

std::optional<Scalar> scalar_from_name(std::string_view name) {
  for (const auto& info : kScalars)
    if (info.name == name) return info.scalar;
  return std::nullopt;
}

int scalar_bits(Scalar s) { return kScalars[static_cast<std::size_t>(s)].bits; }

int scalar_bytes(Scalar s) {
  if (is_address(s)) return 0;
  if (s == Scalar::I1) return 1;  // a stored i1 takes a byte holding 0 or 1
  return scalar_bits(s) / 8;
}

double float_value(std::uint64_t bits, Scalar type) {
  switch (type) {
    case Scalar::F64: return std::bit_cast<double>(bits);
    case Scalar::F32: return std::bit_cast<float>(static_cast<std::uint32_t>(bits));
    case Scalar::F16: return loom_rt::f16_to_f32(static_cast<std::uint16_t>(bits));
    case Scalar::BF16: return loom_rt::bf16_to_f32(static_cast<std::uint16_t>(bits));
    case Scalar::F8E4M3: return loom_rt::f8e4m3_to_f32(static_cast<std::uint8_t>(bits));
    case Scalar::F8E5M2: return loom_rt::f8e5m2_to_f32(static_cast<std::uint8_t>(bits));
    default: return 0;
  }
}

std::uint64_t float_bits(double value, Scalar type, bool saturate) {
  switch (type) {
    case Scalar::F64: return std::bit_cast<std::uint64_t>(value);
    case Scalar::F32: return std::bit_cast<std::uint32_t>(static_cast<float>(value));
    case Scalar::F16: return loom_rt::f16_from_f64(value);
    case Scalar::BF16: return loom_rt::bf16_from_f64(value);
    case Scalar::F8E4M3: return loom_rt::f8e4m3_from_f64(value, saturate);
    case Scalar::F8E5M2: return loom_rt::f8e5m2_from_f64(value, saturate);
    default: return 0;
  }
}

std::uint64_t quiet_narrow_nan(std::uint64_t bits, Scalar type) {
  switch (type) {
    case Scalar::F16: return (bits & 0x7C00) == 0x7C00 && (bits & 0x3FF) ? bits | 0x200 : bits;
    case Scalar::BF16: return (bits & 0x7F80) == 0x7F80 && (bits & 0x7F) ? bits | 0x40 : bits;
    case Scalar::F8E5M2: return (bits & 0x7C) == 0x7C && (bits & 0x3) ? bits | 0x2 : bits;
    default: return bits;
  }
}

std::string_view kind_name(TypeKind k) {
  switch (k) {
    case TypeKind::Scalar: return "scalar";
    case TypeKind::Tensor: return "tensor";
    case TypeKind::Tile: return "tile";
    case TypeKind::Vector: return "vector";
    case TypeKind::View: return "view";
    case TypeKind::Buffer: return "buffer";
  }
  return "?";
}

std::int64_t BlockQuant::block_bytes() const {
  return scalar_bytes(scale) + static_cast<std::int64_t>(block) * bits / 8;
}

Type Type::scalar(Scalar s) {
  Type t;
  t.kind_ = TypeKind::Scalar;
  t.element_ = s;
  return t;
}

Type Type::buffer() {
  Type t;
  t.kind_ = TypeKind::Buffer;
  return t;
}

Type Type::shaped(TypeKind kind, std::vector<Extent> dims, Scalar element, Attachment attachment) {
  Type t;
  t.kind_ = kind;
  t.element_ = element;
  t.dims_ = std::move(dims);
  t.attachment_ = std::move(attachment);
  return t;
}

Type Type::with_element(Scalar s) const {
  Type t = *this;
  t.element_ = s;
  if (t.kind_ == TypeKind::Vector) t.attachment_ = {};
  return t;
}

std::string print_extent(const Extent& e) {
  if (e.dynamic()) return "[%" + e.value->name + "]";
  return std::to_string(e.size);
}

const std::vector<NamedEncoding>& named_encodings() {
  static const std::vector<NamedEncoding> names{
      {"ggml.q4_0", BlockQuant{32, 4, 8, Scalar::F16}},
  };
  return names;
}

std::string print_encoding(const BlockQuant& q) {
  for (const auto& n : named_encodings())
    if (n.record == q) return "#" + std::string(n.name);
  return "#loom.block_quant<block = " + std::to_string(q.block) + ", bits = " + std::to_string(q.bits) +
         ", zero = " + std::to_string(q.zero) + ", scale = " + std::string(scalar_name(q.scale)) + ">";
}

std::string print_type(const Type& t) {
  if (t.is_scalar()) return std::string(scalar_name(t.element()));
  if (t.is_buffer()) return "buffer";
  std::string s(kind_name(t.kind()));
  s += '<';
  for (const auto& d : t.dims()) s += print_extent(d) + "x";
  s += scalar_name(t.element());
  const Attachment& a = t.attachment();
  if (a.encoding) s += ", " + print_encoding(*a.encoding);
  if (a.layout) {
    s += ", #strided<";
    for (std::size_t i = 0; i < a.layout->strides.size(); ++i) {
      if (i) s += 'x';
      s += print_extent(a.layout->strides[i]);
    }
    s += '>';
  }
  s += '>';
  return s;
}

}  // namespace loam::loom
