// The module's own fixed declarations (beside the runtime's): reading tensors out of bytes, and the
// integer divisions forward's extents use; Weights::load reads a checkpoint with the runtime's
// SafetensorsView. Printed inside the module namespace after the runtime. Every name declared here
// is in module_fixed_names() (reserved.cpp).
#pragma once

namespace loam::emit {

inline constexpr const char* kModuleFixedText = R"loam_fixed(
// ---- module support: tensors from bytes, floor and ceiling division
static_assert(std::endian::native == std::endian::little, "a Loam module reads little-endian bytes");

template <class E, class L>
Tensor<E, L> loam_tensor_from_bytes(const typename Tensor<E, L>::Extents& extents, const void* bytes) {
  auto t = Tensor<E, L>::uninitialized(extents);
  if (t.count() > 0) std::memcpy(t.data(), bytes, sizeof(E) * static_cast<std::size_t>(t.count()));
  return t;
}

inline std::int64_t loam_floor_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
inline std::int64_t loam_ceil_div(std::int64_t a, std::int64_t b) { return -loam_floor_div(-a, b); }

// sum += coeff * the factors' product, unless a step passes int64 (then false, sum undefined).
inline bool loam_checked_add_term(std::int64_t& sum, std::int64_t coeff, std::initializer_list<std::int64_t> factors) {
  std::int64_t term = coeff;
  for (std::int64_t f : factors)
    if (__builtin_mul_overflow(term, f, &term)) return false;
  return !__builtin_add_overflow(sum, term, &sum);
}
)loam_fixed";

}  // namespace loam::emit
