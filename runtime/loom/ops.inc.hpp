// What emitted kernels call beyond lane arithmetic: the checks that stop a run, memory access,
// the narrow float formats held as float lanes, integer payload operations, float comparisons,
// masks, masked memory and reductions. The interpreter defines each of these operations once more
// in Loom's own terms; tests hold the two to the same bits.
//
// Pasted inside a namespace chosen by the includer, possibly twice in one translation unit.

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
#endif

// ---- refusals at run time --------------------------------------------------------------------------

// A check that fails stops the program: the message names the file, line, op and values. A host
// may define LOOM_ON_FAIL(message) to act first (log, or throw out of the kernel).
[[noreturn]] inline void fail(const char* what) {
#ifdef LOOM_ON_FAIL
  LOOM_ON_FAIL(what);
#endif
  std::fputs("loom: ", stderr);
  std::fputs(what, stderr);
  std::fputc('\n', stderr);
  std::abort();
}

// A caller's promise (index.assume, buffer.assume.align): trusted, or with LOOM_CHECK_ASSUMES
// defined, checked like any other condition.
LOOM_LANE_INLINE void assume(bool holds, const char* what) {
#ifdef LOOM_CHECK_ASSUMES
  if (!holds) fail(what);
#else
  if (!holds) __builtin_unreachable();
  (void)what;
#endif
}

// ---- address arithmetic that never wraps ---------------------------------------------------------------

LOOM_LANE_INLINE std::int64_t index_add(std::int64_t a, std::int64_t b, const char* what) {
  std::int64_t r;
  if (__builtin_add_overflow(a, b, &r)) [[unlikely]] fail(what);
  return r;
}
LOOM_LANE_INLINE std::int64_t index_sub(std::int64_t a, std::int64_t b, const char* what) {
  std::int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) [[unlikely]] fail(what);
  return r;
}
LOOM_LANE_INLINE std::int64_t index_mul(std::int64_t a, std::int64_t b, const char* what) {
  std::int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) [[unlikely]] fail(what);
  return r;
}
LOOM_LANE_INLINE std::int64_t index_div(std::int64_t a, std::int64_t b, const char* what) {
  if (b == 0 || (b == -1 && a == std::numeric_limits<std::int64_t>::min())) [[unlikely]] fail(what);
  return a / b;
}
LOOM_LANE_INLINE std::int64_t index_rem(std::int64_t a, std::int64_t b, const char* what) {
  if (b == 0) [[unlikely]] fail(what);
  return b == -1 ? 0 : a % b;
}
LOOM_LANE_INLINE std::int64_t index_madd(std::int64_t a, std::int64_t b, std::int64_t c, const char* what) {
  std::int64_t p, r;
  if (__builtin_mul_overflow(a, b, &p) || __builtin_add_overflow(p, c, &r)) [[unlikely]] fail(what);
  return r;
}
LOOM_LANE_INLINE std::uint64_t offset_add(std::uint64_t a, std::uint64_t b, const char* what) {
  std::uint64_t r;
  if (__builtin_add_overflow(a, b, &r)) [[unlikely]] fail(what);
  return r;
}
LOOM_LANE_INLINE std::uint64_t offset_sub(std::uint64_t a, std::uint64_t b, const char* what) {
  std::uint64_t r;
  if (__builtin_sub_overflow(a, b, &r)) [[unlikely]] fail(what);
  return r;
}
LOOM_LANE_INLINE std::uint64_t offset_mul(std::uint64_t a, std::uint64_t b, const char* what) {
  std::uint64_t r;
  if (__builtin_mul_overflow(a, b, &r)) [[unlikely]] fail(what);
  return r;
}
LOOM_LANE_INLINE std::uint64_t offset_div(std::uint64_t a, std::uint64_t b, const char* what) {
  if (b == 0) [[unlikely]] fail(what);
  return a / b;
}
LOOM_LANE_INLINE std::uint64_t offset_rem(std::uint64_t a, std::uint64_t b, const char* what) {
  if (b == 0) [[unlikely]] fail(what);
  return a % b;
}
LOOM_LANE_INLINE std::uint64_t offset_madd(std::uint64_t a, std::uint64_t b, std::uint64_t c, const char* what) {
  std::uint64_t p, r;
  if (__builtin_mul_overflow(a, b, &p) || __builtin_add_overflow(p, c, &r)) [[unlikely]] fail(what);
  return r;
}
// index.cast: the value, if it lies in [lo, hi]; never a wrapped one.
LOOM_LANE_INLINE std::int64_t cast_signed(std::int64_t v, long long lo, long long hi, const char* what) {
  if (v < lo || v > hi) [[unlikely]] fail(what);
  return v;
}
LOOM_LANE_INLINE std::uint64_t cast_unsigned(std::uint64_t v, long long, long long hi, const char* what) {
  if (v > static_cast<std::uint64_t>(hi)) [[unlikely]] fail(what);
  return v;
}

// ---- memory ------------------------------------------------------------------------------------

// Whether two byte ranges share no byte (an empty one shares none).
LOOM_LANE_INLINE bool disjoint(const std::byte* a, std::uint64_t a_bytes, const std::byte* b, std::uint64_t b_bytes) {
  const auto x = reinterpret_cast<std::uintptr_t>(a), y = reinterpret_cast<std::uintptr_t>(b);
  return a_bytes == 0 || b_bytes == 0 || x + a_bytes <= y || y + b_bytes <= x;
}

template <class T> LOOM_LANE_INLINE T load(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class T> LOOM_LANE_INLINE void store(std::byte* p, T v) { std::memcpy(p, &v, sizeof v); }

// The byte stride of a dense dimension: the next one's stride times the next extent.
inline std::uint64_t dense_stride(std::uint64_t next, std::int64_t extent, const char* what) {
  if (extent < 0) [[unlikely]] fail(what);
  std::uint64_t r;
  if (__builtin_mul_overflow(next, extent == 0 ? std::uint64_t{1} : static_cast<std::uint64_t>(extent), &r)) [[unlikely]] fail(what);
  return r;
}

// buffer.view: every extent non-negative, and every element inside the buffer's bytes.
inline void check_view(std::uint64_t bytes, std::uint64_t base, int rank, const std::int64_t* dims, const std::uint64_t* strides,
                       std::uint64_t element, const char* what) {
  unsigned __int128 span = element;
  bool empty = false;
  for (int k = 0; k < rank; ++k) {
    if (dims[k] < 0) [[unlikely]] fail(what);
    if (dims[k] == 0) empty = true;
    else span += static_cast<unsigned __int128>(dims[k] - 1) * strides[k];
  }
  if (empty) span = 0;
  if (static_cast<unsigned __int128>(base) + span > bytes) [[unlikely]] fail(what);
}

// A tensor parameter's bytes hold its extents (dense, or in blocks of `block` elements).
inline bool tensor_fits(std::uint64_t bytes, int rank, const std::int64_t* dims, std::uint64_t element, std::int64_t block,
                        std::int64_t block_bytes) {
  unsigned __int128 count = 1;
  for (int k = 0; k < rank; ++k) {
    if (dims[k] < 0) return false;
    count *= static_cast<std::uint64_t>(dims[k]);
    if (count > (static_cast<unsigned __int128>(1) << 62)) return false;
  }
  if (block > 0) {
    if (rank == 0 || dims[rank - 1] % block != 0) return false;
    return count / static_cast<std::uint64_t>(block) * static_cast<std::uint64_t>(block_bytes) <= bytes;
  }
  return count * element <= bytes;
}

// The signed code of element j of row `row` of a block-quantised tensor, as payload bits T.
template <class T>
LOOM_LANE_INLINE T block_code(const std::byte* data, std::uint64_t row, std::int64_t last, std::uint64_t j, int block, int bits, int zero,
                              int scale_bytes) {
  const std::uint64_t per_row = static_cast<std::uint64_t>(last) / static_cast<std::uint64_t>(block);
  const std::uint64_t b = row * per_row + j / static_cast<std::uint64_t>(block);
  const int within = static_cast<int>(j % static_cast<std::uint64_t>(block));
  const std::byte* codes = data + b * static_cast<std::uint64_t>(scale_bytes + block * bits / 8) + scale_bytes;
  int code;
  if (bits == 8) {
    code = static_cast<int>(codes[within]);
  } else {
    const int byte = static_cast<int>(codes[within % (block / 2)]);
    code = within < block / 2 ? (byte & 15) : (byte >> 4);
  }
  return static_cast<T>(static_cast<std::int64_t>(code - zero));
}

// Vector access along a dimension of `extent`: lanes [i, i + n) all inside it.
LOOM_LANE_INLINE bool lanes_fit(std::int64_t i, std::int64_t extent, std::int64_t n) { return i >= 0 && extent >= n && i <= extent - n; }

// ---- the narrow float formats, held as float lanes -----------------------------------------------------
// A value of f16, bf16 or an f8 format lives in a float (exactly); each operation computes in f32
// and rounds its result back to the format: round_FMT. widen_FMT reads stored bits, bits_FMT gives
// them back.

// bfloat16 widens by a shift, which would keep a signalling NaN; Loom's narrow NaNs are quiet.
LOOM_LANE_INLINE float bf16_to_f32_quiet(std::uint16_t bits) {
  const bool nan = (bits & 0x7F80u) == 0x7F80u && (bits & 0x7Fu) != 0;
  return bf16_to_f32(nan ? std::uint16_t(bits | 0x40u) : bits);
}
LOOM_LANE_INLINE float f16_to_f32_quiet(std::uint16_t bits) { return f16_to_f32(bits); }
LOOM_LANE_INLINE float f8e4m3_to_f32_quiet(std::uint8_t bits) { return f8e4m3_to_f32(bits); }
LOOM_LANE_INLINE float f8e5m2_to_f32_quiet(std::uint8_t bits) { return f8e5m2_to_f32(bits); }

#define LOOM_NARROW_FORMAT(fmt, Bits)                                                              \
  template <class V> LOOM_LANE_INLINE auto round_##fmt(V x) {                                       \
    if constexpr (is_vector_v<V>) {                                                                \
      with_element_t<V, float> r = {};                                                             \
      for (int i = 0; i < lane_count_v<V>; ++i) r[i] = fmt##_to_f32(fmt##_from_f64(double(x[i])));  \
      return r;                                                                                    \
    } else {                                                                                       \
      return fmt##_to_f32(fmt##_from_f64(double(x)));                                              \
    }                                                                                              \
  }                                                                                                \
  template <class V> LOOM_LANE_INLINE auto widen_##fmt(V bits) {                                    \
    if constexpr (is_vector_v<V>) {                                                                \
      with_element_t<V, float> r = {};                                                             \
      for (int i = 0; i < lane_count_v<V>; ++i) r[i] = fmt##_to_f32_quiet(Bits(bits[i]));          \
      return r;                                                                                    \
    } else {                                                                                       \
      return fmt##_to_f32_quiet(Bits(bits));                                                       \
    }                                                                                              \
  }                                                                                                \
  template <class V> LOOM_LANE_INLINE auto bits_##fmt(V x) {                                        \
    if constexpr (is_vector_v<V>) {                                                                \
      with_element_t<V, Bits> r = {};                                                              \
      for (int i = 0; i < lane_count_v<V>; ++i) r[i] = fmt##_from_f64(double(x[i]));               \
      return r;                                                                                    \
    } else {                                                                                       \
      return fmt##_from_f64(double(x));                                                            \
    }                                                                                              \
  }                                                                                                \
  template <class V> LOOM_LANE_INLINE V narrow_fma_##fmt(V a, V b, V c) {                          \
    using D = with_element_t<V, double>;                                                           \
    return round_##fmt(fma_lanes(convert_lanes<D>(a), convert_lanes<D>(b), convert_lanes<D>(c)));   \
  }

// The f8 formats' conversions take a saturation flag; these wrap them without it.
LOOM_LANE_INLINE std::uint8_t f8e4m3_from_f64(double d) { return f8e4m3_from_f64(d, false); }
LOOM_LANE_INLINE std::uint8_t f8e5m2_from_f64(double d) { return f8e5m2_from_f64(d, false); }

LOOM_NARROW_FORMAT(f16, std::uint16_t)
LOOM_NARROW_FORMAT(bf16, std::uint16_t)
LOOM_NARROW_FORMAT(f8e4m3, std::uint8_t)
LOOM_NARROW_FORMAT(f8e5m2, std::uint8_t)
#undef LOOM_NARROW_FORMAT

template <class V> LOOM_LANE_INLINE auto round_f8e4m3_sat(V x) {
  if constexpr (is_vector_v<V>) {
    with_element_t<V, float> r = {};
    for (int i = 0; i < lane_count_v<V>; ++i) r[i] = f8e4m3_to_f32(f8e4m3_from_f64(double(x[i]), true));
    return r;
  } else {
    return f8e4m3_to_f32(f8e4m3_from_f64(double(x), true));
  }
}
template <class V> LOOM_LANE_INLINE auto round_f8e5m2_sat(V x) {
  if constexpr (is_vector_v<V>) {
    with_element_t<V, float> r = {};
    for (int i = 0; i < lane_count_v<V>; ++i) r[i] = f8e5m2_to_f32(f8e5m2_from_f64(double(x[i]), true));
    return r;
  } else {
    return f8e5m2_to_f32(f8e5m2_from_f64(double(x), true));
  }
}

// An integer as a double rounded to odd: exact below 2^53; above, the bits dropped are OR'd into
// the last one kept, so rounding that double once more to a narrower float (at most 51 bits)
// rounds the integer itself correctly, with no double rounding.
template <class T> LOOM_LANE_INLINE double int_to_double_odd(T v) {
  using U = std::make_unsigned_t<T>;
  const bool negative = std::is_signed_v<T> && v < T(0);
  U m = negative ? U(U(0) - U(v)) : U(v);
  int shift = 0;
  if constexpr (sizeof(T) == 8) {
    const int width = std::bit_width(std::uint64_t(m));
    if (width > 53) {
      shift = width - 53;
      const bool dropped = (m & ((U(1) << shift) - 1)) != 0;
      m >>= shift;
      if (dropped) m |= 1;
    }
  }
  const double d = std::ldexp(static_cast<double>(m), shift);
  return negative ? -d : d;
}
template <class V> LOOM_LANE_INLINE auto int_lanes_to_double_odd(V v) {
  if constexpr (is_vector_v<V>) {
    with_element_t<V, double> r = {};
    for (int i = 0; i < lane_count_v<V>; ++i) r[i] = int_to_double_odd(v[i]);
    return r;
  } else {
    return int_to_double_odd(v);
  }
}

// C's fmod, lane by lane: exact.
template <class V> LOOM_LANE_INLINE V fmod_lanes(V a, V b) {
  return map_lanes(a, b, [](element_t<V> x, element_t<V> y) { return std::fmod(x, y); });
}

// Toward zero to an integer T, saturating at T's limits; NaN gives 0. The result is the payload
// as Loom holds it (unsigned lanes of T's width).
template <class T, class V> LOOM_LANE_INLINE auto fp_to_int_sat(V x) {
  using U = std::make_unsigned_t<T>;
  auto one = [](double d) -> U {
    if (d != d) return 0;
    const double t = std::trunc(d);
    constexpr int n = static_cast<int>(sizeof(T) * 8);
    if constexpr (std::is_signed_v<T>) {
      if (t <= -std::ldexp(1.0, n - 1)) return static_cast<U>(std::numeric_limits<T>::min());
      if (t >= std::ldexp(1.0, n - 1)) return static_cast<U>(std::numeric_limits<T>::max());
      return static_cast<U>(static_cast<T>(t));
    } else {
      if (t <= 0) return 0;
      if (t >= std::ldexp(1.0, n)) return std::numeric_limits<U>::max();
      return static_cast<U>(t);
    }
  };
  if constexpr (is_vector_v<V>) {
    with_element_t<V, U> r = {};
    for (int i = 0; i < lane_count_v<V>; ++i) r[i] = one(double(x[i]));
    return r;
  } else {
    return one(double(x));
  }
}

// ---- integer payloads ------------------------------------------------------------------------------
// Payloads are held in unsigned lanes of their width; a signed reading reinterprets the lanes.

template <class V> LOOM_LANE_INLINE auto as_signed(V x) { return bitcast_lanes<int_lanes_t<V>>(x); }

template <class V> LOOM_LANE_INLINE V minsi(V a, V b) { return select_lanes(mask_t<V>(lt_lanes(as_signed(a), as_signed(b))), a, b); }
template <class V> LOOM_LANE_INLINE V maxsi(V a, V b) { return select_lanes(mask_t<V>(lt_lanes(as_signed(a), as_signed(b))), b, a); }
template <class V> LOOM_LANE_INLINE V minui(V a, V b) { return select_lanes(mask_t<V>(lt_lanes(a, b)), a, b); }
template <class V> LOOM_LANE_INLINE V maxui(V a, V b) { return select_lanes(mask_t<V>(lt_lanes(a, b)), b, a); }

template <class V, class F> LOOM_LANE_INLINE V int_lanes(V a, V b, F f) {
  if constexpr (is_vector_v<V>) {
    V r = {};
    for (int i = 0; i < lane_count_v<V>; ++i) r[i] = f(a[i], b[i]);
    return r;
  } else {
    return f(a, b);
  }
}

template <class V> LOOM_LANE_INLINE V shli(V a, V b) {
  using T = element_t<V>;
  return int_lanes(a, b, [](T x, T y) -> T { return y >= sizeof(T) * 8 ? T(0) : T(std::uint64_t(x) << y); });
}
template <class V> LOOM_LANE_INLINE V shrui(V a, V b) {
  using T = element_t<V>;
  return int_lanes(a, b, [](T x, T y) -> T { return y >= sizeof(T) * 8 ? T(0) : T(x >> y); });
}
template <class V> LOOM_LANE_INLINE V shrsi(V a, V b) {
  using T = element_t<V>;
  using S = std::make_signed_t<T>;
  return int_lanes(a, b, [](T x, T y) -> T {
    const unsigned s = y >= sizeof(T) * 8 ? unsigned(sizeof(T) * 8 - 1) : unsigned(y);
    return T(S(x) >> s);
  });
}
template <class V> LOOM_LANE_INLINE V divui(V a, V b, const char* what) {
  using T = element_t<V>;
  return int_lanes(a, b, [what](T x, T y) -> T {
    if (y == 0) fail(what);
    return T(x / y);
  });
}
template <class V> LOOM_LANE_INLINE V remui(V a, V b, const char* what) {
  using T = element_t<V>;
  return int_lanes(a, b, [what](T x, T y) -> T {
    if (y == 0) fail(what);
    return T(x % y);
  });
}
template <class V> LOOM_LANE_INLINE V divsi(V a, V b, const char* what) {
  using T = element_t<V>;
  using S = std::make_signed_t<T>;
  return int_lanes(a, b, [what](T x, T y) -> T {
    if (y == 0 || (S(y) == -1 && S(x) == std::numeric_limits<S>::min())) fail(what);
    return T(std::int64_t(S(x)) / std::int64_t(S(y)));
  });
}
template <class V> LOOM_LANE_INLINE V remsi(V a, V b, const char* what) {
  using T = element_t<V>;
  using S = std::make_signed_t<T>;
  return int_lanes(a, b, [what](T x, T y) -> T {
    if (y == 0) fail(what);
    if (S(y) == -1) return T(0);
    return T(std::int64_t(S(x)) % std::int64_t(S(y)));
  });
}

// ---- masks: a vector<N x i1> is held as vec<int32_t, N> with lanes -1 or 0 ---------------------------

template <class M> LOOM_LANE_INLINE auto to_mask(M m) {
  if constexpr (is_vector_v<M>) return __builtin_convertvector(m, vec<std::int32_t, lane_count_v<M>>);
  else return bool(m);
}
template <class V, class M> LOOM_LANE_INLINE V select_mask(M m, V a, V b) {
  return select_lanes(__builtin_convertvector(m, mask_t<V>), a, b);
}
template <class M> LOOM_LANE_INLINE auto mask_bytes(M m) { return __builtin_convertvector(m & 1, vec<std::uint8_t, lane_count_v<M>>); }
template <class M> LOOM_LANE_INLINE M prefix_mask(std::int64_t count) {
  M m = {};
  for (int i = 0; i < lane_count_v<M>; ++i) m[i] = i < count ? -1 : 0;
  return m;
}
// Every set lane l of a masked access at i lies inside [0, extent).
template <class M> LOOM_LANE_INLINE bool masked_lanes_fit(std::int64_t i, std::int64_t extent, M m) {
  for (int l = 0; l < lane_count_v<M>; ++l)
    if (m[l] && (i < 0 || l >= extent || i > extent - 1 - l)) return false;
  return true;
}
template <class V, class M> LOOM_LANE_INLINE V masked_load(const std::byte* data, std::uint64_t offset, M m, V passthru) {
  using T = element_t<V>;
  V r = passthru;
  for (int l = 0; l < lane_count_v<V>; ++l)
    if (m[l]) r[l] = load<T>(data + offset + std::uint64_t(l) * sizeof(T));
  return r;
}
template <class M, class V> LOOM_LANE_INLINE void masked_store(std::byte* data, std::uint64_t offset, M m, V v) {
  using T = element_t<V>;
  for (int l = 0; l < lane_count_v<V>; ++l)
    if (m[l]) store<T>(data + offset + std::uint64_t(l) * sizeof(T), v[l]);
}

// ---- float comparisons: ordered (false on NaN) and unordered (true on NaN) -------------------------------

#define LOOM_CMPF(name, expr)                                                           \
  template <class V> LOOM_LANE_INLINE auto cmpf_##name(V a, V b) {                        \
    LOOM_NO_CONTRACT;                                                                     \
    if constexpr (is_vector_v<V>) {                                                       \
      using M = mask_t<V>;                                                                \
      const M lt = lt_lanes(a, b), gt = gt_lanes(a, b), eq = eq_lanes(a, b);              \
      const M un = M(isnan_lanes(a) | isnan_lanes(b));                                    \
      (void)lt, (void)gt, (void)eq, (void)un;                                             \
      return to_mask(M(expr));                                                            \
    } else {                                                                              \
      const int lt = a < b, gt = a > b, eq = a == b, un = (a != a) || (b != b);          \
      (void)lt, (void)gt, (void)eq, (void)un;                                             \
      return bool((expr) & 1);                                                            \
    }                                                                                     \
  }
LOOM_CMPF(oeq, eq)
LOOM_CMPF(one, lt | gt)
LOOM_CMPF(olt, lt)
LOOM_CMPF(ole, lt | eq)
LOOM_CMPF(ogt, gt)
LOOM_CMPF(oge, gt | eq)
LOOM_CMPF(ord, ~un)
LOOM_CMPF(ueq, un | eq)
LOOM_CMPF(une, ~eq)
LOOM_CMPF(ult, un | lt)
LOOM_CMPF(ule, un | lt | eq)
LOOM_CMPF(ugt, un | gt)
LOOM_CMPF(uge, un | gt | eq)
LOOM_CMPF(uno, un)
#undef LOOM_CMPF

// ---- reductions -----------------------------------------------------------------------------------------
// The order Loom defines: lanes past the largest power of two P fold onto the first ones, then each
// step folds the upper half onto the lower half.
template <class V, class F> LOOM_LANE_INLINE auto reduce_lanes(V v, F step) {
  using T = element_t<V>;
  constexpr int n = lane_count_v<V>;
  T lane[n];
  for (int i = 0; i < n; ++i) lane[i] = v[i];
  int p = 1;
  while (p * 2 <= n) p *= 2;
  for (int i = p; i < n; ++i) lane[i - p] = step(lane[i - p], lane[i]);
  for (int w = p; w > 1; w /= 2)
    for (int i = 0; i < w / 2; ++i) lane[i] = step(lane[i], lane[i + w / 2]);
  return lane[0];
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif
