// Lane types and lane-generic helpers. Every helper takes either a scalar (one lane) or a GCC
// vector-extension type vec<T, N> and performs the same IEEE operations on each lane, so a scalar
// call and a vector call give bitwise-equal lanes.
//
// Pasted inside a namespace chosen by the includer (possibly twice in one translation unit, in two
// namespaces), so macros are guarded and everything else is a template or inline.

// The code relies on IEEE semantics: rounding tricks such as (x + 2^23) - 2^23, NaN tests, signed
// zeros. -ffast-math and -ffinite-math-only would silently break them (and -fassociative-math, which
// defines no macro to test, must not be used either).
#if defined(__FAST_MATH__) || (defined(__FINITE_MATH_ONLY__) && __FINITE_MATH_ONLY__)
#error "the Loom runtime needs IEEE floating-point semantics: do not build it with -ffast-math"
#endif

// Floating-point contraction (a*b+c fused into one rounding) would make a scalar build and a vector
// build round differently. GCC: the pragma below applies to every function in this file, whatever
// -ffp-contract says. Clang: LOOM_NO_CONTRACT is the first statement of each function body that
// does float arithmetic; clang's -ffp-contract=fast overrides it, so clang builds must keep the
// default (on) or use off.
#ifndef LOOM_NO_CONTRACT
#if defined(__clang__)
#define LOOM_NO_CONTRACT _Pragma("clang fp contract(off)")
#else
#define LOOM_NO_CONTRACT
#endif
#endif

// Small helpers are forced inline so that they also inline into callers compiled with other
// floating-point options (GCC does not inline a function carrying an optimize attribute into a
// caller whose options differ, unless it is always_inline). None of them multiplies, so the
// caller's contraction setting cannot change their results.
#ifndef LOOM_LANE_INLINE
#define LOOM_LANE_INLINE inline __attribute__((always_inline))
#endif

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
#endif

template <class T, int N> struct vec_of { typedef T type __attribute__((vector_size(sizeof(T) * N))); };
template <class T, int N> using vec = typename vec_of<T, N>::type;

// ---- traits ---------------------------------------------------------------------------------------

template <class V> struct lane_info {
  using element = V;
  static constexpr int count = 1;
  static constexpr bool is_vector = false;
};
template <class V>
  requires requires(V& v) { v[0]; }
struct lane_info<V> {
  using element = std::remove_cvref_t<decltype(std::declval<V&>()[0])>;
  static constexpr int count = int(sizeof(V) / sizeof(element));
  static constexpr bool is_vector = true;
};

template <int Bytes> struct lane_int_of;
template <> struct lane_int_of<1> { using type = std::int8_t; using utype = std::uint8_t; };
template <> struct lane_int_of<2> { using type = std::int16_t; using utype = std::uint16_t; };
template <> struct lane_int_of<4> { using type = std::int32_t; using utype = std::uint32_t; };
template <> struct lane_int_of<8> { using type = std::int64_t; using utype = std::uint64_t; };

template <class V> using element_t = typename lane_info<V>::element;
template <class V> inline constexpr int lane_count_v = lane_info<V>::count;
template <class V> inline constexpr bool is_vector_v = lane_info<V>::is_vector;

template <class V, class U, bool IsVector = is_vector_v<V>> struct with_element { using type = U; };
template <class V, class U> struct with_element<V, U, true> { using type = vec<U, lane_count_v<V>>; };
// Same lane count as V, element U (for a scalar V: U itself).
template <class V, class U> using with_element_t = typename with_element<V, U>::type;

// Signed / unsigned integer lanes of the same width as V's elements.
template <class V> using int_lanes_t = with_element_t<V, typename lane_int_of<sizeof(element_t<V>)>::type>;
template <class V> using uint_lanes_t = with_element_t<V, typename lane_int_of<sizeof(element_t<V>)>::utype>;

