// The CPU backend: every kernel of the operator set, single-threaded. `Cpu::Tensor<E, L>` is the
// host Tensor itself, so upload and download cost nothing. Kernels whose operands' axes relate by
// a rule state it in their signature (matmul, gemm, a generated kernel's broadcasting, transpose by name);
// the rest take the result's axis list as an explicit template argument and trust it, as the
// generated call spells the list stage 0 computed. Extents are checked where a kernel reads them,
// throwing KernelMisuse on a contradiction; the generated module's checks rule those out first.

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

enum class PadMode : std::uint8_t { Constant, Reflect, Edge, Wrap };

// Matrix-product rule: a [..Bs, M, K] and b [..Bs, K, N] give [..Bs, M, N]. A side with no batch
// axes broadcasts over the other's (a rank-2 weight). The contracted axis is one name on both sides.
template <class LA, class LB>
struct MatMulRule {
  static constexpr std::size_t RA = AxisRank<LA>, RB = AxisRank<LB>;
  static_assert(RA >= 2 && RB >= 2, "matmul: both operands need two axes [.., M, K] and [.., K, N]; a rank-1 operand goes through matmul_broadcast");
  static constexpr std::size_t RA2 = RA >= 2 ? RA : 2, RB2 = RB >= 2 ? RB : 2;
  using PaddedA = std::conditional_t<(RA >= 2), LA, Axes<void, void>>;
  using PaddedB = std::conditional_t<(RB >= 2), LB, Axes<void, void>>;
  using M = AxisAt<RA2 - 2, PaddedA>;
  using KA = AxisAt<RA2 - 1, PaddedA>;
  using KB = AxisAt<RB2 - 2, PaddedB>;
  using N = AxisAt<RB2 - 1, PaddedB>;
  static_assert(std::is_same_v<KA, KB>, "matmul: the contracted axis K must be one axis: a's last axis and b's second-to-last axis carry different names");
  using BatchA = AxisFront<RA2 - 2, PaddedA>;
  using BatchB = AxisFront<RB2 - 2, PaddedB>;
  static_assert(std::is_same_v<BatchA, BatchB> || RA2 == 2 || RB2 == 2, "matmul: the batch axes ..Bs of a and b must be one list (or one side has none); stretching a batch axis of 1 goes through matmul_broadcast");
  using Batch = std::conditional_t<(RA2 >= RB2), BatchA, BatchB>;
  using Result = AxisJoin<Batch, Axes<M, N>>;
};

// The kernels' loops are written to vectorise; GCC does so at -O3 only, so the CPU backend asks for
// it whatever the module is compiled with (restored after the backend). Short zeroing and copying
// loops stay loops rather than becoming calls to memset and memcpy.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("O3", "no-tree-loop-distribute-patterns")
#endif

// An operand of a generated kernel: its elements as bytes.
struct KernelBytes {
  const std::byte* data;
  std::uint64_t bytes;
};

struct Cpu {
  template <class E, class L>
  using Tensor = HostTensor<E, L>;

  template <class E, class L>
  Tensor<E, L> upload(const HostTensor<E, L>& t) const { return t; }
  template <class E, class L>
  HostTensor<E, L> download(const Tensor<E, L>& t) const { return t; }

  // ---------------------------------------------------------------- helpers

  template <std::size_t R>
  using Ext = std::array<std::int64_t, R>;

  static std::size_t norm_axis(std::int64_t axis, std::size_t rank, const char* kernel) {
    const std::int64_t r = static_cast<std::int64_t>(rank);
    if (axis < -r || axis >= r)
      throw KernelMisuse(std::string(kernel) + ": axis " + std::to_string(axis) + " outside rank " + std::to_string(r));
    return static_cast<std::size_t>(axis < 0 ? axis + r : axis);
  }

  // out[o] = src[base + sum_d index_d * stride_d] over `ext` (row-major, contiguous out).
  template <class E>
  static void strided_copy(E* out, const E* src, std::int64_t base, std::span<const std::int64_t> ext,
                           std::span<const std::int64_t> stride) {
    const std::size_t r = ext.size();
    std::int64_t total = 1;
    for (auto e : ext) total *= e;
    if (total == 0) return;
    if (r == 0) {
      out[0] = src[base];
      return;
    }
    const std::int64_t inner = ext[r - 1], inner_stride = stride[r - 1];
    std::vector<std::int64_t> idx(r, 0);
    std::int64_t offset = base;
    for (std::int64_t done = 0; done < total; done += inner) {
      if (inner_stride == 1) {
        std::copy(src + offset, src + offset + inner, out);
      } else if (inner_stride == 0) {
        std::fill(out, out + inner, src[offset]);
      } else {
        for (std::int64_t i = 0; i < inner; ++i) out[i] = src[offset + i * inner_stride];
      }
      out += inner;
      for (std::size_t d = r - 1; d-- > 0;) {
        offset += stride[d];
        if (++idx[d] < ext[d]) break;
        offset -= stride[d] * ext[d];
        idx[d] = 0;
      }
    }
  }

  // The extents of operands under multidirectional broadcasting, aligned at the end.
  template <std::size_t R>
  static void broadcast_into(Ext<R>& out, std::span<const std::int64_t> ext, bool& first, const char* kernel) {
    if (ext.size() > R) throw KernelMisuse(std::string(kernel) + ": an operand has more axes than the result");
    const std::size_t shift = R - ext.size();
    for (std::size_t i = 0; i < ext.size(); ++i) {
      std::int64_t& o = out[shift + i];
      const std::int64_t e = ext[i];
      if (o == e || e == 1) continue;
      if (o == 1) { o = e; continue; }
      throw KernelMisuse(std::string(kernel) + ": extents " + std::to_string(o) + " and " + std::to_string(e) +
                         " do not broadcast at axis " + std::to_string(shift + i));
    }
    first = false;
  }

  // An operand stretched to the result's extents (a copy only where the extents differ).
  template <class E, std::size_t R, class L>
  static std::shared_ptr<const E> stretched(const HostTensor<E, L>& t, const Ext<R>& out) {
    constexpr std::size_t r = AxisRank<L>;
    bool same = r == R;
    if constexpr (r == R) same = t.extents() == out;
    if (same) return t.storage();
    Ext<R> stride{};
    const auto ts = t.strides();
    for (std::size_t i = 0; i < r; ++i) stride[R - r + i] = t.extents()[i] == 1 ? 0 : ts[i];
    std::int64_t n = element_count(out);
    std::shared_ptr<E[]> block(new E[static_cast<std::size_t>(n > 0 ? n : 1)]);
    strided_copy<E>(block.get(), t.data(), 0, out, stride);
    E* first = block.get();
    return std::shared_ptr<const E>(std::move(block), first);
  }

  // ---------------------------------------------------------------- identity, regroupings

  template <class E, class L>
  Tensor<E, L> identity(const Tensor<E, L>& t) const { return t; }

  // Reshape, Flatten, Squeeze, Unsqueeze: the same elements under the axis list stage 0 computed.
  template <class Out, class E, class L>
  Tensor<E, Out> reshape(const Tensor<E, L>& t, const Ext<AxisRank<Out>>& extents) const {
    return t.template regrouped<Out>(extents);
  }

  // An operand brought under the axes it meets, where the layout names an axis of 1 apart from
  // the axis it stretches to. Positions whose name changes must hold one element.
  template <class Out, class E, class L>
  Tensor<E, Out> lift(const Tensor<E, L>& t) const {
    static_assert(AxisRank<Out> == AxisRank<L>, "lift: the relabelled list must have the operand's rank");
    const auto names_differ = []<std::size_t... I>(std::index_sequence<I...>) {
      return std::array<bool, sizeof...(I) + 1>{!std::is_same_v<AxisAt<I, Out>, AxisAt<I, L>>..., false};
    }(std::make_index_sequence<AxisRank<L>>{});
    for (std::size_t i = 0; i < AxisRank<L>; ++i)
      if (names_differ[i] && t.extents()[i] != 1)
        throw KernelMisuse("lift: axis " + std::to_string(i) + " changes name but holds " + std::to_string(t.extents()[i]) + " elements, not 1");
    return t.template regrouped<Out>(t.extents());
  }

  // A tensor carried under another axis list of its rank, as it is: an If's block relabelling what
  // it reads, or its value, to the axes the graph around it names them with.
  template <class Out, class E, class L>
  Tensor<E, Out> relabel(const Tensor<E, L>& t) const {
    static_assert(AxisRank<Out> == AxisRank<L>, "relabel: the relabelled list must have the operand's rank");
    return t.template regrouped<Out>(t.extents());
  }

  // An If's condition: the one element of a bool tensor, on the host.
  template <class L>
  bool read_condition(const Tensor<bool, L>& t) const {
    if (t.count() != 1)
      throw KernelMisuse("read_condition: the condition holds " + std::to_string(t.count()) + " elements, not one");
    return t.data()[0];
  }

  // ---------------------------------------------------------------- Cast

  template <class To, class From>
  static To convert(From v) {
    if constexpr (std::is_same_v<To, From>) {
      return v;
    } else if constexpr (std::is_same_v<From, Half> || std::is_same_v<From, BFloat16>) {
      return convert<To, float>(From::widen(v));
    } else if constexpr (std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>) {
      return To::narrow(convert<float, From>(v));
    } else if constexpr (std::is_same_v<To, bool>) {
      return v != From{};
    } else if constexpr (std::is_same_v<To, std::int64_t> && std::is_same_v<From, float>) {
      // Truncates toward zero; NaN and values past int64 give INT64_MIN, as x86's conversion does.
      if (!(v >= -9223372036854775808.0f && v < 9223372036854775808.0f)) return std::numeric_limits<std::int64_t>::min();
      return static_cast<std::int64_t>(v);
    } else {
      return static_cast<To>(v);
    }
  }

  template <class To, class E, class L>
  Tensor<To, L> cast(const Tensor<E, L>& t) const {
    if constexpr (std::is_same_v<To, E>) {
      return t;
    } else {
      auto out = Tensor<To, L>::uninitialized(t.extents());
      const E* s = t.data();
      To* d = out.mutable_data_unchecked();
      for (std::int64_t i = 0; i < t.count(); ++i) d[i] = convert<To, E>(s[i]);
      return out;
    }
  }

  // ---------------------------------------------------------------- generated kernels

  // A kernel the module carries (a Loom kernel.def, emitted into the module): it writes the result
  // of `extents` from each operand's elements, reading `args` (the extents it was built for as
  // parameters). K::run is the module's adapter for it.
  template <class Out, class O, class K, std::size_t N, class... Es, class... Ls>
  Tensor<O, Out> loom(K, const Ext<AxisRank<Out>>& extents, const std::array<std::int64_t, N>& args,
                      const Tensor<Es, Ls>&... operands) const {
    static_assert((AxesBroadcastTo<Ls, Out> && ...),
                  "loom: every operand's axes must be the result's axes, aligned at the end (an axis of EXTENT 1 may stand for any); relabel an axis of 1 with lift");
    (operand_meets_result<AxisRank<Out>>(extents, operands.extents()), ...);
    auto out = Tensor<O, Out>::uninitialized(extents);
    K::run(args, reinterpret_cast<std::byte*>(out.mutable_data_unchecked()), static_cast<std::uint64_t>(out.count()) * sizeof(O),
           KernelBytes{reinterpret_cast<const std::byte*>(operands.data()), static_cast<std::uint64_t>(operands.count()) * sizeof(Es)}...);
    return out;
  }

  // The kernel was built for operands that hold the result's extent or one element on each axis
  // they share with it; one that does not is a call the build would not have written.
  template <std::size_t R>
  static void operand_meets_result(const Ext<R>& result, std::span<const std::int64_t> ext) {
    if (ext.size() > R) throw KernelMisuse("loom: an operand has more axes than the result");
    const std::size_t shift = R - ext.size();
    for (std::size_t i = 0; i < ext.size(); ++i)
      if (ext[i] != result[shift + i] && ext[i] != 1)
        throw KernelMisuse("loom: an operand's extent " + std::to_string(ext[i]) + " at axis " + std::to_string(shift + i) +
                           " neither is the result's " + std::to_string(result[shift + i]) + " nor 1");
  }

  // ---------------------------------------------------------------- products

  // ONNX MatMul over extents: rank-1 operands, batch axes broadcast (an extent 1 stretches).
  template <class Out, class LA, class LB>
  static HostTensor<float, Out> matmul_extents(const HostTensor<float, LA>& a, const HostTensor<float, LB>& b) {
    constexpr std::size_t ra = AxisRank<LA>, rb = AxisRank<LB>;
    static_assert(ra >= 1 && rb >= 1, "matmul: an operand needs at least one axis");
    const auto& ea = a.extents();
    const auto& eb = b.extents();
    const std::int64_t m = ra >= 2 ? ea[ra - 2] : 1, k = ea[ra - 1];
    const std::int64_t kb = rb >= 2 ? eb[rb - 2] : eb[0], n = rb >= 2 ? eb[rb - 1] : 1;
    if (k != kb) throw KernelMisuse("matmul: a contracts " + std::to_string(k) + " elements, b " + std::to_string(kb));
    constexpr std::size_t ba = ra >= 2 ? ra - 2 : 0, bb = rb >= 2 ? rb - 2 : 0, nb = ba > bb ? ba : bb;
    constexpr std::size_t ro = nb + (ra >= 2 ? 1 : 0) + (rb >= 2 ? 1 : 0);
    static_assert(AxisRank<Out> == ro, "matmul_broadcast: the result's axis list has the wrong rank for these operands");
    Ext<nb + 1> batch{};
    batch.fill(1);
    std::array<std::int64_t, nb + 1> sa{}, sb{};  // batch strides in elements (0 where stretched)
    for (std::size_t i = 0; i < nb; ++i) {
      const std::int64_t xa = i + ba >= nb ? ea[i + ba - nb] : 1;
      const std::int64_t xb = i + bb >= nb ? eb[i + bb - nb] : 1;
      if (xa != xb && xa != 1 && xb != 1)
        throw KernelMisuse("matmul: batch extents " + std::to_string(xa) + " and " + std::to_string(xb) + " do not broadcast");
      batch[i] = xa == 1 ? xb : xa;
    }
    {
      std::int64_t step = m * k;
      for (std::size_t i = nb; i-- > 0;) {
        const bool has = i + ba >= nb;
        const std::int64_t xa = has ? ea[i + ba - nb] : 1;
        sa[i] = xa == 1 ? 0 : step;
        step *= xa;
      }
      step = k * n;
      for (std::size_t i = nb; i-- > 0;) {
        const bool has = i + bb >= nb;
        const std::int64_t xb = has ? eb[i + bb - nb] : 1;
        sb[i] = xb == 1 ? 0 : step;
        step *= xb;
      }
    }
    typename HostTensor<float, Out>::Extents oe{};
    for (std::size_t i = 0; i < nb; ++i) oe[i] = batch[i];
    std::size_t at = nb;
    if constexpr (ra >= 2) oe[at++] = m;
    if constexpr (rb >= 2) oe[at++] = n;
    auto out = HostTensor<float, Out>::uninitialized(oe);
    float* c = out.mutable_data_unchecked();
    std::int64_t batches = 1;
    for (std::size_t i = 0; i < nb; ++i) batches *= batch[i];
    if (out.count() == 0) return out;
    // A batch-free b meets every row of a's batches at once: one product of (batches * m) rows.
    bool a_dense = true;
    for (std::size_t i = 0; i < nb; ++i) a_dense = a_dense && (sa[i] != 0 || batch[i] == 1);
    if (bb == 0 && a_dense) {
      Sgemm::run(batches * m, n, k, Sgemm::AOperand::row_major(a.data(), k), Sgemm::BOperand::row_major(b.data(), n), c, n, {});
      return out;
    }
    std::array<std::int64_t, nb + 1> idx{};
    std::int64_t oa = 0, ob = 0;
    for (std::int64_t t = 0; t < batches; ++t) {
      Sgemm::run(m, n, k, Sgemm::AOperand::row_major(a.data() + oa, k), Sgemm::BOperand::row_major(b.data() + ob, n),
                 c + t * m * n, n, {});
      for (std::size_t d = nb; d-- > 0;) {
        oa += sa[d];
        ob += sb[d];
        if (++idx[d] < batch[d]) break;
        oa -= sa[d] * batch[d];
        ob -= sb[d] * batch[d];
        idx[d] = 0;
      }
    }
    return out;
  }

  // a [..Bs, M, K] x b [..Bs, K, N] -> [..Bs, M, N]; a rank-2 side broadcasts over the other's batch.
  template <class LA, class LB>
  auto matmul(const Tensor<float, LA>& a, const Tensor<float, LB>& b) const -> Tensor<float, typename MatMulRule<LA, LB>::Result> {
    return matmul_extents<typename MatMulRule<LA, LB>::Result>(a, b);
  }

  // Every other MatMul ONNX admits (a rank-1 operand, a batch axis of 1 stretched): the result's
  // axis list is spelled by the caller and trusted.
  template <class Out, class LA, class LB>
  Tensor<float, Out> matmul_broadcast(const Tensor<float, LA>& a, const Tensor<float, LB>& b) const {
    return matmul_extents<Out>(a, b);
  }

  // a [.., K] x a packed weight [K, N] -> [.., N], with an optional bias [N] and Relu fused.
  template <class LA, class K, class N>
  static auto packed_product(const HostTensor<float, LA>& a, const PackedMatrix<K, N>& w, const float* bias, bool relu) {
    constexpr std::size_t ra = AxisRank<LA>;
    static_assert(ra >= 1, "matmul: an operand needs at least one axis");
    static_assert(std::is_same_v<AxisAt<ra - 1, LA>, K>, "matmul: the contracted axis K must be one axis: a's last axis is not the weight's first");
    using Out = AxisJoin<AxisFront<ra - 1, LA>, Axes<N>>;
    if (a.extents()[ra - 1] != w.k())
      throw KernelMisuse("matmul: a contracts " + std::to_string(a.extents()[ra - 1]) + " elements, the weight " + std::to_string(w.k()));
    typename HostTensor<float, Out>::Extents oe{};
    for (std::size_t i = 0; i + 1 < ra; ++i) oe[i] = a.extents()[i];
    oe[ra - 1] = w.n();
    auto out = HostTensor<float, Out>::uninitialized(oe);
    const std::int64_t rows = w.k() == 0 ? out.count() / std::max<std::int64_t>(w.n(), 1) : a.count() / w.k();
    Sgemm::Epilogue ep;
    ep.col_bias = bias;
    ep.relu = relu;
    Sgemm::run(rows, w.n(), w.k(), Sgemm::AOperand::row_major(a.data(), w.k()), w.operand(), out.mutable_data_unchecked(), w.n(), ep);
    return out;
  }

  template <class LA, class K, class N>
  auto matmul(const Tensor<float, LA>& a, const PackedMatrix<K, N>& w, bool relu = false) const {
    return packed_product(a, w, nullptr, relu);
  }
  template <class LA, class K, class N>
  auto matmul_bias(const Tensor<float, LA>& a, const PackedMatrix<K, N>& w, const Tensor<float, Axes<N>>& bias, bool relu = false) const {
    if (bias.extents()[0] != w.n()) throw KernelMisuse("matmul: the bias holds " + std::to_string(bias.extents()[0]) + " elements, not N");
    return packed_product(a, w, bias.data(), relu);
  }

  template <class LA, class LB, bool TA, bool TB>
  struct GemmRule {
    static_assert(AxisRank<LA> == 2 && AxisRank<LB> == 2, "gemm: both operands have two axes");
    using M = AxisAt<TA ? 1 : 0, LA>;
    using KA = AxisAt<TA ? 0 : 1, LA>;
    using KB = AxisAt<TB ? 1 : 0, LB>;
    using N = AxisAt<TB ? 0 : 1, LB>;
    static_assert(std::is_same_v<KA, KB>, "gemm: the contracted axis K must be one axis on both operands (after transA / transB)");
    using Result = Axes<M, N>;
  };

  // Y = alpha * A' B' + beta * C, C broadcast to [M, N].
  template <class Out, bool TA, class LA, class LC>
  static HostTensor<float, Out> gemm_core(const HostTensor<float, LA>& a, std::int64_t k, std::int64_t n, const Sgemm::BOperand& b,
                                          const HostTensor<float, LC>* c, float alpha, float beta, bool relu) {
    const std::int64_t m = a.extents()[TA ? 1 : 0];
    if (a.extents()[TA ? 0 : 1] != k) throw KernelMisuse("gemm: A contracts " + std::to_string(a.extents()[TA ? 0 : 1]) + " elements, B " + std::to_string(k));
    auto out = HostTensor<float, Out>::uninitialized({m, n});
    float* y = out.mutable_data_unchecked();
    Sgemm::Epilogue ep;
    ep.alpha = alpha;
    ep.relu = relu;
    if (c != nullptr && beta != 0.0f) {
      const auto& ce = c->extents();
      constexpr std::size_t rc = AxisRank<LC>;
      const bool row_vector = (rc == 1 && ce[0] == n) || (rc == 2 && ce[0] == 1 && ce[1] == n);
      if (row_vector && beta == 1.0f) {
        ep.col_bias = c->data();
      } else {
        const auto full = stretched<float, 2>(*c, Ext<2>{m, n});
        for (std::int64_t i = 0; i < m * n; ++i) y[i] = beta * full.get()[i];
        ep.accumulate = true;
      }
    }
    const auto ao = TA ? Sgemm::AOperand::transposed(a.data(), m) : Sgemm::AOperand::row_major(a.data(), k);
    Sgemm::run(m, n, k, ao, b, y, n, ep);
    return out;
  }

  template <bool TA, bool TB, class LA, class LB>
  static std::pair<std::vector<float>, std::pair<std::int64_t, std::int64_t>> gemm_pack_b(const HostTensor<float, LB>& b) {
    const std::int64_t k = b.extents()[TB ? 1 : 0], n = b.extents()[TB ? 0 : 1];
    std::vector<float> packed(static_cast<std::size_t>(Sgemm::packed_b_size(k, n)));
    if (TB) Sgemm::pack_b(b.data(), 1, k, k, n, packed.data());
    else Sgemm::pack_b(b.data(), n, 1, k, n, packed.data());
    return {std::move(packed), {k, n}};
  }

  template <bool TA = false, bool TB = false, class LA, class LB>
  auto gemm(const Tensor<float, LA>& a, const Tensor<float, LB>& b, float alpha = 1.0f, bool relu = false) const {
    using Out = typename GemmRule<LA, LB, TA, TB>::Result;
    const std::int64_t k = b.extents()[TB ? 1 : 0], n = b.extents()[TB ? 0 : 1];
    if (!TB) return gemm_core<Out, TA, LA, Axes<>>(a, k, n, Sgemm::BOperand::row_major(b.data(), n), nullptr, alpha, 0.0f, relu);
    auto packed = gemm_pack_b<TA, TB, LA, LB>(b);
    return gemm_core<Out, TA, LA, Axes<>>(a, k, n, Sgemm::packed_b(packed.first.data(), k), nullptr, alpha, 0.0f, relu);
  }

  template <bool TA = false, bool TB = false, class LA, class LB, class LC>
  auto gemm(const Tensor<float, LA>& a, const Tensor<float, LB>& b, const Tensor<float, LC>& c, float alpha = 1.0f, float beta = 1.0f,
            bool relu = false) const {
    using Out = typename GemmRule<LA, LB, TA, TB>::Result;
    static_assert(AxesBroadcastTo<LC, Out>, "gemm: C's axes must broadcast to the result's [M, N], aligned at the end");
    const std::int64_t k = b.extents()[TB ? 1 : 0], n = b.extents()[TB ? 0 : 1];
    if (!TB) return gemm_core<Out, TA, LA, LC>(a, k, n, Sgemm::BOperand::row_major(b.data(), n), &c, alpha, beta, relu);
    auto packed = gemm_pack_b<TA, TB, LA, LB>(b);
    return gemm_core<Out, TA, LA, LC>(a, k, n, Sgemm::packed_b(packed.first.data(), k), &c, alpha, beta, relu);
  }

  // Gemm with its B packed when the weights loaded (PackedMatrix, or PackedMatrix::from_transposed
  // for transB = 1).
  template <bool TA = false, class LA, class K, class N>
  auto gemm(const Tensor<float, LA>& a, const PackedMatrix<K, N>& b, float alpha = 1.0f, bool relu = false) const {
    static_assert(AxisRank<LA> == 2, "gemm: A has two axes");
    static_assert(std::is_same_v<AxisAt<TA ? 0 : 1, LA>, K>, "gemm: the contracted axis K must be one axis on both operands (after transA / transB)");
    using Out = Axes<AxisAt<TA ? 1 : 0, LA>, N>;
    return gemm_core<Out, TA, LA, Axes<>>(a, b.k(), b.n(), b.operand(), nullptr, alpha, 0.0f, relu);
  }
  template <bool TA = false, class LA, class K, class N, class LC>
  auto gemm(const Tensor<float, LA>& a, const PackedMatrix<K, N>& b, const Tensor<float, LC>& c, float alpha = 1.0f, float beta = 1.0f,
            bool relu = false) const {
    static_assert(AxisRank<LA> == 2, "gemm: A has two axes");
    static_assert(std::is_same_v<AxisAt<TA ? 0 : 1, LA>, K>, "gemm: the contracted axis K must be one axis on both operands (after transA / transB)");
    using Out = Axes<AxisAt<TA ? 1 : 0, LA>, N>;
    static_assert(AxesBroadcastTo<LC, Out>, "gemm: C's axes must broadcast to the result's [M, N], aligned at the end");
    return gemm_core<Out, TA, LA, LC>(a, b.k(), b.n(), b.operand(), &c, alpha, beta, relu);
  }

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

  // A stride-1 2-D Conv without im2col: each input plane is copied once into a zero-padded plane
  // of pitch P, and row (c, kh, kw) of the product's B is that plane shifted by kh * dh * P +
  // kw * dw. The product runs over output rows P wide (the columns past OW are computed and
  // dropped), then its rows are compacted into the result. One zero gap of max(left, right) pad
  // columns between two rows serves as the right pad of one and the left pad of the next, so P is
  // W + max(left, right), not W + left + right: fewer columns computed for nothing.
  //
  // With `pool`, each image's product is pooled where it lies (rows P apart) while it is still in
  // cache, and y is the pooled result: the Conv's own result is never stored.
  template <class WAxes>
  static void conv2d_implicit(const float* x, const PackedConv<WAxes>& w, const float* bias, const Window& win, bool relu, std::int64_t batch,
                              std::int64_t cin, std::int64_t cout, float* y, const PoolStep* pool = nullptr) {
    const std::int64_t group = w.group(), cg = cin / group, mg = cout / group, kg = w.k();
    const std::int64_t H = win.in[0], W = win.in[1], OH = win.out[0], OW = win.out[1];
    const std::int64_t left = win.pad_begin[1], P = W + std::max(left, win.pad_end[1]);
    // Input row h starts at (pad_begin[0] + h) * P + left; the tap (kh, kw) of output (oh, ow)
    // reads (oh + kh * dh) * P + ow + kw * dw, which is the input or a zero.
    const std::int64_t KH = win.k[0], KW = win.k[1], n_ext = (OH - 1) * P + OW;
    const std::int64_t plane = (H + win.pad_begin[0] + win.pad_end[0]) * P + left;
    static thread_local std::vector<float> padded, product;
    static thread_local std::vector<const float*> rows;
    padded.assign(static_cast<std::size_t>(cg * plane + Sgemm::NR), 0.0f);
    product.resize(static_cast<std::size_t>(mg * n_ext));
    rows.resize(static_cast<std::size_t>(kg));
    for (std::int64_t c = 0; c < cg; ++c)
      for (std::int64_t kh = 0; kh < KH; ++kh)
        for (std::int64_t kw = 0; kw < KW; ++kw)
          rows[static_cast<std::size_t>((c * KH + kh) * KW + kw)] = padded.data() + c * plane + kh * win.dil[0] * P + kw * win.dil[1];
    const std::int64_t out_plane = OH * OW;
    for (std::int64_t n = 0; n < batch; ++n)
      for (std::int64_t g = 0; g < group; ++g) {
        const float* src = x + (n * cin + g * cg) * H * W;
        for (std::int64_t c = 0; c < cg; ++c)
          for (std::int64_t h = 0; h < H; ++h) {
            const float* s = src + (c * H + h) * W;
            copy_row(s, padded.data() + c * plane + (h + win.pad_begin[0]) * P + left, W);
          }
        Sgemm::Epilogue ep;
        ep.row_bias = bias ? bias + g * mg : nullptr;
        ep.relu = relu;
        Sgemm::run(mg, n_ext, kg, w.operand(g), Sgemm::BOperand::indirect(rows.data()), product.data(), n_ext, ep);
        if (pool) {
          pool2d_planes(product.data(), P, n_ext, y + (n * cout + g * mg) * pool->w.out_plane(), mg, *pool);
          continue;
        }
        float* dst = y + (n * cout + g * mg) * out_plane;
        for (std::int64_t m = 0; m < mg; ++m)
          for (std::int64_t oh = 0; oh < OH; ++oh) {
            copy_row(product.data() + m * n_ext + oh * P, dst + m * out_plane + oh * OW, OW);
          }
      }
  }

  // A 2-D Conv whose groups each read one input channel (MobileNet's depthwise layers): as an SGEMM
  // each group would be a product of one or a few rows over K = KH * KW, so each output channel is
  // computed directly instead: blocks of DEPTHWISE_BLOCK output columns, every tap one multiply-add
  // into the block's accumulators, which stay in registers across the taps. The input plane is
  // copied once per group into a zero-padded plane (with slack past its end for a last block's
  // unused columns), so no tap tests a bound. The sums run in the SGEMM's order: taps in order,
  // then the bias, then Relu keeping NaN.
  static constexpr std::int64_t DEPTHWISE_BLOCK = 16;

  // K and SW: the kernel's extent (both axes) and the column stride where they are constants (3 x 3
  // and strides 1 and 2 are most depthwise layers), so the taps unroll; 0 reads them from the call.
  template <std::int64_t K, std::int64_t SW>
  static void depthwise_row(const float* row0, std::int64_t pitch, const float* wc, std::int64_t kh_n, std::int64_t kw_n, std::int64_t dh,
                            std::int64_t dw, std::int64_t sw, float b, bool relu, float* dst, std::int64_t OW) {
    const std::int64_t step = SW > 0 ? SW : sw, KH = K > 0 ? K : kh_n, KW = K > 0 ? K : kw_n;
    for (std::int64_t ow0 = 0; ow0 < OW; ow0 += DEPTHWISE_BLOCK) {
      float acc[DEPTHWISE_BLOCK] = {};
      const float* base = row0 + ow0 * step;
      for (std::int64_t kh = 0; kh < KH; ++kh)
        for (std::int64_t kw = 0; kw < KW; ++kw) {
          const float wv = wc[kh * KW + kw];
          const float* tap = base + kh * dh * pitch + kw * dw;
          for (std::int64_t j = 0; j < DEPTHWISE_BLOCK; ++j) acc[j] += wv * tap[j * step];
        }
      const std::int64_t n = std::min(DEPTHWISE_BLOCK, OW - ow0);
      for (std::int64_t j = 0; j < n; ++j) {
        const float v = acc[j] + b;
        dst[ow0 + j] = relu ? (v > 0.0f ? v : (v == v ? 0.0f : v)) : v;
      }
    }
  }

  static void depthwise2d(const float* x, const float* w, const float* bias, const Window& win, bool relu, std::int64_t batch, std::int64_t group,
                          std::int64_t per_group, float* y) {
    const std::int64_t H = win.in[0], W = win.in[1], OH = win.out[0], OW = win.out[1];
    const std::int64_t KH = win.k[0], KW = win.k[1], sh = win.stride[0], sw = win.stride[1], dh = win.dil[0], dw = win.dil[1];
    const std::int64_t top = win.pad_begin[0], left = win.pad_begin[1];
    const std::int64_t P = W + left + win.pad_end[1], rows = H + top + win.pad_end[0];
    static thread_local std::vector<float> padded;
    // Each group rewrites the same interior; the slack holds what a last block reads past the plane.
    padded.assign(static_cast<std::size_t>(rows * P + DEPTHWISE_BLOCK * sw + (KW - 1) * dw), 0.0f);
    const bool k3 = KH == 3 && KW == 3;
    for (std::int64_t n = 0; n < batch; ++n)
      for (std::int64_t g = 0; g < group; ++g) {
        const float* src = x + (n * group + g) * H * W;
        for (std::int64_t h = 0; h < H; ++h) copy_row(src + h * W, padded.data() + (h + top) * P + left, W);
        for (std::int64_t m = 0; m < per_group; ++m) {
          const std::int64_t oc = g * per_group + m;
          const float* wc = w + oc * KH * KW;
          const float b = bias ? bias[oc] : 0.0f;
          float* dst = y + (n * group * per_group + oc) * OH * OW;
          for (std::int64_t oh = 0; oh < OH; ++oh) {
            const float* row0 = padded.data() + oh * sh * P;
            float* d = dst + oh * OW;
            if (k3 && sw == 1) depthwise_row<3, 1>(row0, P, wc, KH, KW, dh, dw, sw, b, relu, d, OW);
            else if (k3 && sw == 2) depthwise_row<3, 2>(row0, P, wc, KH, KW, dh, dw, sw, b, relu, d, OW);
            else depthwise_row<0, 0>(row0, P, wc, KH, KW, dh, dw, sw, b, relu, d, OW);
          }
        }
      }
  }

  // Whether a Conv's groups each read one input channel (and there is more than one group).
  template <class WAxes>
  static bool is_depthwise(const PackedConv<WAxes>& w, std::int64_t cin) {
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
    const auto& xe = x.extents();
    const auto& we = w.source().extents();
    const std::int64_t cin = xe[1], group = w.group();
    if (p.group != group) throw KernelMisuse("conv: the weight was packed for " + std::to_string(group) + " groups, the node has " + std::to_string(p.group));
    if (cin != we[1] * group)
      throw KernelMisuse("conv: the input holds " + std::to_string(cin) + " channels; the weight reads " + std::to_string(we[1]) + " per group of " + std::to_string(group));
    return window(std::span<const std::int64_t>(xe.data() + 2, R - 2), std::span<const std::int64_t>(we.data() + 2, R - 2), p, "conv");
  }

  // Whether a Conv reads each input element where it lies (every kernel extent 1, no stride, no pad).
  static bool is_pointwise(const Window& win) {
    bool one = true;
    for (std::size_t i = 0; i < win.s; ++i)
      one = one && win.k[i] == 1 && win.stride[i] == 1 && win.pad_begin[i] == 0 && win.pad_end[i] == 0;
    return one;
  }

  template <class Out, class LX, class WAxes>
  static HostTensor<float, Out> conv_run(const HostTensor<float, LX>& x, const PackedConv<WAxes>& w, const float* bias, const WindowParams& p,
                                          bool relu) {
    constexpr std::size_t R = AxisRank<LX>;
    const Window win = conv_window<Out>(x, w, p);
    const auto& xe = x.extents();
    const std::int64_t batch = xe[0], cin = xe[1], group = w.group(), cout = w.out_channels();
    const std::int64_t in_plane = win.in_plane(), out_plane = win.out_plane();
    const bool pointwise = is_pointwise(win);
    typename HostTensor<float, Out>::Extents oe = win.result_extents(xe, cout);
    auto out = HostTensor<float, Out>::uninitialized(oe);
    if (out.count() == 0) return out;
    const std::int64_t cg = cin / group, mg = cout / group, kg = w.k();
    if constexpr (R == 4) {
      if (is_depthwise(w, cin)) {
        depthwise2d(x.data(), w.source().data(), bias, win, relu, batch, group, mg, out.mutable_data_unchecked());
        return out;
      }
      if (!pointwise && win.stride[0] == 1 && win.stride[1] == 1) {
        conv2d_implicit(x.data(), w, bias, win, relu, batch, cin, cout, out.mutable_data_unchecked());
        return out;
      }
    }
    static thread_local std::vector<float> columns;
    if (!pointwise && static_cast<std::int64_t>(columns.size()) < kg * out_plane) columns.resize(static_cast<std::size_t>(kg * out_plane));
    float* y = out.mutable_data_unchecked();
    for (std::int64_t n = 0; n < batch; ++n)
      for (std::int64_t g = 0; g < group; ++g) {
        const float* xg = x.data() + (n * cin + g * cg) * in_plane;
        const float* bm = xg;
        if (!pointwise) {
          im2col(xg, cg, win, columns.data());
          bm = columns.data();
        }
        Sgemm::Epilogue ep;
        ep.row_bias = bias ? bias + g * mg : nullptr;
        ep.relu = relu;
        Sgemm::run(mg, out_plane, kg, w.operand(g), Sgemm::BOperand::row_major(bm, out_plane), y + (n * cout + g * mg) * out_plane, out_plane, ep);
      }
    return out;
  }

  template <class WAxes>
  static const float* channel_bias(const HostTensor<float, Axes<AxisAt<0, WAxes>>>& bias, const PackedConv<WAxes>& w) {
    if (bias.extents()[0] != w.out_channels())
      throw KernelMisuse("conv: the bias holds " + std::to_string(bias.extents()[0]) + " elements, not one per output channel");
    return bias.data();
  }

  // Conv: x [N, C, spatial...] with a weight packed at load [Cout, C / group, k...].
  template <class Out, class LX, class WAxes>
  Tensor<float, Out> conv(const Tensor<float, LX>& x, const PackedConv<WAxes>& w, const WindowParams& p, bool relu = false) const {
    return conv_run<Out>(x, w, nullptr, p, relu);
  }
  template <class Out, class LX, class WAxes>
  Tensor<float, Out> conv(const Tensor<float, LX>& x, const PackedConv<WAxes>& w, const Tensor<float, Axes<AxisAt<0, WAxes>>>& bias,
                          const WindowParams& p, bool relu = false) const {
    return conv_run<Out>(x, w, channel_bias(bias, w), p, relu);
  }
  // A weight the run computes: packed on each call.
  template <class Out, class LX, class WAxes>
  Tensor<float, Out> conv(const Tensor<float, LX>& x, const Tensor<float, WAxes>& w, const WindowParams& p, bool relu = false) const {
    return conv_run<Out>(x, PackedConv<WAxes>(w, p.group), nullptr, p, relu);
  }
  template <class Out, class LX, class WAxes>
  Tensor<float, Out> conv(const Tensor<float, LX>& x, const Tensor<float, WAxes>& w, const Tensor<float, Axes<AxisAt<0, WAxes>>>& bias,
                          const WindowParams& p, bool relu = false) const {
    return conv<Out>(x, PackedConv<WAxes>(w, p.group), bias, p, relu);
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
  // AveragePool) as one kernel. Mid is the Conv's result, Out the pool's. A stride-1 2-D Conv pools
  // each image's product where it lies, while it is in cache; any other stores its result first.
  template <class Out, class Mid, class LX, class WAxes>
  static HostTensor<float, Out> conv_pool_run(const HostTensor<float, LX>& x, const PackedConv<WAxes>& w, const float* bias, const WindowParams& p,
                                               bool relu, const WindowParams& pool, PoolKind kind, const char* name) {
    static_assert(AxisRank<Out> == AxisRank<Mid> && std::is_same_v<AxisAt<0, Out>, AxisAt<0, Mid>> && std::is_same_v<AxisAt<1, Out>, AxisAt<1, Mid>>,
                  "pool: the result keeps the input's batch and channel axes");
    if constexpr (AxisRank<LX> == 4) {
      const Window win = conv_window<Mid>(x, w, p);
      if (win.stride[0] == 1 && win.stride[1] == 1 && !is_pointwise(win) && !is_depthwise(w, x.extents()[1])) {
        const Window pw = window(std::span<const std::int64_t>(win.out.data(), 2), pool.kernel_shape, pool, name);
        const auto& xe = x.extents();
        auto out = HostTensor<float, Out>::uninitialized(pw.result_extents(xe, w.out_channels()));
        if (out.count() == 0) return out;
        const PoolStep step{pw, kind, pool.count_include_pad};
        conv2d_implicit(x.data(), w, bias, win, relu, xe[0], xe[1], w.out_channels(), out.mutable_data_unchecked(), &step);
        return out;
      }
    }
    return pool_run<Out>(conv_run<Mid>(x, w, bias, p, relu), pool, kind, name);
  }

  template <class Out, class Mid, class LX, class WAxes>
  Tensor<float, Out> conv_max_pool(const Tensor<float, LX>& x, const PackedConv<WAxes>& w, const WindowParams& p, bool relu, const WindowParams& pool) const {
    return conv_pool_run<Out, Mid>(x, w, nullptr, p, relu, pool, PoolKind::Max, "max_pool");
  }
  template <class Out, class Mid, class LX, class WAxes>
  Tensor<float, Out> conv_max_pool(const Tensor<float, LX>& x, const PackedConv<WAxes>& w, const Tensor<float, Axes<AxisAt<0, WAxes>>>& bias,
                                   const WindowParams& p, bool relu, const WindowParams& pool) const {
    return conv_pool_run<Out, Mid>(x, w, channel_bias(bias, w), p, relu, pool, PoolKind::Max, "max_pool");
  }
  template <class Out, class Mid, class LX, class WAxes>
  Tensor<float, Out> conv_average_pool(const Tensor<float, LX>& x, const PackedConv<WAxes>& w, const WindowParams& p, bool relu,
                                       const WindowParams& pool) const {
    return conv_pool_run<Out, Mid>(x, w, nullptr, p, relu, pool, PoolKind::Average, "average_pool");
  }
  template <class Out, class Mid, class LX, class WAxes>
  Tensor<float, Out> conv_average_pool(const Tensor<float, LX>& x, const PackedConv<WAxes>& w, const Tensor<float, Axes<AxisAt<0, WAxes>>>& bias,
                                       const WindowParams& p, bool relu, const WindowParams& pool) const {
    return conv_pool_run<Out, Mid>(x, w, channel_bias(bias, w), p, relu, pool, PoolKind::Average, "average_pool");
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
      if (ix[i] < -dim || ix[i] >= dim)
        throw KernelRefusal(InputError{std::string(indices_name), "", "",
                                       "index " + std::to_string(ix[i]) + " at element " + std::to_string(i) + " lies outside an axis of " + std::to_string(dim)});
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
    constexpr std::size_t R = AxisRank<L>;
    const std::int64_t r = static_cast<std::int64_t>(R);
    if (axis < -r || axis > r) throw KernelMisuse("softmax: axis " + std::to_string(axis) + " outside rank " + std::to_string(r));
    const std::size_t ax = static_cast<std::size_t>(axis < 0 ? axis + r : axis);
    std::int64_t outer = 1, len = 1;
    for (std::size_t i = 0; i < ax; ++i) outer *= t.extents()[i];
    for (std::size_t i = ax; i < R; ++i) len *= t.extents()[i];
    return softmax_rows(t, outer, len, 1, log);
  }

  enum class ReduceKind : std::uint8_t { Sum, Mean, Max, Min, Prod };

  // Reduce over `axes` (empty: every axis, unless noop_with_empty_axes), keeping reduced axes as
  // extent 1 when keepdims.
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
    using Acc = std::conditional_t<std::is_same_v<E, float>, double, E>;
    std::vector<Acc> acc(static_cast<std::size_t>(out.count()));
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
    const Acc init = kind == ReduceKind::Max   ? lowest
                     : kind == ReduceKind::Min ? highest
                     : kind == ReduceKind::Prod ? Acc{1}
                                                : Acc{0};
    std::fill(acc.begin(), acc.end(), init);
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
    std::array<std::int64_t, R + 1> idx{};
    std::int64_t o = 0;
    const E* x = t.data();
    for (std::int64_t i = 0; i < t.count(); ++i) {
      const Acc v = static_cast<Acc>(x[i]);
      Acc& a = acc[static_cast<std::size_t>(o)];
      switch (kind) {
        case ReduceKind::Sum:
        case ReduceKind::Mean: a += v; break;
        case ReduceKind::Max: a = (v > a || v != v) ? v : a; break;
        case ReduceKind::Min: a = (v < a || v != v) ? v : a; break;
        case ReduceKind::Prod: a *= v; break;
      }
      for (std::size_t d = R; d-- > 0;) {
        o += ost[d];
        if (++idx[d] < t.extents()[d]) break;
        o -= ost[d] * t.extents()[d];
        idx[d] = 0;
      }
    }
    for (std::int64_t j = 0; j < out.count(); ++j) {
      Acc v = acc[static_cast<std::size_t>(j)];
      if (kind == ReduceKind::Mean) {
        if constexpr (std::is_same_v<E, float>) v = group > 0 ? v / static_cast<double>(group) : std::numeric_limits<double>::quiet_NaN();
        else v = group > 0 ? v / group : 0;
      }
      y[j] = static_cast<E>(v);
    }
    return out;
  }

  template <class Out, class E, class L>
  Tensor<E, Out> reduce_sum(const Tensor<E, L>& t, std::span<const std::int64_t> axes, bool keepdims = true, bool noop_with_empty_axes = false) const {
    return reduce_run<Out>(t, axes, keepdims, noop_with_empty_axes, ReduceKind::Sum);
  }
  template <class Out, class E, class L>
  Tensor<E, Out> reduce_mean(const Tensor<E, L>& t, std::span<const std::int64_t> axes, bool keepdims = true, bool noop_with_empty_axes = false) const {
    return reduce_run<Out>(t, axes, keepdims, noop_with_empty_axes, ReduceKind::Mean);
  }
  template <class Out, class E, class L>
  Tensor<E, Out> reduce_max(const Tensor<E, L>& t, std::span<const std::int64_t> axes, bool keepdims = true, bool noop_with_empty_axes = false) const {
    return reduce_run<Out>(t, axes, keepdims, noop_with_empty_axes, ReduceKind::Max);
  }
  template <class Out, class E, class L>
  Tensor<E, Out> reduce_min(const Tensor<E, L>& t, std::span<const std::int64_t> axes, bool keepdims = true, bool noop_with_empty_axes = false) const {
    return reduce_run<Out>(t, axes, keepdims, noop_with_empty_axes, ReduceKind::Min);
  }
  template <class Out, class E, class L>
  Tensor<E, Out> reduce_prod(const Tensor<E, L>& t, std::span<const std::int64_t> axes, bool keepdims = true, bool noop_with_empty_axes = false) const {
    return reduce_run<Out>(t, axes, keepdims, noop_with_empty_axes, ReduceKind::Prod);
  }

  // ArgMax along one axis (the first maximum, or the last with select_last_index); NaN wins.
  template <class Out, class E, class L>
  Tensor<std::int64_t, Out> argmax(const Tensor<E, L>& t, std::int64_t axis = 0, bool keepdims = true, bool select_last_index = false) const {
    constexpr std::size_t R = AxisRank<L>;
    static_assert(AxisRank<Out> == R || AxisRank<Out> + 1 == R, "argmax: the result keeps the rank, or drops the axis");
    const std::size_t ax = norm_axis(axis, R, "argmax");
    if ((AxisRank<Out> == R) != keepdims) throw KernelMisuse("argmax: keepdims disagrees with the result's rank");
    const std::int64_t len = t.extents()[ax];
    if (len == 0) throw KernelMisuse("argmax: an empty axis has no maximum");
    typename Tensor<std::int64_t, Out>::Extents oe{};
    std::size_t at = 0;
    std::int64_t outer = 1, inner = 1;
    for (std::size_t i = 0; i < R; ++i) {
      if (i < ax) outer *= t.extents()[i];
      if (i > ax) inner *= t.extents()[i];
      if (i != ax) oe[at++] = t.extents()[i];
      else if (keepdims) oe[at++] = 1;
    }
    auto out = Tensor<std::int64_t, Out>::uninitialized(oe);
    std::int64_t* y = out.mutable_data_unchecked();
    const E* x = t.data();
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t i = 0; i < inner; ++i) {
        const E* xs = x + o * len * inner + i;
        std::int64_t best = 0;
        E bv = xs[0];
        for (std::int64_t k = 1; k < len; ++k) {
          const E v = xs[k * inner];
          bool take;
          if constexpr (std::is_same_v<E, float>) {
            if (bv != bv) take = select_last_index && v != v;
            else take = v != v || v > bv || (select_last_index && v == bv);
          } else {
            take = v > bv || (select_last_index && v == bv);
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
      const float a = batch_norm_factor(scale, var, epsilon, ch);
      const float b = bias.data()[ch] - mean.data()[ch] * a;
      for (std::int64_t b0 = 0; b0 < n; ++b0) {
        const float* xs = x.data() + (b0 * c + ch) * plane;
        float* ys = y + (b0 * c + ch) * plane;
        for (std::int64_t i = 0; i < plane; ++i) ys[i] = xs[i] * a + b;
      }
    }
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
    // scale / bias stretched over the normalised block.
    const auto block_of = [&](const HostTensor<float, LS>& t) {
      std::vector<float> v(static_cast<std::size_t>(len));
      constexpr std::size_t rs = AxisRank<LS>;
      if (rs > R - ax) throw KernelMisuse("layer_normalization: scale has more axes than the normalised block");
      std::vector<std::int64_t> ext(R - ax), str(R - ax, 0);
      const auto ts = t.strides();
      for (std::size_t i = 0; i < R - ax; ++i) {
        ext[i] = x.extents()[ax + i];
        const std::size_t shift = (R - ax) - rs;
        if (i >= shift) {
          const std::int64_t e = t.extents()[i - shift];
          if (e != 1 && e != ext[i]) throw KernelMisuse("layer_normalization: scale or bias does not broadcast to the normalised axes");
          str[i] = e == 1 ? 0 : ts[i - shift];
        }
      }
      strided_copy<float>(v.data(), t.data(), 0, ext, str);
      return v;
    };
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

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif
