// The CPU kernels over sliding windows: Conv (direct, im2col over the SGEMM, depthwise), MaxPool,
// AveragePool, their global forms, and a Conv with its pool computed while its product is in cache.

// Geometry of a sliding window (Conv, MaxPool, AveragePool), ONNX's attributes. Empty lists take
// ONNX's defaults (stride 1, pad 0, dilation 1).
enum class AutoPad : std::uint8_t { NotSet, SameUpper, SameLower, Valid };

struct WindowParams {
  std::vector<std::int64_t> kernel_shape;  // pools; a Conv reads its weight's spatial extents
  std::vector<std::int64_t> strides;
  std::vector<std::int64_t> pads;  // begin of each spatial axis, then end of each
  std::vector<std::int64_t> dilations;
  std::int64_t group = 1;
  AutoPad auto_pad = AutoPad::NotSet;
  bool ceil_mode = false;
  bool count_include_pad = false;
};

struct CpuWindows : virtual CpuBase {
  // ---------------------------------------------------------------- windows

  static constexpr std::size_t MAX_SPATIAL = 8;

  struct Window {
    std::size_t s = 0;
    std::array<std::int64_t, MAX_SPATIAL> in{}, k{}, stride{}, dil{}, pad_begin{}, pad_end{}, out{};

    // Elements of one input plane and of one output plane (every spatial axis).
    std::int64_t in_plane() const { return product(in); }
    std::int64_t out_plane() const { return product(out); }
    // A window result's extents: the input's batch axis, `channels`, then the window's grid.
    template <std::size_t R>
    std::array<std::int64_t, R> result_extents(const std::array<std::int64_t, R>& x, std::int64_t channels) const {
      std::array<std::int64_t, R> e{};
      e[0] = x[0];
      e[1] = channels;
      for (std::size_t i = 0; i < s; ++i) e[i + 2] = out[i];
      return e;
    }

   private:
    std::int64_t product(const std::array<std::int64_t, MAX_SPATIAL>& v) const {
      std::int64_t n = 1;
      for (std::size_t i = 0; i < s; ++i) n *= v[i];
      return n;
    }
  };

  // Output extents and pads of a window, ONNX's rules (auto_pad, ceil_mode, dilations).
  static Window window(std::span<const std::int64_t> in, std::span<const std::int64_t> kernel, const WindowParams& p, const char* name) {
    Window w;
    w.s = in.size();
    if (w.s > MAX_SPATIAL || kernel.size() != w.s)
      throw KernelMisuse(std::string(name) + ": " + std::to_string(kernel.size()) + " kernel extents for " + std::to_string(w.s) + " spatial axes");
    const auto pick = [&](const std::vector<std::int64_t>& v, std::size_t i, std::int64_t dflt) {
      if (v.empty()) return dflt;
      if (v.size() <= i) throw KernelMisuse(std::string(name) + ": an attribute list is shorter than the spatial rank");
      return v[i];
    };
    if (!p.pads.empty() && p.pads.size() != 2 * w.s) throw KernelMisuse(std::string(name) + ": pads must hold two entries per spatial axis");
    for (std::size_t i = 0; i < w.s; ++i) {
      w.in[i] = in[i];
      w.k[i] = kernel[i];
      w.stride[i] = pick(p.strides, i, 1);
      w.dil[i] = pick(p.dilations, i, 1);
      if (w.k[i] < 1 || w.stride[i] < 1 || w.dil[i] < 1) throw KernelMisuse(std::string(name) + ": kernel, strides and dilations must be positive");
      const std::int64_t reach = w.dil[i] * (w.k[i] - 1) + 1;
      if (p.auto_pad == AutoPad::SameUpper || p.auto_pad == AutoPad::SameLower) {
        w.out[i] = (w.in[i] + w.stride[i] - 1) / w.stride[i];
        const std::int64_t total = std::max<std::int64_t>(0, (w.out[i] - 1) * w.stride[i] + reach - w.in[i]);
        const std::int64_t small = total / 2;
        w.pad_begin[i] = p.auto_pad == AutoPad::SameUpper ? small : total - small;
        w.pad_end[i] = total - w.pad_begin[i];
        continue;
      }
      if (p.auto_pad == AutoPad::NotSet) {
        w.pad_begin[i] = pick(p.pads, i, 0);
        w.pad_end[i] = p.pads.empty() ? 0 : p.pads[w.s + i];
      }
      const std::int64_t span = w.in[i] + w.pad_begin[i] + w.pad_end[i] - reach;
      if (span < 0)
        throw KernelMisuse(std::string(name) + ": the padded input (" + std::to_string(w.in[i] + w.pad_begin[i] + w.pad_end[i]) +
                           ") does not hold the kernel's reach (" + std::to_string(reach) + ") at spatial axis " + std::to_string(i));
      if (p.ceil_mode) {
        w.out[i] = (span + w.stride[i] - 1) / w.stride[i] + 1;
        // The last window must start inside the input or its leading pad.
        if ((w.out[i] - 1) * w.stride[i] >= w.in[i] + w.pad_begin[i]) --w.out[i];
      } else {
        w.out[i] = span / w.stride[i] + 1;
      }
    }
    return w;
  }

  // im2col of one image's group of channels into B [Cg * prod(k)][P].
  static void im2col(const float* x, std::int64_t channels, const Window& w, float* b) {
    std::int64_t in_plane = 1, out_plane = 1, taps = 1;
    for (std::size_t i = 0; i < w.s; ++i) {
      in_plane *= w.in[i];
      out_plane *= w.out[i];
      taps *= w.k[i];
    }
    if (w.s == 2) {
      const std::int64_t H = w.in[0], W = w.in[1], OH = w.out[0], OW = w.out[1];
      const std::int64_t sh = w.stride[0], sw = w.stride[1];
      for (std::int64_t c = 0; c < channels; ++c) {
        const float* plane = x + c * in_plane;
        for (std::int64_t kh = 0; kh < w.k[0]; ++kh)
          for (std::int64_t kw = 0; kw < w.k[1]; ++kw) {
            float* dst = b + ((c * w.k[0] + kh) * w.k[1] + kw) * out_plane;
            const std::int64_t ih0 = kh * w.dil[0] - w.pad_begin[0], iw0 = kw * w.dil[1] - w.pad_begin[1];
            // Output rows and columns whose input lies inside the plane.
            std::int64_t row_lo = ih0 >= 0 ? 0 : (-ih0 + sh - 1) / sh;
            std::int64_t row_hi = H - ih0 <= 0 ? 0 : (H - ih0 + sh - 1) / sh;
            std::int64_t lo = iw0 >= 0 ? 0 : (-iw0 + sw - 1) / sw;
            std::int64_t hi = W - iw0 <= 0 ? 0 : (W - iw0 + sw - 1) / sw;
            row_lo = std::min(row_lo, OH);
            row_hi = std::max(row_lo, std::min(row_hi, OH));
            lo = std::min(lo, OW);
            hi = std::max(lo, std::min(hi, OW));
            std::fill(dst, dst + row_lo * OW, 0.0f);
            std::fill(dst + row_hi * OW, dst + OH * OW, 0.0f);
            if (row_hi == row_lo || hi == lo) {
              std::fill(dst + row_lo * OW, dst + row_hi * OW, 0.0f);
              continue;
            }
            if (sh == 1 && sw == 1 && OW == W) {
              // The tap's rows are the plane shifted: one copy, then the columns it wrapped zeroed.
              const std::int64_t first = row_lo * OW + lo, last = (row_hi - 1) * OW + hi;
              const float* src = plane + (row_lo + ih0) * W + (lo + iw0);
              std::copy(src, src + (last - first), dst + first);
              for (std::int64_t oh = row_lo; oh < row_hi; ++oh) {
                float* d = dst + oh * OW;
                for (std::int64_t ow = 0; ow < lo; ++ow) d[ow] = 0.0f;
                for (std::int64_t ow = hi; ow < OW; ++ow) d[ow] = 0.0f;
              }
              continue;
            }
            for (std::int64_t oh = row_lo; oh < row_hi; ++oh) {
              float* d = dst + oh * OW;
              const float* row = plane + (oh * sh + ih0) * W;
              for (std::int64_t ow = 0; ow < lo; ++ow) d[ow] = 0.0f;
              if (sw == 1) {
                for (std::int64_t ow = lo; ow < hi; ++ow) d[ow] = row[ow + iw0];
              } else {
                for (std::int64_t ow = lo; ow < hi; ++ow) d[ow] = row[ow * sw + iw0];
              }
              for (std::int64_t ow = hi; ow < OW; ++ow) d[ow] = 0.0f;
            }
          }
      }
      return;
    }
    // Any other spatial rank: an odometer over kernel taps and output positions.
    std::array<std::int64_t, MAX_SPATIAL> tap{}, pos{};
    for (std::int64_t c = 0; c < channels; ++c) {
      const float* plane = x + c * in_plane;
      tap.fill(0);
      for (std::int64_t t = 0; t < taps; ++t) {
        float* dst = b + (c * taps + t) * out_plane;
        pos.fill(0);
        for (std::int64_t o = 0; o < out_plane; ++o) {
          std::int64_t offset = 0;
          bool inside = true;
          for (std::size_t d = 0; d < w.s; ++d) {
            const std::int64_t i = pos[d] * w.stride[d] - w.pad_begin[d] + tap[d] * w.dil[d];
            inside = inside && i >= 0 && i < w.in[d];
            offset = offset * w.in[d] + i;
          }
          dst[o] = inside ? plane[offset] : 0.0f;
          for (std::size_t d = w.s; d-- > 0;) {
            if (++pos[d] < w.out[d]) break;
            pos[d] = 0;
          }
        }
        for (std::size_t d = w.s; d-- > 0;) {
          if (++tap[d] < w.k[d]) break;
          tap[d] = 0;
        }
      }
    }
  }

  // Copies a short row (the rows of a plane: tens of floats) in blocks of 8, the last block
  // overlapping the one before, instead of a vector loop's scalar tail.
  static void copy_row(const float* s, float* d, std::int64_t n) {
    if (n < 8) {
      for (std::int64_t j = 0; j < n; ++j) d[j] = s[j];
      return;
    }
    for (std::int64_t j = 0; j + 8 < n; j += 8) std::memcpy(d + j, s + j, 8 * sizeof(float));
    std::memcpy(d + n - 8, s + n - 8, 8 * sizeof(float));
  }

  enum class PoolKind : std::uint8_t { Max, Average };

