// The narrow float formats as bit patterns: IEEE binary16 (f16), bfloat16 (bf16), and the OCP 8-bit
// formats E4M3 (ONNX float8e4m3fn) and E5M2 (ONNX float8e5m2).
//
// Widening to f32 is exact. Narrowing starts from a double (every float converts to double exactly,
// so callers holding a float widen it first) and rounds once, to nearest, ties to even; rounding
// through float first would round twice and be wrong for some doubles. Everything is integer code,
// so it is constexpr and independent of the floating-point environment.

// Magnitude bits of the finite, non-negative double with bits `abs_bits`, rounded to a format with
// `mant_bits` stored mantissa bits and exponent bias `bias` (subnormals included). The result may
// exceed the format's largest finite pattern (the caller decides what overflow means); it is the
// pattern that an unbounded exponent field would give.
constexpr std::uint32_t narrow_round_magnitude(std::uint64_t abs_bits, int mant_bits, int bias) {
  const int biased = int(abs_bits >> 52);
  if (biased == 0) return 0;  // zero or a double subnormal: below half of every format's smallest value
  const int e = biased - 1023;
  const std::uint64_t m = (abs_bits & 0x000FFFFFFFFFFFFFull) | (1ull << 52);
  const int emin = 1 - bias;
  const int shift = 52 - mant_bits + (e < emin ? emin - e : 0);
  if (shift >= 54) return 0;  // below half of the smallest subnormal
  std::uint64_t keep = m >> shift;
  const std::uint64_t rem = m & ((1ull << shift) - 1);
  const std::uint64_t half = 1ull << (shift - 1);
  if (rem > half || (rem == half && (keep & 1))) keep += 1;  // a carry moves into the exponent field
  const int efield = e < emin ? 0 : e - emin;
  return std::uint32_t((std::uint64_t(efield) << mant_bits) + keep);
}

// ---- IEEE binary16 -----------------------------------------------------------------------------------

// NaN gets its quiet bit set (keeping sign and payload), as the F16C conversions do.
constexpr float f16_to_f32(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
  const std::uint32_t e = (h >> 10) & 0x1Fu;
  const std::uint32_t m = h & 0x3FFu;
  std::uint32_t bits;
  if (e == 0x1F) {
    bits = 0x7F800000u | (m << 13) | (m != 0 ? 0x00400000u : 0u);
  } else if (e != 0) {
    bits = ((e + 112) << 23) | (m << 13);
  } else if (m == 0) {
    bits = 0;
  } else {  // subnormal: m * 2^-24, renormalised
    const int w = std::bit_width(m);
    bits = (std::uint32_t(w + 102) << 23) | ((m << (24 - w)) & 0x7FFFFFu);
  }
  return std::bit_cast<float>(sign | bits);
}

// Overflow gives +-inf; NaN gives a quiet NaN keeping the sign and the top payload bits.
constexpr std::uint16_t f16_from_f64(double d) {
  const std::uint64_t b = std::bit_cast<std::uint64_t>(d);
  const std::uint16_t sign = std::uint16_t((b >> 48) & 0x8000u);
  const std::uint64_t a = b & 0x7FFFFFFFFFFFFFFFull;
  if (a > 0x7FF0000000000000ull) return std::uint16_t(sign | 0x7E00u | ((a >> 42) & 0x3FFu));
  if (a == 0x7FF0000000000000ull) return std::uint16_t(sign | 0x7C00u);
  std::uint32_t mag = narrow_round_magnitude(a, 10, 15);
  if (mag > 0x7BFFu) mag = 0x7C00u;
  return std::uint16_t(sign | mag);
}

// ---- bfloat16 -----------------------------------------------------------------------------------------

// The top half of an f32, so widening is a shift (NaN payloads are kept as they are).
constexpr float bf16_to_f32(std::uint16_t h) { return std::bit_cast<float>(std::uint32_t(h) << 16); }

