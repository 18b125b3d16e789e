// The CPU kernel that resamples: Resize (and Upsample, its older form), by nearest, linear or
// cubic interpolation under each of ONNX's coordinate transformations.

enum class ResizeMode : std::uint8_t { Nearest, Linear, Cubic };
// How an output position maps to an input coordinate (ONNX's coordinate_transformation_mode).
enum class ResizeCoordinates : std::uint8_t {
  HalfPixel, HalfPixelSymmetric, PytorchHalfPixel, AlignCorners, Asymmetric, TfHalfPixelForNn, TfCropAndResize
};
// How nearest rounds a coordinate (nearest_mode; Simple is Upsample's and Resize-10's: down when
// enlarging, up when shrinking).
enum class NearestRounding : std::uint8_t { RoundPreferFloor, RoundPreferCeil, Floor, Ceil, Simple };

struct ResizeParams {
  ResizeMode mode = ResizeMode::Nearest;
  ResizeCoordinates coordinates = ResizeCoordinates::HalfPixel;
  NearestRounding rounding = NearestRounding::RoundPreferFloor;
  float cubic_a = -0.75f;
  bool exclude_outside = false;  // cubic: taps outside the input get no weight
  float extrapolation = 0.0f;    // tf_crop_and_resize: the value where a coordinate leaves the input
};

struct CpuResampling : virtual CpuBase {
  // ---------------------------------------------------------------- resampling

  // Each axis resamples on its own; an output element sums the product of its axes' weights over
  // their taps (one for nearest, two for linear, four for cubic). `scales` holds one scale per
  // axis, 0 where the scale is the output's length over the input's (Resize given sizes); `roi`
  // is empty or holds every axis's start, then every end (tf_crop_and_resize).
  template <class Out, class E, class L>
  Tensor<E, Out> resize(const Tensor<E, L>& t, std::span<const std::int64_t> out_extents, std::span<const float> scales,
                        std::span<const float> roi, const ResizeParams& p) const {
    constexpr std::size_t R = AxisRank<L>;
    static_assert(AxisRank<Out> == R, "resize: the result has the input's rank");
    if (out_extents.size() != R || scales.size() != R) throw KernelMisuse("resize: one length and one scale per axis");
    if (!roi.empty() && roi.size() != 2 * R) throw KernelMisuse("resize: the roi holds a start and an end per axis");
    Ext<R> oe{};
    for (std::size_t d = 0; d < R; ++d) {
      oe[d] = out_extents[d];
      if (oe[d] < 0) throw KernelMisuse("resize: a negative length on axis " + std::to_string(d));
      if (oe[d] > 0 && t.extents()[d] == 0) throw KernelMisuse("resize: axis " + std::to_string(d) + " is empty");
    }
    auto out = Tensor<E, Out>::uninitialized(oe);
    if (out.count() == 0) return out;
    const std::size_t taps = p.mode == ResizeMode::Nearest ? 1 : p.mode == ResizeMode::Linear ? 2 : 4;
    const auto s = t.strides();
    // Per axis and output position: its taps' element offsets and weights, and whether it lies
    // outside the input (tf_crop_and_resize extrapolates there).
    std::array<std::vector<std::int64_t>, R> offset;
    std::array<std::vector<float>, R> weight;
    std::array<std::vector<std::uint8_t>, R> outside;
    for (std::size_t d = 0; d < R; ++d) {
      const std::int64_t n = t.extents()[d];
      const float scale = scales[d] > 0 ? scales[d] : static_cast<float>(oe[d]) / static_cast<float>(n);
      const float start = roi.empty() ? 0.0f : roi[d], end = roi.empty() ? 1.0f : roi[R + d];
      offset[d].resize(oe[d] * taps);
      weight[d].resize(oe[d] * taps);
      outside[d].assign(oe[d], 0);
      // The resized length the coordinates divide by: the input's times the scale where one is
      // given (ONNX's reference does not round it), else the output's.
      const float resized = scales[d] > 0 ? scale * static_cast<float>(n) : static_cast<float>(oe[d]);
      for (std::int64_t o = 0; o < oe[d]; ++o) {
        const float x = coordinate(p.coordinates, static_cast<float>(o), scale, resized, n, start, end, static_cast<float>(oe[d]));
        if (p.coordinates == ResizeCoordinates::TfCropAndResize && (x < 0 || x > static_cast<float>(n - 1))) outside[d][o] = 1;
        std::int64_t* at = &offset[d][o * taps];
        float* w = &weight[d][o * taps];
        auto clamp = [n](std::int64_t i) { return i < 0 ? 0 : i >= n ? n - 1 : i; };
        if (p.mode == ResizeMode::Nearest) {
          at[0] = clamp(nearest(p.rounding, x, scale)) * s[d];
          w[0] = 1.0f;
        } else if (p.mode == ResizeMode::Linear) {
          const float c = std::max(0.0f, std::min(x, static_cast<float>(n - 1)));
          const std::int64_t i0 = std::min(static_cast<std::int64_t>(c), n - 1), i1 = std::min(i0 + 1, n - 1);
          const float f = c - static_cast<float>(i0);
          at[0] = i0 * s[d];
          at[1] = i1 * s[d];
          w[0] = i0 == i1 ? 1.0f : 1.0f - f;
          w[1] = i0 == i1 ? 0.0f : f;
        } else {
          const float base = std::floor(x), f = x - base;
          const float a = p.cubic_a;
          const float d0 = 1 + f, d1 = f, d2 = 1 - f, d3 = 2 - f;  // the taps' distances
          float c[4] = {((a * d0 - 5 * a) * d0 + 8 * a) * d0 - 4 * a, ((a + 2) * d1 - (a + 3)) * d1 * d1 + 1,
                        ((a + 2) * d2 - (a + 3)) * d2 * d2 + 1, ((a * d3 - 5 * a) * d3 + 8 * a) * d3 - 4 * a};
          float sum = 0;
          for (int k = 0; k < 4; ++k) {
            const std::int64_t i = static_cast<std::int64_t>(base) - 1 + k;
            if (p.exclude_outside && (i < 0 || i >= n)) c[k] = 0;
            sum += c[k];
            at[k] = clamp(i) * s[d];
          }
          for (int k = 0; k < 4; ++k) w[k] = p.exclude_outside && sum != 0 ? c[k] / sum : c[k];
        }
      }
    }
    E* y = out.mutable_data_unchecked();
    const E* x = t.data();
    if constexpr (R > 0) {
      if (taps == 1) {
        resize_nearest_rows(x, y, oe, offset, outside, convert<E>(p.extrapolation));
        return out;
      }
    }
    std::array<std::int64_t, R + 1> idx{};
    std::array<std::size_t, R + 1> tap{};
    for (std::int64_t o = 0; o < out.count(); ++o) {
      bool away = false;
      for (std::size_t d = 0; d < R; ++d) away = away || outside[d][idx[d]];
      if (away) {
        y[o] = convert<E>(p.extrapolation);
      } else if (taps == 1) {  // a rank-0 tensor
        y[o] = x[0];
      } else {
        // Every combination of the axes' taps, the last axis's fastest.
        float acc = 0;
        tap.fill(0);
        while (true) {
          std::int64_t src = 0;
          float w = 1;
          for (std::size_t d = 0; d < R; ++d) {
            const std::size_t k = static_cast<std::size_t>(idx[d]) * taps + tap[d];
            src += offset[d][k];
            w *= weight[d][k];
          }
          acc += w * convert<float>(x[src]);
          std::size_t d = R;
          while (d-- > 0 && ++tap[d] == taps) tap[d] = 0;
          if (d == static_cast<std::size_t>(-1)) break;
        }
        y[o] = convert<E>(acc);
      }
      for (std::size_t d = R; d-- > 0;) {
        if (++idx[d] < oe[d]) break;
        idx[d] = 0;
      }
    }
    return out;
  }

 private:
  // Nearest resize, one output row (the last axis) at a time: a row's element offsets along the
  // other axes are summed once, and a row that reads the input row the one before read (an
  // upsampling's repeated rows) is a copy of it.
  template <class E, std::size_t R>
  static void resize_nearest_rows(const E* x, E* y, const Ext<R>& oe, const std::array<std::vector<std::int64_t>, R>& offset,
                                  const std::array<std::vector<std::uint8_t>, R>& outside, E extrapolation) {
    const std::int64_t inner = oe[R - 1], rows = inner == 0 ? 0 : element_count(oe) / inner;
    const std::int64_t* const at = offset[R - 1].data();
    const std::uint8_t* const away_at = outside[R - 1].data();
    std::array<std::int64_t, R> idx{};
    std::int64_t last_base = -1;
    bool last_away = false;
    for (std::int64_t row = 0; row < rows; ++row) {
      std::int64_t base = 0;
      bool away = false;
      for (std::size_t d = 0; d + 1 < R; ++d) {
        base += offset[d][static_cast<std::size_t>(idx[d])];
        away = away || outside[d][static_cast<std::size_t>(idx[d])];
      }
      E* yr = y + row * inner;
      if (base == last_base && away == last_away) {  // last_base starts at -1, no row's base
        std::copy_n(yr - inner, inner, yr);
      } else if (away) {
        std::fill_n(yr, inner, extrapolation);
      } else {
        const E* xr = x + base;
        for (std::int64_t j = 0; j < inner; ++j) yr[j] = away_at[j] ? extrapolation : xr[at[j]];
      }
      last_base = base;
      last_away = away;
      for (std::size_t d = R - 1; d-- > 0;) {
        if (++idx[d] < oe[d]) break;
        idx[d] = 0;
      }
    }
  }

  // The input coordinate of output position x along an axis `m` long (unrounded; `length` whole
  // positions), from one `original` long.
  static float coordinate(ResizeCoordinates c, float x, float scale, float m, std::int64_t original, float start, float end,
                          float length) {
    const float n = static_cast<float>(original);
    switch (c) {
      case ResizeCoordinates::HalfPixel: return (x + 0.5f) / scale - 0.5f;
      case ResizeCoordinates::HalfPixelSymmetric: {
        // The whole output's share of the scaled length centres the sampling grid.
        const float adjustment = length / (scale * n), center = n / 2;
        return center * (1 - adjustment) + (x + 0.5f) / scale - 0.5f;
      }
      case ResizeCoordinates::PytorchHalfPixel: return m > 1 ? (x + 0.5f) / scale - 0.5f : 0.0f;
      case ResizeCoordinates::AlignCorners: return m == 1 ? 0.0f : x * (n - 1) / (m - 1);
      case ResizeCoordinates::Asymmetric: return x / scale;
      case ResizeCoordinates::TfHalfPixelForNn: return (x + 0.5f) / scale;
      case ResizeCoordinates::TfCropAndResize:
        return m > 1 ? start * (n - 1) + x * (end - start) * (n - 1) / (m - 1) : 0.5f * (start + end) * (n - 1);
    }
    return x;
  }

  static std::int64_t nearest(NearestRounding r, float x, float scale) {
    switch (r) {
      case NearestRounding::RoundPreferFloor:
        return x == std::floor(x) + 0.5f ? static_cast<std::int64_t>(std::floor(x)) : static_cast<std::int64_t>(std::round(x));
      case NearestRounding::RoundPreferCeil: return static_cast<std::int64_t>(std::round(x));
      case NearestRounding::Floor: return static_cast<std::int64_t>(std::floor(x));
      case NearestRounding::Ceil: return static_cast<std::int64_t>(std::ceil(x));
      case NearestRounding::Simple: return static_cast<std::int64_t>(scale < 1 ? std::ceil(x) : std::floor(x));
    }
    return 0;
  }
};
