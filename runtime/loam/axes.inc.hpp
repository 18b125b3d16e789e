// Axis identity is a type. An axis marker is an empty struct; one whose length every input and
// output fixes carries `static constexpr int64_t EXTENT`. A tensor carries its axes as one list,
// Axes<Batch, Seq>. Extents stay runtime values: the types say which axis, the shape says how long.

template <class... A>
struct Axes {
  static constexpr std::size_t RANK = sizeof...(A);
};

// An axis with a length fixed at build time.
template <class A>
concept StaticAxis = requires {
  { A::EXTENT } -> std::convertible_to<std::int64_t>;
};

// A regrouped axis is named by its parts: Flatten of [N, C, H, W] gives [N, Merged<C, H, W>].
// Its extent is the product of its parts' extents when all of them are fixed.
template <class... Parts>
struct Merged {
  using PARTS = Axes<Parts...>;
};
template <class... Parts>
  requires(sizeof...(Parts) > 0 && (StaticAxis<Parts> && ...))
struct Merged<Parts...> {
  using PARTS = Axes<Parts...>;
  static constexpr std::int64_t EXTENT = (static_cast<std::int64_t>(Parts::EXTENT) * ...);
};

// --- axis-list algebra -------------------------------------------------------------------------

template <class L>
struct AxisListTraits;
template <class... A>
struct AxisListTraits<Axes<A...>> {
  static constexpr std::size_t RANK = sizeof...(A);
  template <std::size_t I>
  using At = std::tuple_element_t<I, std::tuple<A...>>;
  template <class X>
  static constexpr std::size_t COUNT = (std::size_t{0} + ... + (std::is_same_v<X, A> ? 1u : 0u));
  template <class X>
  static constexpr std::size_t index_of() {
    constexpr bool hits[] = {std::is_same_v<X, A>..., false};
    for (std::size_t i = 0; i < sizeof...(A); ++i)
      if (hits[i]) return i;
    return sizeof...(A);
  }
};

template <class L>
concept AxisList = requires { AxisListTraits<L>::RANK; };

template <class L>
inline constexpr std::size_t AxisRank = AxisListTraits<L>::RANK;

template <std::size_t I, class L>
using AxisAt = typename AxisListTraits<L>::template At<I>;

template <class X, class L>
inline constexpr bool AxisIn = AxisListTraits<L>::template COUNT<X> > 0;

template <class X, class L>
inline constexpr std::size_t AxisIndex = AxisListTraits<L>::template index_of<X>();

template <class L, class Seq>
struct AxisPick;
template <class... A, std::size_t... I>
struct AxisPick<Axes<A...>, std::index_sequence<I...>> {
  using type = Axes<std::tuple_element_t<I, std::tuple<A...>>...>;
};

// The first N axes of L, and the axes after the first N.
template <std::size_t N, class L>
using AxisFront = typename AxisPick<L, std::make_index_sequence<N>>::type;

template <std::size_t N, class L, class Seq = std::make_index_sequence<AxisRank<L> - N>>
struct AxisDropT;
template <std::size_t N, class... A, std::size_t... I>
struct AxisDropT<N, Axes<A...>, std::index_sequence<I...>> {
  using type = Axes<std::tuple_element_t<N + I, std::tuple<A...>>...>;
};
template <std::size_t N, class L>
using AxisBack = typename AxisDropT<N, L>::type;

template <class... Ls>
struct AxisJoinT;
template <>
struct AxisJoinT<> { using type = Axes<>; };
template <class... A>
struct AxisJoinT<Axes<A...>> { using type = Axes<A...>; };
template <class... A, class... B, class... Rest>
struct AxisJoinT<Axes<A...>, Axes<B...>, Rest...> {
  using type = typename AxisJoinT<Axes<A..., B...>, Rest...>::type;
};
template <class... Ls>
using AxisJoin = typename AxisJoinT<Ls...>::type;

// Whether an operand with axes `Op` may meet an output with axes `Out` under ONNX's
// multidirectional broadcasting, read by name: the lists are aligned at their ends, and at each
// position the operand's axis is the output's axis, or an axis that holds one element (EXTENT 1),
// which broadcasting stretches. An axis of 1 without a fixed EXTENT is brought under the output's
// name with `Cpu::lift`, which checks the length at run time.
template <class A>
inline constexpr bool AxisIsUnit = [] {
  if constexpr (StaticAxis<A>) return A::EXTENT == 1;
  else return false;
}();

template <class Op, class Out>
inline constexpr bool AxesBroadcastTo = [] {
  constexpr std::size_t ro = AxisRank<Op>, rt = AxisRank<Out>;
  if constexpr (ro > rt) {
    return false;
  } else {
    return []<std::size_t... I>(std::index_sequence<I...>) {
      return ((std::is_same_v<AxisAt<I, Op>, AxisAt<rt - ro + I, Out>> || AxisIsUnit<AxisAt<I, Op>>) && ...);
    }(std::make_index_sequence<ro>{});
  }
}();

// Whether `P` reorders `L`: the same axes, each as often.
template <class P, class L>
inline constexpr bool AxesPermute = [] {
  if constexpr (AxisRank<P> != AxisRank<L>) {
    return false;
  } else {
    return []<std::size_t... I>(std::index_sequence<I...>) {
      return ((AxisListTraits<P>::template COUNT<AxisAt<I, L>> == AxisListTraits<L>::template COUNT<AxisAt<I, L>>) && ...);
    }(std::make_index_sequence<AxisRank<L>>{});
  }
}();
