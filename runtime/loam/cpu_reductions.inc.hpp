// The CPU reductions and normalisations: Softmax and LogSoftmax over any axis, ONNX's ten Reduce
// operators, ArgMax and ArgMin, TopK, Hardmax, CumSum, BatchNormalization (inference),
// InstanceNormalization, LRN, MeanVarianceNormalization and LayerNormalization with its statistics.

struct CpuReductions : virtual CpuBase {
  // ---------------------------------------------------------------- reductions, normalisations

  // Softmax over one axis (opset 13); `log` for LogSoftmax.
  template <class L>
  static HostTensor<float, L> softmax_rows(const HostTensor<float, L>& t, std::int64_t outer, std::int64_t len, std::int64_t inner, bool log) {
    auto out = HostTensor<float, L>::uninitialized(t.extents());
    const float* x = t.data();
    float* y = out.mutable_data_unchecked();
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t i = 0; i < inner; ++i) {
        const float* xs = x + o * len * inner + i;
        float* ys = y + o * len * inner + i;
        float m = -std::numeric_limits<float>::infinity();
        for (std::int64_t k = 0; k < len; ++k) m = std::max(m, xs[k * inner]);
        float sum = 0.0f;
        for (std::int64_t k = 0; k < len; ++k) {
          const float e = std::exp(xs[k * inner] - m);
          ys[k * inner] = e;
          sum += e;
        }
        if (log) {
          const float ls = std::log(sum);
          for (std::int64_t k = 0; k < len; ++k) ys[k * inner] = xs[k * inner] - m - ls;
        } else {
          const float inv = 1.0f / sum;
          for (std::int64_t k = 0; k < len; ++k) ys[k * inner] *= inv;
        }
      }
    return out;
  }

  template <class L>
  Tensor<float, L> softmax(const Tensor<float, L>& t, std::int64_t axis = -1) const { return softmax_over(t, axis, false); }
  template <class L>
  Tensor<float, L> log_softmax(const Tensor<float, L>& t, std::int64_t axis = -1) const { return softmax_over(t, axis, true); }

  template <class L>
  static HostTensor<float, L> softmax_over(const HostTensor<float, L>& t, std::int64_t axis, bool log) {
    constexpr std::size_t R = AxisRank<L>;
    const std::size_t ax = norm_axis(axis, R, "softmax");
    std::int64_t outer = 1, inner = 1;
    for (std::size_t i = 0; i < ax; ++i) outer *= t.extents()[i];
    for (std::size_t i = ax + 1; i < R; ++i) inner *= t.extents()[i];
    return softmax_rows(t, outer, t.extents()[ax], inner, log);
  }

  // Softmax before opset 13: the input read as a matrix [prod(axes before axis), prod(the rest)],
  // each row normalised.
  template <class L>
  Tensor<float, L> softmax_flattened(const Tensor<float, L>& t, std::int64_t axis = 1) const { return softmax_matrix(t, axis, false); }
  template <class L>
  Tensor<float, L> log_softmax_flattened(const Tensor<float, L>& t, std::int64_t axis = 1) const { return softmax_matrix(t, axis, true); }

  template <class L>
  static HostTensor<float, L> softmax_matrix(const HostTensor<float, L>& t, std::int64_t axis, bool log) {
    const auto [outer, len] = as_matrix(t, axis, "softmax");
    return softmax_rows(t, outer, len, 1, log);
  }

  // The input read as a matrix [prod(axes before axis), prod(the rest)], as the pre-13 Softmax,
  // LogSoftmax and Hardmax read it (axis in [-rank, rank]).
  template <class E, class L>
  static std::pair<std::int64_t, std::int64_t> as_matrix(const HostTensor<E, L>& t, std::int64_t axis, const char* kernel) {
    constexpr std::size_t R = AxisRank<L>;
    const std::int64_t r = static_cast<std::int64_t>(R);
    if (axis < -r || axis > r) throw KernelMisuse(std::string(kernel) + ": axis " + std::to_string(axis) + " outside rank " + std::to_string(r));
    const std::size_t ax = static_cast<std::size_t>(axis < 0 ? axis + r : axis);
    std::int64_t outer = 1, len = 1;
    for (std::size_t i = 0; i < ax; ++i) outer *= t.extents()[i];
    for (std::size_t i = ax; i < R; ++i) len *= t.extents()[i];
    return {outer, len};
  }

  // Hardmax: 1 at the first maximum of each lane, 0 elsewhere (opset 13 over one axis; before 13
  // over every axis from `axis` on, as one lane).
  template <class L>
  Tensor<float, L> hardmax(const Tensor<float, L>& t, std::int64_t axis = -1) const {
    constexpr std::size_t R = AxisRank<L>;
    const std::size_t ax = norm_axis(axis, R, "hardmax");
    std::int64_t outer = 1, inner = 1;
    for (std::size_t i = 0; i < ax; ++i) outer *= t.extents()[i];
    for (std::size_t i = ax + 1; i < R; ++i) inner *= t.extents()[i];
    return hardmax_lanes(t, outer, t.extents()[ax], inner);
  }
  template <class L>
  Tensor<float, L> hardmax_flattened(const Tensor<float, L>& t, std::int64_t axis = 1) const {
    const auto [outer, len] = as_matrix(t, axis, "hardmax");
    return hardmax_lanes(t, outer, len, 1);
  }
  template <class L>
  static HostTensor<float, L> hardmax_lanes(const HostTensor<float, L>& t, std::int64_t outer, std::int64_t len, std::int64_t inner) {
    auto out = HostTensor<float, L>::uninitialized(t.extents());
    const float* x = t.data();
    float* y = out.mutable_data_unchecked();
    std::fill(y, y + out.count(), 0.0f);
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t i = 0; i < inner && len > 0; ++i) {
        const float* xs = x + o * len * inner + i;
        std::int64_t best = 0;
        for (std::int64_t k = 1; k < len; ++k)
          if (xs[k * inner] > xs[best * inner]) best = k;
        y[(o * len + best) * inner + i] = 1.0f;
      }
    return out;
  }

  // CumSum along the axis `axis` holds (one integer, read at run time): each element the sum of
  // those before it (and itself unless exclusive), counted from the end when reverse.
  template <class E, class L, class A, class LA>
  Tensor<E, L> cumsum(const Tensor<E, L>& t, const Tensor<A, LA>& axis, bool exclusive, bool reverse, std::string_view axis_name = "axis") const {
    constexpr std::size_t R = AxisRank<L>;
    const std::int64_t r = static_cast<std::int64_t>(R);
    if (axis.count() != 1)
      throw KernelRefusal(InputError{std::string(axis_name), "", "", "the axis must be one integer, not " + std::to_string(axis.count())});
    const std::int64_t a = static_cast<std::int64_t>(axis.data()[0]);
    if (a < -r || a >= r)
      throw KernelRefusal(InputError{std::string(axis_name), "", "", "axis " + std::to_string(a) + " lies outside rank " + std::to_string(r)});
    const std::size_t ax = static_cast<std::size_t>(a < 0 ? a + r : a);
    std::int64_t outer = 1, inner = 1;
    for (std::size_t i = 0; i < ax; ++i) outer *= t.extents()[i];
    for (std::size_t i = ax + 1; i < R; ++i) inner *= t.extents()[i];
    const std::int64_t len = t.extents()[ax];
    auto out = Tensor<E, L>::uninitialized(t.extents());
    const E* x = t.data();
    E* y = out.mutable_data_unchecked();
    using Acc = std::conditional_t<std::is_same_v<E, float>, double, E>;
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t i = 0; i < inner; ++i) {
        Acc sum{0};
        for (std::int64_t s = 0; s < len; ++s) {
          const std::int64_t k = reverse ? len - 1 - s : s;
          const std::int64_t at = (o * len + k) * inner + i;
          if (exclusive) {
            y[at] = static_cast<E>(sum);
            sum += static_cast<Acc>(x[at]);
          } else {
            sum += static_cast<Acc>(x[at]);
            y[at] = static_cast<E>(sum);
          }
        }
      }
    return out;
  }

  // TopK along `axis`: the k largest (smallest) elements of each lane, sorted, ties to the lower
  // index, and their indices. A k past the axis throws KernelRefusal naming `k_name`.
  template <class Out, class OutI, class E, class L>
  std::tuple<Tensor<E, Out>, Tensor<std::int64_t, OutI>> top_k(const Tensor<E, L>& x, std::int64_t k, std::int64_t axis, bool largest,
                                                               std::string_view k_name = "K") const {
    constexpr std::size_t R = AxisRank<L>;
    static_assert(AxisRank<Out> == R && AxisRank<OutI> == R, "top_k: the results keep the input's rank");
    const std::size_t ax = norm_axis(axis, R, "top_k");
    const std::int64_t len = x.extents()[ax];
    if (k < 0 || k > len)
      throw KernelRefusal(InputError{std::string(k_name), "", "", "K is " + std::to_string(k) + ", outside [0, " + std::to_string(len) + "]"});
    std::int64_t outer = 1, inner = 1;
    for (std::size_t i = 0; i < ax; ++i) outer *= x.extents()[i];
    for (std::size_t i = ax + 1; i < R; ++i) inner *= x.extents()[i];
    auto oe = x.extents();
    oe[ax] = k;
    auto values = Tensor<E, Out>::uninitialized(oe);
    auto indices = Tensor<std::int64_t, OutI>::uninitialized(oe);
    const E* s = x.data();
    E* v = values.mutable_data_unchecked();
    std::int64_t* ix = indices.mutable_data_unchecked();
    std::vector<std::int64_t> order(static_cast<std::size_t>(len));
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t i = 0; i < inner; ++i) {
        const E* lane = s + o * len * inner + i;
        for (std::int64_t j = 0; j < len; ++j) order[static_cast<std::size_t>(j)] = j;
        // NaN ranks above every number, as onnxruntime orders it.
        auto before = [&](std::int64_t a, std::int64_t b) {
          const E ea = lane[a * inner], eb = lane[b * inner];
          if constexpr (std::is_floating_point_v<E>) {
            const bool na = ea != ea, nb = eb != eb;
            if (na || nb) return na && !nb ? largest : (!na && nb ? !largest : a < b);
          }
          if (ea != eb) return largest ? ea > eb : ea < eb;
          return a < b;
        };
        std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
        for (std::int64_t j = 0; j < k; ++j) {
          const std::int64_t at = (o * k + j) * inner + i;
          ix[at] = order[static_cast<std::size_t>(j)];
          v[at] = lane[ix[at] * inner];
        }
      }
    return {std::move(values), std::move(indices)};
  }

  enum class ReduceKind : std::uint8_t { Sum, Mean, Max, Min, Prod, L1, L2, LogSum, LogSumExp, SumSquare };

  // Reduce over `axes` (empty: every axis, unless noop_with_empty_axes), keeping reduced axes as
  // extent 1 when keepdims. An empty group gives the reduction's identity: 0, 1 for Prod, -inf for
  // Max, LogSum and LogSumExp, +inf for Min (an integer's lowest and highest), NaN for Mean.
  template <class Out, class E, class L>
  static HostTensor<E, Out> reduce_run(const HostTensor<E, L>& t, std::span<const std::int64_t> axes, bool keepdims, bool noop_with_empty_axes,
                                       ReduceKind kind) {
    constexpr std::size_t R = AxisRank<L>;
    std::array<bool, R + 1> reduce{};
    if (axes.empty()) {
      if (noop_with_empty_axes) {
        if constexpr (AxisRank<Out> == R) return t.template regrouped<Out>(t.extents());
        else throw KernelMisuse("reduce: a no-op reduction keeps the rank");
      }
      reduce.fill(true);
    }
    for (auto a : axes) {
      const std::size_t i = norm_axis(a, R, "reduce");
      if (reduce[i] && !axes.empty()) throw KernelMisuse("reduce: axis " + std::to_string(i) + " named twice");
      reduce[i] = true;
    }
    typename HostTensor<E, Out>::Extents oe{};
    std::size_t at = 0;
    std::int64_t group = 1;
    for (std::size_t i = 0; i < R; ++i) {
      if (reduce[i]) group *= t.extents()[i];
      if (!reduce[i] || keepdims) {
        if (at >= AxisRank<Out>) throw KernelMisuse("reduce: the result's axis list has the wrong rank");
        oe[at++] = reduce[i] ? 1 : t.extents()[i];
      }
    }
    if (at != AxisRank<Out>) throw KernelMisuse("reduce: the result's axis list has the wrong rank");
    auto out = HostTensor<E, Out>::uninitialized(oe);
    E* y = out.mutable_data_unchecked();
    // Bools (ReduceMax and ReduceMin, from opset 20) accumulate as bytes: a std::vector<bool> has
    // no element to add to.
    using Acc = std::conditional_t<std::is_same_v<E, float>, double, std::conditional_t<std::is_same_v<E, bool>, std::uint8_t, E>>;
    // The identity of each reduction in the accumulator's own type: an integer bound taken
    // through double would round past the type (2^63 does not fit int64).
    Acc lowest{}, highest{};
    if constexpr (std::is_floating_point_v<Acc>) {
      lowest = -std::numeric_limits<Acc>::infinity();
      highest = std::numeric_limits<Acc>::infinity();
    } else {
      lowest = std::numeric_limits<Acc>::lowest();
      highest = std::numeric_limits<Acc>::max();
    }
    // Output stride of each input axis (0 where reduced).
    std::array<std::int64_t, R + 1> ost{};
    {
      std::int64_t step = 1;
      for (std::size_t i = R; i-- > 0;) {
        if (reduce[i]) {
          ost[i] = 0;
        } else {
          ost[i] = step;
          step *= t.extents()[i];
        }
      }
    }
    // Visits every input element with its output slot, in the input's order.
    const E* x = t.data();
    auto each = [&](auto&& f) {
      std::array<std::int64_t, R + 1> idx{};
      std::int64_t o = 0;
      for (std::int64_t i = 0; i < t.count(); ++i) {
        f(static_cast<std::size_t>(o), static_cast<Acc>(x[i]));
        for (std::size_t d = R; d-- > 0;) {
          o += ost[d];
          if (++idx[d] < t.extents()[d]) break;
          o -= ost[d] * t.extents()[d];
          idx[d] = 0;
        }
      }
    };
    const std::size_t n_out = static_cast<std::size_t>(out.count());
    auto maxima = [&] {
      std::vector<Acc> m(n_out, lowest);
      each([&](std::size_t o, Acc v) { m[o] = (v > m[o] || v != v) ? v : m[o]; });
      return m;
    };
    auto minima = [&] {
      std::vector<Acc> m(n_out, highest);
      each([&](std::size_t o, Acc v) { m[o] = (v < m[o] || v != v) ? v : m[o]; });
      return m;
    };
    auto sums = [&](auto&& term) {
      std::vector<Acc> s(n_out, Acc{0});
      each([&](std::size_t o, Acc v) { s[o] += term(v); });
      return s;
    };
    // The transcendental finishes are taken in double, and an integer result truncated as ONNX's
    // reference does.
    auto store = [&](const std::vector<Acc>& acc, auto&& finish) {
      for (std::size_t j = 0; j < n_out; ++j) y[j] = static_cast<E>(finish(acc[j]));
    };
    auto as_is = [](Acc v) { return v; };
    switch (kind) {
      case ReduceKind::Sum: store(sums(as_is), as_is); break;
      case ReduceKind::Mean:
        store(sums(as_is), [&](Acc v) -> Acc {
          if constexpr (std::is_same_v<E, float>) return group > 0 ? v / static_cast<double>(group) : std::numeric_limits<double>::quiet_NaN();
          else return group > 0 ? v / group : 0;
        });
        break;
      case ReduceKind::Max: store(maxima(), as_is); break;
      case ReduceKind::Min: store(minima(), as_is); break;
      case ReduceKind::Prod: {
        std::vector<Acc> p(n_out, Acc{1});
        each([&](std::size_t o, Acc v) { p[o] *= v; });
        store(p, as_is);
        break;
      }
      case ReduceKind::L1: store(sums([](Acc v) { return v < 0 ? -v : v; }), as_is); break;
      case ReduceKind::SumSquare: store(sums([](Acc v) { return v * v; }), as_is); break;
      case ReduceKind::L2: store(sums([](Acc v) { return v * v; }), [](Acc v) { return std::sqrt(static_cast<double>(v)); }); break;
      case ReduceKind::LogSum: store(sums(as_is), [](Acc v) { return std::log(static_cast<double>(v)); }); break;
      case ReduceKind::LogSumExp: {
        // Shifted by each group's maximum, so no exponential overflows; an infinite or empty
        // group keeps its maximum.
        const std::vector<Acc> m = maxima();
        std::vector<double> s(n_out, 0.0);
        each([&](std::size_t o, Acc v) { s[o] += std::exp(static_cast<double>(v) - static_cast<double>(m[o])); });
        for (std::size_t j = 0; j < n_out; ++j) {
          const double mj = static_cast<double>(m[j]);
          y[j] = static_cast<E>(std::isfinite(mj) ? mj + std::log(s[j]) : mj);
        }
        break;
      }
    }
    return out;
  }

#define LOAM_REDUCTION(name, kind)                                                                                       \
  template <class Out, class E, class L>                                                                                \
  Tensor<E, Out> name(const Tensor<E, L>& t, std::span<const std::int64_t> axes, bool keepdims = true,                 \
                      bool noop_with_empty_axes = false) const {                                                        \
    return reduce_run<Out>(t, axes, keepdims, noop_with_empty_axes, ReduceKind::kind);                                 \
  }
  LOAM_REDUCTION(reduce_sum, Sum)
  LOAM_REDUCTION(reduce_mean, Mean)
  LOAM_REDUCTION(reduce_max, Max)
  LOAM_REDUCTION(reduce_min, Min)
  LOAM_REDUCTION(reduce_prod, Prod)
  LOAM_REDUCTION(reduce_l1, L1)
  LOAM_REDUCTION(reduce_l2, L2)
  LOAM_REDUCTION(reduce_log_sum, LogSum)
  LOAM_REDUCTION(reduce_log_sum_exp, LogSumExp)
  LOAM_REDUCTION(reduce_sum_square, SumSquare)
#undef LOAM_REDUCTION

  // ArgMax (ArgMin) along one axis: the first maximum (minimum), or the last with
  // select_last_index; NaN wins.
  template <class Out, class E, class L>
  Tensor<std::int64_t, Out> argmax(const Tensor<E, L>& t, std::int64_t axis = 0, bool keepdims = true, bool select_last_index = false) const {
    return arg_extreme<Out>(t, axis, keepdims, select_last_index, false);
  }
  template <class Out, class E, class L>
  Tensor<std::int64_t, Out> argmin(const Tensor<E, L>& t, std::int64_t axis = 0, bool keepdims = true, bool select_last_index = false) const {
    return arg_extreme<Out>(t, axis, keepdims, select_last_index, true);
  }

  template <class Out, class E, class L>
  static HostTensor<std::int64_t, Out> arg_extreme(const HostTensor<E, L>& t, std::int64_t axis, bool keepdims, bool select_last_index, bool least) {
    constexpr std::size_t R = AxisRank<L>;
    const char* what = least ? "argmin" : "argmax";
    static_assert(AxisRank<Out> == R || AxisRank<Out> + 1 == R, "argmax/argmin: the result keeps the rank, or drops the axis");
    const std::size_t ax = norm_axis(axis, R, what);
    if ((AxisRank<Out> == R) != keepdims) throw KernelMisuse(std::string(what) + ": keepdims disagrees with the result's rank");
    const std::int64_t len = t.extents()[ax];
    if (len == 0) throw KernelMisuse(std::string(what) + ": an empty axis has no extreme");
    typename HostTensor<std::int64_t, Out>::Extents oe{};
    std::size_t at = 0;
    std::int64_t outer = 1, inner = 1;
    for (std::size_t i = 0; i < R; ++i) {
      if (i < ax) outer *= t.extents()[i];
      if (i > ax) inner *= t.extents()[i];
      if (i != ax) oe[at++] = t.extents()[i];
      else if (keepdims) oe[at++] = 1;
    }
    auto out = HostTensor<std::int64_t, Out>::uninitialized(oe);
    std::int64_t* y = out.mutable_data_unchecked();
    const E* x = t.data();
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t i = 0; i < inner; ++i) {
        const E* xs = x + o * len * inner + i;
        std::int64_t best = 0;
        E bv = xs[0];
        for (std::int64_t k = 1; k < len; ++k) {
          const E v = xs[k * inner];
          const bool beats = least ? v < bv : v > bv;
          bool take;
          if constexpr (std::is_same_v<E, float>) {
            if (bv != bv) take = select_last_index && v != v;
            else take = v != v || beats || (select_last_index && v == bv);
          } else {
            take = beats || (select_last_index && v == bv);
          }
          if (take) {
            best = k;
            bv = v;
          }
        }
        y[o * inner + i] = best;
      }
    return out;
  }

  // BatchNormalization (inference): per channel (axis 1) scale * (x - mean) / sqrt(var + eps) + bias.
  template <class L, class C>
  Tensor<float, L> batch_normalization(const Tensor<float, L>& x, const Tensor<float, Axes<C>>& scale, const Tensor<float, Axes<C>>& bias,
                                       const Tensor<float, Axes<C>>& mean, const Tensor<float, Axes<C>>& var, float epsilon = 1e-5f) const {
    constexpr std::size_t R = AxisRank<L>;
    static_assert(R >= 2 && std::is_same_v<AxisAt<R >= 2 ? 1 : 0, L>, C>, "batch_normalization: the per-channel tensors run along the input's axis 1");
    const std::int64_t n = x.extents()[0], c = x.extents()[1];
    for (const auto* p : {&scale, &bias, &mean, &var})
      if (p->extents()[0] != c) throw KernelMisuse("batch_normalization: a per-channel tensor holds " + std::to_string(p->extents()[0]) + " elements, not " + std::to_string(c));
    const std::int64_t plane = n * c == 0 ? 0 : x.count() / (n * c);
    auto out = Tensor<float, L>::uninitialized(x.extents());
    float* y = out.mutable_data_unchecked();
    for (std::int64_t ch = 0; ch < c; ++ch) {
      const float a = batch_norm_factor(scale.data()[ch], var.data()[ch], epsilon);
      const float b = bias.data()[ch] - mean.data()[ch] * a;
      for (std::int64_t b0 = 0; b0 < n; ++b0) {
        const float* xs = x.data() + (b0 * c + ch) * plane;
        float* ys = y + (b0 * c + ch) * plane;
        for (std::int64_t i = 0; i < plane; ++i) ys[i] = xs[i] * a + b;
      }
    }
    return out;
  }

  // InstanceNormalization: each (image, channel) plane normalised by its own mean and variance,
  // then scale[c] * . + bias[c]: GroupNormalization with a group a channel.
  template <class L, class C>
  Tensor<float, L> instance_normalization(const Tensor<float, L>& x, const Tensor<float, Axes<C>>& scale, const Tensor<float, Axes<C>>& bias,
                                          float epsilon = 1e-5f) const {
    static_assert(AxisRank<L> >= 3, "instance_normalization: [N, C, spatial...]");
    return group_normalization(x, scale, bias, std::max<std::int64_t>(x.extents()[1], 1), epsilon);
  }

  // GroupNormalization (opset 21): the channels split into `groups` runs of equal length, each
  // (image, group) normalised by its own mean and variance over its channels and positions, then
  // scale[c] * . + bias[c].
  template <class L, class C>
  Tensor<float, L> group_normalization(const Tensor<float, L>& x, const Tensor<float, Axes<C>>& scale, const Tensor<float, Axes<C>>& bias,
                                       std::int64_t groups, float epsilon = 1e-5f) const {
    constexpr std::size_t R = AxisRank<L>;
    static_assert(R >= 2 && std::is_same_v<AxisAt<1, L>, C>, "group_normalization: the per-channel tensors run along the input's axis 1");
    const std::int64_t n = x.extents()[0], c = x.extents()[1];
    if (groups < 1 || c % groups != 0)
      throw KernelMisuse("group_normalization: " + std::to_string(c) + " channels do not split into " + std::to_string(groups) + " groups");
    for (const auto* p : {&scale, &bias})
      if (p->extents()[0] != c) throw KernelMisuse("group_normalization: a per-channel tensor holds " + std::to_string(p->extents()[0]) + " elements, not " + std::to_string(c));
    const std::int64_t per_group = c / groups, plane = n * c == 0 ? 0 : x.count() / (n * c);
    auto out = Tensor<float, L>::uninitialized(x.extents());
    float* y = out.mutable_data_unchecked();
    for (std::int64_t b0 = 0; b0 < n; ++b0)
      for (std::int64_t g = 0; g < groups; ++g) {
        const std::int64_t first = (b0 * c + g * per_group) * plane;
        const auto [mean, var] = layer_norm_moments(x.data() + first, per_group * plane);
        const double deviation = std::sqrt(var + epsilon);
        for (std::int64_t k = 0; k < per_group; ++k) {
          const std::int64_t ch = g * per_group + k;
          const double a = scale.data()[ch] / deviation, b = bias.data()[ch] - mean * a;
          const float* xs = x.data() + first + k * plane;
          float* ys = y + first + k * plane;
          for (std::int64_t i = 0; i < plane; ++i) ys[i] = static_cast<float>(xs[i] * a + b);
        }
      }
    return out;
  }

  // LRN across channels (axis 1): x / (bias + alpha / size * sum of x^2 over the `size` channels
  // around it, floor((size-1)/2) before and ceil((size-1)/2) after)^beta.
  template <class L>
  Tensor<float, L> lrn(const Tensor<float, L>& x, std::int64_t size, float alpha, float beta, float bias) const {
    constexpr std::size_t R = AxisRank<L>;
    static_assert(R >= 2, "lrn: [N, C, ...]");
    if (size < 1) throw KernelMisuse("lrn: size must be positive");
    const std::int64_t n = x.extents()[0], c = x.extents()[1];
    const std::int64_t plane = n * c == 0 ? 0 : x.count() / (n * c);
    const std::int64_t before = (size - 1) / 2, after = size - 1 - before;
    auto out = Tensor<float, L>::uninitialized(x.extents());
    float* y = out.mutable_data_unchecked();
    const float* s = x.data();
    for (std::int64_t b0 = 0; b0 < n; ++b0)
      for (std::int64_t ch = 0; ch < c; ++ch)
        for (std::int64_t i = 0; i < plane; ++i) {
          double sq = 0.0;
          for (std::int64_t k = std::max<std::int64_t>(0, ch - before); k <= std::min(c - 1, ch + after); ++k) {
            const double v = s[(b0 * c + k) * plane + i];
            sq += v * v;
          }
          const std::int64_t at = (b0 * c + ch) * plane + i;
          y[at] = static_cast<float>(s[at] / std::pow(bias + alpha / static_cast<double>(size) * sq, static_cast<double>(beta)));
        }
    return out;
  }

  // MeanVarianceNormalization over `axes` as ONNX's function defines it: (x - E[x]) /
  // (sqrt(E[x^2] - E[x]^2) + 1e-9).
  template <class L>
  Tensor<float, L> mean_variance_normalization(const Tensor<float, L>& x, std::span<const std::int64_t> axes) const {
    constexpr std::size_t R = AxisRank<L>;
    std::array<bool, R + 1> reduced{};
    for (auto a : axes) reduced[norm_axis(a, R, "mean_variance_normalization")] = true;
    // Each element's statistics slot: its index over the axes kept.
    std::array<std::int64_t, R + 1> ost{};
    std::int64_t slots = 1, group = 1;
    for (std::size_t i = R; i-- > 0;) {
      ost[i] = reduced[i] ? 0 : slots;
      if (reduced[i]) group *= x.extents()[i];
      else slots *= x.extents()[i];
    }
    std::vector<double> sum(static_cast<std::size_t>(slots), 0.0), sum_sq(static_cast<std::size_t>(slots), 0.0);
    auto each = [&](auto&& f) {
      std::array<std::int64_t, R + 1> idx{};
      std::int64_t o = 0;
      for (std::int64_t i = 0; i < x.count(); ++i) {
        f(i, static_cast<std::size_t>(o));
        for (std::size_t d = R; d-- > 0;) {
          o += ost[d];
          if (++idx[d] < x.extents()[d]) break;
          o -= ost[d] * x.extents()[d];
          idx[d] = 0;
        }
      }
    };
    const float* s = x.data();
    each([&](std::int64_t i, std::size_t o) {
      sum[o] += s[i];
      sum_sq[o] += static_cast<double>(s[i]) * s[i];
    });
    auto out = Tensor<float, L>::uninitialized(x.extents());
    float* y = out.mutable_data_unchecked();
    const double inv = group > 0 ? 1.0 / static_cast<double>(group) : 0.0;
    each([&](std::int64_t i, std::size_t o) {
      const double m = sum[o] * inv;
      const double sd = std::sqrt(std::max(0.0, sum_sq[o] * inv - m * m));
      y[i] = static_cast<float>((s[i] - m) / (sd + 1e-9));
    });
    return out;
  }

  // Mean and variance of one normalised block, accumulated in double.
  static std::pair<double, double> layer_norm_moments(const float* xs, std::int64_t len) {
    double mean = 0.0;
    for (std::int64_t i = 0; i < len; ++i) mean += xs[i];
    mean /= static_cast<double>(len);
    double var = 0.0;
    for (std::int64_t i = 0; i < len; ++i) var += (xs[i] - mean) * (xs[i] - mean);
    var /= static_cast<double>(len);
    return {mean, var};
  }

  // LayerNormalization's optional outputs: Mean (`inverse_std_dev` false) or InvStdDev
  // (1 / sqrt(variance + epsilon)), one value per normalised block. Out is x's axis list, the
  // normalised axes (from `axis` on) at length 1.
  template <class Out, class L>
  Tensor<float, Out> layer_normalization_statistic(const Tensor<float, L>& x, std::int64_t axis, float epsilon,
                                                   bool inverse_std_dev) const {
    constexpr std::size_t R = AxisRank<L>;
    static_assert(AxisRank<Out> == R, "layer_normalization_statistic: the statistic keeps every axis of x");
    const std::size_t ax = norm_axis(axis, R, "layer_normalization_statistic");
    std::array<std::int64_t, R> ext = x.extents();
    std::int64_t outer = 1, len = 1;
    for (std::size_t i = 0; i < ax; ++i) outer *= ext[i];
    for (std::size_t i = ax; i < R; ++i) len *= ext[i], ext[i] = 1;
    auto out = Tensor<float, Out>::uninitialized(ext);
    float* y = out.mutable_data_unchecked();
    for (std::int64_t o = 0; o < outer; ++o) {
      const auto [mean, var] = layer_norm_moments(x.data() + o * len, len);
      y[o] = inverse_std_dev ? static_cast<float>(1.0 / std::sqrt(var + epsilon)) : static_cast<float>(mean);
    }
    return out;
  }

  // A scale or bias of a normalisation over x's axes from `ax` on, stretched over that block of
  // `len` elements (it broadcasts to those axes).
  template <class L, class LS>
  static std::vector<float> normalised_block(const Tensor<float, L>& x, const HostTensor<float, LS>& t, std::size_t ax, std::int64_t len,
                                             const char* name) {
    constexpr std::size_t R = AxisRank<L>, rs = AxisRank<LS>;
    std::vector<float> v(static_cast<std::size_t>(len));
    if (rs > R - ax) throw KernelMisuse(std::string(name) + ": scale has more axes than the normalised block");
    std::vector<std::int64_t> ext(R - ax), str(R - ax, 0);
    const auto ts = t.strides();
    for (std::size_t i = 0; i < R - ax; ++i) {
      ext[i] = x.extents()[ax + i];
      const std::size_t shift = (R - ax) - rs;
      if (i >= shift) {
        const std::int64_t e = t.extents()[i - shift];
        if (e != 1 && e != ext[i]) throw KernelMisuse(std::string(name) + ": scale or bias does not broadcast to the normalised axes");
        str[i] = e == 1 ? 0 : ts[i - shift];
      }
    }
    strided_copy<float>(v.data(), t.data(), 0, ext, str);
    return v;
  }

  // RMSNormalization (opset 23) over the axes from `axis` to the end: x / sqrt(mean(x * x) +
  // epsilon) * scale, the mean accumulated in double as LayerNormalization's moments are.
  template <class L, class LS>
  Tensor<float, L> rms_normalization(const Tensor<float, L>& x, const Tensor<float, LS>& scale, std::int64_t axis = -1, float epsilon = 1e-5f) const {
    constexpr std::size_t R = AxisRank<L>;
    const std::size_t ax = norm_axis(axis, R, "rms_normalization");
    std::int64_t outer = 1, len = 1;
    for (std::size_t i = 0; i < ax; ++i) outer *= x.extents()[i];
    for (std::size_t i = ax; i < R; ++i) len *= x.extents()[i];
    const std::vector<float> g = normalised_block(x, scale, ax, len, "rms_normalization");
    auto out = Tensor<float, L>::uninitialized(x.extents());
    float* y = out.mutable_data_unchecked();
    for (std::int64_t o = 0; o < outer; ++o) {
      const float* xs = x.data() + o * len;
      float* ys = y + o * len;
      double squares = 0.0;
      for (std::int64_t i = 0; i < len; ++i) squares += static_cast<double>(xs[i]) * xs[i];
      const float inv = static_cast<float>(1.0 / std::sqrt(squares / static_cast<double>(len) + epsilon));
      for (std::int64_t i = 0; i < len; ++i) ys[i] = xs[i] * inv * g[static_cast<std::size_t>(i)];
    }
    return out;
  }

  // LayerNormalization over the axes from `axis` to the end; scale and bias broadcast to them.
  template <class L, class LS>
  Tensor<float, L> layer_normalization(const Tensor<float, L>& x, const Tensor<float, LS>& scale, const std::type_identity_t<Tensor<float, LS>>* bias,
                                       std::int64_t axis = -1,
                                       float epsilon = 1e-5f) const {
    constexpr std::size_t R = AxisRank<L>;
    const std::size_t ax = norm_axis(axis, R, "layer_normalization");
    std::int64_t outer = 1, len = 1;
    for (std::size_t i = 0; i < ax; ++i) outer *= x.extents()[i];
    for (std::size_t i = ax; i < R; ++i) len *= x.extents()[i];
    const auto block_of = [&](const HostTensor<float, LS>& t) { return normalised_block(x, t, ax, len, "layer_normalization"); };
    const std::vector<float> g = block_of(scale);
    const std::vector<float> b = bias ? block_of(*bias) : std::vector<float>(static_cast<std::size_t>(len), 0.0f);
    auto out = Tensor<float, L>::uninitialized(x.extents());
    float* y = out.mutable_data_unchecked();
    for (std::int64_t o = 0; o < outer; ++o) {
      const float* xs = x.data() + o * len;
      float* ys = y + o * len;
      const auto [mean, var] = layer_norm_moments(xs, len);
      const float inv = static_cast<float>(1.0 / std::sqrt(var + epsilon));
      const float m = static_cast<float>(mean);
      for (std::int64_t i = 0; i < len; ++i) ys[i] = (xs[i] - m) * inv * g[static_cast<std::size_t>(i)] + b[static_cast<std::size_t>(i)];
    }
    return out;
  }
  template <class L, class LS>
  Tensor<float, L> layer_normalization(const Tensor<float, L>& x, const Tensor<float, LS>& scale, const Tensor<float, LS>& bias, std::int64_t axis = -1,
                                       float epsilon = 1e-5f) const {
    return layer_normalization(x, scale, &bias, axis, epsilon);
  }
};
