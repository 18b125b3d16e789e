// Elementwise math on float lanes: a scalar float or vec<float, N> (and double lanes, which go
// lane by lane through the C library).
//
// exp, log, tanh, erf, sigmoid, sin and cos on float lanes are branch-free polynomial code (range
// reduction, a minimax polynomial fitted for this file, selects and bit manipulation), so a vector
// instantiation compiles to straight-line SIMD code and every lane performs exactly the operations
// of the scalar instantiation: results are bitwise equal. No fused multiply-add is used, so results
// are also the same with and without FMA hardware.
//
// The error bounds quoted at each function were measured against the exact result (taken from the
// double-precision C library) over every float in the stated range.

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
#endif

namespace math {

namespace detail {

// The implementations are forced inline into the public functions below, which carry the same
// floating-point options, so a call to math::exp is one call (or none) rather than two.
#ifndef LOOM_MATH_INLINE
#define LOOM_MATH_INLINE inline __attribute__((always_inline))
#endif

template <class V> inline constexpr bool is_f32_lanes_v = std::is_same_v<element_t<V>, float>;
template <class V> inline constexpr bool is_f64_lanes_v = std::is_same_v<element_t<V>, double>;

template <class V> inline void check_float_lanes() {
  static_assert(is_f32_lanes_v<V> || is_f64_lanes_v<V>, "loom math needs float or double lanes");
}

// 2^k for integer lanes k in [-126, 127].
template <class V> LOOM_MATH_INLINE V pow2_f32(int_lanes_t<V> k) { return bitcast_lanes<V>((k + 127) << 23); }

// e^x = (hi + lo) * 2^n for x in [-104, 89] (no NaN), where hi + lo carries a few bits more than
// a float (hi near 1, |lo| < 0.1). x = n*ln2 + r_hi + r_lo with ln2 in two parts, the first short
// enough that n*ln2_hi and r_hi = x - n*ln2_hi are exact. e^r = 1 + r + r^2*q(r) with q a degree-4
// minimax fit on |r| <= 0.35; 1 + r_hi is split exactly into hi + err (Fast2Sum), so the only large
// rounding left is the final hi + lo.
template <class V> struct exp_split {
  V hi, lo;
  int_lanes_t<V> n;
};
template <class V> LOOM_MATH_INLINE exp_split<V> exp_split_f32(V x) {
  LOOM_NO_CONTRACT;
  using I = int_lanes_t<V>;
  const float shifter = 0x1.8p23f;  // adding it rounds |t| < 2^22 to an integer
  V t = x * 0x1.715476p+0f + shifter;
  V n = t - shifter;
  I ni = bitcast_lanes<I>(t) - 0x4B400000;  // the integer n
  V r_hi = x - n * 0x1.63p-1f;              // ln2_hi = 0.693359375
  V r_lo = n * 0x1.bd0106p-13f;             // -n * ln2_lo, ln2_lo = ln2 - ln2_hi < 0
  V r = r_hi + r_lo;
  V q = r * 0x1.6a1ae4p-10f + 0x1.123f84p-7f;
  q = q * r + 0x1.555914p-5f;
  q = q * r + 0x1.55548ap-3f;
  q = q * r + 0x1.fffffcp-2f;
  V small = r_lo + (r * r) * q;
  V u = 1.0f + r_hi;
  V u_err = r_hi - (u - 1.0f);  // exact, as |r_hi| < 1
  return {u, u_err + small, ni};
}

// e^x for x in [-104, 89] (no NaN): overflow gives +inf and underflow goes through the subnormals
// to +0. 2^n is applied in two steps so that n = 128 works and subnormal results round only once.
template <class V> LOOM_MATH_INLINE V exp_core_f32(V x) {
  LOOM_NO_CONTRACT;
  using I = int_lanes_t<V>;
  exp_split<V> e = exp_split_f32(x);
  I n1 = e.n >> 1;
  I n2 = e.n - n1;
  return ((e.hi + e.lo) * pow2_f32<V>(n1)) * pow2_f32<V>(n2);
}

template <class V> LOOM_MATH_INLINE V exp_f32(V x) {
  LOOM_NO_CONTRACT;
  // Clamping keeps n in range; the clamped ends still overflow to +inf and underflow to +0. A NaN
  // fails both comparisons, so it computes with 89 and is put back at the end.
  V xc = select_lanes<V>(lt_lanes(x, splat_lanes<V>(89.0f)), x, splat_lanes<V>(89.0f));
  xc = select_lanes<V>(gt_lanes(xc, splat_lanes<V>(-104.0f)), xc, splat_lanes<V>(-104.0f));
  return select_lanes<V>(isnan_lanes(x), x + x, exp_core_f32(xc));
}

// log(x): x = 2^k * m with m in [sqrt(1/2), sqrt(2)) (subnormals scaled by 2^23 first), f = m - 1
// exactly, log(1+f) = f - f^2/2 + f^3*p(f) with p a degree-7 minimax fit, plus k*ln2 in two parts.
template <class V> LOOM_MATH_INLINE V log_f32(V x) {
  LOOM_NO_CONTRACT;
  using I = int_lanes_t<V>;
  using U = uint_lanes_t<V>;
  auto sub = lt_lanes(x, splat_lanes<V>(0x1p-126f));
  V xs = select_lanes<V>(sub, x * 0x1p23f, x);
  U ux = bitcast_lanes<U>(xs) - 0x3F3504F3u;  // minus the bits of sqrt(1/2)
  I k = bitcast_lanes<I>(ux) >> 23;
  k = select_lanes<I>(sub, k - 23, k);
  V m = bitcast_lanes<V>((ux & 0x007FFFFFu) + 0x3F3504F3u);
  V f = m - 1.0f;
  V kf = convert_lanes<V>(k);
  V p = f * -0x1.38abe2p-4f + 0x1.05543ap-3f;
  p = p * f + -0x1.0d83a2p-3f;
  p = p * f + 0x1.22daf6p-3f;
  p = p * f + -0x1.547282p-3f;
  p = p * f + 0x1.99a002p-3f;
  p = p * f + -0x1.000226p-2f;
  p = p * f + 0x1.555554p-2f;
  V z = f * f;
  V y = f * (z * p);
  V lo = kf * -0x1.bd0106p-13f + (y - 0.5f * z);
  V r = (f + lo) + kf * 0x1.63p-1f;
  const V inf = splat_lanes<V>(std::numeric_limits<float>::infinity());
  r = select_lanes<V>(eq_lanes(x, splat_lanes<V>(0.0f)), -inf, r);
  r = select_lanes<V>(lt_lanes(x, splat_lanes<V>(0.0f)), splat_lanes<V>(std::numeric_limits<float>::quiet_NaN()), r);
  r = select_lanes<V>(eq_lanes(x, inf), inf, r);
  return select_lanes<V>(isnan_lanes(x), x + x, r);
}

// tanh on |x|: below 0.625, |x| + |x|^3*p(x^2) with p a degree-5 minimax fit; above,
// 1 - 2/(e^(2|x|) + 1); from 9.5 on the result is 1. The sign is copied from x.
template <class V> LOOM_MATH_INLINE V tanh_f32(V x) {
  LOOM_NO_CONTRACT;
  V a = abs_lanes(x);
  V z = a * a;
  V p = z * 0x1.18eaa4p-9f + -0x1.0bf74ep-7f;
  p = p * z + 0x1.638bccp-6f;
  p = p * z + -0x1.b9ee9ap-5f;
  p = p * z + 0x1.111066p-3f;
  p = p * z + -0x1.555554p-2f;
  V small = a + a * (z * p);
  V ac = select_lanes<V>(lt_lanes(a, splat_lanes<V>(9.5f)), a, splat_lanes<V>(9.5f));
  V e = exp_core_f32(ac + ac);
  V large = 1.0f - 2.0f / (e + 1.0f);
  V r = select_lanes<V>(lt_lanes(a, splat_lanes<V>(0.625f)), small, large);
  return select_lanes<V>(isnan_lanes(x), x + x, copysign_lanes(r, x));
}

// erf on |x|: up to 1, |x| + |x|*p(x^2) with p a degree-6 minimax fit of erf(x)/x - 1; from 1 to
// 3.95, 1 - e^l(|x|) with l a degree-7 minimax fit of log(erfc(x)); from 3.95 on the result is 1.
// The sign is copied from x.
template <class V> LOOM_MATH_INLINE V erf_f32(V x) {
  LOOM_NO_CONTRACT;
  V a = abs_lanes(x);
  V z = a * a;
  V p = z * 0x1.4969f0p-14f + -0x1.a3f656p-11f;
  p = p * z + 0x1.540580p-8f;
  p = p * z + -0x1.b7f902p-6f;
  p = p * z + 0x1.ce2cf6p-4f;
  p = p * z + -0x1.81273ep-2f;
  p = p * z + 0x1.06eba8p-3f;
  V small = a + a * p;
  V ac = select_lanes<V>(lt_lanes(a, splat_lanes<V>(3.95f)), a, splat_lanes<V>(3.95f));
  V l = ac * -0x1.6c065cp-16f + 0x1.ceeac6p-12f;
  l = l * ac + -0x1.1398ecp-8f;
  l = l * ac + 0x1.9d0bccp-6f;
  l = l * ac + -0x1.bc18ccp-4f;
  l = l * ac + -0x1.4434f0p-1f;
  l = l * ac + -0x1.212c2cp+0f;
  l = l * ac + 0x1.8b3e2ap-13f;
  V mid = 1.0f - exp_core_f32(l);
  V r = select_lanes<V>(le_lanes(a, splat_lanes<V>(1.0f)), small, mid);
  r = select_lanes<V>(ge_lanes(a, splat_lanes<V>(3.95f)), splat_lanes<V>(1.0f), r);
  return select_lanes<V>(isnan_lanes(x), x + x, copysign_lanes(r, x));
}

// 1/(1 + e^-x) = num/(1 + e) with e = e^-|x| and num = 1 for x >= 0, e for x < 0, so that neither
// side overflows and tiny results keep their precision. e comes as hi + lo from exp_split_f32 and
// the division is done in double lanes, so the result is rounded to float once.
template <class V> LOOM_MATH_INLINE V sigmoid_f32(V x) {
  LOOM_NO_CONTRACT;
  using D = with_element_t<V, double>;
  using I = int_lanes_t<V>;
  V a = abs_lanes(x);
  V ac = select_lanes<V>(lt_lanes(a, splat_lanes<V>(104.0f)), a, splat_lanes<V>(104.0f));  // NaN: 104
  exp_split<V> s = exp_split_f32(-ac);
  I n1 = s.n >> 1;
  I n2 = s.n - n1;
  D e = (convert_lanes<D>(s.hi) + convert_lanes<D>(s.lo)) * convert_lanes<D>(pow2_f32<V>(n1)) *
        convert_lanes<D>(pow2_f32<V>(n2));
  D num = select_lanes<D>(ge_lanes(convert_lanes<D>(x), splat_lanes<D>(0.0)), splat_lanes<D>(1.0), e);
  V r = convert_lanes<V>(num / (1.0 + e));
  return select_lanes<V>(isnan_lanes(x), x + x, r);
}

// sin (Cosine = false) or cos (Cosine = true), computed in double lanes: x = n*pi/2 + r with pi/2
// in three parts (the first two have 33 bits, so n*part is exact for |n| < 2^20), then a degree-9
// sin or degree-10 cos minimax polynomial chosen by the quadrant n mod 4, rounded to float once.
// That is exact enough to be almost always correctly rounded for |x| <= 2^20. Larger finite lanes
// take (float)std::sin((double)x) (or cos) lane by lane, only when a vector holds such a lane.
template <bool Cosine, class V> LOOM_MATH_INLINE V sincos_f32(V x) {
  LOOM_NO_CONTRACT;
  using D = with_element_t<V, double>;
  using U = uint_lanes_t<D>;
  D xd = convert_lanes<D>(x);
  const double shifter = 0x1.8p52;
  D t = xd * 0x1.45f306dc9c883p-1 + shifter;
  D n = t - shifter;
  U q = bitcast_lanes<U>(t) + (Cosine ? 1u : 0u);  // the low bits of t are n's low bits
  D r = xd - n * 0x1.921fb544p+0;
  r = r - n * 0x1.0b4611a6p-34;
  r = r - n * 0x1.3198a2e037073p-69;
  D z = r * r;
  D s = z * 0x1.6cb85682a2905p-19 + -0x1.a00f132546658p-13;
  s = s * z + 0x1.111107e36536bp-7;
  s = s * z + -0x1.5555554bb6a52p-3;
  s = r + (r * z) * s;
  D c = z * -0x1.240b44e7a11d1p-22 + 0x1.a0107fea5144fp-16;
  c = c * z + -0x1.6c16b797f17a9p-10;
  c = c * z + 0x1.5555554e4f3bfp-5;
  c = (1.0 - 0.5 * z) + (z * z) * c;
  D v = select_lanes<D>(ne_lanes(q & 1u, U{}), c, s);
  v = bitcast_lanes<D>(bitcast_lanes<U>(v) ^ ((q & 2u) << 62));
  V res = convert_lanes<V>(v);
  if constexpr (!Cosine) res = select_lanes<V>(eq_lanes(x, splat_lanes<V>(0.0f)), x, res);  // sin(-0) = -0
  V a = abs_lanes(x);
  auto big = and_masks(gt_lanes(a, splat_lanes<V>(0x1p20f)),
                       lt_lanes(a, splat_lanes<V>(std::numeric_limits<float>::infinity())));
  if (any_lanes(big)) {
    V slow = map_lanes(x, [](float u) {
      return Cosine ? static_cast<float>(std::cos(static_cast<double>(u)))
                    : static_cast<float>(std::sin(static_cast<double>(u)));
    });
    res = select_lanes<V>(big, slow, res);
  }
  return res;
}

}  // namespace detail

// e^x. Float lanes: max error 0.73 ulp; subnormal results within 0.79 of the subnormal spacing;
// x >= 88.72284 gives +inf, x <= -103.97208 gives +0.
template <class V> V exp(V x) {
  detail::check_float_lanes<V>();
  if constexpr (detail::is_f64_lanes_v<V>) return map_lanes(x, [](double u) { return std::exp(u); });
  else return detail::exp_f32(x);
}

// Natural logarithm. Float lanes: max error 0.91 ulp (subnormal inputs included); log(+-0) = -inf,
// log(x < 0) = NaN, log(+inf) = +inf.
template <class V> V log(V x) {
  detail::check_float_lanes<V>();
  if constexpr (detail::is_f64_lanes_v<V>) return map_lanes(x, [](double u) { return std::log(u); });
  else return detail::log_f32(x);
}

// Hyperbolic tangent. Float lanes: max error 1.35 ulp (near zero too: tiny x give x);
// tanh(+-0) = +-0, |x| >= 9.5 gives +-1 exactly.
template <class V> V tanh(V x) {
  detail::check_float_lanes<V>();
  if constexpr (detail::is_f64_lanes_v<V>) return map_lanes(x, [](double u) { return std::tanh(u); });
  else return detail::tanh_f32(x);
}

// Error function. Float lanes: max error 1.32 ulp (near zero too, subnormal results within 0.51
// of the subnormal spacing); erf(+-0) = +-0, |x| >= 3.95 gives +-1 exactly.
template <class V> V erf(V x) {
  detail::check_float_lanes<V>();
  if constexpr (detail::is_f64_lanes_v<V>) return map_lanes(x, [](double u) { return std::erf(u); });
  else return detail::erf_f32(x);
}

// Logistic function 1/(1 + e^-x). Float lanes: max error 0.70 ulp (subnormal results within 0.55
// of the subnormal spacing); sigmoid(-inf) = +0, sigmoid(+inf) = 1, never NaN for non-NaN input.
template <class V> V sigmoid(V x) {
  LOOM_NO_CONTRACT;
  detail::check_float_lanes<V>();
  if constexpr (detail::is_f64_lanes_v<V>) {
    V e = map_lanes(-abs_lanes(x), [](double u) { return std::exp(u); });
    V d = 1.0 + e;
    return select_lanes<V>(ge_lanes(x, splat_lanes<V>(0.0)), 1.0 / d, e / d);
  } else {
    return detail::sigmoid_f32(x);
  }
}

// Sine and cosine. Float lanes: max error 0.5001 ulp over all finite floats (|x| > 2^20 through
// the C library's double sin / cos); sin(+-inf) = cos(+-inf) = NaN, sin(-0) = -0.
template <class V> V sin(V x) {
  detail::check_float_lanes<V>();
  if constexpr (detail::is_f64_lanes_v<V>) return map_lanes(x, [](double u) { return std::sin(u); });
  else return detail::sincos_f32<false>(x);
}
template <class V> V cos(V x) {
  detail::check_float_lanes<V>();
  if constexpr (detail::is_f64_lanes_v<V>) return map_lanes(x, [](double u) { return std::cos(u); });
  else return detail::sincos_f32<true>(x);
}

// x^y. Float lanes: std::pow in double, rounded to float (within 0.5 ulp plus a hair).
template <class V> V pow(V x, V y) {
  detail::check_float_lanes<V>();
  if constexpr (detail::is_f64_lanes_v<V>) {
    return map_lanes(x, y, [](double a, double b) { return std::pow(a, b); });
  } else {
    return map_lanes(x, y, [](float a, float b) {
      return static_cast<float>(std::pow(static_cast<double>(a), static_cast<double>(b)));
    });
  }
}

// The rest go lane by lane through the C library's float or double function.
template <class V> V tan(V x) {
  detail::check_float_lanes<V>();
  return map_lanes(x, [](element_t<V> u) { return std::tan(u); });
}
template <class V> V asin(V x) {
  detail::check_float_lanes<V>();
  return map_lanes(x, [](element_t<V> u) { return std::asin(u); });
}
template <class V> V acos(V x) {
  detail::check_float_lanes<V>();
  return map_lanes(x, [](element_t<V> u) { return std::acos(u); });
}
template <class V> V atan(V x) {
  detail::check_float_lanes<V>();
  return map_lanes(x, [](element_t<V> u) { return std::atan(u); });
}
template <class V> V sinh(V x) {
  detail::check_float_lanes<V>();
  return map_lanes(x, [](element_t<V> u) { return std::sinh(u); });
}
template <class V> V cosh(V x) {
  detail::check_float_lanes<V>();
  return map_lanes(x, [](element_t<V> u) { return std::cosh(u); });
}
template <class V> V asinh(V x) {
  detail::check_float_lanes<V>();
  return map_lanes(x, [](element_t<V> u) { return std::asinh(u); });
}
template <class V> V acosh(V x) {
  detail::check_float_lanes<V>();
  return map_lanes(x, [](element_t<V> u) { return std::acosh(u); });
}
template <class V> V atanh(V x) {
  detail::check_float_lanes<V>();
  return map_lanes(x, [](element_t<V> u) { return std::atanh(u); });
}
template <class V> V log1p(V x) {
  return map_lanes(x, [](element_t<V> v) { return std::log1p(v); });
}
template <class V> V expm1(V x) {
  return map_lanes(x, [](element_t<V> v) { return std::expm1(v); });
}

}  // namespace math

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif
