// f16 and bf16 as storage types: they carry bits and no arithmetic. A tensor of either crosses the
// module boundary; forward widens it to f32 on the way in (exactly: every f16 and bf16 value is an
// f32 value) and narrows results on the way out, rounding to the nearest even as IEEE 754 does.

struct Half {
  std::uint16_t bits = 0;

  static constexpr Half from_bits(std::uint16_t b) { Half h; h.bits = b; return h; }

  // Exact: subnormal halves become normal floats.
  static constexpr float widen(Half h) {
    const std::uint32_t sign = static_cast<std::uint32_t>(h.bits & 0x8000u) << 16;
    const std::uint32_t exponent = (h.bits >> 10) & 0x1Fu;
    std::uint32_t mantissa = h.bits & 0x3FFu;
    std::uint32_t out;
    if (exponent == 0x1Fu) {
      out = sign | 0x7F800000u | (mantissa << 13);  // inf, or NaN with its payload kept
    } else if (exponent != 0) {
      out = sign | ((exponent + 112u) << 23) | (mantissa << 13);
    } else if (mantissa == 0) {
      out = sign;
    } else {
      // Subnormal: shift the leading 1 up to the implicit bit.
      std::uint32_t e = 113;
      while ((mantissa & 0x400u) == 0) { mantissa <<= 1; --e; }
      out = sign | (e << 23) | ((mantissa & 0x3FFu) << 13);
    }
    return std::bit_cast<float>(out);
  }

  // Round to nearest, ties to even; overflow goes to infinity; NaN stays NaN (quiet).
  static constexpr Half narrow(float value) {
    const std::uint32_t f = std::bit_cast<std::uint32_t>(value);
    const std::uint16_t sign = static_cast<std::uint16_t>((f >> 16) & 0x8000u);
    const std::uint32_t abs = f & 0x7FFFFFFFu;
    if (abs > 0x7F800000u) return from_bits(static_cast<std::uint16_t>(sign | 0x7E00u | ((abs >> 13) & 0x1FFu)));
    if (abs >= 0x477FF000u) return from_bits(static_cast<std::uint16_t>(sign | 0x7C00u));  // rounds past 65504
    if (abs < 0x38800000u) {
      // Result is subnormal or zero: value / 2^-24, rounded to nearest even.
      if (abs < 0x33000000u) return from_bits(sign);  // below half the smallest subnormal
      const std::uint32_t exponent = abs >> 23;
      const std::uint32_t mantissa = (abs & 0x7FFFFFu) | 0x800000u;
      const std::uint32_t shift = 126u - exponent;  // 14..24 for this range
      std::uint32_t q = mantissa >> shift;
      const std::uint32_t rem = mantissa & ((1u << shift) - 1u);
      const std::uint32_t halfway = 1u << (shift - 1u);
      if (rem > halfway || (rem == halfway && (q & 1u))) ++q;
      return from_bits(static_cast<std::uint16_t>(sign | q));
    }
    std::uint32_t rebased = abs - (112u << 23);  // exponent rebased to f16's bias
    const std::uint32_t rem = rebased & 0x1FFFu;
    std::uint32_t q = rebased >> 13;
    if (rem > 0x1000u || (rem == 0x1000u && (q & 1u))) ++q;  // a carry into the exponent is correct
    return from_bits(static_cast<std::uint16_t>(sign | q));
  }

  friend constexpr bool operator==(Half, Half) = default;
};

struct BFloat16 {
  std::uint16_t bits = 0;

  static constexpr BFloat16 from_bits(std::uint16_t b) { BFloat16 h; h.bits = b; return h; }

  static constexpr float widen(BFloat16 h) {
    return std::bit_cast<float>(static_cast<std::uint32_t>(h.bits) << 16);
  }

  static constexpr BFloat16 narrow(float value) {
    const std::uint32_t f = std::bit_cast<std::uint32_t>(value);
    if ((f & 0x7FFFFFFFu) > 0x7F800000u) return from_bits(static_cast<std::uint16_t>((f >> 16) | 0x0040u));
    const std::uint32_t rounded = f + 0x7FFFu + ((f >> 16) & 1u);
    return from_bits(static_cast<std::uint16_t>(rounded >> 16));
  }

  friend constexpr bool operator==(BFloat16, BFloat16) = default;
};
