// Single-precision matrix product C = alpha * A B (+ C) (+ row bias) (+ column bias) (relu), the one
// path every contraction takes: MatMul, Gemm and Conv (through im2col). A register-tiled
// microkernel computes a tile of SGEMM_MR rows by SGEMM_NR columns, blocked over K so a strip of B
// stays in L1 and a block of A in L2. On x86-64 the microkernel is AVX2+FMA (4 x 24: twelve
// accumulators, three loads of B and four broadcasts of A per step), or where AVX-512 is present
// 8 x 48, two strips at once (three 16-lane accumulators a row: 24 of the 32 registers, three
// loads of B and eight broadcasts a step, every lane of every FMA used; a product's last columns
// through lane masks) and 8 x 24 for a strip left over (a 16-lane and an 8-lane accumulator a
// row), chosen at run time; elsewhere a portable loop computes the same tile.
//
// Operands are read through strides, so a row-major, a transposed and a packed operand are one
// code path. A weight is packed once, when the weights load (PackedMatrix, PackedConv): panels of
// SGEMM_NR columns of B, or SGEMM_MR rows of A, zero-padded, so a call copies no constant.

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("O2", "tree-vectorize", "vect-cost-model=dynamic", "no-tree-loop-distribute-patterns")
#endif

// The rows of a product's result as its kernel finishes them, for the generated kernel a fusion plan
// runs on them while they are still in cache (a fused epilogue: RowEpilogue, cpu_boundary.inc.hpp).
// Row r is the kernel's work item r: N columns of a matrix product, a (batch, channel) plane of a
// convolution. The product kernel says where its result lies and how many rows it has (`hold`),
// then reports each run of rows it has finished, each row once, from whichever thread finished them
// (`run` is called on disjoint runs of rows at once).
struct RowSink {
  void (*run)(const RowSink&, std::int64_t first, std::int64_t count) = nullptr;
  const void* epilogue = nullptr;  // what `run` reads: the kernel, its extents and other operands
  std::byte* out = nullptr;        // the epilogue's result
  std::uint64_t out_bytes = 0;
  const std::byte* product = nullptr;  // the product's result, the epilogue's first operand
  std::uint64_t product_bytes = 0;
  std::int64_t rows = 0;  // the product's rows
  std::atomic<std::int64_t> done{0};  // rows finished so far

  void hold(const float* result, std::int64_t count, std::int64_t row_count) {
    product = reinterpret_cast<const std::byte*>(result);
    product_bytes = static_cast<std::uint64_t>(count) * sizeof(float);
    rows = row_count;
  }
  void finished(std::int64_t first, std::int64_t count) {
    if (count <= 0) return;
    run(*this, first, count);
    done.fetch_add(count, std::memory_order_relaxed);
  }
};

struct Sgemm {
  static constexpr std::int64_t MR = 4;
  static constexpr std::int64_t NR = 24;
  static constexpr std::int64_t KC = 256;
  static constexpr std::int64_t MC = 128;

  // Element (i, k) of A: data[(i / MR) * panel_stride + (i % MR) * row_stride + k * col_stride].
  struct AOperand {
    const float* data;
    std::int64_t row_stride;
    std::int64_t col_stride;
    std::int64_t panel_stride;
    static AOperand row_major(const float* a, std::int64_t lda) { return {a, lda, 1, MR * lda}; }
    static AOperand transposed(const float* a, std::int64_t lda) { return {a, 1, lda, MR}; }  // A^T stored [K][M]
  };

  // Element (k, j) of B: data[(j / NR) * panel_stride + k * row_stride + (j % NR)]; the NR
  // columns of a panel are contiguous. `padded`: every panel holds NR columns (zeros past N).
  // Or, where `rows` is set, row k of B starts at rows[k] (an implicit im2col: each row is a
  // shifted view of one padded input plane); NR columns past the last are readable.
  struct BOperand {
    const float* data;
    std::int64_t row_stride;
    std::int64_t panel_stride;
    bool padded;
    const float* const* rows = nullptr;
    static BOperand row_major(const float* b, std::int64_t ldb) { return {b, ldb, NR, false, nullptr}; }
    static BOperand indirect(const float* const* rows) { return {nullptr, 0, NR, true, rows}; }
  };

  struct Epilogue {
    float alpha = 1.0f;
    bool accumulate = false;            // add to what C holds (Gemm's beta * C, written first)
    const float* row_bias = nullptr;    // one per row of C (a Conv's bias)
    const float* col_bias = nullptr;    // one per column of C (a MatMul's bias)
    bool relu = false;
    RowSink* rows = nullptr;            // told of each block of rows of C once it is final
    std::int64_t row_offset = 0;        // row 0 of C as the sink counts rows
  };

  // Packs B (K x N, element (k, j) at b[k * rs + j * cs]) into padded NR-column panels.
  static std::int64_t packed_b_size(std::int64_t k, std::int64_t n) { return ((n + NR - 1) / NR) * NR * k; }
  static void pack_b(const float* b, std::int64_t rs, std::int64_t cs, std::int64_t k, std::int64_t n, float* out) {
    const std::int64_t panels = (n + NR - 1) / NR;
    for (std::int64_t p = 0; p < panels; ++p) {
      float* dst = out + p * NR * k;
      const std::int64_t j0 = p * NR, cols = std::min(NR, n - j0);
      for (std::int64_t kk = 0; kk < k; ++kk) {
        const float* src = b + kk * rs + j0 * cs;
        std::int64_t j = 0;
        if (cs == 1) {
          std::memcpy(dst, src, static_cast<std::size_t>(cols) * sizeof(float));
          j = cols;
        }
        for (; j < cols; ++j) dst[j] = src[j * cs];
        for (j = cols; j < NR; ++j) dst[j] = 0.0f;
        dst += NR;
      }
    }
  }
  static BOperand packed_b(const float* packed, std::int64_t k) { return {packed, NR, NR * k, true, nullptr}; }

  // Packs A (M x K, element (i, k) at a[i * rs + k * cs]) into zero-padded MR-row panels.
  static std::int64_t packed_a_size(std::int64_t m, std::int64_t k) { return ((m + MR - 1) / MR) * MR * k; }
  static void pack_a(const float* a, std::int64_t rs, std::int64_t cs, std::int64_t m, std::int64_t k, float* out) {
    const std::int64_t panels = (m + MR - 1) / MR;
    for (std::int64_t p = 0; p < panels; ++p) {
      float* dst = out + p * MR * k;
      for (std::int64_t kk = 0; kk < k; ++kk)
        for (std::int64_t r = 0; r < MR; ++r) {
          const std::int64_t i = p * MR + r;
          dst[kk * MR + r] = i < m ? a[i * rs + kk * cs] : 0.0f;
        }
    }
  }
  static AOperand packed_a(const float* packed, std::int64_t k) { return {packed, 1, MR, MR * k}; }