// Overflow gives +-inf; NaN gives a quiet NaN keeping the sign and the top payload bits.
constexpr std::uint16_t bf16_from_f64(double d) {
  const std::uint64_t b = std::bit_cast<std::uint64_t>(d);
  const std::uint16_t sign = std::uint16_t((b >> 48) & 0x8000u);
  const std::uint64_t a = b & 0x7FFFFFFFFFFFFFFFull;
  if (a > 0x7FF0000000000000ull) return std::uint16_t(sign | 0x7FC0u | ((a >> 45) & 0x7Fu));
  if (a == 0x7FF0000000000000ull) return std::uint16_t(sign | 0x7F80u);
  std::uint32_t mag = narrow_round_magnitude(a, 7, 127);
  if (mag > 0x7F7Fu) mag = 0x7F80u;
  return std::uint16_t(sign | mag);
}

// ---- OCP FP8 E4M3 (float8e4m3fn): bias 7, no infinities, NaN = S.1111.111, max finite 448 ------------

constexpr float f8e4m3_to_f32(std::uint8_t v) {
  const std::uint32_t sign = std::uint32_t(v & 0x80u) << 24;
  const std::uint32_t e = (v >> 3) & 0xFu;
  const std::uint32_t m = v & 0x7u;
  std::uint32_t bits;
  if ((v & 0x7Fu) == 0x7Fu) {
    bits = 0x7FC00000u;
  } else if (e != 0) {
    bits = ((e + 120) << 23) | (m << 20);
  } else if (m == 0) {
    bits = 0;
  } else {  // subnormal: m * 2^-9
    const int w = std::bit_width(m);
    bits = (std::uint32_t(w + 117) << 23) | ((m << (24 - w)) & 0x7FFFFFu);
  }
  return std::bit_cast<float>(sign | bits);
}

// ONNX Cast semantics: a value whose rounded magnitude exceeds 448, or an infinity, becomes +-448
// with `saturate` and NaN (0x7F / 0xFF by sign) without. NaN gives NaN.
constexpr std::uint8_t f8e4m3_from_f64(double d, bool saturate) {
  const std::uint64_t b = std::bit_cast<std::uint64_t>(d);
  const std::uint8_t sign = std::uint8_t((b >> 56) & 0x80u);
  const std::uint64_t a = b & 0x7FFFFFFFFFFFFFFFull;
  if (a > 0x7FF0000000000000ull) return std::uint8_t(sign | 0x7Fu);
  std::uint32_t mag = a == 0x7FF0000000000000ull ? 0xFFu : narrow_round_magnitude(a, 3, 7);
  if (mag > 0x7Eu) mag = saturate ? 0x7Eu : 0x7Fu;
  return std::uint8_t(sign | mag);
}

// ---- OCP FP8 E5M2 (float8e5m2): IEEE-like, bias 15, +-inf, NaNs, max finite 57344 -------------------

// NaN gets its quiet bit set (keeping sign and payload), as for f16.
constexpr float f8e5m2_to_f32(std::uint8_t v) {
  const std::uint32_t sign = std::uint32_t(v & 0x80u) << 24;
  const std::uint32_t e = (v >> 2) & 0x1Fu;
  const std::uint32_t m = v & 0x3u;
  std::uint32_t bits;
  if (e == 0x1F) {
    bits = 0x7F800000u | (m << 21) | (m != 0 ? 0x00400000u : 0u);
  } else if (e != 0) {
    bits = ((e + 112) << 23) | (m << 21);
  } else if (m == 0) {
    bits = 0;
  } else {  // subnormal: m * 2^-16
    const int w = std::bit_width(m);
    bits = (std::uint32_t(w + 110) << 23) | ((m << (24 - w)) & 0x7FFFFFu);
  }
  return std::bit_cast<float>(sign | bits);
}

// ONNX Cast semantics: overflow, and an infinity, become +-57344 with `saturate` and +-inf without.
// NaN gives a quiet NaN keeping the sign and the top payload bit.
constexpr std::uint8_t f8e5m2_from_f64(double d, bool saturate) {
  const std::uint64_t b = std::bit_cast<std::uint64_t>(d);
  const std::uint8_t sign = std::uint8_t((b >> 56) & 0x80u);
  const std::uint64_t a = b & 0x7FFFFFFFFFFFFFFFull;
  if (a > 0x7FF0000000000000ull) return std::uint8_t(sign | 0x7Eu | ((a >> 50) & 0x1u));
  std::uint32_t mag = a == 0x7FF0000000000000ull ? 0xFFu : narrow_round_magnitude(a, 2, 15);
  if (mag > 0x7Bu) mag = saturate ? 0x7Bu : 0x7Cu;
  return std::uint8_t(sign | mag);
}
