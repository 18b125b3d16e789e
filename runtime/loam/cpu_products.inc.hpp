// The CPU products: MatMul (batched, broadcast, with a packed weight and its bias) and Gemm, over
// the SGEMM of sgemm.inc.hpp; Einsum, directly.

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

struct CpuProducts : virtual CpuBase {
  // ---------------------------------------------------------------- products

  // ONNX MatMul over extents: rank-1 operands, batch axes broadcast (an extent 1 stretches).
  template <class Out, class LA, class LB>
  static HostTensor<float, Out> matmul_extents(const HostTensor<float, LA>& a, const HostTensor<float, LB>& b, RowSink* sink,
                                               const Workers* workers) {
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
    // A row of the result is n elements (one where b has one axis, whose n the result drops).
    if (sink) sink->hold(c, out.count(), batches * m);
    if (out.count() == 0) return out;
    Sgemm::Epilogue ep;
    ep.rows = sink;
    // A batch-free b meets every row of a's batches at once: one product of (batches * m) rows.
    bool a_dense = true;
    for (std::size_t i = 0; i < nb; ++i) a_dense = a_dense && (sa[i] != 0 || batch[i] == 1);
    if (bb == 0 && a_dense) {
      Sgemm::run(batches * m, n, k, Sgemm::AOperand::row_major(a.data(), k), Sgemm::BOperand::row_major(b.data(), n), c, n, ep, workers);
      return out;
    }
    // Product t of the batches (attention's heads): its operands found from t's batch index.
    const auto product = [&](std::int64_t t, const Workers* inner) {
      std::int64_t oa = 0, ob = 0;
      for (std::size_t d = nb, rest = static_cast<std::size_t>(t); d-- > 0;) {
        const auto i = static_cast<std::int64_t>(rest % static_cast<std::size_t>(batch[d]));
        rest /= static_cast<std::size_t>(batch[d]);
        oa += i * sa[d];
        ob += i * sb[d];
      }
      Sgemm::Epilogue part = ep;
      part.row_offset = t * m;
      Sgemm::run(m, n, k, Sgemm::AOperand::row_major(a.data() + oa, k), Sgemm::BOperand::row_major(b.data() + ob, n), c + t * m * n, n,
                 part, inner);
    };
    // As many products as threads or more: whole products a thread; fewer: each split.
    const std::int64_t threads = workers ? workers->threads() : 1;
    if (threads > 1 && batches >= threads) {
      workers->run(threads, [&](std::int64_t job) {
        const auto [first, end] = job_share(batches, threads, job);
        for (std::int64_t t = first; t < end; ++t) product(t, nullptr);
      });
    } else {
      for (std::int64_t t = 0; t < batches; ++t) product(t, workers);
    }
    return out;
  }

  // a [..Bs, M, K] x b [..Bs, K, N] -> [..Bs, M, N]; a rank-2 side broadcasts over the other's batch.
  template <class LA, class LB, class... Then>
  auto matmul(const Tensor<float, LA>& a, const Tensor<float, LB>& b, const Then&... then) const {
    return CpuBoundary::then_epilogue([&](RowSink* s) { return matmul_extents<typename MatMulRule<LA, LB>::Result>(a, b, s, workers()); }, then...);
  }

  // Every other MatMul ONNX admits (a rank-1 operand, a batch axis of 1 stretched): the result's
  // axis list is spelled by the caller and trusted.
  template <class Out, class LA, class LB, class... Then>
  auto matmul_broadcast(const Tensor<float, LA>& a, const Tensor<float, LB>& b, const Then&... then) const {
    return CpuBoundary::then_epilogue([&](RowSink* s) { return matmul_extents<Out>(a, b, s, workers()); }, then...);
  }

  // a [.., K] x a packed weight [K, N] -> [.., N], with an optional bias [N] and Relu fused.
  template <class LA, class K, class N>
  static auto packed_product(const HostTensor<float, LA>& a, const PackedMatrix<K, N>& w, const float* bias, bool relu, RowSink* sink,
                             const Workers* workers) {
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
    if (sink) sink->hold(out.data(), out.count(), rows);
    Sgemm::Epilogue ep;
    ep.col_bias = bias;
    ep.relu = relu;
    ep.rows = sink;
    Sgemm::run(rows, w.n(), w.k(), Sgemm::AOperand::row_major(a.data(), w.k()), w.operand(), out.mutable_data_unchecked(), w.n(), ep, workers);
    return out;
  }

  template <class LA, class K, class N, class... Then>
  auto matmul(const Tensor<float, LA>& a, const PackedMatrix<K, N>& w, bool relu = false, const Then&... then) const {
    return CpuBoundary::then_epilogue([&](RowSink* s) { return packed_product(a, w, nullptr, relu, s, workers()); }, then...);
  }
  template <class LA, class K, class N, class... Then>
  auto matmul_bias(const Tensor<float, LA>& a, const PackedMatrix<K, N>& w, const Tensor<float, Axes<N>>& bias, bool relu = false,
                   const Then&... then) const {
    if (bias.extents()[0] != w.n()) throw KernelMisuse("matmul: the bias holds " + std::to_string(bias.extents()[0]) + " elements, not N");
    return CpuBoundary::then_epilogue([&](RowSink* s) { return packed_product(a, w, bias.data(), relu, s, workers()); }, then...);
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
                                          const HostTensor<float, LC>* c, float alpha, float beta, bool relu, RowSink* sink,
                                          const Workers* workers) {
    const std::int64_t m = a.extents()[TA ? 1 : 0];
    if (a.extents()[TA ? 0 : 1] != k) throw KernelMisuse("gemm: A contracts " + std::to_string(a.extents()[TA ? 0 : 1]) + " elements, B " + std::to_string(k));
    auto out = HostTensor<float, Out>::uninitialized({m, n});
    float* y = out.mutable_data_unchecked();
    if (sink) sink->hold(y, out.count(), m);
    Sgemm::Epilogue ep;
    ep.alpha = alpha;
    ep.relu = relu;
    ep.rows = sink;
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
    Sgemm::run(m, n, k, ao, b, y, n, ep, workers);
    return out;
  }

  // B as the SGEMM reads it: as it lies, or (transB) packed for this call.
  template <bool TB, class LB>
  static std::pair<Sgemm::BOperand, std::vector<float>> gemm_b(const HostTensor<float, LB>& b) {
    const std::int64_t k = b.extents()[TB ? 1 : 0], n = b.extents()[TB ? 0 : 1];
    if (!TB) return {Sgemm::BOperand::row_major(b.data(), n), {}};
    std::vector<float> packed(static_cast<std::size_t>(Sgemm::packed_b_size(k, n)));
    Sgemm::pack_b(b.data(), 1, k, k, n, packed.data());
    const auto operand = Sgemm::packed_b(packed.data(), k);
    return {operand, std::move(packed)};
  }

  template <bool TA = false, bool TB = false, class LA, class LB, class... Then>
  auto gemm(const Tensor<float, LA>& a, const Tensor<float, LB>& b, float alpha = 1.0f, bool relu = false, const Then&... then) const {
    using Out = typename GemmRule<LA, LB, TA, TB>::Result;
    const std::int64_t k = b.extents()[TB ? 1 : 0], n = b.extents()[TB ? 0 : 1];
    const auto bo = gemm_b<TB>(b);
    return CpuBoundary::then_epilogue([&](RowSink* s) { return gemm_core<Out, TA, LA, Axes<>>(a, k, n, bo.first, nullptr, alpha, 0.0f, relu, s, workers()); }, then...);
  }

  template <bool TA = false, bool TB = false, class LA, class LB, class LC, class... Then>
  auto gemm(const Tensor<float, LA>& a, const Tensor<float, LB>& b, const Tensor<float, LC>& c, float alpha = 1.0f, float beta = 1.0f,
            bool relu = false, const Then&... then) const {
    using Out = typename GemmRule<LA, LB, TA, TB>::Result;
    static_assert(AxesBroadcastTo<LC, Out>, "gemm: C's axes must broadcast to the result's [M, N], aligned at the end");
    const std::int64_t k = b.extents()[TB ? 1 : 0], n = b.extents()[TB ? 0 : 1];
    const auto bo = gemm_b<TB>(b);
    return CpuBoundary::then_epilogue([&](RowSink* s) { return gemm_core<Out, TA, LA, LC>(a, k, n, bo.first, &c, alpha, beta, relu, s, workers()); }, then...);
  }

  // Gemm with its B packed when the weights loaded (PackedMatrix, or PackedMatrix::from_transposed
  // for transB = 1).
  template <bool TA = false, class LA, class K, class N, class... Then>
  auto gemm(const Tensor<float, LA>& a, const PackedMatrix<K, N>& b, float alpha = 1.0f, bool relu = false, const Then&... then) const {
    static_assert(AxisRank<LA> == 2, "gemm: A has two axes");
    static_assert(std::is_same_v<AxisAt<TA ? 0 : 1, LA>, K>, "gemm: the contracted axis K must be one axis on both operands (after transA / transB)");
    using Out = Axes<AxisAt<TA ? 1 : 0, LA>, N>;
    return CpuBoundary::then_epilogue([&](RowSink* s) { return gemm_core<Out, TA, LA, Axes<>>(a, b.k(), b.n(), b.operand(), nullptr, alpha, 0.0f, relu, s, workers()); },
                         then...);
  }
  template <bool TA = false, class LA, class K, class N, class LC, class... Then>
  auto gemm(const Tensor<float, LA>& a, const PackedMatrix<K, N>& b, const Tensor<float, LC>& c, float alpha = 1.0f, float beta = 1.0f,
            bool relu = false, const Then&... then) const {
    static_assert(AxisRank<LA> == 2, "gemm: A has two axes");
    static_assert(std::is_same_v<AxisAt<TA ? 0 : 1, LA>, K>, "gemm: the contracted axis K must be one axis on both operands (after transA / transB)");
    using Out = Axes<AxisAt<TA ? 1 : 0, LA>, N>;
    static_assert(AxesBroadcastTo<LC, Out>, "gemm: C's axes must broadcast to the result's [M, N], aligned at the end");
    return CpuBoundary::then_epilogue([&](RowSink* s) { return gemm_core<Out, TA, LA, LC>(a, b.k(), b.n(), b.operand(), &c, alpha, beta, relu, s, workers()); }, then...);
  }

  // Einsum over `equation` spelled with one label per operand axis and the output given ("ij,jk->ik";
  // the build spells an ellipsis as digit labels). Every combination of labels is visited once: the
  // output's, then the contracted ones; an operand axis of 1 broadcasts against its label's extent.
  template <class Out, class E, class... Ls>
  Tensor<E, Out> einsum(std::string_view equation, const Tensor<E, Ls>&... xs) const {
    struct Operand {
      const E* data;
      std::vector<std::int64_t> extents;
      std::string labels;
    };
    std::vector<Operand> ops;
    (ops.push_back(Operand{xs.data(), std::vector<std::int64_t>(xs.extents().begin(), xs.extents().end()), ""}), ...);
    const auto arrow = equation.find("->");
    if (arrow == std::string_view::npos) throw KernelMisuse("einsum: the equation gives no output");
    std::size_t at = 0;
    for (auto& op : ops) {
      const auto end = std::min(equation.find(',', at), arrow);
      op.labels = std::string(equation.substr(at, end - at));
      if (op.labels.size() != op.extents.size()) throw KernelMisuse("einsum: a term does not fit its operand's rank");
      at = end + 1;
    }
    const std::string output(equation.substr(arrow + 2));
    if (output.size() != AxisRank<Out>) throw KernelMisuse("einsum: the output's labels do not fit the result's rank");
    // Every label, the output's first, with its extent (the largest of its uses: the rest are 1).
    std::string labels = output;
    for (const auto& op : ops)
      for (char l : op.labels)
        if (labels.find(l) == std::string::npos) labels += l;
    std::vector<std::int64_t> extent(labels.size(), 1);
    for (const auto& op : ops)
      for (std::size_t k = 0; k < op.labels.size(); ++k) {
        auto& e = extent[labels.find(op.labels[k])];
        if (op.extents[k] != 1 && e != 1 && op.extents[k] != e) throw KernelMisuse("einsum: a label names two extents");
        if (op.extents[k] != 1 || e == 1) e = op.extents[k];
      }
    // Each operand's stride per label (0 where it lacks the label or holds it at 1; a repeated label,
    // a diagonal, adds its strides).
    std::vector<std::vector<std::int64_t>> stride(ops.size(), std::vector<std::int64_t>(labels.size(), 0));
    for (std::size_t j = 0; j < ops.size(); ++j) {
      std::int64_t step = 1;
      for (std::size_t k = ops[j].labels.size(); k-- > 0;) {
        if (ops[j].extents[k] != 1) stride[j][labels.find(ops[j].labels[k])] += step;
        step *= ops[j].extents[k];
      }
    }
    typename Tensor<E, Out>::Extents oe{};
    for (std::size_t k = 0; k < output.size(); ++k) oe[k] = extent[k];
    auto out = Tensor<E, Out>::uninitialized(oe);
    E* y = out.mutable_data_unchecked();
    const std::size_t n_out = output.size();
    std::int64_t inner = 1;
    for (std::size_t k = n_out; k < labels.size(); ++k) inner *= extent[k];
    using Acc = std::conditional_t<std::is_same_v<E, float>, double, E>;
    std::vector<std::int64_t> idx(labels.size(), 0), offset(ops.size(), 0);
    for (std::int64_t o = 0; o < out.count(); ++o) {
      Acc sum{0};
      for (std::int64_t c = 0; c < inner; ++c) {
        Acc term{1};
        for (std::size_t j = 0; j < ops.size(); ++j) term *= static_cast<Acc>(ops[j].data[offset[j]]);
        sum += term;
        // The next contracted combination (the output's labels stay).
        for (std::size_t k = labels.size(); k-- > n_out;) {
          for (std::size_t j = 0; j < ops.size(); ++j) offset[j] += stride[j][k];
          if (++idx[k] < extent[k]) break;
          for (std::size_t j = 0; j < ops.size(); ++j) offset[j] -= stride[j][k] * extent[k];
          idx[k] = 0;
        }
      }
      y[o] = static_cast<E>(sum);
      for (std::size_t k = n_out; k-- > 0;) {
        for (std::size_t j = 0; j < ops.size(); ++j) offset[j] += stride[j][k];
        if (++idx[k] < extent[k]) break;
        for (std::size_t j = 0; j < ops.size(); ++j) offset[j] -= stride[j][k] * extent[k];
        idx[k] = 0;
      }
    }
    return out;
  }
};