  // Two spatial axes whose windows tile the input without overlap, padding or dilation (a K x K
  // window at stride K, as most CNNs pool): each output reads its K * K taps directly. K is a
  // constant, so the taps unroll and the column loop vectorises; the taps fold in pool2d's order
  // (down each column, then across), so a NaN lands as it does there.
  template <int K>
  static void pool2d_tiled(const float* x, std::int64_t pitch, std::int64_t plane_stride, float* y, std::int64_t planes, const Window& w,
                           PoolKind kind) {
    const std::int64_t W = pitch, OH = w.out[0], OW = w.out[1];
    const float inv = 1.0f / static_cast<float>(K * K);
    for (std::int64_t pl = 0; pl < planes; ++pl) {
      const float* src = x + pl * plane_stride;
      float* dst = y + pl * OH * OW;
      for (std::int64_t oh = 0; oh < OH; ++oh) {
        const float* __restrict r = src + oh * K * W;
        float* __restrict d = dst + oh * OW;
        if (kind == PoolKind::Max) {
          for (std::int64_t ow = 0; ow < OW; ++ow) {
            float acc = 0.0f;
            for (int kw = 0; kw < K; ++kw) {
              float c = r[ow * K + kw];
              for (int kh = 1; kh < K; ++kh) c = c > r[kh * W + ow * K + kw] ? c : r[kh * W + ow * K + kw];
              acc = kw == 0 ? c : (acc > c ? acc : c);
            }
            d[ow] = acc;
          }
        } else {
          for (std::int64_t ow = 0; ow < OW; ++ow) {
            float acc = 0.0f;
            for (int kw = 0; kw < K; ++kw) {
              float c = r[ow * K + kw];
              for (int kh = 1; kh < K; ++kh) c += r[kh * W + ow * K + kw];
              acc = kw == 0 ? c : acc + c;
            }
            d[ow] = acc * inv;
          }
        }
      }
    }
  }

  // Two spatial axes: a window's maximum or sum is taken over its rows first (whole input rows,
  // a loop that vectorises), then over its columns.
  static void pool2d(const float* x, std::int64_t pitch, std::int64_t plane_stride, float* y, std::int64_t planes, const Window& w, PoolKind kind,
                     bool count_include_pad) {
    const std::int64_t W = w.in[1], OH = w.out[0], OW = w.out[1];
    const auto taps = [&](std::size_t d, std::int64_t o, std::int64_t& lo, std::int64_t& hi, std::int64_t& padded) {
      const std::int64_t start = o * w.stride[d] - w.pad_begin[d];
      lo = start >= 0 ? 0 : (-start + w.dil[d] - 1) / w.dil[d];
      hi = w.in[d] - start <= 0 ? 0 : std::min(w.k[d], (w.in[d] - start + w.dil[d] - 1) / w.dil[d]);
      hi = std::max(hi, lo);
      padded = std::max<std::int64_t>(0, std::min(w.k[d], (w.in[d] + w.pad_end[d] - start + w.dil[d] - 1) / w.dil[d]));
      return start;
    };
    std::vector<std::int64_t> col_start(static_cast<std::size_t>(OW)), col_lo(static_cast<std::size_t>(OW)), col_hi(static_cast<std::size_t>(OW)),
        col_padded(static_cast<std::size_t>(OW));
    for (std::int64_t ow = 0; ow < OW; ++ow) {
      const auto i = static_cast<std::size_t>(ow);
      col_start[i] = taps(1, ow, col_lo[i], col_hi[i], col_padded[i]);
    }
    // The output columns whose every tap lies inside the row (a contiguous range).
    std::int64_t interior_lo = 0, interior_hi = 0;
    {
      std::int64_t ow = 0;
      while (ow < OW && !(col_lo[static_cast<std::size_t>(ow)] == 0 && col_hi[static_cast<std::size_t>(ow)] == w.k[1])) ++ow;
      interior_lo = ow;
      while (ow < OW && col_lo[static_cast<std::size_t>(ow)] == 0 && col_hi[static_cast<std::size_t>(ow)] == w.k[1]) ++ow;
      interior_hi = ow;
    }
    std::vector<float> rows(static_cast<std::size_t>(W)), starts(static_cast<std::size_t>(W));
    const float init = kind == PoolKind::Max ? std::numeric_limits<float>::lowest() : 0.0f;
    const std::int64_t dw = w.dil[1], sw = w.stride[1];
    // Every pass below runs over contiguous floats with no branch, so it vectorises (a max of two
    // floats written `a > b ? a : b` is one vector max).
    const auto fold = [kind](float* __restrict acc, const float* __restrict v, std::int64_t n) {
      if (kind == PoolKind::Max) {
        for (std::int64_t j = 0; j < n; ++j) acc[j] = acc[j] > v[j] ? acc[j] : v[j];
      } else {
        for (std::int64_t j = 0; j < n; ++j) acc[j] += v[j];
      }
    };
    // Interior output columns read the row from start column c0 on, every sw-th start an output.
    const std::int64_t c0 = interior_lo * sw - w.pad_begin[1];
    const std::int64_t span = interior_hi > interior_lo ? (interior_hi - interior_lo - 1) * sw + 1 : 0;
    for (std::int64_t pl = 0; pl < planes; ++pl) {
      const float* src = x + pl * plane_stride;
      float* dst = y + pl * OH * OW;
      for (std::int64_t oh = 0; oh < OH; ++oh) {
        std::int64_t lo, hi, padded_rows;
        const std::int64_t start = taps(0, oh, lo, hi, padded_rows);
        // The window's rows reduced first: the first tap's row copied, the others folded in.
        float* r = rows.data();
        if (hi > lo) {
          std::copy(src + (start + lo * w.dil[0]) * pitch, src + (start + lo * w.dil[0]) * pitch + W, r);
          for (std::int64_t t = lo + 1; t < hi; ++t) fold(r, src + (start + t * w.dil[0]) * pitch, W);
        } else {
          std::fill(r, r + W, init);
        }
        // Then the interior columns: the window's value at every start column (one pass per tap),
        // of which every sw-th is an output.
        float* d = dst + oh * OW;
        if (span > 0) {
          float* m = starts.data();
          std::copy(r + c0, r + c0 + span, m);
          for (std::int64_t t = 1; t < w.k[1]; ++t) fold(m, r + c0 + t * dw, span);
          for (std::int64_t ow = interior_lo; ow < interior_hi; ++ow) d[ow] = m[(ow - interior_lo) * sw];
        }
        if (kind == PoolKind::Average) {
          const std::int64_t divisor = count_include_pad ? padded_rows * w.k[1] : (hi - lo) * w.k[1];
          const float inv = divisor > 0 ? 1.0f / static_cast<float>(divisor) : 0.0f;
          for (std::int64_t ow = interior_lo; ow < interior_hi; ++ow) d[ow] = divisor > 0 ? d[ow] * inv : 0.0f;
        }
        for (std::int64_t ow = 0; ow < OW; ++ow) {
          if (ow == interior_lo) ow = interior_hi;
          if (ow >= OW) break;
          const auto i = static_cast<std::size_t>(ow);
          const std::int64_t c = col_start[i];
          float acc = init;
          if (kind == PoolKind::Max) {
            for (std::int64_t t = col_lo[i]; t < col_hi[i]; ++t) acc = acc > r[c + t * dw] ? acc : r[c + t * dw];
          } else {
            for (std::int64_t t = col_lo[i]; t < col_hi[i]; ++t) acc += r[c + t * dw];
            const std::int64_t divisor = count_include_pad ? padded_rows * col_padded[i] : (hi - lo) * (col_hi[i] - col_lo[i]);
            acc = divisor > 0 ? acc / static_cast<float>(divisor) : 0.0f;
          }
          d[ow] = acc;
        }
      }
    }
  }

  // A 2-D pool over planes of rows `pitch` apart, planes `plane_stride` apart (a Conv's product
  // read in place has both wider than the plane): the direct path where the windows tile the input.
  struct PoolStep {
    Window w;
    PoolKind kind = PoolKind::Max;
    bool count_include_pad = false;
  };
  static void pool2d_planes(const float* x, std::int64_t pitch, std::int64_t plane_stride, float* y, std::int64_t planes, const PoolStep& step) {
    const Window& w = step.w;
    const bool tiled = w.k[0] == w.k[1] && w.stride[0] == w.k[0] && w.stride[1] == w.k[1] && w.dil[0] == 1 && w.dil[1] == 1 &&
                       w.pad_begin[0] == 0 && w.pad_begin[1] == 0 && w.pad_end[0] == 0 && w.pad_end[1] == 0 &&
                       w.out[0] * w.k[0] <= w.in[0] && w.out[1] * w.k[1] <= w.in[1];
    if (tiled && w.k[0] == 2) pool2d_tiled<2>(x, pitch, plane_stride, y, planes, w, step.kind);
    else if (tiled && w.k[0] == 3) pool2d_tiled<3>(x, pitch, plane_stride, y, planes, w, step.kind);
    else pool2d(x, pitch, plane_stride, y, planes, w, step.kind, step.count_include_pad);
  }

  // A 2-D Conv without im2col: each input plane is copied once into zero-padded planes of pitch P,
  // and row (c, kh, kw) of the product's B is one of them shifted, so the product reads every tap
  // where it lies. The product runs over output rows P wide (the columns past OW are computed and
  // dropped), then its rows are compacted into the result.
  // At stride 1 the plane is the padded input, and row (c, kh, kw) of B is it shifted by
  // kh * dh * P + kw * dw. One zero gap of max(left, right) pad columns between two rows serves as
  // the right pad of one and the left pad of the next, so P is W + max(left, right), not
  // W + left + right: fewer columns computed for nothing.
  // At strides (sh, sw) the padded input is split into sh * sw phase planes, padded element
  // (sh * qh + rh, sw * qw + rw) to element (qh, qw) of phase (rh, rw); tap (kh, kw) of output
  // (oh, ow) reads padded (oh * sh + kh * dh, ow * sw + kw * dw), which is phase
  // (kh * dh mod sh, kw * dw mod sw) at (oh + kh * dh / sh, ow + kw * dw / sw): a shift of a phase
  // plane, as at stride 1. So a stride-2 layer (a network's first, on 3 channels) copies its input
  // once instead of writing an im2col nine times its size.
  //
  // With `pool`, each image's product is pooled where it lies (rows P apart) while it is still in
  // cache, and y is the pooled result: the Conv's own result is never stored.
  static void conv2d_implicit(const float* x, const ConvPanels& w, const float* bias, const Window& win, bool relu, std::int64_t batch,
                              std::int64_t cin, std::int64_t cout, float* y, const Workers* workers, const PoolStep* pool = nullptr,
                              RowSink* sink = nullptr) {
    const std::int64_t group = w.group(), cg = cin / group, mg = cout / group, kg = w.k();
    const std::int64_t H = win.in[0], W = win.in[1], OH = win.out[0], OW = win.out[1];
    const std::int64_t KH = win.k[0], KW = win.k[1], sh = win.stride[0], sw = win.stride[1], dh = win.dil[0], dw = win.dil[1];
    const std::int64_t top = win.pad_begin[0], left = win.pad_begin[1];
    const bool strided = sh > 1 || sw > 1;
    // The pitch and the elements of one (phase) plane. A phase plane holds every row and column a
    // valid output reads and every input element (the one past the reads is cheaper to keep than
    // to test for).
    std::int64_t P = 0, phase_plane = 0;
    if (!strided) {
      // Input row h starts at (top + h) * P + left.
      P = W + std::max(left, win.pad_end[1]);
      phase_plane = (H + top + win.pad_end[0]) * P + left;
    } else {
      P = std::max(OW + (KW - 1) * dw / sw, (left + W - 1) / sw + 1);
      phase_plane = std::max(OH + (KH - 1) * dh / sh, (top + H - 1) / sh + 1) * P;
    }
    const std::int64_t plane = sh * sw * phase_plane;  // one input channel's phases
    const std::int64_t n_ext = (OH - 1) * P + OW, out_plane = OH * OW;
    // Input row h of channel c, as its phases' rows: phase (rh, rw)'s row starts at row_base[rw].
    const auto copy_channel_row = [&](const float* s, float* channel, std::int64_t h) {
      if (!strided) {
        copy_row(s, channel + (h + top) * P + left, W);
        return;
      }
      const std::int64_t ph = h + top;
      float* base = channel + (ph % sh) * sw * phase_plane + (ph / sh) * P;
      if (sw == 1) {
        copy_row(s, base + left, W);
      } else if (sw == 2) {
        deinterleave_row(s, left, W, base, base + phase_plane);
      } else {
        for (std::int64_t c = 0; c < W; ++c) base[((c + left) % sw) * phase_plane + (c + left) / sw] = s[c];
      }
    };
    // Images [first, end), each product split over `inner` (where given), in buffers of this thread.
    // With `inner`, the copies into and out of the product are split over it too: of a network's
    // first layer (one image, 3 channels) they are a third of the layer's time.
    const auto images = [&](std::int64_t first, std::int64_t end, const Workers* inner) {
      static thread_local std::vector<float> padded, product;
      static thread_local std::vector<const float*> rows;
      // Grown, never shrunk: a vector growing zeroes its new elements, each call again if the
      // layers between calls shrank it.
      const std::int64_t padded_size = cg * plane + Sgemm::NR;
      if (static_cast<std::int64_t>(padded.size()) < padded_size) padded.resize(static_cast<std::size_t>(padded_size));
      if (static_cast<std::int64_t>(product.size()) < mg * n_ext) product.resize(static_cast<std::size_t>(mg * n_ext));
      // The buffers are this thread's: the jobs, on other threads, reach them through these.
      float* const in = padded.data();
      const float* const out = product.data();
      split_copy(inner, padded_size, padded_size, [&](std::int64_t from, std::int64_t to) { std::fill(in + from, in + to, 0.0f); });
      rows.resize(static_cast<std::size_t>(kg));
      for (std::int64_t c = 0; c < cg; ++c)
        for (std::int64_t kh = 0; kh < KH; ++kh)
          for (std::int64_t kw = 0; kw < KW; ++kw) {
            const std::int64_t th = kh * dh, tw = kw * dw;
            rows[static_cast<std::size_t>((c * KH + kh) * KW + kw)] =
                padded.data() + c * plane + ((th % sh) * sw + tw % sw) * phase_plane + th / sh * P + tw / sw;
          }
      for (std::int64_t n = first; n < end; ++n)
        for (std::int64_t g = 0; g < group; ++g) {
          const float* src = x + (n * cin + g * cg) * H * W;
          split_copy(inner, cg * H, cg * H * W, [&](std::int64_t from, std::int64_t to) {
            for (std::int64_t r = from; r < to; ++r) copy_channel_row(src + r * W, in + (r / H) * plane, r % H);
          });
          Sgemm::Epilogue ep;
          ep.row_bias = bias ? bias + g * mg : nullptr;
          ep.relu = relu;
          Sgemm::run(mg, n_ext, kg, w.operand(g), Sgemm::BOperand::indirect(rows.data()), product.data(), n_ext, ep, inner);
          if (pool) {
            pool2d_planes(product.data(), P, n_ext, y + (n * cout + g * mg) * pool->w.out_plane(), mg, *pool);
            continue;
          }
          float* dst = y + (n * cout + g * mg) * out_plane;
          split_copy(inner, mg * OH, mg * out_plane, [&](std::int64_t from, std::int64_t to) {
            for (std::int64_t r = from; r < to; ++r) copy_row(out + (r / OH) * n_ext + (r % OH) * P, dst + (r / OH) * out_plane + (r % OH) * OW, OW);
          });
          if (sink) sink->finished(n * cout + g * mg, mg);
        }
    };
    for_images(workers, batch, batch * cout * n_ext * kg, images);
  }

  // images(first, end, inner) over a batch's images: where the images share out evenly (a
  // multiple of the threads, or four a thread or more), whole images a thread, so the copies and
  // pools around each product run in parallel too and each product runs on its thread alone; else
  // every image here, each product split over the workers. `work`: the whole batch's multiply-adds.
  template <class Images>
  static void for_images(const Workers* workers, std::int64_t batch, std::int64_t work, const Images& images) {
    const std::int64_t jobs = split_jobs(workers, batch, work);
    const std::int64_t threads = workers ? workers->threads() : 1;
    if (jobs > 1 && batch >= threads && (batch % threads == 0 || batch >= 4 * threads)) {
      run_jobs(workers, jobs, [&](std::int64_t job) {
        const auto [first, end] = job_share(batch, jobs, job);
        images(first, end, nullptr);
      });
    } else {
      images(0, batch, workers);
    }
  }

  // A 2-D Conv whose groups each read one input channel (MobileNet's depthwise layers): as an SGEMM
  // each group would be a product of one or a few rows over K = KH * KW, so each output channel is
  // computed directly instead, row by row: every tap one multiply-add into accumulators of a block
  // of output columns, which stay in registers across the taps. The input plane is copied once per
  // group into a zero-padded plane (with slack past its end for a last block's unused columns), so
  // no tap tests a bound; at column stride 2 the copy puts each row's even columns before its odd
  // ones, so every tap of the row reads contiguous columns too (tap kw of output column ow reads
  // padded column 2 ow + kw dw: half (kw dw) mod 2 of the row, at ow + (kw dw) / 2). The sums run in
  // the SGEMM's order: taps in order, then the bias, then Relu keeping NaN.
  static constexpr std::int64_t DEPTHWISE_BLOCK = 16;
  // Output rows computed together, so that short rows still give the multiply-adds independent
  // accumulators to overlap.
  static constexpr std::int64_t DEPTHWISE_ROWS = 4;

  // `rows` output rows, dst[r * OW + ow] for ow < OW: the sum over t of
  // w[t] * base[r * row_stride + offset[t] + ow * step], then + b, then Relu. Columns of a tap past
  // OW may be read (the padded plane's slack), never a column of dst past OW written.
  // `tap_pitch`, where not 0: the taps are a 3 x 3 kernel at stride 1 or 2 on both axes, no
  // dilation, its rows tap_pitch apart (depthwise3x3_avx512).
  static void depthwise_rows(const float* base, std::int64_t row_stride, const std::int64_t* offset, const float* w, std::int64_t ntaps,
                             std::int64_t step, float b, bool relu, float* dst, std::int64_t OW, std::int64_t rows, std::int64_t tap_pitch = 0) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (step == 1 && tap_pitch && Sgemm::use_avx512()) {
      if (row_stride == tap_pitch)
        depthwise3x3_avx512<1>(base, tap_pitch, 0, w, b, relu, dst, OW, rows);
      else
        depthwise3x3_avx512<2>(base, tap_pitch, offset[1], w, b, relu, dst, OW, rows);
      return;
    }
    if (step == 1 && tap_pitch && Sgemm::use_avx2()) {
      if (row_stride == tap_pitch)
        depthwise3x3_avx2<1>(base, tap_pitch, 0, w, b, relu, dst, OW, rows);
      else
        depthwise3x3_avx2<2>(base, tap_pitch, offset[1], w, b, relu, dst, OW, rows);
      return;
    }
    if (step == 1 && Sgemm::use_avx2()) {
      std::int64_t r = 0;
      for (; r + DEPTHWISE_ROWS <= rows; r += DEPTHWISE_ROWS)
        depthwise_rows_avx2<DEPTHWISE_ROWS>(base + r * row_stride, row_stride, offset, w, ntaps, b, relu, dst + r * OW, OW);
      for (; r < rows; ++r) depthwise_rows_avx2<1>(base + r * row_stride, row_stride, offset, w, ntaps, b, relu, dst + r * OW, OW);
      return;
    }
#endif
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t ow0 = 0; ow0 < OW; ow0 += DEPTHWISE_BLOCK) {
        float acc[DEPTHWISE_BLOCK] = {};
        for (std::int64_t t = 0; t < ntaps; ++t) {
          const float wv = w[t];
          const float* tap = base + r * row_stride + offset[t] + ow0 * step;
          for (std::int64_t j = 0; j < DEPTHWISE_BLOCK; ++j) acc[j] += wv * tap[j * step];
        }
        const std::int64_t n = std::min(DEPTHWISE_BLOCK, OW - ow0);
        for (std::int64_t j = 0; j < n; ++j) {
          const float v = acc[j] + b;
          dst[r * OW + ow0 + j] = relu && v <= 0.0f ? 0.0f : v;
        }
      }
  }

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  // depthwise_rows on contiguous taps, R rows at a time: 16 columns a step in two 8-lane
  // accumulators a row, then 8 at a time, the last columns stored through a copy.
  template <int R>
  __attribute__((target("avx2,fma"))) static void depthwise_rows_avx2(const float* base, std::int64_t row_stride, const std::int64_t* offset,
                                                                      const float* w, std::int64_t ntaps, float b, bool relu, float* dst,
                                                                      std::int64_t OW) {
    const __m256 bias = _mm256_set1_ps(b), zero = _mm256_setzero_ps();
    const auto finish = [&](__m256 v) {
      v = _mm256_add_ps(v, bias);
      // Relu keeping NaN, as the SGEMM's store does.
      return relu ? _mm256_and_ps(v, _mm256_cmp_ps(v, zero, _CMP_NLE_UQ)) : v;
    };
    std::int64_t ow = 0;
    for (; ow + 16 <= OW; ow += 16) {
      __m256 a0[R], a1[R];
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) a0[r] = a1[r] = zero;
      for (std::int64_t t = 0; t < ntaps; ++t) {
        const __m256 wv = _mm256_broadcast_ss(w + t);
        const float* tap = base + offset[t] + ow;
#pragma GCC unroll 4
        for (int r = 0; r < R; ++r) {
          a0[r] = _mm256_fmadd_ps(wv, _mm256_loadu_ps(tap + r * row_stride), a0[r]);
          a1[r] = _mm256_fmadd_ps(wv, _mm256_loadu_ps(tap + r * row_stride + 8), a1[r]);
        }
      }
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) {
        _mm256_storeu_ps(dst + r * OW + ow, finish(a0[r]));
        _mm256_storeu_ps(dst + r * OW + ow + 8, finish(a1[r]));
      }
    }
    for (; ow < OW; ow += 8) {
      __m256 a0[R];
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) a0[r] = zero;
      for (std::int64_t t = 0; t < ntaps; ++t) {
        const __m256 wv = _mm256_broadcast_ss(w + t);
        const float* tap = base + offset[t] + ow;
#pragma GCC unroll 4
        for (int r = 0; r < R; ++r) a0[r] = _mm256_fmadd_ps(wv, _mm256_loadu_ps(tap + r * row_stride), a0[r]);
      }
      const std::int64_t left = OW - ow;
      if (left >= 8) {
#pragma GCC unroll 4
        for (int r = 0; r < R; ++r) _mm256_storeu_ps(dst + r * OW + ow, finish(a0[r]));
        continue;
      }
      // The last columns through a copy, not vmaskmovps: a masked store is microcoded on AMD's
      // cores (about a fifth of a small plane's time there).
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) {
        alignas(32) float lanes[8];
        _mm256_store_ps(lanes, finish(a0[r]));
        for (std::int64_t j = 0; j < left; ++j) dst[r * OW + ow + j] = lanes[j];
      }
    }
  }

  // depthwise3x3_avx512's row sharing in 8-lane vectors, on the padded plane (its slack read past
  // OW as depthwise_rows_avx2 reads it): R output rows of V vectors a block, every input row loaded
  // once per kernel column. AVX2's 16 registers hold the nine weights and six accumulators: three
  // rows of two vectors, or where a row is less than two vectors (V = 1 only) four rows (measured:
  // five or more spill). The sums run in tap order, so the bits are the other paths'.
  template <int S>
  __attribute__((target("avx2,fma"))) static void depthwise3x3_avx2(const float* base, std::int64_t pitch, std::int64_t half, const float* w,
                                                                    float b, bool relu, float* dst, std::int64_t OW, std::int64_t rows) {
    __m256 wv[9];
    for (int t = 0; t < 9; ++t) wv[t] = _mm256_set1_ps(w[t]);
    const std::int64_t mid = S == 1 ? 1 : half, last = S == 1 ? 2 : 1;
    std::int64_t r = 0;
    if (OW < 16)
      for (; r + 4 <= rows; r += 4) depthwise3x3_avx2_rows<4, S>(base, pitch, mid, last, wv, b, relu, dst, OW, r);
    for (; r + 3 <= rows; r += 3) depthwise3x3_avx2_rows<3, S>(base, pitch, mid, last, wv, b, relu, dst, OW, r);
    for (; r + 2 <= rows; r += 2) depthwise3x3_avx2_rows<2, S>(base, pitch, mid, last, wv, b, relu, dst, OW, r);
    for (; r < rows; ++r) depthwise3x3_avx2_rows<1, S>(base, pitch, mid, last, wv, b, relu, dst, OW, r);
  }

  template <int R, int S>
  __attribute__((target("avx2,fma"), always_inline)) static inline void depthwise3x3_avx2_rows(const float* base, std::int64_t pitch, std::int64_t mid,
                                                                                               std::int64_t last, const __m256* wv, float b, bool relu,
                                                                                               float* dst, std::int64_t OW, std::int64_t r) {
    std::int64_t ow = 0;
    for (; ow + 16 <= OW; ow += 16) depthwise3x3_avx2_block<R, S, 2>(base + r * S * pitch + ow, pitch, mid, last, wv, b, relu, dst + r * OW + ow, OW, 8);
    for (; ow < OW; ow += 8) depthwise3x3_avx2_block<R, S, 1>(base + r * S * pitch + ow, pitch, mid, last, wv, b, relu, dst + r * OW + ow, OW, std::min<std::int64_t>(8, OW - ow));
  }

  // V vectors of R output rows from `in`; the last vector's first `left` columns stored (through a
  // copy when fewer than 8: a masked store is microcoded on AMD's cores).
  template <int R, int S, int V>
  __attribute__((target("avx2,fma"), always_inline)) static inline void depthwise3x3_avx2_block(const float* in, std::int64_t pitch, std::int64_t mid,
                                                                                                std::int64_t last, const __m256* wv, float b, bool relu,
                                                                                                float* out, std::int64_t OW, std::int64_t left) {
    __m256 acc[R][V];
#pragma GCC unroll 4
    for (int i = 0; i < R; ++i)
#pragma GCC unroll 2
      for (int v = 0; v < V; ++v) acc[i][v] = _mm256_setzero_ps();
#pragma GCC unroll 12
    for (int j = 0; j < (R - 1) * S + 3; ++j) {
      const float* row = in + j * pitch;
#pragma GCC unroll 3
      for (int kw = 0; kw < 3; ++kw)
#pragma GCC unroll 2
        for (int v = 0; v < V; ++v) {
          const __m256 x = _mm256_loadu_ps(row + (kw == 0 ? 0 : kw == 1 ? mid : last) + 8 * v);
#pragma GCC unroll 3
          for (int kh = 0; kh < 3; ++kh) {
            const int d = j - kh;
            if (d >= 0 && d % S == 0 && d / S < R) acc[d / S][v] = _mm256_fmadd_ps(wv[kh * 3 + kw], x, acc[d / S][v]);
          }
        }
    }
    const __m256 bias = _mm256_set1_ps(b), zero = _mm256_setzero_ps();
#pragma GCC unroll 4
    for (int i = 0; i < R; ++i)
#pragma GCC unroll 2
      for (int v = 0; v < V; ++v) {
        __m256 y = _mm256_add_ps(acc[i][v], bias);
        // Relu keeping NaN, as the SGEMM's store does.
        if (relu) y = _mm256_and_ps(y, _mm256_cmp_ps(y, zero, _CMP_NLE_UQ));
        float* to = out + i * OW + 8 * v;
        if (v < V - 1 || left == 8) {
          _mm256_storeu_ps(to, y);
        } else {
          alignas(32) float lanes[8];
          _mm256_store_ps(lanes, y);
          for (std::int64_t c = 0; c < left; ++c) to[c] = lanes[c];
        }
      }
  }

  // A 3 x 3 kernel's rows `pitch` apart, its middle and last columns at `mid` and `last`,
  // its weights, bias and Relu as depthwise3x3_block reads them.
  struct Depthwise3x3 {
    std::int64_t pitch, mid, last;
    __m512 w[9], bias;
    bool relu;
    // Read in place (depthwise3x3_direct): the plane's extents and its pads before.
    std::int64_t H = 0, W = 0, top = 0, left = 0;
  };

  // A 3 x 3 depthwise kernel at stride S = 1 or 2 on both axes, no dilation, R output rows at a
  // time: each of the block's (R - 1) S + 3 input rows is loaded once per kernel column and feeds
  // every output row whose kernel reads it, so a multiply-add takes half a load or less, where one
  // load a tap made the loads (most of them across a cache line) the bound. An output row still
  // sums its taps in order (input rows ascending are kernel rows ascending), so the bits are
  // depthwise_rows_avx2's. Kernel column kw reads padded column kw (S = 1), or at S = 2 the
  // deinterleaved row's even half at 0 and 1 and its odd half at `half`.
  template <int S>
  __attribute__((target("avx512f"))) static void depthwise3x3_avx512(const float* base, std::int64_t pitch, std::int64_t half, const float* w,
                                                                      float b, bool relu, float* dst, std::int64_t OW, std::int64_t rows) {
    Depthwise3x3 k{pitch, S == 1 ? 1 : half, S == 1 ? 2 : 1, {}, _mm512_set1_ps(b), relu};
    for (int t = 0; t < 9; ++t) k.w[t] = _mm512_set1_ps(w[t]);
    depthwise3x3_rows<S, false>(base, k, dst, OW, rows);
  }

  // depthwise3x3_avx512 at stride 1 on the plane where it lies (H x W, padded by `top` and `left`
  // before and by any pads after), with no padded copy: every load is masked to the columns
  // inside the plane, and a row outside it reads nothing, the zeros a pad holds.
  // Output rows [r0, r1) of the plane.
  __attribute__((target("avx512f"))) static void depthwise3x3_direct(const float* plane, std::int64_t H, std::int64_t W, std::int64_t top,
                                                                      std::int64_t left, const float* w, float b, bool relu, float* dst,
                                                                      std::int64_t OW, std::int64_t r0, std::int64_t r1) {
    Depthwise3x3 k{W, 1, 2, {}, _mm512_set1_ps(b), relu, H, W, top, left};
    for (int t = 0; t < 9; ++t) k.w[t] = _mm512_set1_ps(w[t]);
    depthwise3x3_rows<1, true>(plane, k, dst, OW, r1, r0);
  }

  // Output rows [r0, rows).
  template <int S, bool D>
  __attribute__((target("avx512f"), always_inline)) static inline void depthwise3x3_rows(const float* base, const Depthwise3x3& k, float* dst,
                                                                                         std::int64_t OW, std::int64_t rows, std::int64_t r0 = 0) {
    std::int64_t r = r0;
    // A row of one vector or less gives four rows four accumulators: eight keep both FMA units busy.
    if (OW <= 16)
      for (; r + 8 <= rows; r += 8) depthwise3x3_group<8, S, D>(base, k, dst, OW, r);
    for (; r + 4 <= rows; r += 4) depthwise3x3_group<4, S, D>(base, k, dst, OW, r);
    for (; r + 2 <= rows; r += 2) depthwise3x3_group<2, S, D>(base, k, dst, OW, r);
    for (; r < rows; ++r) depthwise3x3_group<1, S, D>(base, k, dst, OW, r);
  }

  // R rows from output row r: while more than 16 columns are left, 32 a step in two accumulators
  // a row, else 16; a row's last columns stored under a mask.
  template <int R, int S, bool D>
  __attribute__((target("avx512f"), always_inline)) static inline void depthwise3x3_group(const float* base, const Depthwise3x3& k, float* dst,
                                                                                          std::int64_t OW, std::int64_t r) {
    const auto lanes = [](std::int64_t n) { return n >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << n) - 1); };
    float* out = dst + r * OW;
    std::int64_t ow = 0;
    for (; OW - ow > 16; ow += 32) depthwise3x3_block<R, S, 2, D>(base, r, ow, k, out + ow, OW, lanes(OW - ow - 16));
    if (ow < OW) depthwise3x3_block<R, S, 1, D>(base, r, ow, k, out + ow, OW, lanes(OW - ow));
  }

  // V vectors of columns of R output rows from `in`, finished and stored (the last vector under
  // `last`). Every loop has a constant trip count and unrolls, so the accumulators are registers
  // and the test for which output rows input row j serves is folded away.
  template <int R, int S, int V, bool D>
  __attribute__((target("avx512f"), always_inline)) static inline void depthwise3x3_block(const float* base, std::int64_t r, std::int64_t ow,
                                                                                          const Depthwise3x3& k, float* out, std::int64_t OW,
                                                                                          __mmask16 last) {
    const float* const in = D ? base : base + r * S * k.pitch + ow;
    // In place: which lanes of kernel column kw, vector v lie inside the plane's columns.
    __mmask16 inside[3][V] = {};
    if constexpr (D)
      for (int kw = 0; kw < 3; ++kw)
        for (int v = 0; v < V; ++v) {
          const std::int64_t first = ow + 16 * v + kw - k.left;
          const std::int64_t lo = std::max<std::int64_t>(0, -first), hi = std::min<std::int64_t>(16, k.W - first);
          inside[kw][v] = hi <= lo ? __mmask16(0) : __mmask16(((1u << hi) - 1) & ~((1u << lo) - 1));
        }
    __m512 acc[R][V];
#pragma GCC unroll 8
    for (int i = 0; i < R; ++i)
#pragma GCC unroll 2
      for (int v = 0; v < V; ++v) acc[i][v] = _mm512_setzero_ps();
#pragma GCC unroll 20
    for (int j = 0; j < (R - 1) * S + 3; ++j) {
      const float* row = in + j * k.pitch;
      bool row_inside = true;
      if constexpr (D) {
        const std::int64_t ih = r + j - k.top;
        row_inside = ih >= 0 && ih < k.H;
        // A row outside the plane is read under an empty mask, through its first row's address.
        row = in + (row_inside ? ih * k.W : 0) + ow - k.left;
      }
#pragma GCC unroll 3
      for (int kw = 0; kw < 3; ++kw)
#pragma GCC unroll 2
        for (int v = 0; v < V; ++v) {
          const float* at = row + (kw == 0 ? 0 : kw == 1 ? k.mid : k.last) + 16 * v;
          const __m512 x = D ? _mm512_maskz_loadu_ps(row_inside ? inside[kw][v] : __mmask16(0), at) : _mm512_loadu_ps(at);
#pragma GCC unroll 3
          for (int kh = 0; kh < 3; ++kh) {
            const int d = j - kh;
            if (d >= 0 && d % S == 0 && d / S < R) acc[d / S][v] = _mm512_fmadd_ps(k.w[kh * 3 + kw], x, acc[d / S][v]);
          }
        }
    }
    const __m512 zero = _mm512_setzero_ps();
#pragma GCC unroll 8
    for (int i = 0; i < R; ++i)
#pragma GCC unroll 2
      for (int v = 0; v < V; ++v) {
        __m512 y = _mm512_add_ps(acc[i][v], k.bias);
        // Relu keeping NaN: lanes above zero or unordered stay.
        if (k.relu) y = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(y, zero, _CMP_NLE_UQ), y);
        _mm512_mask_storeu_ps(out + i * OW + 16 * v, v == V - 1 ? last : __mmask16(0xFFFF), y);
      }
  }

#endif

  // Input columns 0 .. W - 1 as padded columns left .. left + W - 1, the even ones to even[c / 2],
  // the odd ones to odd[c / 2].
  static void deinterleave_row(const float* src, std::int64_t left, std::int64_t W, float* even, float* odd) {
    // Input column i lands in the half (left + i) mod 2; i0 is the first that lands in the even one.
    const std::int64_t i0 = left % 2, i1 = 1 - i0;
    float* e = even + (left + i0) / 2;
    float* o = odd + (left + i1) / 2;
    // Input columns 2 j and 2 j + 1 go to these two halves at j.
    float* to_even_input = i0 == 0 ? e : o;
    float* to_odd_input = i0 == 0 ? o : e;
    std::int64_t j = 0;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (Sgemm::use_avx2()) j = deinterleave_avx2(src, W, to_even_input, to_odd_input);
#endif
    for (; 2 * j < W; ++j) {
      to_even_input[j] = src[2 * j];
      if (2 * j + 1 < W) to_odd_input[j] = src[2 * j + 1];
    }
  }

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  // The first 8 k pairs of deinterleave_row's columns (16 k <= W), 8 pairs a step; returns 8 k.
  __attribute__((target("avx2"))) static std::int64_t deinterleave_avx2(const float* src, std::int64_t W, float* even, float* odd) {
    std::int64_t j = 0;
    for (; 2 * j + 16 <= W; j += 8) {
      const __m256 lo = _mm256_loadu_ps(src + 2 * j), hi = _mm256_loadu_ps(src + 2 * j + 8);
      // Within each 128-bit lane: lo's evens, hi's evens (odds likewise); then the lanes in order.
      const __m256 evens = _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0)), odds = _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(3, 1, 3, 1));
      _mm256_storeu_ps(even + j, _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(evens), _MM_SHUFFLE(3, 1, 2, 0))));
      _mm256_storeu_ps(odd + j, _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(odds), _MM_SHUFFLE(3, 1, 2, 0))));
    }
    return j;
  }
#endif

  // Split over the workers by planes, or by bands of output rows where each thread copies what it
  // reads into a padded plane of its own and the planes are large (BANDED_PLANE outputs or more):
  // then each thread reads and writes the pixels that the products before and after it (split by
  // columns) give and take on that thread, where a line another core wrote costs about five times
  // one of this core's L2. Measured on UltraFace at two threads: bands make the products around a
  // 120 x 160 layer a seventh faster; on smaller planes, and in the direct kernel, whose planes
  // stream whole, the short runs of rows cost more than they save.
  static void depthwise2d(const float* x, const float* w, const float* bias, const Window& win, bool relu, std::int64_t batch, std::int64_t group,
                          std::int64_t per_group, float* y, const Workers* workers, RowSink* sink = nullptr) {
    const std::int64_t H = win.in[0], W = win.in[1], OH = win.out[0], OW = win.out[1];
    const std::int64_t KH = win.k[0], KW = win.k[1], sh = win.stride[0], sw = win.stride[1], dh = win.dil[0], dw = win.dil[1];
    const std::int64_t top = win.pad_begin[0], left = win.pad_begin[1];
    const std::int64_t P = W + left + win.pad_end[1], rows = H + top + win.pad_end[0];
    // Stride 2: each padded row as its even columns, then its odd ones (`half` floats each).
    const bool split = sw == 2;
    const std::int64_t half = (P + 1) / 2, pitch = split ? 2 * half : P, step = split ? 1 : sw;
    // Where tap (kh, kw) of output (0, 0) lies in the padded plane (the calling thread's list, kept
    // between calls; the jobs read it through `offset`).
    static thread_local std::vector<std::int64_t> tap_offsets;
    tap_offsets.resize(static_cast<std::size_t>(KH * KW));
    for (std::int64_t kh = 0; kh < KH; ++kh)
      for (std::int64_t kw = 0; kw < KW; ++kw)
        tap_offsets[static_cast<std::size_t>(kh * KW + kw)] = kh * dh * pitch + (split ? (kw * dw % 2) * half + kw * dw / 2 : kw * dw);
    const std::int64_t* const offset = tap_offsets.data();
    const std::int64_t tap_pitch = KH == 3 && KW == 3 && dh == 1 && dw == 1 && sh == sw && (sh == 1 || sh == 2) ? pitch : 0;
    // Stride 1 reads the plane in place, its loads masked to the plane (depthwise3x3_direct).
    const bool direct = tap_pitch && sh == 1 && Sgemm::use_avx512();
    // The slack a last block reads past the plane.
    const std::int64_t slack = DEPTHWISE_BLOCK * step + (KW - 1) * dw;
    const std::int64_t planes = batch * group;
    const std::int64_t work = planes * per_group * OH * OW * KH * KW;
    const RowBands bands = direct ? RowBands{} : row_bands(workers, OH, OW, work);
    const std::int64_t jobs = bands.jobs > 1 ? bands.jobs : split_jobs(workers, planes, work);
    run_jobs(workers, jobs, [&](std::int64_t job) {
      const auto [first, end] = bands.jobs > 1 ? std::pair<std::int64_t, std::int64_t>{0, planes} : job_share(planes, jobs, job);
      const auto [r0, r1] = bands.jobs > 1 ? bands.band(OH, job) : std::pair<std::int64_t, std::int64_t>{0, OH};
      // The input rows output rows [r0, r1) read.
      const std::int64_t h0 = std::max<std::int64_t>(0, r0 * sh - top), h1 = std::min(H, (r1 - 1) * sh + (KH - 1) * dh + 1 - top);
      static thread_local std::vector<float> padded;
      // Each plane rewrites the same rows, so the pads stay zero.
      if (!direct) padded.assign(static_cast<std::size_t>(rows * pitch + slack), 0.0f);
      for (std::int64_t plane = first; plane < end; ++plane) {
        const std::int64_t n = plane / group, g = plane % group;
        const float* src = x + (n * group + g) * H * W;
        for (std::int64_t h = h0; h < h1 && !direct; ++h) {
          float* row = padded.data() + (h + top) * pitch;
          if (!split) {
            copy_row(src + h * W, row + left, W);
            continue;
          }
          deinterleave_row(src + h * W, left, W, row, row + half);
        }
        for (std::int64_t m = 0; m < per_group; ++m) {
          const std::int64_t oc = g * per_group + m;
          const float* wc = w + oc * KH * KW;
          const float b = bias ? bias[oc] : 0.0f;
          float* dst = y + (n * group * per_group + oc) * OH * OW;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
          if (direct) {
            depthwise3x3_direct(src, H, W, top, left, wc, b, relu, dst, OW, r0, r1);
            continue;
          }
#endif
          depthwise_rows(padded.data() + r0 * sh * pitch, sh * pitch, offset, wc, KH * KW, step, b, relu, dst + r0 * OW, OW, r1 - r0, tap_pitch);
        }
        if (sink && bands.jobs <= 1) sink->finished(n * group * per_group + g * per_group, per_group);
      }
    });
    // By bands, a plane is final only once every band is: the sink hears of the planes after.
    if (sink && bands.jobs > 1) {
      const std::int64_t channels = planes * per_group;
      run_jobs(workers, std::min<std::int64_t>(bands.jobs, channels), [&](std::int64_t job) {
        const auto [from, to] = job_share(channels, std::min<std::int64_t>(bands.jobs, channels), job);
        sink->finished(from, to - from);
      });
    }
  }

  // Bands of a plane's OH output rows of OW, one a thread, where the work pays for the threads and
  // each band has at least two units of rows: a unit the fewest rows that end on a 64-byte line
  // (OW * rows a multiple of 16 floats), so no line of the result is written by two threads.
  struct RowBands {
    std::int64_t jobs = 1, unit = 1;
    std::pair<std::int64_t, std::int64_t> band(std::int64_t OH, std::int64_t job) const {
      const auto [from, to] = job_share((OH + unit - 1) / unit, jobs, job);
      return {from * unit, std::min(OH, to * unit)};
    }
  };
  static constexpr std::int64_t BANDED_PLANE = 1 << 12;
  static RowBands row_bands(const Workers* workers, std::int64_t OH, std::int64_t OW, std::int64_t work) {
    if (!workers || static_cast<double>(work) < Sgemm::PARALLEL_MACS || OH * OW < BANDED_PLANE) return {};
    std::int64_t unit = 1;
    while (OW * unit % 16 != 0) ++unit;
    const std::int64_t threads = workers->threads();
    if ((OH + unit - 1) / unit < 2 * threads) return {};
    return {threads, unit};
  }

  // part(from, to) over [0, units), in one range a thread where there are threads and `elements`
  // to copy pay for waking them (PARALLEL_COPY: a few microseconds of copying), else in one here.
  static constexpr std::int64_t PARALLEL_COPY = 1 << 15;
  template <class Part>
  static void split_copy(const Workers* workers, std::int64_t units, std::int64_t elements, const Part& part) {
    const std::int64_t jobs = workers && elements >= PARALLEL_COPY ? std::min<std::int64_t>(workers->threads(), units) : 1;
    if (jobs <= 1) {
      part(0, units);
      return;
    }
    workers->run(jobs, [&](std::int64_t job) {
      const auto [from, to] = job_share(units, jobs, job);
      part(from, to);
    });
  }

  // How many jobs to split `units` independent pieces of work into, `work` multiply-adds in all:
  // one a thread where there are threads and enough work to pay for waking them, else one.
  static std::int64_t split_jobs(const Workers* workers, std::int64_t units, std::int64_t work) {
    if (!workers || static_cast<double>(work) < Sgemm::PARALLEL_MACS) return 1;
    return std::max<std::int64_t>(1, std::min<std::int64_t>(workers->threads(), units));
  }

  // im2col of `channels` channels, split by channels over the workers.
  static void im2col_on(const Workers* workers, const float* x, std::int64_t channels, const Window& w, float* b) {
    std::int64_t in_plane = 1, out_plane = 1, taps = 1;
    for (std::size_t i = 0; i < w.s; ++i) {
      in_plane *= w.in[i];
      out_plane *= w.out[i];
      taps *= w.k[i];
    }
    const std::int64_t jobs = split_jobs(workers, channels, channels * taps * out_plane);
    run_jobs(workers, jobs, [&](std::int64_t job) {
      const auto [first, end] = job_share(channels, jobs, job);
      im2col(x + first * in_plane, end - first, w, b + first * taps * out_plane);
    });
  }

  // Whether a Conv's groups each read one input channel (and there is more than one group).
  static bool is_depthwise(const ConvPanels& w, std::int64_t cin) {
    return w.group() > 1 && cin == w.group();
  }

  // A Conv's window over its input, after the checks every Conv kernel makes; Out is the Conv's
  // result, held to the input's batch axis and the weight's output-channel axis.
  template <class Out, class LX, class WAxes>
  static Window conv_window(const HostTensor<float, LX>& x, const PackedConv<WAxes>& w, const WindowParams& p) {
    constexpr std::size_t R = AxisRank<LX>;
    static_assert(R >= 3 && AxisRank<WAxes> == R && AxisRank<Out> == R, "conv: input, weight and result have one rank: [N, C, spatial...]");
    static_assert(std::is_same_v<AxisAt<0, Out>, AxisAt<0, LX>>, "conv: the result's batch axis must be the input's");
    static_assert(std::is_same_v<AxisAt<1, Out>, AxisAt<0, WAxes>>, "conv: the result's channel axis must be the weight's output-channel axis");
    return conv_window(x.extents(), w, p);
  }
  static Window conv_window(std::span<const std::int64_t> xe, const ConvPanels& w, const WindowParams& p) {
    const auto we = w.extents();
    const std::int64_t cin = xe[1], group = w.group();
    if (p.group != group) throw KernelMisuse("conv: the weight was packed for " + std::to_string(group) + " groups, the node has " + std::to_string(p.group));
    if (cin != we[1] * group)
      throw KernelMisuse("conv: the input holds " + std::to_string(cin) + " channels; the weight reads " + std::to_string(we[1]) + " per group of " + std::to_string(group));
    return window(xe.subspan(2), we.subspan(2), p, "conv");
  }

  // Whether a Conv reads each input element where it lies (every kernel extent 1, no stride, no pad).
  static bool is_pointwise(const Window& win) {
    bool one = true;
    for (std::size_t i = 0; i < win.s; ++i)
      one = one && win.k[i] == 1 && win.stride[i] == 1 && win.pad_begin[i] == 0 && win.pad_end[i] == 0;
    return one;
  }

  // The typed Conv: its axes checked at compile time, its result allocated, its work done by
  // conv_planes (one function for every Conv).
  template <class Out, class LX, class WAxes>
  static HostTensor<float, Out> conv_run(const HostTensor<float, LX>& x, const PackedConv<WAxes>& w, const float* bias, const WindowParams& p,
                                          bool relu, const Workers* workers, RowSink* sink = nullptr) {
    const Window win = conv_window<Out>(x, w, p);
    auto out = HostTensor<float, Out>::uninitialized(win.result_extents(x.extents(), w.out_channels()));
    conv_planes(x.data(), x.extents(), w, bias, win, relu, out.mutable_data_unchecked(), out.count(), workers, sink);
    return out;
  }

  // y [N, Cout, out...] (`count` elements) = the Conv of x [N, C, in...] over `win`.
  static void conv_planes(const float* x, std::span<const std::int64_t> xe, const ConvPanels& w, const float* bias, const Window& win, bool relu,
                          float* y, std::int64_t count, const Workers* workers, RowSink* sink) {
    const std::int64_t batch = xe[0], cin = xe[1], group = w.group(), cout = w.out_channels();
    const std::int64_t in_plane = win.in_plane(), out_plane = win.out_plane();
    const bool pointwise = is_pointwise(win);
    // A row is one (image, channel) plane of the result.
    if (sink) sink->hold(y, count, batch * cout);
    if (count == 0) return;
    const std::int64_t cg = cin / group, mg = cout / group, kg = w.k();
    if (xe.size() == 4) {
      if (is_depthwise(w, cin)) {
        depthwise2d(x, w.weights(), bias, win, relu, batch, group, mg, y, workers, sink);
        return;
      }
      if (!pointwise) {
        conv2d_implicit(x, w, bias, win, relu, batch, cin, cout, y, workers, nullptr, sink);
        return;
      }
    }
    for_images(workers, batch, batch * cout * out_plane * kg, [&](std::int64_t first, std::int64_t end, const Workers* inner) {
      static thread_local std::vector<float> columns;
      if (!pointwise && static_cast<std::int64_t>(columns.size()) < kg * out_plane) columns.resize(static_cast<std::size_t>(kg * out_plane));
      for (std::int64_t n = first; n < end; ++n)
        for (std::int64_t g = 0; g < group; ++g) {
          const float* xg = x + (n * cin + g * cg) * in_plane;
          const float* bm = xg;
          if (!pointwise) {
            im2col_on(inner, xg, cg, win, columns.data());
            bm = columns.data();
          }
          Sgemm::Epilogue ep;
          ep.row_bias = bias ? bias + g * mg : nullptr;
          ep.relu = relu;
          ep.rows = sink;
          ep.row_offset = n * cout + g * mg;
          Sgemm::run(mg, out_plane, kg, w.operand(g), Sgemm::BOperand::row_major(bm, out_plane), y + (n * cout + g * mg) * out_plane, out_plane,
                     ep, inner);
        }
    });
  }

  template <class WAxes>
  static const float* channel_bias(const HostTensor<float, Axes<AxisAt<0, WAxes>>>& bias, const PackedConv<WAxes>& w) {
    if (bias.extents()[0] != w.out_channels())
      throw KernelMisuse("conv: the bias holds " + std::to_string(bias.extents()[0]) + " elements, not one per output channel");
    return bias.data();
  }

  // Conv: x [N, C, spatial...] with a weight packed at load [Cout, C / group, k...].
  // With a RowEpilogue last, the epilogue's result: run on each (image, channel) plane of the
  // result as the convolution finishes it.
  template <class Out, class LX, class WAxes, class... Then>
  auto conv(const Tensor<float, LX>& x, const PackedConv<WAxes>& w, const WindowParams& p, bool relu = false, const Then&... then) const {
    return CpuBoundary::then_epilogue([&](RowSink* s) { return conv_run<Out>(x, w, nullptr, p, relu, workers(), s); }, then...);
  }
  template <class Out, class LX, class WAxes, class... Then>
  auto conv(const Tensor<float, LX>& x, const PackedConv<WAxes>& w, const Tensor<float, Axes<AxisAt<0, WAxes>>>& bias, const WindowParams& p,
            bool relu = false, const Then&... then) const {
    return CpuBoundary::then_epilogue([&](RowSink* s) { return conv_run<Out>(x, w, channel_bias(bias, w), p, relu, workers(), s); }, then...);
  }
  // A weight the run computes: packed on each call.
  template <class Out, class LX, class WAxes, class... Then>
  auto conv(const Tensor<float, LX>& x, const Tensor<float, WAxes>& w, const WindowParams& p, bool relu = false, const Then&... then) const {
    return conv<Out>(x, PackedConv<WAxes>(w, p.group), p, relu, then...);
  }
  template <class Out, class LX, class WAxes, class... Then>
  auto conv(const Tensor<float, LX>& x, const Tensor<float, WAxes>& w, const Tensor<float, Axes<AxisAt<0, WAxes>>>& bias, const WindowParams& p,
            bool relu = false, const Then&... then) const {
    return conv<Out>(x, PackedConv<WAxes>(w, p.group), bias, p, relu, then...);
  }

  template <class Out, class LX>
  static HostTensor<float, Out> pool_run(const HostTensor<float, LX>& x, const WindowParams& p, PoolKind kind, const char* name) {
    constexpr std::size_t R = AxisRank<LX>;
    static_assert(R >= 3 && AxisRank<Out> == R, "pool: input and result have one rank: [N, C, spatial...]");
    static_assert(std::is_same_v<AxisAt<0, Out>, AxisAt<0, LX>> && std::is_same_v<AxisAt<1, Out>, AxisAt<1, LX>>,
                  "pool: the result keeps the input's batch and channel axes");
    const auto& xe = x.extents();
    const Window w = window(std::span<const std::int64_t>(xe.data() + 2, R - 2), p.kernel_shape, p, name);
    const std::int64_t in_plane = w.in_plane(), out_plane = w.out_plane();
    auto out = HostTensor<float, Out>::uninitialized(w.result_extents(xe, xe[1]));
    if (out.count() == 0) return out;
    const std::int64_t planes = xe[0] * xe[1];
    float* y = out.mutable_data_unchecked();
    std::array<std::int64_t, MAX_SPATIAL> pos{}, lo{}, hi{}, start{}, tap{}, in_stride{};
    {
      std::int64_t step = 1;
      for (std::size_t d = w.s; d-- > 0;) {
        in_stride[d] = step;
        step *= w.in[d];
      }
    }
    if (w.s == 2) {
      pool2d_planes(x.data(), w.in[1], in_plane, y, planes, PoolStep{w, kind, p.count_include_pad});
      return out;
    }
    for (std::int64_t pl = 0; pl < planes; ++pl) {
      const float* src = x.data() + pl * in_plane;
      pos.fill(0);
      for (std::int64_t o = 0; o < out_plane; ++o) {
        std::int64_t padded_count = 1;
        bool empty = false;
        for (std::size_t d = 0; d < w.s; ++d) {
          start[d] = pos[d] * w.stride[d] - w.pad_begin[d];
          // Taps t with 0 <= start + t * dil < in.
          lo[d] = start[d] >= 0 ? 0 : (-start[d] + w.dil[d] - 1) / w.dil[d];
          hi[d] = w.in[d] - start[d] <= 0 ? 0 : std::min(w.k[d], (w.in[d] - start[d] + w.dil[d] - 1) / w.dil[d]);
          if (hi[d] <= lo[d]) empty = true;
          // Taps inside the padded input, for count_include_pad.
          const std::int64_t padded_hi = std::min(w.k[d], (w.in[d] + w.pad_end[d] - start[d] + w.dil[d] - 1) / w.dil[d]);
          padded_count *= std::max<std::int64_t>(0, padded_hi);
        }
        float acc = kind == PoolKind::Max ? std::numeric_limits<float>::lowest() : 0.0f;
        std::int64_t count = 0;
        if (!empty) {
          for (std::size_t d = 0; d < w.s; ++d) tap[d] = lo[d];
          const std::size_t last = w.s - 1;
          for (;;) {
            std::int64_t base = 0;
            for (std::size_t d = 0; d < last; ++d) base += (start[d] + tap[d] * w.dil[d]) * in_stride[d];
            const float* row = src + base + start[last];
            if (kind == PoolKind::Max) {
              for (std::int64_t t = lo[last]; t < hi[last]; ++t) acc = std::max(acc, row[t * w.dil[last]]);
            } else {
              for (std::int64_t t = lo[last]; t < hi[last]; ++t) acc += row[t * w.dil[last]];
            }
            count += hi[last] - lo[last];
            std::size_t d = last;
            while (d-- > 0) {
              if (++tap[d] < hi[d]) break;
              tap[d] = lo[d];
            }
            if (d == static_cast<std::size_t>(-1)) break;
          }
        }
        if (kind == PoolKind::Average) {
          const std::int64_t divisor = p.count_include_pad ? padded_count : count;
          acc = divisor > 0 ? acc / static_cast<float>(divisor) : 0.0f;
        }
        y[pl * out_plane + o] = acc;
        for (std::size_t d = w.s; d-- > 0;) {
          if (++pos[d] < w.out[d]) break;
          pos[d] = 0;
        }
      }
    }
    return out;
  }

  template <class Out, class LX>
  Tensor<float, Out> max_pool(const Tensor<float, LX>& x, const WindowParams& p) const {
    return pool_run<Out>(x, p, PoolKind::Max, "max_pool");
  }
  // MaxPool's Indices output: where each window's maximum lies in x, as an index into x flattened
  // row-major, or with the spatial axes column-major (`column_major`, ONNX's storage_order 1); the
  // batch and channel planes stay outermost either way. Padding is never an index. The first tap
  // (in row-major order) holding the maximum wins, as in ONNX's reference.
  template <class Out, class LX>
  Tensor<std::int64_t, Out> max_pool_indices(const Tensor<float, LX>& x, const WindowParams& p, bool column_major = false) const {
    constexpr std::size_t R = AxisRank<LX>;
    static_assert(R >= 3 && AxisRank<Out> == R, "max_pool_indices: input and result have one rank: [N, C, spatial...]");
    static_assert(std::is_same_v<AxisAt<0, Out>, AxisAt<0, LX>> && std::is_same_v<AxisAt<1, Out>, AxisAt<1, LX>>,
                  "max_pool_indices: the result keeps the input's batch and channel axes");
    const auto& xe = x.extents();
    const Window w = window(std::span<const std::int64_t>(xe.data() + 2, R - 2), p.kernel_shape, p, "max_pool_indices");
    const std::int64_t in_plane = w.in_plane(), out_plane = w.out_plane();
    auto out = Tensor<std::int64_t, Out>::uninitialized(w.result_extents(xe, xe[1]));
    if (out.count() == 0) return out;
    std::array<std::int64_t, MAX_SPATIAL> read_stride{}, index_stride{};
    for (std::int64_t step = 1, d = static_cast<std::int64_t>(w.s); d-- > 0;) read_stride[d] = step, step *= w.in[d];
    for (std::size_t d = 0; d < w.s; ++d) index_stride[d] = column_major ? (d == 0 ? 1 : index_stride[d - 1] * w.in[d - 1]) : read_stride[d];
    std::int64_t* y = out.mutable_data_unchecked();
    std::array<std::int64_t, MAX_SPATIAL> pos{}, start{}, tap{}, lo{}, hi{};
    for (std::int64_t pl = 0; pl < xe[0] * xe[1]; ++pl) {
      const float* src = x.data() + pl * in_plane;
      pos.fill(0);
      for (std::int64_t o = 0; o < out_plane; ++o) {
        bool empty = false;
        for (std::size_t d = 0; d < w.s; ++d) {
          start[d] = pos[d] * w.stride[d] - w.pad_begin[d];
          lo[d] = start[d] >= 0 ? 0 : (-start[d] + w.dil[d] - 1) / w.dil[d];
          hi[d] = w.in[d] - start[d] <= 0 ? 0 : std::min(w.k[d], (w.in[d] - start[d] + w.dil[d] - 1) / w.dil[d]);
          if (hi[d] <= lo[d]) empty = true;
          tap[d] = lo[d];
        }
        std::int64_t best_index = -1;
        float best = 0.0f;
        while (!empty) {
          std::int64_t read = 0, index = 0;
          for (std::size_t d = 0; d < w.s; ++d) {
            const std::int64_t c = start[d] + tap[d] * w.dil[d];
            read += c * read_stride[d];
            index += c * index_stride[d];
          }
          if (best_index < 0 || src[read] > best) best = src[read], best_index = pl * in_plane + index;
          std::size_t d = w.s;
          while (d-- > 0) {
            if (++tap[d] < hi[d]) break;
            tap[d] = lo[d];
          }
          if (d == static_cast<std::size_t>(-1)) break;
        }
        y[pl * out_plane + o] = best_index;
        for (std::size_t d = w.s; d-- > 0;) {
          if (++pos[d] < w.out[d]) break;
          pos[d] = 0;
        }
      }
    }
    return out;
  }
  template <class Out, class LX>
  Tensor<float, Out> average_pool(const Tensor<float, LX>& x, const WindowParams& p) const {
    return pool_run<Out>(x, p, PoolKind::Average, "average_pool");
  }

  // A Conv whose result only a pool reads (the fusion plan's Conv [+ Add] [+ Relu] + MaxPool or
  // AveragePool) as one kernel. Mid is the Conv's result, Out the pool's. A 2-D Conv (not 1x1, not
  // depthwise) pools each image's product where it lies, while it is in cache; any other stores its
  // result first.
  template <class Out, class Mid, class LX, class WAxes>
  static HostTensor<float, Out> conv_pool_run(const HostTensor<float, LX>& x, const PackedConv<WAxes>& w, const float* bias, const WindowParams& p,
                                               bool relu, const WindowParams& pool, PoolKind kind, const char* name, const Workers* workers) {
    static_assert(AxisRank<Out> == AxisRank<Mid> && std::is_same_v<AxisAt<0, Out>, AxisAt<0, Mid>> && std::is_same_v<AxisAt<1, Out>, AxisAt<1, Mid>>,
                  "pool: the result keeps the input's batch and channel axes");
    if constexpr (AxisRank<LX> == 4) {
      const Window win = conv_window<Mid>(x, w, p);
      if (!is_pointwise(win) && !is_depthwise(w, x.extents()[1])) {
        const Window pw = window(std::span<const std::int64_t>(win.out.data(), 2), pool.kernel_shape, pool, name);
        const auto& xe = x.extents();
        auto out = HostTensor<float, Out>::uninitialized(pw.result_extents(xe, w.out_channels()));
        if (out.count() == 0) return out;
        const PoolStep step{pw, kind, pool.count_include_pad};
        conv2d_implicit(x.data(), w, bias, win, relu, xe[0], xe[1], w.out_channels(), out.mutable_data_unchecked(), workers, &step);
        return out;
      }
    }
    return pool_run<Out>(conv_run<Mid>(x, w, bias, p, relu, workers), pool, kind, name);
  }

  template <class Out, class Mid, class LX, class WAxes>
  Tensor<float, Out> conv_max_pool(const Tensor<float, LX>& x, const PackedConv<WAxes>& w, const WindowParams& p, bool relu, const WindowParams& pool) const {
    return conv_pool_run<Out, Mid>(x, w, nullptr, p, relu, pool, PoolKind::Max, "max_pool", workers());
  }
  template <class Out, class Mid, class LX, class WAxes>
  Tensor<float, Out> conv_max_pool(const Tensor<float, LX>& x, const PackedConv<WAxes>& w, const Tensor<float, Axes<AxisAt<0, WAxes>>>& bias,
                                   const WindowParams& p, bool relu, const WindowParams& pool) const {
    return conv_pool_run<Out, Mid>(x, w, channel_bias(bias, w), p, relu, pool, PoolKind::Max, "max_pool", workers());
  }
  template <class Out, class Mid, class LX, class WAxes>
  Tensor<float, Out> conv_average_pool(const Tensor<float, LX>& x, const PackedConv<WAxes>& w, const WindowParams& p, bool relu,
                                       const WindowParams& pool) const {
    return conv_pool_run<Out, Mid>(x, w, nullptr, p, relu, pool, PoolKind::Average, "average_pool", workers());
  }
  template <class Out, class Mid, class LX, class WAxes>
  Tensor<float, Out> conv_average_pool(const Tensor<float, LX>& x, const PackedConv<WAxes>& w, const Tensor<float, Axes<AxisAt<0, WAxes>>>& bias,
                                       const WindowParams& p, bool relu, const WindowParams& pool) const {
    return conv_pool_run<Out, Mid>(x, w, channel_bias(bias, w), p, relu, pool, PoolKind::Average, "average_pool", workers());
  }

  // GlobalAveragePool / GlobalMaxPool: every spatial extent becomes 1.
  template <class Out, class LX>
  static HostTensor<float, Out> global_pool(const HostTensor<float, LX>& x, PoolKind kind) {
    constexpr std::size_t R = AxisRank<LX>;
    static_assert(R >= 2 && AxisRank<Out> == R, "global pool: input and result have one rank: [N, C, spatial...]");
    typename HostTensor<float, Out>::Extents oe{};
    oe.fill(1);
    oe[0] = x.extents()[0];
    oe[1] = x.extents()[1];
    auto out = HostTensor<float, Out>::uninitialized(oe);
    const std::int64_t planes = oe[0] * oe[1];
    const std::int64_t plane = planes == 0 ? 0 : x.count() / planes;
    float* y = out.mutable_data_unchecked();
    for (std::int64_t pl = 0; pl < planes; ++pl) {
      const float* s = x.data() + pl * plane;
      if (kind == PoolKind::Max) {
        float m = std::numeric_limits<float>::lowest();
        for (std::int64_t i = 0; i < plane; ++i) m = std::max(m, s[i]);
        y[pl] = m;
      } else {
        float sum = 0.0f;
        for (std::int64_t i = 0; i < plane; ++i) sum += s[i];
        y[pl] = plane > 0 ? sum / static_cast<float>(plane) : std::numeric_limits<float>::quiet_NaN();
      }
    }
    return out;
  }
  template <class Out, class LX>
  Tensor<float, Out> global_average_pool(const Tensor<float, LX>& x) const { return global_pool<Out>(x, PoolKind::Average); }
  template <class Out, class LX>
  Tensor<float, Out> global_max_pool(const Tensor<float, LX>& x) const { return global_pool<Out>(x, PoolKind::Max); }

  // ConvTranspose: x [N, C, spatial...], w [C, Cout / group, k...]. Each input position scatters
  // through the weight into the output window it reaches: per image and group one SGEMM gives
  // cols = W_g^T X_g ([Cout_g * prod(k)] x [prod(spatial)]), and each column adds into the output
  // positions in * stride - pad_begin + k * dilation that lie inside it. The generator settles
  // the output's extents and the pads (output_shape, auto_pad, output_padding) at build time.
  template <class Out, class LX, class WAxes>
  Tensor<float, Out> conv_transpose(const Tensor<float, LX>& x, const Tensor<float, WAxes>& w, std::span<const std::int64_t> out_extents,
                                    std::span<const std::int64_t> pad_begin, std::span<const std::int64_t> strides,
                                    std::span<const std::int64_t> dilations, std::int64_t group) const {
    return conv_transpose_run<Out>(x, w, nullptr, 0, out_extents, pad_begin, strides, dilations, group);
  }
  template <class Out, class LX, class WAxes, class LB>
  Tensor<float, Out> conv_transpose(const Tensor<float, LX>& x, const Tensor<float, WAxes>& w, const Tensor<float, LB>& bias,
                                    std::span<const std::int64_t> out_extents, std::span<const std::int64_t> pad_begin,
                                    std::span<const std::int64_t> strides, std::span<const std::int64_t> dilations, std::int64_t group) const {
    static_assert(AxisRank<LB> == 1, "conv_transpose: the bias has one axis");
    return conv_transpose_run<Out>(x, w, bias.data(), bias.count(), out_extents, pad_begin, strides, dilations, group);
  }

 private:
  template <class Out, class LX, class WAxes>
  static Tensor<float, Out> conv_transpose_run(const Tensor<float, LX>& x, const Tensor<float, WAxes>& w, const float* bias,
                                               std::int64_t bias_count, std::span<const std::int64_t> out_extents,
                                               std::span<const std::int64_t> pad_begin, std::span<const std::int64_t> strides,
                                               std::span<const std::int64_t> dilations, std::int64_t group) {
    constexpr std::size_t R = AxisRank<LX>, S = R - 2;
    static_assert(R >= 3 && AxisRank<WAxes> == R && AxisRank<Out> == R, "conv_transpose: x, w and the result share a rank of 3 or more");
    if (out_extents.size() != R || pad_begin.size() != S || strides.size() != S || dilations.size() != S)
      throw KernelMisuse("conv_transpose: one length per axis, one pad, stride and dilation per spatial axis");
    const auto& xe = x.extents();
    const auto& we = w.extents();
    if (group < 1 || we[0] != xe[1] || xe[1] % group != 0)
      throw KernelMisuse("conv_transpose: the weight's axis 0 must be the input's channels, in whole groups");
    const std::int64_t cin_g = xe[1] / group, cout_g = we[1], cout = cout_g * group;
    if (out_extents[0] != xe[0] || out_extents[1] != cout) throw KernelMisuse("conv_transpose: the result's batch or channels");
    if (bias && bias_count != cout) throw KernelMisuse("conv_transpose: one bias per output channel");
    std::int64_t k = 1, in_plane = 1, out_plane = 1;
    Ext<R> oe{};
    oe[0] = out_extents[0];
    oe[1] = out_extents[1];
    for (std::size_t d = 0; d < S; ++d) {
      if (strides[d] < 1 || dilations[d] < 1 || out_extents[d + 2] < 0) throw KernelMisuse("conv_transpose: strides and dilations must be positive");
      k *= we[d + 2];
      in_plane *= xe[d + 2];
      out_plane *= out_extents[d + 2];
      oe[d + 2] = out_extents[d + 2];
    }
    auto out = Tensor<float, Out>::uninitialized(oe);
    float* y = out.mutable_data_unchecked();
    for (std::int64_t n = 0; n < oe[0]; ++n)
      for (std::int64_t c = 0; c < cout; ++c)
        std::fill(y + (n * cout + c) * out_plane, y + (n * cout + c + 1) * out_plane, bias ? bias[c] : 0.0f);
    const std::int64_t m = cout_g * k;
    if (out.count() == 0 || in_plane == 0 || m == 0) return out;
    std::vector<float> cols(static_cast<std::size_t>(m * in_plane));
    // Per spatial axis, where (input index i, kernel index t) lands in the output, or -1.
    std::array<std::vector<std::int64_t>, S> land;
    for (std::size_t d = 0; d < S; ++d) {
      land[d].resize(static_cast<std::size_t>(we[d + 2] * xe[d + 2]));
      for (std::int64_t t = 0; t < we[d + 2]; ++t)
        for (std::int64_t i = 0; i < xe[d + 2]; ++i) {
          const std::int64_t o = i * strides[d] - pad_begin[d] + t * dilations[d];
          land[d][t * xe[d + 2] + i] = o >= 0 && o < oe[d + 2] ? o : -1;
        }
    }
    for (std::int64_t n = 0; n < xe[0]; ++n) {
      for (std::int64_t g = 0; g < group; ++g) {
        const float* xg = x.data() + (n * xe[1] + g * cin_g) * in_plane;
        const float* wg = w.data() + g * cin_g * m;  // rows of W: each holds [Cout_g][k...]
        Sgemm::run(m, in_plane, cin_g, Sgemm::AOperand::transposed(wg, m), Sgemm::BOperand::row_major(xg, in_plane), cols.data(),
                   in_plane, {});
        float* yg = y + (n * cout + g * cout_g) * out_plane;
        for (std::int64_t row = 0; row < m; ++row) {
          const std::int64_t co = row / k;
          std::array<std::int64_t, S> t{};  // the kernel position of this row
          for (std::int64_t rest = row % k, d = S; d-- > 0;) {
            t[d] = rest % we[d + 2];
            rest /= we[d + 2];
          }
          const float* src = cols.data() + row * in_plane;
          float* dst = yg + co * out_plane;
          std::array<std::int64_t, S> i{};
          for (std::int64_t p = 0; p < in_plane; ++p) {
            std::int64_t at = 0;
            bool inside = true;
            for (std::size_t d = 0; d < S && inside; ++d) {
              const std::int64_t o = land[d][t[d] * xe[d + 2] + i[d]];
              inside = o >= 0;
              at = at * oe[d + 2] + o;
            }
            if (inside) dst[at] += src[p];
            for (std::size_t d = S; d-- > 0;) {
              if (++i[d] < xe[d + 2]) break;
              i[d] = 0;
            }
          }
        }
      }
    }
    return out;
  }
};