  // C (M x N, row stride ldc) = the product, through the epilogue. With `workers`, a product of
  // PARALLEL_MACS multiply-adds or more is split over its threads: in bands of rows (eight-row
  // units, so each band starts a panel of a packed A) or of strips of NR columns, whichever leaves
  // the largest band smaller, or reads the smaller operand where they balance alike. Every element is computed as one thread computes it (the same tile
  // path, the same K blocks in order), so the result does not depend on the thread count. Bands
  // of rows tell the epilogue's sink of their rows as they finish them; bands of columns finish
  // rows only together, so the sink hears of them after the product, in bands of rows run
  // on the workers too.
  static constexpr double PARALLEL_MACS = 1 << 17;
  static void run(std::int64_t m, std::int64_t n, std::int64_t k, const AOperand& a, const BOperand& b, float* c,
                  std::int64_t ldc, const Epilogue& ep, const Workers* workers = nullptr) {
    if (m <= 0 || n <= 0) return;
    const std::int64_t threads = workers ? workers->threads() : 1;
    if (threads == 1 || k <= 0 || static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) < PARALLEL_MACS) {
      run_part(m, n, k, a, b, c, ldc, ep, 0, m, 0, n);
      return;
    }
    const std::int64_t row_units = (m + 7) / 8, col_units = (n + NR - 1) / NR;
    const std::int64_t by_rows = (row_units + threads - 1) / threads * 8 * n;
    const std::int64_t by_cols = (col_units + threads - 1) / threads * NR * m;
    // A band of rows reads all of B, a strip of columns all of A: where B is the larger (N > M),
    // columns, unless their shares are a quarter less even than the rows'.
    const bool rows_first = m >= n ? by_rows <= by_cols : 4 * by_cols > 5 * by_rows;
    if (row_units > 1 && (rows_first || col_units == 1)) {
      const std::int64_t jobs = std::min(threads, row_units);
      workers->run(jobs, [&](std::int64_t job) {
        const auto [first, end] = job_share(row_units, jobs, job);
        run_part(m, n, k, a, b, c, ldc, ep, first * 8, std::min(m, end * 8), 0, n);
      });
    } else if (col_units > 1) {
      // Strips in pairs where each thread gets two or more: the wide tile takes two at once, and a
      // boundary 48 columns apart starts a cache line where a row of C does, so no line of C is
      // written by two threads.
      const std::int64_t unit = col_units >= 2 * threads ? 2 : 1, units = (col_units + unit - 1) / unit;
      const std::int64_t jobs = std::min(threads, units);
      Epilogue part = ep;
      part.rows = nullptr;
      workers->run(jobs, [&](std::int64_t job) {
        const auto [first, end] = job_share(units, jobs, job);
        run_part(m, n, k, a, b, c, ldc, part, 0, m, first * unit * NR, std::min(n, end * unit * NR));
      });
      if (ep.rows) {
        const std::int64_t bands = std::min(threads, m);
        workers->run(bands, [&](std::int64_t band) {
          const auto [first, end] = job_share(m, bands, band);
          ep.rows->finished(ep.row_offset + first, end - first);
        });
      }
    } else {
      run_part(m, n, k, a, b, c, ldc, ep, 0, m, 0, n);
    }
  }

  // Rows [i_first, i_end) by columns [j_first, j_end) of the product (j_first a multiple of NR,
  // j_end one or n), each element as a whole run computes it.
  static void run_part(std::int64_t m, std::int64_t n, std::int64_t k, const AOperand& a, const BOperand& b, float* c,
                       std::int64_t ldc, const Epilogue& ep, std::int64_t i_first, std::int64_t i_end, std::int64_t j_first,
                       std::int64_t j_end) {
    if (k <= 0) {
      for (std::int64_t i = i_first; i < i_end; ++i)
        for (std::int64_t j = j_first; j < j_end; ++j) finish_scalar(c[i * ldc + j], 0.0f, ep, ep.accumulate, true, i, j);
      if (ep.rows) ep.rows->finished(ep.row_offset + i_first, i_end - i_first);
      return;
    }
    const bool vector = use_avx2();
    [[maybe_unused]] const bool wide = use_avx512();
    // One row (a decode step's product): its whole strips in one pass over K each; the blocked
    // loops below take the columns past them.
    std::int64_t j_begin = j_first;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (vector && m == 1 && !b.rows) {
      const std::int64_t whole = (n / NR) * NR, s0 = j_first / NR, s1 = std::min(j_end, whole) / NR;
      if (s1 > s0) {
        Epilogue strips = ep;
        if (strips.col_bias) strips.col_bias += s0 * NR;
        row_strips_avx2(s1 - s0, k, a.data, a.col_stride, b.data + s0 * b.panel_stride, b.panel_stride, b.row_stride, c + s0 * NR, strips);
      }
      j_begin = std::max(j_first, whole);
    }
#endif
    float edge[KC * NR];  // a partial strip of an unpadded B, copied and padded
    for (std::int64_t k0 = 0; k0 < k; k0 += KC) {
      const std::int64_t kc = std::min(KC, k - k0);
      const bool accumulate = ep.accumulate || k0 > 0, last = k0 + kc == k;
      for (std::int64_t i1 = i_first; i1 < i_end; i1 += MC) {
        const std::int64_t i1_end = std::min(i_end, i1 + MC);
        for (std::int64_t j0 = j_begin; j0 < j_end; j0 += NR) {
          const std::int64_t cols = std::min(NR, n - j0);
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
          // Two strips at once where this part holds a second: three 16-lane accumulators a row,
          // every lane used (one strip's 16 + 8 leaves a quarter of its second FMA idle).
          if (wide && j0 + NR < j_end) {
            const std::int64_t span = std::min(2 * NR, n - j0);
            Tile t{kc, a.data + k0 * a.col_stride, a.row_stride, a.col_stride,
                   b.rows ? nullptr : b.data + (j0 / NR) * b.panel_stride + k0 * b.row_stride, b.row_stride,
                   b.rows ? b.rows + k0 : nullptr, j0, c + i1 * ldc + j0, ldc, span, accumulate, last, i1, j0};
            if (b.rows) wide_pair<Wide::Indirect>(t, a.panel_stride, b.panel_stride, i1_end - i1, ep);
            else if (b.panel_stride != NR) wide_pair<Wide::Direct>(t, a.panel_stride, b.panel_stride, i1_end - i1, ep);
            else if (span < 2 * NR && !b.padded) wide_pair<Wide::MaskedB>(t, a.panel_stride, b.panel_stride, i1_end - i1, ep);
            else wide_pair<Wide::Contiguous>(t, a.panel_stride, b.panel_stride, i1_end - i1, ep);
            j0 += NR;
            continue;
          }
#endif
          const float* bp = b.rows ? nullptr : b.data + (j0 / NR) * b.panel_stride + k0 * b.row_stride;
          std::int64_t brs = b.row_stride;
          // A partial strip of an unpadded B: the AVX-512 tile reads it through masks; the others
          // read a padded copy.
          if (cols < NR && !b.padded && !wide) {
            for (std::int64_t kk = 0; kk < kc; ++kk) {
              const float* src = bp + kk * brs;
              float* dst = edge + kk * NR;
              for (std::int64_t j = 0; j < cols; ++j) dst[j] = src[j];
              for (std::int64_t j = cols; j < NR; ++j) dst[j] = 0.0f;
            }
            bp = edge;
            brs = NR;
          }
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
          if (wide) {
            // Every row of the block down this strip in one call, eight at a time, so the setup of
            // a call is paid once a strip rather than once a tile.
            Tile t{kc, a.data + k0 * a.col_stride, a.row_stride, a.col_stride, bp, brs, b.rows ? b.rows + k0 : nullptr, j0,
                   c + i1 * ldc + j0, ldc, cols, accumulate, last, i1, j0};
            if (b.rows) wide_strip<Wide::Indirect>(t, a.panel_stride, i1_end - i1, ep);
            else if (cols < NR && !b.padded) wide_strip<Wide::MaskedB>(t, a.panel_stride, i1_end - i1, ep);
            else wide_strip<Wide::Direct>(t, a.panel_stride, i1_end - i1, ep);
            continue;
          }
#endif
          for (std::int64_t i0 = i1; i0 < i1_end; i0 += MR) {
            const std::int64_t rows = std::min(MR, i1_end - i0);
            const float* ap = a.data + (i0 / MR) * a.panel_stride + k0 * a.col_stride;
            Tile t{kc, ap, a.row_stride, a.col_stride, bp, brs, b.rows ? b.rows + k0 : nullptr, j0, c + i0 * ldc + j0, ldc, cols,
                   accumulate, last, i0, j0};
            if (vector) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
              // A strip's last columns: only the vectors holding them are computed.
              const std::int64_t vectors = (cols + 7) / 8;
              if (b.rows) {
                if (vectors == 3) tile_rows<3, true>(t, rows, ep);
                else if (vectors == 2) tile_rows<2, true>(t, rows, ep);
                else tile_rows<1, true>(t, rows, ep);
              } else {
                if (vectors == 3) tile_rows<3, false>(t, rows, ep);
                else if (vectors == 2) tile_rows<2, false>(t, rows, ep);
                else tile_rows<1, false>(t, rows, ep);
              }
#endif
            } else {
              tile_portable(t, rows, ep);
            }
          }
        }
        // These rows are final: their epilogue reads them while they are in cache.
        if (last && ep.rows) ep.rows->finished(ep.row_offset + i1, i1_end - i1);
      }
    }
  }

  // Set to run the portable microkernel even where AVX2+FMA is present (tests compare the two);
  // narrow_only keeps the AVX2 tile where AVX-512 is present too.
  static inline bool portable_only = false;
  static inline bool narrow_only = false;

  static bool use_avx512() {
    if (narrow_only || !use_avx2()) return false;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    static const bool supported = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
    return supported;
#else
    return false;
#endif
  }

  static bool use_avx2() {
    if (portable_only) return false;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    static const bool supported = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return supported;
#else
    return false;
#endif
  }

  struct Tile {
    std::int64_t kc;
    const float* a;
    std::int64_t ars, acs;
    const float* b;
    std::int64_t brs;
    const float* const* brows;  // indirect rows (already offset by the K block), or null
    std::int64_t bcol;          // the strip's first column, for indirect rows
    float* c;
    std::int64_t ldc, cols;
    bool accumulate, last;
    std::int64_t i0, j0;
  };

  static void finish_scalar(float& out, float acc, const Epilogue& ep, bool accumulate, bool last, std::int64_t i,
                            std::int64_t j) {
    float v = ep.alpha * acc;
    if (accumulate) v += out;
    if (last) {
      if (ep.row_bias) v += ep.row_bias[i];
      if (ep.col_bias) v += ep.col_bias[j];
      if (ep.relu) v = v > 0.0f ? v : (v == v ? 0.0f : v);  // Relu as ONNX computes it: NaN stays NaN
    }
    out = v;
  }

  static void tile_portable(const Tile& t, std::int64_t rows, const Epilogue& ep) {
    float acc[MR][NR] = {};
    const float* a = t.a;
    const float* b = t.b;
    for (std::int64_t k = 0; k < t.kc; ++k) {
      const float* bk = t.brows ? t.brows[k] + t.bcol : b;
      for (std::int64_t r = 0; r < rows; ++r) {
        const float av = a[r * t.ars];
        for (std::int64_t j = 0; j < NR; ++j) acc[r][j] += av * bk[j];
      }
      a += t.acs;
      b += t.brs;
    }
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t j = 0; j < t.cols; ++j)
        finish_scalar(t.c[r * t.ldc + j], acc[r][j], ep, t.accumulate, t.last, t.i0 + r, t.j0 + j);
  }

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  // One row of A (K elements, col_stride apart) by `strips` whole strips of NR columns of B, each
  // over all of K, into c[0 .. strips * NR). Per strip a tile's loop would cost more than its K
  // steps (K is the model width, 8 to 1024): this loop has none of it, and splits K four ways so
  // the three accumulators' FMA chains overlap.
  __attribute__((target("avx2,fma"))) static void row_strips_avx2(std::int64_t strips, std::int64_t k, const float* a,
                                                                  std::int64_t acs, const float* b, std::int64_t panel_stride,
                                                                  std::int64_t brs, float* c, const Epilogue& ep) {
    const __m256 alpha = _mm256_set1_ps(ep.alpha), zero = _mm256_setzero_ps();
    const bool scale = ep.alpha != 1.0f;
    const __m256 row_bias = _mm256_set1_ps(ep.row_bias ? ep.row_bias[0] : 0.0f);
    for (std::int64_t s = 0; s < strips; ++s) {
      const float* bp = b + s * panel_stride;
      __m256 acc[4][3];
#pragma GCC unroll 4
      for (int w = 0; w < 4; ++w) acc[w][0] = acc[w][1] = acc[w][2] = zero;
      std::int64_t q = 0;
      for (; q + 4 <= k; q += 4) {
#pragma GCC unroll 4
        for (int w = 0; w < 4; ++w) {
          const float* bk = bp + (q + w) * brs;
          const __m256 av = _mm256_broadcast_ss(a + (q + w) * acs);
          acc[w][0] = _mm256_fmadd_ps(av, _mm256_loadu_ps(bk), acc[w][0]);
          acc[w][1] = _mm256_fmadd_ps(av, _mm256_loadu_ps(bk + 8), acc[w][1]);
          acc[w][2] = _mm256_fmadd_ps(av, _mm256_loadu_ps(bk + 16), acc[w][2]);
        }
      }
      for (; q < k; ++q) {
        const float* bk = bp + q * brs;
        const __m256 av = _mm256_broadcast_ss(a + q * acs);
        acc[0][0] = _mm256_fmadd_ps(av, _mm256_loadu_ps(bk), acc[0][0]);
        acc[0][1] = _mm256_fmadd_ps(av, _mm256_loadu_ps(bk + 8), acc[0][1]);
        acc[0][2] = _mm256_fmadd_ps(av, _mm256_loadu_ps(bk + 16), acc[0][2]);
      }
      float* cs = c + s * NR;
#pragma GCC unroll 3
      for (int v = 0; v < 3; ++v) {
        __m256 r = _mm256_add_ps(_mm256_add_ps(acc[0][v], acc[1][v]), _mm256_add_ps(acc[2][v], acc[3][v]));
        if (scale) r = _mm256_mul_ps(r, alpha);
        if (ep.accumulate) r = _mm256_add_ps(r, _mm256_loadu_ps(cs + 8 * v));
        if (ep.row_bias) r = _mm256_add_ps(r, row_bias);
        if (ep.col_bias) r = _mm256_add_ps(r, _mm256_loadu_ps(ep.col_bias + s * NR + 8 * v));
        // Relu keeping NaN, as the tile's store does.
        if (ep.relu) r = _mm256_and_ps(r, _mm256_cmp_ps(r, zero, _CMP_NLE_UQ));
        _mm256_storeu_ps(cs + 8 * v, r);
      }
    }
  }

  // How the AVX-512 tile reads a strip of B: through `b` and its row stride, NR columns readable
  // (a packed or padded B, or a whole strip; a pair of strips: the second panel_stride further on);
  // the same with only the strip's columns readable (the last, partial strip of an unpadded B, read
  // through masks); a pair of strips whose rows are contiguous (a row-major B); or through
  // indirect rows.
  enum class Wide { Direct, MaskedB, Contiguous, Indirect };

  // The AVX-512 tiles keep all of -O3: a few per cent on the products here, and cheap to compile
  // (the AVX2 tiles below, many more instantiations, cost twice their compile at -O3 for nothing).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("O3", "no-tree-loop-distribute-patterns")
#endif

  // `rows` rows from strip.i0 down a strip of strip.cols columns (strip.a: A's first row at this K
  // block, strip.ars its row stride within a panel), by tiles of eight rows: the whole tile, or for
  // a partial strip of at most 8 columns of a direct B only the 8-lane vector a row, so such an
  // edge (32 or 128 columns end in one) costs a third of a whole strip's FMAs. (A 16-lane-only
  // variant would gain less, for as many instantiations more, compiled into every module.)
  template <Wide HOW>
  static void wide_strip(const Tile& strip, std::int64_t panel_stride, std::int64_t rows, const Epilogue& ep) {
    if (HOW != Wide::Indirect && strip.cols <= 8) wide_strip<Wide::MaskedB, 8>(strip, panel_stride, rows, ep);
    else wide_strip<HOW, NR>(strip, panel_stride, rows, ep);
  }
  template <Wide HOW, int WIDTH>
  __attribute__((target("avx512f,avx512vl,avx2,fma"))) static void wide_strip(const Tile& strip, std::int64_t panel_stride,
                                                                             std::int64_t rows, const Epilogue& ep) {
    for (std::int64_t r0 = 0; r0 < rows; r0 += 8) {
      const std::int64_t n = std::min<std::int64_t>(8, rows - r0);
      // Each row found through A's panels (two panels of a packed A).
      const float* arows[8];
      for (std::int64_t r = 0; r < n; ++r) {
        const std::int64_t i = strip.i0 + r0 + r;
        arows[r] = strip.a + (i / MR) * panel_stride + (i % MR) * strip.ars;
      }
      Tile t = strip;
      t.c = strip.c + r0 * strip.ldc;
      t.i0 = strip.i0 + r0;
      if (n == 8) tile_avx512<8, HOW, WIDTH>(t, arows, 8, ep);
      else wide_rows<HOW, WIDTH>(t, arows, n, ep);
    }
  }
  // `rows` rows down a pair of strips (2 NR columns, strip.cols of them computed), eight at a time;
  // fewer than eight as 4, 2 or 1, the rows past `rows` reading its last row again and storing
  // nothing.
  template <Wide HOW>
  __attribute__((target("avx512f,avx512vl,avx2,fma"))) static void wide_pair(const Tile& strip, std::int64_t a_panel_stride,
                                                                            std::int64_t b_panel_stride, std::int64_t rows,
                                                                            const Epilogue& ep) {
    for (std::int64_t r0 = 0; r0 < rows; r0 += 8) {
      const std::int64_t n = std::min<std::int64_t>(8, rows - r0);
      const float* arows[8];
      for (std::int64_t r = 0; r < 8; ++r) {
        const std::int64_t i = strip.i0 + r0 + std::min(r, n - 1);
        arows[r] = strip.a + (i / MR) * a_panel_stride + (i % MR) * strip.ars;
      }
      Tile t = strip;
      t.c = strip.c + r0 * strip.ldc;
      t.i0 = strip.i0 + r0;
      if (n > 4) tile_avx512_pair<8, HOW>(t, arows, n, b_panel_stride, ep);
      else if (n > 2) tile_avx512_pair<4, HOW>(t, arows, n, b_panel_stride, ep);
      else if (n > 1) tile_avx512_pair<2, HOW>(t, arows, n, b_panel_stride, ep);
      else tile_avx512_pair<1, HOW>(t, arows, n, b_panel_stride, ep);
    }
  }

  // ROWS x 2 NR columns (more than NR of them, t.cols, computed): columns 0..47 in three 16-lane
  // accumulators a row. Each element is summed as the single strip's tile sums it (the same FMAs in
  // the same order, then the same epilogue), so pairing strips never changes a result. Rows at
  // `rows` and past it are computed and not stored.
  template <int ROWS, Wide HOW>
  __attribute__((target("avx512f,avx512vl,avx2,fma"), always_inline)) static inline void tile_avx512_pair(
      const Tile& t, const float* const* arows, std::int64_t rows, std::int64_t panel_stride, const Epilogue& ep) {
    static_assert(2 * NR == 48, "tile_avx512_pair: three 16-lane vectors span two strips");
    const std::int64_t cols = t.cols;  // 25 .. 48
    const __mmask16 m1 = static_cast<__mmask16>(cols >= 32 ? 0xFFFF : (1u << (cols - 16)) - 1);
    const __mmask16 m2 = static_cast<__mmask16>(cols >= 48 ? 0xFFFF : cols > 32 ? (1u << (cols - 32)) - 1 : 0);
    __m512 acc[ROWS][3];
    const float* a[ROWS];
#pragma GCC unroll 8
    for (int r = 0; r < ROWS; ++r) {
      acc[r][0] = acc[r][1] = acc[r][2] = _mm512_setzero_ps();
      a[r] = arows[r];
    }
    const float* b = t.b;
    const std::int64_t acs = t.acs, brs = t.brs;
#pragma GCC unroll 2
    for (std::int64_t k = 0; k < t.kc; ++k) {
      const float* bk = HOW == Wide::Indirect ? t.brows[k] + t.bcol : b;
      const __m512 b0 = _mm512_loadu_ps(bk);
      __m512 b1, b2;
      if constexpr (HOW == Wide::Direct) {
        // Columns 16..23 end the first panel, 24..31 begin the second. (A masked load and insert: the
        // plain cast and insert's undefined lanes draw a false warning from GCC 12's own header.)
        const __m512d lo = _mm512_castps_pd(_mm512_maskz_loadu_ps(0x00FF, bk + 16));
        b1 = _mm512_castpd_ps(_mm512_mask_insertf64x4(lo, 0xFF, lo, _mm256_castps_pd(_mm256_loadu_ps(bk + panel_stride)), 1));
        b2 = _mm512_loadu_ps(bk + panel_stride + 8);
      } else if constexpr (HOW == Wide::MaskedB) {
        b1 = _mm512_maskz_loadu_ps(m1, bk + 16);
        b2 = _mm512_maskz_loadu_ps(m2, bk + 32);
      } else {
        b1 = _mm512_loadu_ps(bk + 16);
        b2 = _mm512_loadu_ps(bk + 32);
      }
#pragma GCC unroll 8
      for (int r = 0; r < ROWS; ++r) {
        const __m512 x = _mm512_set1_ps(a[r][k * acs]);
        acc[r][0] = _mm512_fmadd_ps(x, b0, acc[r][0]);
        acc[r][1] = _mm512_fmadd_ps(x, b1, acc[r][1]);
        acc[r][2] = _mm512_fmadd_ps(x, b2, acc[r][2]);
      }
      b += brs;
    }
    const bool scale = ep.alpha != 1.0f, whole = cols == 2 * NR;
    const __m512 alpha = _mm512_set1_ps(ep.alpha), zero = _mm512_setzero_ps();
    const __mmask16 mask[3] = {0xFFFF, m1, m2};
    __m512 col[3] = {zero, zero, zero};
    if (t.last && ep.col_bias)
#pragma GCC unroll 3
      for (int q = 0; q < 3; ++q) col[q] = _mm512_maskz_loadu_ps(mask[q], ep.col_bias + t.j0 + 16 * q);
#pragma GCC unroll 8
    for (int r = 0; r < ROWS; ++r) {
      if (r >= rows) break;
      float* c = t.c + r * t.ldc;
#pragma GCC unroll 3
      for (int q = 0; q < 3; ++q) {
        __m512 v = scale ? _mm512_mul_ps(acc[r][q], alpha) : acc[r][q];
        if (t.accumulate) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(mask[q], c + 16 * q));
        if (t.last) {
          if (ep.row_bias) v = _mm512_add_ps(v, _mm512_set1_ps(ep.row_bias[t.i0 + r]));
          if (ep.col_bias) v = _mm512_add_ps(v, col[q]);
          // Relu keeping NaN (as ONNX's Relu does): keep v where it is not <= 0, which NaN is not.
          if (ep.relu) v = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(v, zero, _CMP_NLE_UQ), v);
        }
        if (whole) _mm512_storeu_ps(c + 16 * q, v);
        else _mm512_mask_storeu_ps(c + 16 * q, mask[q], v);
      }
    }
  }

  // Fewer than eight rows.
  template <Wide HOW, int WIDTH>
  __attribute__((target("avx512f,avx512vl,avx2,fma"))) static void wide_rows(const Tile& t, const float* const* arows,
                                                                            std::int64_t rows, const Epilogue& ep) {
    if constexpr (HOW == Wide::MaskedB) {
      // An edge: 1, 2, 4 or 8 rows computed, the rows past `rows` reading its last row again and
      // storing nothing, so each width is four instantiations rather than eight.
      const float* padded[8];
      for (std::int64_t r = 0; r < 8; ++r) padded[r] = arows[std::min<std::int64_t>(r, rows - 1)];
      if (rows > 4) tile_avx512<8, HOW, WIDTH>(t, padded, rows, ep);
      else if (rows > 2) tile_avx512<4, HOW, WIDTH>(t, padded, rows, ep);
      else if (rows > 1) tile_avx512<2, HOW, WIDTH>(t, padded, rows, ep);
      else tile_avx512<1, HOW, WIDTH>(t, padded, rows, ep);
    } else {
      switch (rows) {
        case 7: tile_avx512<7, HOW, WIDTH>(t, arows, 7, ep); break;
        case 6: tile_avx512<6, HOW, WIDTH>(t, arows, 6, ep); break;
        case 5: tile_avx512<5, HOW, WIDTH>(t, arows, 5, ep); break;
        case 4: tile_avx512<4, HOW, WIDTH>(t, arows, 4, ep); break;
        case 3: tile_avx512<3, HOW, WIDTH>(t, arows, 3, ep); break;
        case 2: tile_avx512<2, HOW, WIDTH>(t, arows, 2, ep); break;
        default: tile_avx512<1, HOW, WIDTH>(t, arows, 1, ep); break;
      }
    }
  }

  // ROWS x WIDTH of a strip: with WIDTH 24, columns 0..15 in a 16-lane accumulator and 16..23 in
  // an 8-lane one; with 8, the 8-lane one alone, on columns 0..7.
  // A strip of fewer columns (t.cols) is computed through lane masks: its stores, and the loads of
  // C and of the column bias, touch only its columns, so no edge takes a narrower kernel or a
  // scalar loop.
  // Rows at `rows` and past it (below ROWS) are computed and not stored.
  template <int ROWS, Wide HOW, int WIDTH>
  __attribute__((target("avx512f,avx512vl,avx2,fma"), always_inline)) static inline void tile_avx512(
      const Tile& t, const float* const* arows, std::int64_t rows, const Epilogue& ep) {
    static_assert(WIDTH == NR || WIDTH == 8, "tile_avx512: a strip of 24 columns, or of 8");
    constexpr bool LO = WIDTH == NR;
    constexpr int HI_AT = WIDTH == 8 ? 0 : 16;  // the first column of the 8-lane vector
    const bool whole = t.cols == WIDTH;
    const __mmask16 mlo = static_cast<__mmask16>(t.cols >= 16 ? 0xFFFF : (1u << t.cols) - 1);
    const std::int64_t hi_cols = t.cols - HI_AT;
    const __mmask8 mhi = static_cast<__mmask8>(hi_cols >= 8 ? 0xFF : hi_cols > 0 ? (1u << hi_cols) - 1 : 0);
    __m512 lo[ROWS];
    __m256 hi[ROWS];
    const float* a[ROWS];
#pragma GCC unroll 8
    for (int r = 0; r < ROWS; ++r) {
      lo[r] = _mm512_setzero_ps();
      hi[r] = _mm256_setzero_ps();
      a[r] = arows[r];
    }
    const float* b = t.b;
    const std::int64_t acs = t.acs, brs = t.brs;
#pragma GCC unroll 2
    for (std::int64_t k = 0; k < t.kc; ++k) {
      const float* bk = HOW == Wide::Indirect ? t.brows[k] + t.bcol : b;
      __m512 b0 = _mm512_setzero_ps();
      __m256 b1 = _mm256_setzero_ps();
      if constexpr (LO) b0 = HOW == Wide::MaskedB ? _mm512_maskz_loadu_ps(mlo, bk) : _mm512_loadu_ps(bk);
      b1 = HOW == Wide::MaskedB ? _mm256_maskz_loadu_ps(mhi, bk + HI_AT) : _mm256_loadu_ps(bk + HI_AT);
#pragma GCC unroll 8
      for (int r = 0; r < ROWS; ++r) {
        const float x = a[r][k * acs];
        if constexpr (LO) lo[r] = _mm512_fmadd_ps(_mm512_set1_ps(x), b0, lo[r]);
        hi[r] = _mm256_fmadd_ps(_mm256_set1_ps(x), b1, hi[r]);
      }
      b += brs;
    }
    const bool scale = ep.alpha != 1.0f;
    const __m512 alpha = _mm512_set1_ps(ep.alpha), zero = _mm512_setzero_ps();
    const __m256 alpha8 = _mm256_set1_ps(ep.alpha), zero8 = _mm256_setzero_ps();
    __m512 col0 = zero;
    __m256 col1 = zero8;
    if (t.last && ep.col_bias) {
      if constexpr (LO) col0 = _mm512_maskz_loadu_ps(mlo, ep.col_bias + t.j0);
      col1 = _mm256_maskz_loadu_ps(mhi, ep.col_bias + t.j0 + HI_AT);
    }
#pragma GCC unroll 8
    for (int r = 0; r < ROWS; ++r) {
      if (r >= rows) break;
      float* c = t.c + r * t.ldc;
      __m512 v0 = scale ? _mm512_mul_ps(lo[r], alpha) : lo[r];
      __m256 v1 = scale ? _mm256_mul_ps(hi[r], alpha8) : hi[r];
      if (t.accumulate) {
        if constexpr (LO) v0 = _mm512_add_ps(v0, _mm512_maskz_loadu_ps(mlo, c));
        v1 = _mm256_add_ps(v1, _mm256_maskz_loadu_ps(mhi, c + HI_AT));
      }
      if (t.last) {
        if (ep.row_bias) {
          v0 = _mm512_add_ps(v0, _mm512_set1_ps(ep.row_bias[t.i0 + r]));
          v1 = _mm256_add_ps(v1, _mm256_set1_ps(ep.row_bias[t.i0 + r]));
        }
        if (ep.col_bias) {
          v0 = _mm512_add_ps(v0, col0);
          v1 = _mm256_add_ps(v1, col1);
        }
        // Relu keeping NaN (as ONNX's Relu does): keep v where it is not <= 0, which NaN is not.
        if (ep.relu) {
          v0 = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(v0, zero, _CMP_NLE_UQ), v0);
          v1 = _mm256_and_ps(v1, _mm256_cmp_ps(v1, zero8, _CMP_NLE_UQ));
        }
      }
      if (whole) {
        if constexpr (LO) _mm512_storeu_ps(c, v0);
        _mm256_storeu_ps(c + HI_AT, v1);
      } else {
        if constexpr (LO) _mm512_mask_storeu_ps(c, mlo, v0);
        _mm256_mask_storeu_ps(c + HI_AT, mhi, v1);
      }
    }
  }

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif

  template <int VECTORS, bool INDIRECT>
  static void tile_rows(const Tile& t, std::int64_t rows, const Epilogue& ep) {
    switch (rows) {
      case 4: tile_avx2<4, VECTORS, INDIRECT>(t, ep); break;
      case 3: tile_avx2<3, VECTORS, INDIRECT>(t, ep); break;
      case 2: tile_avx2<2, VECTORS, INDIRECT>(t, ep); break;
      default: tile_avx2<1, VECTORS, INDIRECT>(t, ep); break;
    }
  }

  // ROWS x (8 * VECTORS) of the tile; VECTORS is 3 (all NR columns) except at a strip's last
  // columns, where the vectors past them would be computed for nothing.
  template <int ROWS, int VECTORS, bool INDIRECT>
  __attribute__((target("avx2,fma"))) static void tile_avx2(const Tile& t, const Epilogue& ep) {
    __m256 acc[ROWS][3];
#pragma GCC unroll 4
    for (int r = 0; r < ROWS; ++r) {
      acc[r][0] = _mm256_setzero_ps();
      acc[r][1] = _mm256_setzero_ps();
      acc[r][2] = _mm256_setzero_ps();
    }
    const float* a = t.a;
    const float* b = t.b;
    const std::int64_t ars = t.ars, acs = t.acs, brs = t.brs;
    // Two steps of K per trip: the loop's own count and branch cost as much as a third of a step.
#pragma GCC unroll 2
    for (std::int64_t k = 0; k < t.kc; ++k) {
      const float* bk = INDIRECT ? t.brows[k] + t.bcol : b;
      const __m256 b0 = _mm256_loadu_ps(bk);
      const __m256 b1 = VECTORS > 1 ? _mm256_loadu_ps(bk + 8) : b0;
      const __m256 b2 = VECTORS > 2 ? _mm256_loadu_ps(bk + 16) : b0;
#pragma GCC unroll 4
      for (int r = 0; r < ROWS; ++r) {
        const __m256 av = _mm256_broadcast_ss(a + r * ars);
        acc[r][0] = _mm256_fmadd_ps(av, b0, acc[r][0]);
        if (VECTORS > 1) acc[r][1] = _mm256_fmadd_ps(av, b1, acc[r][1]);
        if (VECTORS > 2) acc[r][2] = _mm256_fmadd_ps(av, b2, acc[r][2]);
      }
      a += acs;
      b += brs;
    }
    const __m256 alpha = _mm256_set1_ps(ep.alpha);
    const bool scale = ep.alpha != 1.0f;
    // Whole vectors (every strip but a last one of a width not a multiple of 8) store as vectors.
    if (t.cols == 8 * VECTORS) {
      const __m256 zero = _mm256_setzero_ps();
#pragma GCC unroll 4
      for (int r = 0; r < ROWS; ++r) {
        float* c = t.c + r * t.ldc;
#pragma GCC unroll 3
        for (int q = 0; q < VECTORS; ++q) {
          __m256 v = scale ? _mm256_mul_ps(acc[r][q], alpha) : acc[r][q];
          if (t.accumulate) v = _mm256_add_ps(v, _mm256_loadu_ps(c + 8 * q));
          if (t.last) {
            if (ep.row_bias) v = _mm256_add_ps(v, _mm256_set1_ps(ep.row_bias[t.i0 + r]));
            if (ep.col_bias) v = _mm256_add_ps(v, _mm256_loadu_ps(ep.col_bias + t.j0 + 8 * q));
            // Relu keeping NaN (as ONNX's Relu does): keep v where it is not <= 0, which NaN is not.
            if (ep.relu) v = _mm256_and_ps(v, _mm256_cmp_ps(v, zero, _CMP_NLE_UQ));
          }
          _mm256_storeu_ps(c + 8 * q, v);
        }
      }
    } else {
      alignas(32) float tile[ROWS][NR];
#pragma GCC unroll 4
      for (int r = 0; r < ROWS; ++r) {
        _mm256_store_ps(tile[r], acc[r][0]);
        _mm256_store_ps(tile[r] + 8, acc[r][1]);
        _mm256_store_ps(tile[r] + 16, acc[r][2]);
      }
      for (int r = 0; r < ROWS; ++r)
        for (std::int64_t j = 0; j < t.cols; ++j)
          finish_scalar(t.c[r * t.ldc + j], tile[r][j], ep, t.accumulate, t.last, t.i0 + r, t.j0 + j);
    }
  }
#endif
};

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif

// A weight on the right of a product, B (K x N), packed once into NR-column panels. Built from a
// MatMul weight [K, N] or a Gemm weight read transposed ([N, K] with transB). Keeps the tensor it
// was packed from, so a backend that wants the plain form has it without a copy.
template <class KAxis, class NAxis>
class PackedMatrix {
 public:
  using Source = Tensor<float, Axes<KAxis, NAxis>>;
  PackedMatrix() = default;
  explicit PackedMatrix(Source b) : source_(std::move(b)) {
    k_ = source_.extents()[0];
    n_ = source_.extents()[1];
    panels_.resize(static_cast<std::size_t>(Sgemm::packed_b_size(k_, n_)));
    Sgemm::pack_b(source_.data(), n_, 1, k_, n_, panels_.data());
  }
  // B given as its transpose, stored [N, K] (Gemm's transB = 1).
  template <class TAxes>
  static PackedMatrix from_transposed(const Tensor<float, TAxes>& bt) {
    static_assert(std::is_same_v<TAxes, Axes<NAxis, KAxis>>, "PackedMatrix: a transposed weight has axes [N, K]");
    PackedMatrix p;
    p.k_ = bt.extents()[1];
    p.n_ = bt.extents()[0];
    typename Source::Extents e{p.k_, p.n_};
    Source plain = Source::uninitialized(e);
    float* d = plain.data();
    for (std::int64_t i = 0; i < p.n_; ++i)
      for (std::int64_t j = 0; j < p.k_; ++j) d[j * p.n_ + i] = bt.data()[i * p.k_ + j];
    p.source_ = plain;
    p.panels_.resize(static_cast<std::size_t>(Sgemm::packed_b_size(p.k_, p.n_)));
    Sgemm::pack_b(plain.data(), p.n_, 1, p.k_, p.n_, p.panels_.data());
    return p;
  }
  std::int64_t k() const noexcept { return k_; }
  std::int64_t n() const noexcept { return n_; }
  const Source& source() const noexcept { return source_; }
  Sgemm::BOperand operand() const noexcept { return Sgemm::packed_b(panels_.data(), k_); }

 private:
  Source source_;
  std::int64_t k_ = 0, n_ = 0;
  std::vector<float> panels_;
};

// A Conv weight [Cout, Cin / group, k...], packed once into the SGEMM's row panels, one block per
// group: the A of out[Cout_g, P] = W_g[Cout_g, K_g] * im2col(x)[K_g, P]. ConvPanels is what the
// kernels read, one type for every weight, holding the elements it was packed from too;
// PackedConv<WAxes> adds the weight's axes.
class ConvPanels {
 public:
  ConvPanels() = default;
  // `storage` holds the weight [Cout, Cin / group, k...] (kept alive, and what weights() reads).
  ConvPanels(std::shared_ptr<const float> storage, bool borrowed, std::span<const std::int64_t> extents, std::int64_t group)
      : storage_(std::move(storage)), borrowed_(borrowed), extents_(extents.begin(), extents.end()), group_(group) {
    if (group_ < 1 || extents_[0] % group_ != 0)
      throw KernelMisuse("conv: " + std::to_string(extents_[0]) + " output channels do not divide into " + std::to_string(group_) + " groups");
    cout_ = extents_[0];
    k_ = 1;
    for (std::size_t i = 1; i < extents_.size(); ++i) k_ *= extents_[i];
    const std::int64_t mg = cout_ / group_;
    group_stride_ = Sgemm::packed_a_size(mg, k_);
    panels_.resize(static_cast<std::size_t>(group_stride_ * group_));
    for (std::int64_t g = 0; g < group_; ++g) Sgemm::pack_a(weights() + g * mg * k_, k_, 1, mg, k_, panels_.data() + g * group_stride_);
  }

  const float* weights() const noexcept { return storage_.get(); }  // [Cout, Cin / group, k...], unpacked
  std::span<const std::int64_t> extents() const noexcept { return extents_; }
  std::int64_t group() const noexcept { return group_; }
  std::int64_t out_channels() const noexcept { return cout_; }
  std::int64_t k() const noexcept { return k_; }  // Cin / group * prod(kernel)
  Sgemm::AOperand operand(std::int64_t g) const noexcept { return Sgemm::packed_a(panels_.data() + g * group_stride_, k_); }

 protected:
  const std::shared_ptr<const float>& storage() const noexcept { return storage_; }
  bool borrowed() const noexcept { return borrowed_; }

 private:
  std::shared_ptr<const float> storage_;
  bool borrowed_ = false;
  std::vector<std::int64_t> extents_;
  std::int64_t group_ = 1, cout_ = 0, k_ = 0, group_stride_ = 0;
  std::vector<float> panels_;
};

// Holds nothing of its own, so its copies and destruction are ConvPanels', one for every weight.
template <class WAxes>
class PackedConv : public ConvPanels {
 public:
  using Source = Tensor<float, WAxes>;
  static constexpr std::size_t RANK = AxisRank<WAxes>;
  static_assert(RANK >= 3, "PackedConv: a Conv weight has axes [Cout, Cin / group, k...]");

  PackedConv() = default;
  PackedConv(const Source& w, std::int64_t group) : ConvPanels(w.storage(), w.is_borrowed(), w.extents(), group) {}

  // The weight it was packed from (its elements, not a copy).
  Source source() const {
    typename Source::Extents e{};
    std::copy(extents().begin(), extents().end(), e.begin());
    return Source::from_parts(e, storage(), borrowed());
  }
};

// A Conv followed by an inference BatchNormalization, folded when the weights load (the fusion
// plan's Conv + BatchNormalization): each output channel's weight times a = scale / sqrt(var +
// epsilon), the factor Cpu::batch_normalization applies too, and a bias of a * (the Conv's bias) +
// shift - mean * a.
inline float batch_norm_factor(float scale, float var, float epsilon) { return scale / std::sqrt(var + epsilon); }

// The folds over plain arrays (one function for every weight); the typed forms below check the
// channel counts and allocate. `c` channels of `per` weights each.
inline void fold_batch_norm_weight(const float* w, std::int64_t c, std::int64_t per, const float* scale, const float* var, float epsilon, float* out) {
  for (std::int64_t i = 0; i < c; ++i) {
    const float a = batch_norm_factor(scale[i], var[i], epsilon);
    for (std::int64_t j = 0; j < per; ++j) out[i * per + j] = w[i * per + j] * a;
  }
}
inline void fold_batch_norm_bias(std::int64_t c, const float* scale, const float* shift, const float* mean, const float* var, float epsilon,
                                 const float* conv_bias, float* out) {
  for (std::int64_t i = 0; i < c; ++i) {
    const float a = batch_norm_factor(scale[i], var[i], epsilon);
    out[i] = (conv_bias ? conv_bias[i] * a : 0.0f) + (shift[i] - mean[i] * a);
  }
}

// Each per-channel tensor holds `channels` elements (else a KernelMisuse naming the fold).
inline void check_batch_norm_channels(const char* fold, std::int64_t channels, std::initializer_list<std::int64_t> counts) {
  for (std::int64_t n : counts)
    if (n != channels)
      throw KernelMisuse(std::string(fold) + ": a per-channel tensor holds " + std::to_string(n) + " elements, not one per output channel (" +
                         std::to_string(channels) + ")");
}

template <class WAxes, class C>
Tensor<float, WAxes> batch_norm_folded_weight(const Tensor<float, WAxes>& w, const Tensor<float, Axes<C>>& scale, const Tensor<float, Axes<C>>& var,
                                              float epsilon) {
  static_assert(std::is_same_v<AxisAt<0, WAxes>, C>, "batch_norm_folded_weight: the per-channel tensors run along the weight's output channels");
  const auto& e = w.extents();
  check_batch_norm_channels("batch_norm_folded_weight", e[0], {scale.count(), var.count()});
  auto out = Tensor<float, WAxes>::uninitialized(e);
  fold_batch_norm_weight(w.data(), e[0], e[0] == 0 ? 0 : w.count() / e[0], scale.data(), var.data(), epsilon, out.mutable_data_unchecked());
  return out;
}

template <class C>
Tensor<float, Axes<C>> batch_norm_folded_bias(const Tensor<float, Axes<C>>& scale, const Tensor<float, Axes<C>>& shift, const Tensor<float, Axes<C>>& mean,
                                              const Tensor<float, Axes<C>>& var, float epsilon, const Tensor<float, Axes<C>>* conv_bias = nullptr) {
  const std::int64_t n = scale.extents()[0];
  check_batch_norm_channels("batch_norm_folded_bias", n, {shift.count(), mean.count(), var.count(), conv_bias ? conv_bias->count() : n});
  auto out = Tensor<float, Axes<C>>::uninitialized(scale.extents());
  fold_batch_norm_bias(n, scale.data(), shift.data(), mean.data(), var.data(), epsilon, conv_bias ? conv_bias->data() : nullptr, out.mutable_data_unchecked());
  return out;
}
