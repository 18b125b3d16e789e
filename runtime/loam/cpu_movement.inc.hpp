// The CPU kernels that move elements: Transpose, Slice, Split, Concat, Gather, Expand, Tile, Pad,
// Range and ConstantOfShape.

enum class PadMode : std::uint8_t { Constant, Reflect, Edge, Wrap };
enum class ScatterReduction : std::uint8_t { None, Add, Mul, Max, Min };

struct CpuMovement : virtual CpuBase {
  // An index of `indices_name` at `element` must lie in [-extent, extent): else a KernelRefusal
  // naming the tensor.
  template <class I>
  static void check_index(std::string_view indices_name, I index, std::int64_t element, std::int64_t extent) {
    if (index < -extent || index >= extent)
      throw KernelRefusal(InputError{std::string(indices_name), "", "",
                                     "index " + std::to_string(index) + " at element " + std::to_string(element) + " lies outside an axis of " +
                                         std::to_string(extent)});
  }
  // Off `axis`, each extent of the indices must not pass data's (GatherElements, ScatterElements).
  template <std::size_t R>
  static void check_within(std::string_view indices_name, const Ext<R>& indices, const Ext<R>& data, std::size_t axis) {
    for (std::size_t i = 0; i < R; ++i)
      if (i != axis && indices[i] > data[i])
        throw KernelRefusal(InputError{std::string(indices_name), "", "",
                                       "axis " + std::to_string(i) + " of " + std::to_string(indices[i]) + " is longer than the data's " +
                                           std::to_string(data[i])});
  }
  // Row-major element strides, one past the last axis (1) included.
  template <std::size_t R>
  static std::array<std::int64_t, R + 1> strides_of(const Ext<R>& extents) {
    std::array<std::int64_t, R + 1> stride{};
    stride[R] = 1;
    for (std::size_t i = R; i-- > 0;) stride[i] = stride[i + 1] * extents[i];
    return stride;
  }
  // A fresh copy of `t` to scatter into.
  template <class E, class L>
  static HostTensor<E, L> copy_of(const HostTensor<E, L>& t) {
    auto out = HostTensor<E, L>::uninitialized(t.extents());
    if (t.count() > 0) std::copy(t.data(), t.data() + t.count(), out.mutable_data_unchecked());
    return out;
  }
  // ---------------------------------------------------------------- moving elements

  // Transpose with ONNX's perm: result axis i is input axis perm[i].
  template <class Out, class E, class L>
  Tensor<E, Out> transpose(const Tensor<E, L>& t, const std::array<std::int64_t, AxisRank<L>>& perm) const {
    constexpr std::size_t R = AxisRank<L>;
    static_assert(AxesPermute<Out, L>, "transpose: the result's axes must be the input's axes, reordered");
    Ext<R> oe{}, st{};
    const auto s = t.strides();
    std::array<bool, R + 1> seen{};
    for (std::size_t i = 0; i < R; ++i) {
      const std::size_t from = norm_axis(perm[i], R, "transpose");
      if (seen[from]) throw KernelMisuse("transpose: perm names axis " + std::to_string(from) + " twice");
      seen[from] = true;
      oe[i] = t.extents()[from];
      st[i] = s[from];
    }
    auto out = Tensor<E, Out>::uninitialized(oe);
    strided_copy<E>(out.mutable_data_unchecked(), t.data(), 0, oe, st);
    return out;
  }

  // Transpose named by the result's axes: each result axis is the input axis of that name.
  template <class Out, class E, class L>
  Tensor<E, Out> transpose(const Tensor<E, L>& t) const {
    constexpr std::size_t R = AxisRank<L>;
    static_assert(AxesPermute<Out, L>, "transpose: the result's axes must be the input's axes, reordered");
    static_assert([]<std::size_t... I>(std::index_sequence<I...>) { return ((AxisListTraits<L>::template COUNT<AxisAt<I, L>> == 1) && ...); }(std::make_index_sequence<R>{}),
                  "transpose: an axis name appears twice; spell the permutation");
    const std::array<std::int64_t, R> perm = []<std::size_t... I>(std::index_sequence<I...>) {
      return std::array<std::int64_t, R>{static_cast<std::int64_t>(AxisIndex<AxisAt<I, Out>, L>)...};
    }(std::make_index_sequence<R>{});
    return transpose<Out>(t, perm);
  }

  // Slice with ONNX's reading of bounds: negative from the end, clamped to the axis, steps of
  // either sign; axes not named are taken whole.
  template <class Out, class E, class L>
  Tensor<E, Out> slice(const Tensor<E, L>& t, std::span<const std::int64_t> starts, std::span<const std::int64_t> ends,
                       std::span<const std::int64_t> axes = {}, std::span<const std::int64_t> steps = {}) const {
    constexpr std::size_t R = AxisRank<L>;
    static_assert(AxisRank<Out> == R, "slice: the result has the input's rank");
    if (starts.size() != ends.size() || (!axes.empty() && axes.size() != starts.size()) || (!steps.empty() && steps.size() != starts.size()))
      throw KernelMisuse("slice: starts, ends, axes and steps must have one length");
    const auto s = t.strides();
    Ext<R> oe = t.extents(), st = s;
    std::int64_t base = 0;
    std::array<bool, R + 1> seen{};
    for (std::size_t i = 0; i < starts.size(); ++i) {
      const std::size_t ax = axes.empty() ? i : norm_axis(axes[i], R, "slice");
      if (seen[ax]) throw KernelMisuse("slice: axis " + std::to_string(ax) + " named twice");
      seen[ax] = true;
      const std::int64_t dim = t.extents()[ax];
      const std::int64_t step = steps.empty() ? 1 : steps[i];
      if (step == 0) throw KernelMisuse("slice: a step of 0");
      std::int64_t b = starts[i], e = ends[i];
      if (b < 0) b += dim;  // then clamped below, per the step's sign
      if (e < 0) e += dim;
      std::int64_t count;
      if (step > 0) {
        b = std::clamp<std::int64_t>(b, 0, dim);
        e = std::clamp<std::int64_t>(e, 0, dim);
        count = e > b ? (e - b + step - 1) / step : 0;
      } else {
        b = std::clamp<std::int64_t>(b, -1, dim - 1);
        e = std::clamp<std::int64_t>(e, -1, dim - 1);
        count = b > e ? (b - e + (-step) - 1) / (-step) : 0;
      }
      oe[ax] = count;
      st[ax] = s[ax] * step;
      if (count > 0) base += b * s[ax];
    }
    auto out = Tensor<E, Out>::uninitialized(oe);
    if (out.count() > 0) strided_copy<E>(out.mutable_data_unchecked(), t.data(), base, oe, st);
    return out;
  }

  // One output of Split: `length` elements of `axis` from `offset`.
  template <class Out, class E, class L>
  Tensor<E, Out> split_part(const Tensor<E, L>& t, std::int64_t axis, std::int64_t offset, std::int64_t length) const {
    constexpr std::size_t R = AxisRank<L>;
    const std::size_t ax = norm_axis(axis, R, "split");
    if (offset < 0 || length < 0 || offset > t.extents()[ax] || length > t.extents()[ax] - offset)
      throw KernelMisuse("split: the part [" + std::to_string(offset) + ", +" + std::to_string(length) + ") lies outside an axis of " +
                         std::to_string(t.extents()[ax]));
    const std::int64_t start[] = {offset}, end[] = {offset + length}, axes[] = {static_cast<std::int64_t>(ax)};
    return slice<Out>(t, start, end, axes);
  }

  // Concat along `axis`; the other axes must agree.
  template <class Out, class E, class... Ls>
  Tensor<E, Out> concat(std::int64_t axis, const Tensor<E, Ls>&... parts) const {
    constexpr std::size_t R = AxisRank<Out>;
    static_assert(sizeof...(Ls) > 0 && ((AxisRank<Ls> == R) && ...), "concat: every part has the result's rank");
    const std::size_t ax = norm_axis(axis, R, "concat");
    Ext<R> oe = std::get<0>(std::tie(parts...)).extents();
    oe[ax] = 0;
    (
        [&] {
          for (std::size_t i = 0; i < R; ++i)
            if (i != ax && parts.extents()[i] != oe[i])
              throw KernelMisuse("concat: extents " + std::to_string(parts.extents()[i]) + " and " + std::to_string(oe[i]) + " disagree at axis " + std::to_string(i));
          oe[ax] += parts.extents()[ax];
        }(),
        ...);
    auto out = Tensor<E, Out>::uninitialized(oe);
    std::int64_t outer = 1, inner = 1;
    for (std::size_t i = 0; i < ax; ++i) outer *= oe[i];
    for (std::size_t i = ax + 1; i < R; ++i) inner *= oe[i];
    E* y = out.mutable_data_unchecked();
    const std::int64_t row = oe[ax] * inner;
    std::int64_t at = 0;
    (
        [&] {
          const std::int64_t chunk = parts.extents()[ax] * inner;
          for (std::int64_t o = 0; o < outer && chunk > 0; ++o) std::copy(parts.data() + o * chunk, parts.data() + (o + 1) * chunk, y + o * row + at);
          at += chunk;
        }(),
        ...);
    return out;
  }

  // Gather along `axis`: the result's axes are data's before `axis`, the indices' axes, then
  // data's after it. Every index is checked: one outside [-extent, extent) is refused, naming
  // the indices tensor.
  template <class Out, class E, class LD, class LI>
  Tensor<E, Out> gather(const Tensor<E, LD>& data, const Tensor<std::int64_t, LI>& indices, std::int64_t axis, std::string_view indices_name = "indices") const {
    constexpr std::size_t RD = AxisRank<LD>, RI = AxisRank<LI>;
    static_assert(RD >= 1 && AxisRank<Out> == RD - 1 + RI, "gather: the result's rank is data's rank - 1 + the indices' rank");
    const std::size_t ax = norm_axis(axis, RD, "gather");
    const std::int64_t dim = data.extents()[ax];
    typename Tensor<E, Out>::Extents oe{};
    std::size_t at = 0;
    for (std::size_t i = 0; i < ax; ++i) oe[at++] = data.extents()[i];
    for (std::size_t i = 0; i < RI; ++i) oe[at++] = indices.extents()[i];
    for (std::size_t i = ax + 1; i < RD; ++i) oe[at++] = data.extents()[i];
    const std::int64_t* ix = indices.data();
    for (std::int64_t i = 0; i < indices.count(); ++i)
      check_index(indices_name, ix[i], i, dim);
    auto out = Tensor<E, Out>::uninitialized(oe);
    std::int64_t outer = 1, inner = 1;
    for (std::size_t i = 0; i < ax; ++i) outer *= data.extents()[i];
    for (std::size_t i = ax + 1; i < RD; ++i) inner *= data.extents()[i];
    E* y = out.mutable_data_unchecked();
    const E* d = data.data();
    const std::int64_t n = indices.count();
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t j = 0; j < n; ++j) {
        const std::int64_t k = ix[j] < 0 ? ix[j] + dim : ix[j];
        std::copy(d + (o * dim + k) * inner, d + (o * dim + k + 1) * inner, y + (o * n + j) * inner);
      }
    return out;
  }

  // RotaryEmbedding (opset 23): each head's first 2 * H channels (H the caches' last extent)
  // rotated pair by pair, channel i with channel i + H (or with `interleaved`, 2i with 2i + 1), by
  // the angle whose cosine and sine the caches hold for the element's (batch, position); the other
  // channels copied. x is [batch, heads, sequence, head], or [batch, sequence, heads * head] with
  // `heads`; the caches [batch, sequence, H] (rotary_embedding) or [positions, H] read at
  // `positions` [batch, sequence] (rotary_embedding_at, each id checked first: one outside the
  // caches is refused naming `positions_name`).
  template <class L, class LC, class LS>
  Tensor<float, L> rotary_embedding(const Tensor<float, L>& x, const Tensor<float, LC>& cos, const Tensor<float, LS>& sin, bool interleaved,
                                    std::int64_t heads) const {
    static_assert(AxisRank<LC> == 3 && AxisRank<LS> == 3, "rotary_embedding: without position ids the caches are [batch, sequence, rotary / 2]");
    return rotate_pairs(x, cos, sin, interleaved, heads, [&](std::int64_t b, std::int64_t s, std::int64_t sequence) { return b * sequence + s; });
  }
  template <class L, class LC, class LS, class LP>
  Tensor<float, L> rotary_embedding_at(const Tensor<float, L>& x, const Tensor<float, LC>& cos, const Tensor<float, LS>& sin,
                                       const Tensor<std::int64_t, LP>& positions, bool interleaved, std::int64_t heads,
                                       std::string_view positions_name = "position_ids") const {
    static_assert(AxisRank<LC> == 2 && AxisRank<LS> == 2 && AxisRank<LP> == 2, "rotary_embedding_at: the caches are [positions, rotary / 2], the ids [batch, sequence]");
    const std::int64_t sequence = x.extents()[AxisRank<L> == 4 ? 2 : 1];
    if (positions.extents()[0] != x.extents()[0] || positions.extents()[1] != sequence)
      throw KernelMisuse("rotary_embedding_at: the position ids are not [batch, sequence] of the input");
    const std::int64_t rows = cos.extents()[0];
    const std::int64_t* p = positions.data();
    for (std::int64_t i = 0; i < positions.count(); ++i)
      if (p[i] < 0 || p[i] >= rows)
        throw KernelRefusal(InputError{std::string(positions_name), "", "",
                                       "position " + std::to_string(p[i]) + " at element " + std::to_string(i) + " lies outside the caches' " +
                                           std::to_string(rows) + " positions"});
    return rotate_pairs(x, cos, sin, interleaved, heads, [&](std::int64_t b, std::int64_t s, std::int64_t) { return p[b * sequence + s]; });
  }

 private:
  // row(b, s, sequence): the caches' row for batch b at position s.
  template <class L, class LC, class LS, class Row>
  static Tensor<float, L> rotate_pairs(const Tensor<float, L>& x, const Tensor<float, LC>& cos, const Tensor<float, LS>& sin, bool interleaved,
                                       std::int64_t heads, const Row& row) {
    constexpr std::size_t R = AxisRank<L>;
    static_assert(R == 3 || R == 4, "rotary_embedding: the input is [batch, heads, sequence, head] or [batch, sequence, hidden]");
    const auto& e = x.extents();
    if (!std::ranges::equal(cos.extents(), sin.extents())) throw KernelMisuse("rotary_embedding: the cosine and sine caches differ in shape");
    const std::int64_t batch = e[0], n_heads = R == 4 ? e[1] : heads, sequence = R == 4 ? e[2] : e[1];
    if (n_heads <= 0 || (R == 3 && e[2] % n_heads != 0)) throw KernelMisuse("rotary_embedding: the hidden extent is not a multiple of the heads");
    const std::int64_t head = R == 4 ? e[3] : e[2] / n_heads, half = cos.extents()[AxisRank<LC> - 1];
    if (2 * half > head) throw KernelMisuse("rotary_embedding: the caches rotate more channels than a head has");
    if constexpr (AxisRank<LC> == 3)
      if (cos.extents()[0] != batch || cos.extents()[1] != sequence) throw KernelMisuse("rotary_embedding: the caches are not [batch, sequence, rotary / 2]");
    auto out = Tensor<float, L>::uninitialized(e);
    float* y = out.mutable_data_unchecked();
    const float* in = x.data();
    // Where head h of (b, s) starts.
    const auto at = [&](std::int64_t b, std::int64_t h, std::int64_t s) { return R == 4 ? ((b * n_heads + h) * sequence + s) * head : ((b * sequence + s) * n_heads + h) * head; };
    for (std::int64_t b = 0; b < batch; ++b)
      for (std::int64_t s = 0; s < sequence; ++s) {
        const std::int64_t r = row(b, s, sequence);
        const float* c = cos.data() + r * half;
        const float* sn = sin.data() + r * half;
        for (std::int64_t h = 0; h < n_heads; ++h) {
          const float* xs = in + at(b, h, s);
          float* ys = y + at(b, h, s);
          for (std::int64_t i = 0; i < half; ++i) {
            const std::int64_t first = interleaved ? 2 * i : i, second = interleaved ? 2 * i + 1 : i + half;
            const float x1 = xs[first], x2 = xs[second];
            ys[first] = c[i] * x1 - sn[i] * x2;
            ys[second] = sn[i] * x1 + c[i] * x2;
          }
          std::copy(xs + 2 * half, xs + head, ys + 2 * half);
        }
      }
    return out;
  }

 public:
  // GatherElements: out[i] = data[i with its `axis` coordinate replaced by indices[i]]; the result
  // has the indices' extents, each no larger than data's off the axis. Every index is checked
  // first; one outside [-extent, extent) throws KernelRefusal naming `indices_name`.
  template <class Out, class E, class I, class LD, class LI>
  Tensor<E, Out> gather_elements(const Tensor<E, LD>& data, const Tensor<I, LI>& indices, std::int64_t axis,
                                 std::string_view indices_name = "indices") const {
    constexpr std::size_t R = AxisRank<LD>;
    static_assert(AxisRank<LI> == R && AxisRank<Out> == R, "gather_elements: data, indices and the result share a rank");
    const std::size_t ax = norm_axis(axis, R, "gather_elements");
    check_within<R>(indices_name, indices.extents(), data.extents(), ax);
    const std::int64_t dim = data.extents()[ax];
    const I* ix = indices.data();
    for (std::int64_t i = 0; i < indices.count(); ++i)
      check_index(indices_name, ix[i], i, dim);
    auto out = Tensor<E, Out>::uninitialized(indices.extents());
    const auto dstride = strides_of<R>(data.extents());
    std::array<std::int64_t, R + 1> idx{};
    E* y = out.mutable_data_unchecked();
    const E* d = data.data();
    for (std::int64_t i = 0; i < indices.count(); ++i) {
      std::int64_t at = 0;
      for (std::size_t k = 0; k < R; ++k) {
        const std::int64_t c = k == ax ? (ix[i] < 0 ? std::int64_t{ix[i]} + dim : std::int64_t{ix[i]}) : idx[k];
        at += c * dstride[k + 1];
      }
      y[i] = d[at];
      for (std::size_t k = R; k-- > 0;) {
        if (++idx[k] < indices.extents()[k]) break;
        idx[k] = 0;
      }
    }
    return out;
  }

  // Trilu: the upper (or lower) triangle of each matrix of the last two axes, from diagonal `k` (a
  // scalar read at run time; 0 without one), the rest zeroed.
  template <class E, class L>
  Tensor<E, L> trilu(const Tensor<E, L>& t, std::int64_t k, bool upper) const {
    constexpr std::size_t R = AxisRank<L>;
    static_assert(R >= 2, "trilu: the input has at least two axes");
    const std::int64_t rows = t.extents()[R - 2], cols = t.extents()[R - 1];
    auto out = Tensor<E, L>::uninitialized(t.extents());
    const E* x = t.data();
    E* y = out.mutable_data_unchecked();
    const std::int64_t mats = rows * cols == 0 ? 0 : t.count() / (rows * cols);
    for (std::int64_t m = 0; m < mats; ++m)
      for (std::int64_t i = 0; i < rows; ++i)
        for (std::int64_t j = 0; j < cols; ++j) {
          const std::int64_t at = (m * rows + i) * cols + j;
          const bool keep = upper ? j - i >= k : j - i <= k;
          y[at] = keep ? x[at] : E{};
        }
    return out;
  }
  template <class E, class L, class K, class LK>
  Tensor<E, L> trilu(const Tensor<E, L>& t, const Tensor<K, LK>& k, bool upper, std::string_view k_name = "k") const {
    if (k.count() != 1) throw KernelRefusal(InputError{std::string(k_name), "", "", "k must be one integer, not " + std::to_string(k.count())});
    return trilu(t, static_cast<std::int64_t>(k.data()[0]), upper);
  }

  // DepthToSpace over [N, C, H, W]: out[n, c, h*b + i, w*b + j] = x[n, (i*b + j)*C' + c, h, w] (DCR),
  // or x[n, c*b*b + i*b + j, h, w] (CRD), C' = C / (b*b).
  template <class Out, class E, class L>
  Tensor<E, Out> depth_to_space(const Tensor<E, L>& x, std::int64_t b, bool crd) const {
    static_assert(AxisRank<L> == 4 && AxisRank<Out> == 4, "depth_to_space: [N, C, H, W]");
    const auto& e = x.extents();
    if (b < 1 || e[1] % (b * b) != 0) throw KernelMisuse("depth_to_space: the channels are not a multiple of blocksize squared");
    const std::int64_t n = e[0], c = e[1] / (b * b), h = e[2], w = e[3];
    auto out = Tensor<E, Out>::uninitialized({n, c, h * b, w * b});
    const E* s = x.data();
    E* y = out.mutable_data_unchecked();
    for (std::int64_t in = 0; in < n; ++in)
      for (std::int64_t ic = 0; ic < c; ++ic)
        for (std::int64_t oh = 0; oh < h * b; ++oh)
          for (std::int64_t ow = 0; ow < w * b; ++ow) {
            const std::int64_t i = oh % b, j = ow % b;
            const std::int64_t sc = crd ? ic * b * b + i * b + j : (i * b + j) * c + ic;
            *y++ = s[((in * e[1] + sc) * h + oh / b) * w + ow / b];
          }
    return out;
  }

  // SpaceToDepth over [N, C, H, W]: out[n, (i*b + j)*C + c, h, w] = x[n, c, h*b + i, w*b + j].
  template <class Out, class E, class L>
  Tensor<E, Out> space_to_depth(const Tensor<E, L>& x, std::int64_t b, bool crd = false) const {
    static_assert(AxisRank<L> == 4 && AxisRank<Out> == 4, "space_to_depth: [N, C, H, W]");
    const auto& e = x.extents();
    if (b < 1 || e[2] % b != 0 || e[3] % b != 0) throw KernelMisuse("space_to_depth: the rows or columns are not a multiple of blocksize");
    const std::int64_t n = e[0], c = e[1], h = e[2] / b, w = e[3] / b;
    auto out = Tensor<E, Out>::uninitialized({n, c * b * b, h, w});
    const E* s = x.data();
    E* y = out.mutable_data_unchecked();
    for (std::int64_t in = 0; in < n; ++in)
      for (std::int64_t oc = 0; oc < c * b * b; ++oc)
        for (std::int64_t oh = 0; oh < h; ++oh)
          for (std::int64_t ow = 0; ow < w; ++ow) {
            // DCR: the block's position outermost in the channel; CRD (opset 28): the channel.
            const std::int64_t ij = crd ? oc % (b * b) : oc / c, ic = crd ? oc / (b * b) : oc % c, i = ij / b, j = ij % b;
            *y++ = s[((in * c + ic) * e[2] + oh * b + i) * e[3] + ow * b + j];
          }
    return out;
  }

  // OneHot: indices' extents with `depth` inserted at `axis`; values[1] where the index (negative
  // ones counted from depth, a float truncated) names the position, values[0] elsewhere. An index
  // outside [-depth, depth) names none.
  template <class Out, class E, class I, class LI, class LV>
  Tensor<E, Out> one_hot(const Tensor<I, LI>& indices, std::int64_t depth, const Tensor<E, LV>& values, std::int64_t axis) const {
    constexpr std::size_t R = AxisRank<LI>;
    static_assert(AxisRank<Out> == R + 1 && AxisRank<LV> == 1, "one_hot: the result has one axis more than the indices");
    if (values.count() != 2) throw KernelMisuse("one_hot: values holds [off, on]");
    const std::size_t ax = norm_axis(axis, R + 1, "one_hot");
    typename Tensor<E, Out>::Extents oe{};
    std::int64_t outer = 1, inner = 1;
    for (std::size_t i = 0, at = 0; i <= R; ++i) {
      if (i == ax) oe[i] = depth;
      else oe[i] = indices.extents()[at++];
    }
    for (std::size_t i = 0; i < ax; ++i) outer *= indices.extents()[i];
    for (std::size_t i = ax; i < R; ++i) inner *= indices.extents()[i];
    auto out = Tensor<E, Out>::uninitialized(oe);
    const E off = values.data()[0], on = values.data()[1];
    E* y = out.mutable_data_unchecked();
    std::fill(y, y + out.count(), off);
    const I* ix = indices.data();
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t i = 0; i < inner; ++i) {
        const auto raw = ix[o * inner + i];
        if constexpr (std::is_floating_point_v<I>)
          if (!(raw > -static_cast<double>(depth) - 1 && raw < static_cast<double>(depth))) continue;
        std::int64_t d = static_cast<std::int64_t>(raw);
        if (d < 0) d += depth;
        if (d < 0 || d >= depth) continue;
        y[(o * depth + d) * inner + i] = on;
      }
    return out;
  }

  // GatherND: each row of indices [..., k] picks the slice data[batch..., i0, ..., ik-1, ...] past
  // the first batch_dims axes. Every index is checked first; one outside [-extent, extent) throws
  // KernelRefusal naming `indices_name`.
  template <class Out, class E, class LD, class LI>
  Tensor<E, Out> gather_nd(const Tensor<E, LD>& data, const Tensor<std::int64_t, LI>& indices, std::int64_t batch_dims,
                           std::string_view indices_name = "indices") const {
    constexpr std::size_t R = AxisRank<LD>, Q = AxisRank<LI>;
    static_assert(R >= 1 && Q >= 1, "gather_nd: data and indices of rank 1 or more");
    const std::size_t b = static_cast<std::size_t>(batch_dims);
    const std::int64_t k = indices.extents()[Q - 1];
    if (batch_dims < 0 || b >= std::min(R, Q) || k < 1 || b + static_cast<std::size_t>(k) > R)
      throw KernelMisuse("gather_nd: batch_dims or the index depth does not fit the ranks");
    if (AxisRank<Out> != Q - 1 + R - b - static_cast<std::size_t>(k)) throw KernelMisuse("gather_nd: the result's rank");
    std::int64_t batches = 1, per_batch = 1, slice = 1;
    for (std::size_t i = 0; i < b; ++i) {
      if (data.extents()[i] != indices.extents()[i]) throw KernelMisuse("gather_nd: the batch axes differ");
      batches *= data.extents()[i];
    }
    for (std::size_t i = b; i + 1 < Q; ++i) per_batch *= indices.extents()[i];
    for (std::size_t i = b + static_cast<std::size_t>(k); i < R; ++i) slice *= data.extents()[i];
    const auto stride = strides_of<R>(data.extents());
    const std::int64_t* ix = indices.data();
    for (std::int64_t i = 0; i < indices.count(); ++i) {
      const std::int64_t dim = data.extents()[b + static_cast<std::size_t>(i % k)];
      check_index(indices_name, ix[i], i, dim);
    }
    typename Tensor<E, Out>::Extents oe{};
    std::size_t at = 0;
    for (std::size_t i = 0; i + 1 < Q; ++i) oe[at++] = indices.extents()[i];
    for (std::size_t i = b + static_cast<std::size_t>(k); i < R; ++i) oe[at++] = data.extents()[i];
    auto out = Tensor<E, Out>::uninitialized(oe);
    const E* d = data.data();
    E* y = out.mutable_data_unchecked();
    for (std::int64_t bi = 0; bi < batches; ++bi)
      for (std::int64_t j = 0; j < per_batch; ++j) {
        const std::int64_t* row = ix + (bi * per_batch + j) * k;
        std::int64_t from = bi * stride[b];
        for (std::int64_t t = 0; t < k; ++t) {
          const std::size_t a = b + static_cast<std::size_t>(t);
          from += (row[t] < 0 ? row[t] + data.extents()[a] : row[t]) * stride[a + 1];
        }
        std::copy(d + from, d + from + slice, y + (bi * per_batch + j) * slice);
      }
    return out;
  }

  template <class E>
  static void scatter_into(E& to, E v, ScatterReduction r) {
    switch (r) {
      case ScatterReduction::None: to = v; break;
      case ScatterReduction::Add: to = static_cast<E>(to + v); break;
      case ScatterReduction::Mul: to = static_cast<E>(to * v); break;
      case ScatterReduction::Max: to = v > to ? v : to; break;
      case ScatterReduction::Min: to = v < to ? v : to; break;
    }
  }

  // ScatterND: data with each row of indices [..., k] naming a slice that the matching slice of
  // updates replaces (or combines into), in order. Indices are checked as gather_nd's.
  template <class E, class LD, class LI, class LU>
  Tensor<E, LD> scatter_nd(const Tensor<E, LD>& data, const Tensor<std::int64_t, LI>& indices, const Tensor<E, LU>& updates,
                           ScatterReduction reduction, std::string_view indices_name = "indices") const {
    constexpr std::size_t R = AxisRank<LD>, Q = AxisRank<LI>;
    static_assert(Q >= 1, "scatter_nd: indices of rank 1 or more");
    const std::int64_t k = indices.extents()[Q - 1];
    if (k < 1 || static_cast<std::size_t>(k) > R) throw KernelMisuse("scatter_nd: the index depth does not fit data's rank");
    std::int64_t rows = 1, slice = 1;
    for (std::size_t i = 0; i + 1 < Q; ++i) rows *= indices.extents()[i];
    for (std::size_t i = static_cast<std::size_t>(k); i < R; ++i) slice *= data.extents()[i];
    if (updates.count() != rows * slice) throw KernelMisuse("scatter_nd: the updates' extents disagree with the indices and data");
    const std::int64_t* ix = indices.data();
    for (std::int64_t i = 0; i < indices.count(); ++i) {
      const std::int64_t dim = data.extents()[static_cast<std::size_t>(i % k)];
      check_index(indices_name, ix[i], i, dim);
    }
    const auto stride = strides_of<R>(data.extents());
    auto out = copy_of(data);
    E* y = out.mutable_data_unchecked();
    const E* u = updates.data();
    for (std::int64_t j = 0; j < rows; ++j) {
      std::int64_t to = 0;
      for (std::int64_t t = 0; t < k; ++t) {
        const std::int64_t v = ix[j * k + t];
        to += (v < 0 ? v + data.extents()[static_cast<std::size_t>(t)] : v) * stride[static_cast<std::size_t>(t) + 1];
      }
      for (std::int64_t e = 0; e < slice; ++e) scatter_into(y[to + e], u[j * slice + e], reduction);
    }
    return out;
  }

  // ScatterElements: data with updates[i] written (or combined) at i with its `axis` coordinate
  // replaced by indices[i], in order. Indices are checked as gather_elements'.
  template <class E, class I, class LD, class LI, class LU>
  Tensor<E, LD> scatter_elements(const Tensor<E, LD>& data, const Tensor<I, LI>& indices, const Tensor<E, LU>& updates, std::int64_t axis,
                                 ScatterReduction reduction, std::string_view indices_name = "indices") const {
    constexpr std::size_t R = AxisRank<LD>;
    static_assert(AxisRank<LI> == R && AxisRank<LU> == R, "scatter_elements: data, indices and updates share a rank");
    const std::size_t ax = norm_axis(axis, R, "scatter_elements");
    if (updates.extents() != indices.extents()) throw KernelMisuse("scatter_elements: the updates' extents are not the indices'");
    check_within<R>(indices_name, indices.extents(), data.extents(), ax);
    const std::int64_t dim = data.extents()[ax];
    const I* ix = indices.data();
    for (std::int64_t i = 0; i < indices.count(); ++i)
      check_index(indices_name, ix[i], i, dim);
    const auto stride = strides_of<R>(data.extents());
    auto out = copy_of(data);
    E* y = out.mutable_data_unchecked();
    const E* u = updates.data();
    std::array<std::int64_t, R + 1> idx{};
    for (std::int64_t i = 0; i < indices.count(); ++i) {
      std::int64_t to = 0;
      for (std::size_t a = 0; a < R; ++a) {
        const std::int64_t c = a == ax ? (ix[i] < 0 ? std::int64_t{ix[i]} + dim : std::int64_t{ix[i]}) : idx[a];
        to += c * stride[a + 1];
      }
      scatter_into(y[to], u[i], reduction);
      for (std::size_t a = R; a-- > 0;) {
        if (++idx[a] < indices.extents()[a]) break;
        idx[a] = 0;
      }
    }
    return out;
  }

  // Expand: t broadcast against `shape` (both ways, as ONNX reads it).
  template <class Out, class E, class L>
  Tensor<E, Out> expand(const Tensor<E, L>& t, std::span<const std::int64_t> shape) const {
    constexpr std::size_t R = AxisRank<Out>;
    static_assert(AxisRank<L> <= R, "expand: the result has at least the input's rank");
    if (shape.size() > R) throw KernelMisuse("expand: the shape has more entries than the result has axes");
    Ext<R> oe;
    oe.fill(1);
    bool first = true;
    broadcast_into<R>(oe, shape, first, "expand");
    broadcast_into<R>(oe, t.extents(), first, "expand");
    auto out = Tensor<E, Out>::uninitialized(oe);
    const auto block = stretched<E, R>(t, oe);
    if (out.count() > 0) std::copy(block.get(), block.get() + out.count(), out.mutable_data_unchecked());
    return out;
  }

  // Tile: each axis repeated `repeats[i]` times.
  template <class Out, class E, class L>
  Tensor<E, Out> tile(const Tensor<E, L>& t, std::span<const std::int64_t> repeats) const {
    constexpr std::size_t R = AxisRank<L>;
    static_assert(AxisRank<Out> == R, "tile: the result has the input's rank");
    if (repeats.size() != R) throw KernelMisuse("tile: one repeat count per axis");
    Ext<R> oe{};
    for (std::size_t i = 0; i < R; ++i) {
      if (repeats[i] < 0) throw KernelMisuse("tile: a negative repeat count");
      if (__builtin_mul_overflow(t.extents()[i], repeats[i], &oe[i])) throw KernelMisuse("tile: an extent overflows int64");
    }
    auto out = Tensor<E, Out>::uninitialized(oe);
    if (out.count() == 0) return out;
    E* y = out.mutable_data_unchecked();
    const auto s = t.strides();
    std::array<std::int64_t, R + 1> idx{};
    for (std::int64_t o = 0; o < out.count(); ++o) {
      std::int64_t src = 0;
      for (std::size_t d = 0; d < R; ++d) src += (idx[d] % t.extents()[d]) * s[d];
      y[o] = t.data()[src];
      for (std::size_t d = R; d-- > 0;) {
        if (++idx[d] < oe[d]) break;
        idx[d] = 0;
      }
    }
    return out;
  }

  // Pad with its constant_value as a tensor only the run gives: its one element.
  template <class Out, class E, class L, class V>
  Tensor<E, Out> pad(const Tensor<E, L>& t, std::span<const std::int64_t> pads, PadMode mode, const Tensor<E, V>& value) const {
    if (value.count() != 1) throw KernelMisuse("pad: the value holds " + std::to_string(value.count()) + " elements, not one");
    return pad<Out>(t, pads, mode, value.data()[0]);
  }

  // Pad: pads holds the begin of each axis, then the end (negative pads crop).
  template <class Out, class E, class L>
  Tensor<E, Out> pad(const Tensor<E, L>& t, std::span<const std::int64_t> pads, PadMode mode = PadMode::Constant, E value = E{}) const {
    constexpr std::size_t R = AxisRank<L>;
    static_assert(AxisRank<Out> == R, "pad: the result has the input's rank");
    if (pads.size() != 2 * R) throw KernelMisuse("pad: two pads per axis");
    Ext<R> oe{};
    for (std::size_t i = 0; i < R; ++i) {
      oe[i] = t.extents()[i] + pads[i] + pads[R + i];
      if (oe[i] < 0) throw KernelMisuse("pad: a crop larger than axis " + std::to_string(i));
      if (mode != PadMode::Constant && t.extents()[i] == 0 && oe[i] > 0)
        throw KernelMisuse("pad: reflect, edge and wrap need a non-empty axis " + std::to_string(i));
    }
    auto out = Tensor<E, Out>::uninitialized(oe);
    if (out.count() == 0) return out;
    E* y = out.mutable_data_unchecked();
    const auto s = t.strides();
    std::array<std::int64_t, R + 1> idx{};
    for (std::int64_t o = 0; o < out.count(); ++o) {
      std::int64_t src = 0;
      bool inside = true;
      for (std::size_t d = 0; d < R; ++d) {
        const std::int64_t n = t.extents()[d];
        std::int64_t i = idx[d] - pads[d];
        if (i < 0 || i >= n) {
          switch (mode) {
            case PadMode::Constant: inside = false; break;
            case PadMode::Edge: i = i < 0 ? 0 : n - 1; break;
            case PadMode::Wrap: i = ((i % n) + n) % n; break;
            case PadMode::Reflect:
              if (n == 1) {
                i = 0;
              } else {
                const std::int64_t period = 2 * (n - 1);
                i = ((i % period) + period) % period;
                if (i >= n) i = period - i;
              }
              break;
          }
        }
        src += i * s[d];
      }
      y[o] = inside ? t.data()[src] : value;
      for (std::size_t d = R; d-- > 0;) {
        if (++idx[d] < oe[d]) break;
        idx[d] = 0;
      }
    }
    return out;
  }

  // Range(start, limit, delta): max(ceil((limit - start) / delta), 0) elements.
  template <class Out, class E>
  Tensor<E, Out> range(E start, E limit, E delta) const {
    static_assert(AxisRank<Out> == 1 && (std::is_same_v<E, float> || std::is_same_v<E, std::int64_t>), "range: one axis, float or int64");
    if (delta == E{0}) throw KernelMisuse("range: a delta of 0");
    std::int64_t n;
    if constexpr (std::is_same_v<E, float>) {
      const double c = std::ceil((static_cast<double>(limit) - static_cast<double>(start)) / static_cast<double>(delta));
      if (!(c < 9.0e18)) throw KernelMisuse("range: too many elements");
      n = c > 0 ? static_cast<std::int64_t>(c) : 0;
    } else {
      // In 128 bits, so a span past int64 cannot wrap.
      const __int128 span = static_cast<__int128>(limit) - start;
      __int128 q = span / delta;
      if (q * delta != span && ((span > 0) == (delta > 0))) ++q;
      n = q > 0 ? static_cast<std::int64_t>(q) : 0;
    }
    auto out = Tensor<E, Out>::uninitialized({n});
    E* y = out.mutable_data_unchecked();
    // ONNX defines element i as start + i * delta (accumulated in the element type, as onnxruntime does).
    E v = start;
    for (std::int64_t i = 0; i < n; ++i) {
      y[i] = v;
      if constexpr (std::is_same_v<E, float>) v += delta;
      else v = static_cast<E>(static_cast<std::uint64_t>(v) + static_cast<std::uint64_t>(delta));
    }
    return out;
  }

  template <class Out, class E>
  Tensor<E, Out> constant_of_shape(const Ext<AxisRank<Out>>& extents, E value = E{}) const {
    auto out = Tensor<E, Out>::uninitialized(extents);
    std::fill(out.mutable_data_unchecked(), out.mutable_data_unchecked() + out.count(), value);
    return out;
  }

  // A tensor whose elements forward computed from the extents it bound (a Shape of a tensor whose
  // length only the run knows, and what the build computed from it): the values in row-major order.
  template <class Out, class E, std::size_t N>
  Tensor<E, Out> extents_tensor(const Ext<AxisRank<Out>>& extents, const std::array<std::int64_t, N>& values) const {
    auto out = Tensor<E, Out>::uninitialized(extents);
    if (out.count() != static_cast<std::int64_t>(N))
      throw KernelMisuse("extents_tensor: " + std::to_string(N) + " values for " + std::to_string(out.count()) + " elements");
    E* d = out.mutable_data_unchecked();
    for (std::size_t i = 0; i < N; ++i) d[i] = static_cast<E>(values[i]);
    return out;
  }
};
