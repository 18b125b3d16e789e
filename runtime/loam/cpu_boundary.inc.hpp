// The CPU kernels at the boundary: upload and download, identity and the regroupings (the same
// elements under other axes), Cast, and the generated (Loom) kernels a module carries.

// An operand of a generated kernel: its elements as bytes.
struct KernelBytes {
  const std::byte* data;
  std::uint64_t bytes;
};

// A generated kernel a product runs on its result's rows as it finishes them (the elementwise
// epilogue the fusion plan gave a MatMul, Gemm or Conv): K reads the product as its first operand,
// then `operands`, and writes a result of `extents` under Out. K's last two extent parameters are
// the rows a run covers (first, count), which the product supplies; `args` are the others. The
// product's result row r is K's work item r, so it holds the elements of Out in order.
template <class Out, class O, class K, std::size_t N, class... Ts>
struct RowEpilogue {
  std::array<std::int64_t, AxisRank<Out>> extents;
  std::array<std::int64_t, N> args;
  std::tuple<const Ts&...> operands;
};

template <class Out, class O, class K, std::size_t N, class... Ts>
auto epilogue(K, const std::array<std::int64_t, AxisRank<Out>>& extents, const std::array<std::int64_t, N>& args, const Ts&... operands) {
  return RowEpilogue<Out, O, K, N, Ts...>{extents, args, std::tuple<const Ts&...>(operands...)};
}

template <class T>
struct IsRowEpilogue : std::false_type {};
template <class Out, class O, class K, std::size_t N, class... Ts>
struct IsRowEpilogue<RowEpilogue<Out, O, K, N, Ts...>> : std::true_type {};

struct CpuBoundary : virtual CpuBase {
  template <class E, class L>
  Tensor<E, L> upload(const HostTensor<E, L>& t) const { return t; }
  template <class E, class L>
  HostTensor<E, L> download(const Tensor<E, L>& t) const { return t; }

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

  // What a product kernel returns: the product `core(sink)` computes, or, given an epilogue (a
  // RowEpilogue as the kernel's last argument), that epilogue's result, run on the product's rows
  // as they are finished.
  template <class... Then, class Core>
  static auto then_epilogue(Core&& core, const Then&... then) {
    static_assert(sizeof...(Then) <= 1 && (IsRowEpilogue<Then>::value && ...), "a product takes one RowEpilogue after its own arguments, or none");
    if constexpr (sizeof...(Then) == 0) return core(nullptr);
    else return run_epilogue(then..., core);
  }

  // A product whose epilogue is a generated kernel: `product(sink)` computes the product, telling
  // the sink of each run of rows it finishes, and the epilogue runs on them as they come; a product
  // that tells of none (a path with no row blocks) has its epilogue run on all its rows after it.
  template <class Out, class O, class K, std::size_t N, class... Es, class... Ls, class Product>
  static Tensor<O, Out> run_epilogue(const RowEpilogue<Out, O, K, N, HostTensor<Es, Ls>...>& ep, Product&& product) {
    static_assert((AxesBroadcastTo<Ls, Out> && ...),
                  "epilogue: every operand's axes must be the result's axes, aligned at the end (an axis of EXTENT 1 may stand for any)");
    using Epilogue = RowEpilogue<Out, O, K, N, HostTensor<Es, Ls>...>;
    std::apply([&](const auto&... o) { (operand_meets_result<AxisRank<Out>>(ep.extents, o.extents()), ...); }, ep.operands);
    auto out = Tensor<O, Out>::uninitialized(ep.extents);
    RowSink sink;
    sink.epilogue = &ep;
    sink.out = reinterpret_cast<std::byte*>(out.mutable_data_unchecked());
    sink.out_bytes = static_cast<std::uint64_t>(out.count()) * sizeof(O);
    sink.run = [](const RowSink& s, std::int64_t first, std::int64_t count) {
      const Epilogue& e = *static_cast<const Epilogue*>(s.epilogue);
      std::array<std::int64_t, N + 2> extents{};
      for (std::size_t i = 0; i < N; ++i) extents[i] = e.args[i];
      extents[N] = first;
      extents[N + 1] = count;
      std::apply(
          [&](const auto&... o) {
            K::run(extents, s.out, s.out_bytes, KernelBytes{s.product, s.product_bytes},
                   KernelBytes{reinterpret_cast<const std::byte*>(o.data()), static_cast<std::uint64_t>(o.count()) * sizeof(*o.data())}...);
          },
          e.operands);
    };
    const auto p = product(&sink);
    if (p.count() != out.count())
      throw KernelMisuse("epilogue: the product holds " + std::to_string(p.count()) + " elements, its epilogue's result " + std::to_string(out.count()));
    if (sink.done == 0) {
      if (sink.rows == 0 && out.count() > 0) throw KernelMisuse("epilogue: the product did not say how many rows it has");
      sink.hold(p.data(), p.count(), sink.rows);
      sink.finished(0, sink.rows);
    } else if (sink.done != sink.rows) {
      throw KernelMisuse("epilogue: the product finished " + std::to_string(sink.done.load()) + " of its " + std::to_string(sink.rows) + " rows");
    }
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
};