// A comparison result: bool for a scalar; for vec<T, N> a vec of signed integers as wide as T with
// lanes 0 (false) or -1 (true), which is what GCC vector comparisons give.
template <class V, bool IsVector = is_vector_v<V>> struct mask_of { using type = bool; };
template <class V> struct mask_of<V, true> { using type = int_lanes_t<V>; };
template <class V> using mask_t = typename mask_of<V>::type;

// ---- construction and conversion --------------------------------------------------------------------

template <class V> LOOM_LANE_INLINE constexpr V splat_lanes(element_t<V> x) {
  if constexpr (!is_vector_v<V>) {
    return x;
  } else {
    V r = {};
    for (int i = 0; i < lane_count_v<V>; ++i) r[i] = x;
    return r;
  }
}

// Reinterpret the bits (same total size).
template <class To, class From> LOOM_LANE_INLINE constexpr To bitcast_lanes(From x) {
  static_assert(sizeof(To) == sizeof(From), "bitcast_lanes needs equal sizes");
  return __builtin_bit_cast(To, x);
}

// Value conversion per lane (C++ conversion rules; float to integer truncates toward zero and must
// be in range).
template <class To, class From> LOOM_LANE_INLINE constexpr To convert_lanes(From x) {
  static_assert(lane_count_v<To> == lane_count_v<From>, "convert_lanes needs equal lane counts");
  if constexpr (!is_vector_v<From>) {
    return static_cast<To>(x);
  } else {
    return __builtin_convertvector(x, To);
  }
}

// ---- masks ----------------------------------------------------------------------------------------

// The widest vector the target has registers for. GCC splits arithmetic on wider vectors into
// register-sized pieces by itself, but lowers comparisons and ?: on them lane by lane in scalar
// code, so the helpers below split such vectors into halves explicitly.
#if defined(__AVX512F__)
inline constexpr int native_vector_bytes = 64;
#elif defined(__AVX__)
inline constexpr int native_vector_bytes = 32;
#else
inline constexpr int native_vector_bytes = 16;
#endif

template <class V> inline constexpr bool wider_than_native_v = is_vector_v<V> && (sizeof(V) > native_vector_bytes);

template <class V> struct lane_halves {
  using half = vec<element_t<V>, lane_count_v<V> / 2>;
  struct type {
    half lo, hi;
  };
};
template <int... I> struct lane_index_list {};
template <int N, int... I> struct make_lane_index_list : make_lane_index_list<N - 1, N - 1, I...> {};
template <int... I> struct make_lane_index_list<0, I...> {
  using type = lane_index_list<I...>;
};
template <class V, int... I> LOOM_LANE_INLINE typename lane_halves<V>::type split_lanes(V v, lane_index_list<I...>) {
  return {__builtin_shufflevector(v, v, I...), __builtin_shufflevector(v, v, (I + int(sizeof...(I)))...)};
}
// The low and high halves of a vector, and back.
template <class V> LOOM_LANE_INLINE typename lane_halves<V>::type split_lanes(V v) {
  return split_lanes(v, typename make_lane_index_list<lane_count_v<V> / 2>::type{});
}
template <class V, class H, int... I> LOOM_LANE_INLINE V join_lanes(H lo, H hi, lane_index_list<I...>) {
  return __builtin_shufflevector(lo, hi, I...);
}
template <class V> LOOM_LANE_INLINE V join_lanes(typename lane_halves<V>::half lo, typename lane_halves<V>::half hi) {
  return join_lanes<V>(lo, hi, typename make_lane_index_list<lane_count_v<V>>::type{});
}

// lane = m ? a : b. Vector ?: compares m with zero, which SSE2 cannot do for 64-bit lanes and
// which GCC does lane by lane on vectors wider than the target's; a bitwise blend (m is all ones
// or all zeros per lane) needs no comparison and splits well, so ?: is kept for native AVX widths.
template <class V> LOOM_LANE_INLINE V select_lanes(mask_t<V> m, V a, V b) {
  if constexpr (!is_vector_v<V>) {
    return m ? a : b;
  } else {
#if defined(__AVX__)
    if constexpr (!wider_than_native_v<V>) return m ? a : b;
#endif
    using M = mask_t<V>;
    return bitcast_lanes<V>(M((bitcast_lanes<M>(a) & m) | (bitcast_lanes<M>(b) & ~m)));
  }
}

#define LOOM_LANES_COMPARE(name, op)                                               \
  template <class V> LOOM_LANE_INLINE mask_t<V> name(V a, V b) {                   \
    if constexpr (wider_than_native_v<V>) {                                        \
      auto ah = split_lanes(a);                                                    \
      auto bh = split_lanes(b);                                                    \
      return join_lanes<mask_t<V>>(name(ah.lo, bh.lo), name(ah.hi, bh.hi));        \
    } else {                                                                       \
      return mask_t<V>(a op b);                                                    \
    }                                                                              \
  }
LOOM_LANES_COMPARE(eq_lanes, ==)
LOOM_LANES_COMPARE(ne_lanes, !=)
LOOM_LANES_COMPARE(lt_lanes, <)
LOOM_LANES_COMPARE(le_lanes, <=)
LOOM_LANES_COMPARE(gt_lanes, >)
LOOM_LANES_COMPARE(ge_lanes, >=)
#undef LOOM_LANES_COMPARE
// Same as lt_lanes.
template <class V> LOOM_LANE_INLINE mask_t<V> less_lanes(V a, V b) { return lt_lanes(a, b); }
// True where the lane is a NaN.
template <class V> LOOM_LANE_INLINE mask_t<V> isnan_lanes(V a) { return ne_lanes(a, a); }

// Boolean operations on masks (on a scalar bool, ~ and & would not do).
template <class M> LOOM_LANE_INLINE M and_masks(M a, M b) {
  if constexpr (std::is_same_v<M, bool>) return a && b; else return a & b;
}
template <class M> LOOM_LANE_INLINE M or_masks(M a, M b) {
  if constexpr (std::is_same_v<M, bool>) return a || b; else return a | b;
}
template <class M> LOOM_LANE_INLINE M not_mask(M a) {
  if constexpr (std::is_same_v<M, bool>) return !a; else return ~a;
}

template <class M> LOOM_LANE_INLINE bool any_lanes(M m) {
  if constexpr (std::is_same_v<M, bool>) {
    return m;
  } else {
    element_t<M> acc = 0;
    for (int i = 0; i < lane_count_v<M>; ++i) acc |= m[i];
    return acc != 0;
  }
}
template <class M> LOOM_LANE_INLINE bool all_lanes(M m) {
  if constexpr (std::is_same_v<M, bool>) {
    return m;
  } else {
    element_t<M> acc = -1;
    for (int i = 0; i < lane_count_v<M>; ++i) acc &= m[i];
    return acc != 0;
  }
}

// ---- per-lane application ---------------------------------------------------------------------------

// Apply a scalar function to each lane (for the functions that are library calls).
template <class V, class F> LOOM_LANE_INLINE V map_lanes(V v, F f) {
  if constexpr (!is_vector_v<V>) {
    return static_cast<V>(f(v));
  } else {
    V r = {};
    for (int i = 0; i < lane_count_v<V>; ++i) r[i] = static_cast<element_t<V>>(f(v[i]));
    return r;
  }
}
template <class V, class F> LOOM_LANE_INLINE V map_lanes(V a, V b, F f) {
  if constexpr (!is_vector_v<V>) {
    return static_cast<V>(f(a, b));
  } else {
    V r = {};
    for (int i = 0; i < lane_count_v<V>; ++i) r[i] = static_cast<element_t<V>>(f(a[i], b[i]));
    return r;
  }
}

// The NaN that an operation with NaN operands a, b (in that order of preference) returns: the
// first NaN operand, quieted. Hardware picks among NaN operands by register order, which the
// compiler may swap, so operations that can see two NaNs use this instead.
template <class V> LOOM_LANE_INLINE V first_nan_lanes(V a, V b) {
  LOOM_NO_CONTRACT;
  V n = select_lanes<V>(isnan_lanes(a), a, b);
  return n + n;
}

// a*b+c rounded once. With FMA hardware (-march=native here) GCC 12 -O2 turns the lane loop for
// vec<float, 8> / vec<float, 16> into a single vfmadd (plus the NaN fix-up below); without it each
// lane is a call to fmaf / fma, which is exact but slow, which is why the math functions do not use
// it. A NaN operand gives the first NaN of a, b, c, quieted.
template <class V> LOOM_LANE_INLINE V fma_lanes(V a, V b, V c) {
  using T = element_t<V>;
  static_assert(std::is_floating_point_v<T>, "fma_lanes needs float lanes");
  V r = {};
  if constexpr (!is_vector_v<V>) {
    if constexpr (std::is_same_v<T, float>) r = __builtin_fmaf(a, b, c);
    else r = __builtin_fma(a, b, c);
  } else {
    for (int i = 0; i < lane_count_v<V>; ++i) {
      if constexpr (std::is_same_v<T, float>) r[i] = __builtin_fmaf(a[i], b[i], c[i]);
      else r[i] = __builtin_fma(a[i], b[i], c[i]);
    }
  }
  auto nan_in = or_masks(or_masks(isnan_lanes(a), isnan_lanes(b)), isnan_lanes(c));
  return select_lanes<V>(nan_in, first_nan_lanes(a, first_nan_lanes(b, c)), r);
}

// ---- sign, min, max ------------------------------------------------------------------------------

// |x|. Float lanes: clears the sign bit (NaN stays NaN). Integer lanes: wraps for the minimum.
template <class V> LOOM_LANE_INLINE V abs_lanes(V x) {
  using T = element_t<V>;
  if constexpr (std::is_floating_point_v<T>) {
    using U = uint_lanes_t<V>;
    using UT = element_t<U>;
    return bitcast_lanes<V>(bitcast_lanes<U>(x) & UT(~(UT(1) << (sizeof(T) * 8 - 1))));
  } else {
    using U = uint_lanes_t<V>;
    U u = bitcast_lanes<U>(x);
    return select_lanes<V>(lt_lanes(x, splat_lanes<V>(T(0))), bitcast_lanes<V>(U(U{} - u)), x);
  }
}

// The magnitude of mag with the sign bit of sgn (float lanes).
template <class V> LOOM_LANE_INLINE V copysign_lanes(V mag, V sgn) {
  using T = element_t<V>;
  using U = uint_lanes_t<V>;
  using UT = element_t<U>;
  static_assert(std::is_floating_point_v<T>, "copysign_lanes needs float lanes");
  const UT sign = UT(1) << (sizeof(T) * 8 - 1);
  return bitcast_lanes<V>((bitcast_lanes<U>(mag) & UT(~sign)) | (bitcast_lanes<U>(sgn) & sign));
}

// IEEE 754-2019 minimum / maximum on float lanes: NaN if either operand is NaN (a's if it is one,
// else b's, quieted), and -0 < +0. Integer lanes: plain min / max.
template <class V> LOOM_LANE_INLINE V min_lanes(V a, V b) {
  LOOM_NO_CONTRACT;
  using T = element_t<V>;
  if constexpr (std::is_floating_point_v<T>) {
    using U = uint_lanes_t<V>;
    V r = select_lanes<V>(lt_lanes(a, b), a, b);
    // Equal lanes: OR of the bits picks -0 out of {+0, -0} and is a no-op otherwise.
    r = select_lanes<V>(eq_lanes(a, b), bitcast_lanes<V>(bitcast_lanes<U>(a) | bitcast_lanes<U>(b)), r);
    return select_lanes<V>(or_masks(isnan_lanes(a), isnan_lanes(b)), first_nan_lanes(a, b), r);
  } else {
    return select_lanes<V>(lt_lanes(a, b), a, b);
  }
}
template <class V> LOOM_LANE_INLINE V max_lanes(V a, V b) {
  LOOM_NO_CONTRACT;
  using T = element_t<V>;
  if constexpr (std::is_floating_point_v<T>) {
    using U = uint_lanes_t<V>;
    V r = select_lanes<V>(gt_lanes(a, b), a, b);
    // Equal lanes: AND of the bits picks +0 out of {+0, -0} and is a no-op otherwise.
    r = select_lanes<V>(eq_lanes(a, b), bitcast_lanes<V>(bitcast_lanes<U>(a) & bitcast_lanes<U>(b)), r);
    return select_lanes<V>(or_masks(isnan_lanes(a), isnan_lanes(b)), first_nan_lanes(a, b), r);
  } else {
    return select_lanes<V>(gt_lanes(a, b), a, b);
  }
}

// ---- rounding to integral values (float lanes) -----------------------------------------------------
// Exact, branch-free, bitwise equal to std::nearbyint / floor / ceil / trunc in the default rounding
// mode (NaN in gives a quiet NaN out, as std does). Adding and subtracting 2^p (p = mantissa bits)
// rounds |x| < 2^p to an integer, half to even; |x| >= 2^p is already integral.

template <class V> LOOM_LANE_INLINE V round_even_lanes(V x) {
  LOOM_NO_CONTRACT;
  using T = element_t<V>;
  static_assert(std::is_floating_point_v<T>, "round_even_lanes needs float lanes");
  const T big = T(std::numeric_limits<T>::digits == 24 ? 0x1p23 : 0x1p52);
  V a = abs_lanes(x);
  V r = copysign_lanes((a + big) - big, x);
  return select_lanes<V>(lt_lanes(a, splat_lanes<V>(big)), r, x + T(0));
}
template <class V> LOOM_LANE_INLINE V floor_lanes(V x) {
  LOOM_NO_CONTRACT;
  using T = element_t<V>;
  V r = round_even_lanes(x);  // carries x's sign, so floor(-0) = -0 and floor(-0.3) = -0 - 1 = -1
  return select_lanes<V>(gt_lanes(r, x), r - T(1), r);
}
template <class V> LOOM_LANE_INLINE V ceil_lanes(V x) {
  LOOM_NO_CONTRACT;
  using T = element_t<V>;
  V r = round_even_lanes(x);
  r = select_lanes<V>(lt_lanes(r, x), r + T(1), r);
  return copysign_lanes(r, x);  // ceil(-0.7) = -0
}
template <class V> LOOM_LANE_INLINE V trunc_lanes(V x) {
  LOOM_NO_CONTRACT;
  using T = element_t<V>;
  V a = abs_lanes(x);
  V r = round_even_lanes(a);
  r = select_lanes<V>(gt_lanes(r, a), r - T(1), r);
  return copysign_lanes(r, x);
}

// Correctly rounded square root per lane. The lane loop becomes vsqrtps / vsqrtpd only when the
// translation unit is built with -fno-math-errno (otherwise each lane keeps its errno check);
// the result is the same either way.
template <class V> LOOM_LANE_INLINE V sqrt_lanes(V x) {
  using T = element_t<V>;
  static_assert(std::is_floating_point_v<T>, "sqrt_lanes needs float lanes");
  if constexpr (!is_vector_v<V>) {
    if constexpr (std::is_same_v<T, float>) return __builtin_sqrtf(x);
    else return __builtin_sqrt(x);
  } else {
    V r = {};
    for (int i = 0; i < lane_count_v<V>; ++i) {
      if constexpr (std::is_same_v<T, float>) r[i] = __builtin_sqrtf(x[i]);
      else r[i] = __builtin_sqrt(x[i]);
    }
    return r;
  }
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif
