// The CPU kernels at the boundary: upload and download, identity and the regroupings (the same
// elements under other axes), Cast, and the generated (Loom) kernels a module carries.

// An operand of a generated kernel: its elements as bytes.
struct KernelBytes {
  const std::byte* data;
  std::uint64_t bytes;
};

struct CpuBoundary : CpuBase {
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
