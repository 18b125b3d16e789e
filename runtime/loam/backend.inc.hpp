// The backend seam. A backend owns the tensor's representation (`B::Tensor<E, Axes>`), and every
// kernel is a method whose signature is Cpu's with Tensor read as B::Tensor, so the axis relations
// survive the seam. forward<B> takes the backend by reference ahead of its inputs, uploads each
// input and weight and downloads each output; the boundary stays host Tensor.
//
// The concept checks the seam's shape on a probe instantiation (C++ cannot quantify over every
// axis list): the associated tensor template, upload / download, and matmul's axis relation.

struct BackendProbe {
  struct M {};
  struct K {};
  struct N {};
};

template <class B>
concept Backend = requires(B& backend, const HostTensor<float, Axes<BackendProbe::M, BackendProbe::K>>& host_a,
                           const typename B::template Tensor<float, Axes<BackendProbe::M, BackendProbe::K>>& a,
                           const typename B::template Tensor<float, Axes<BackendProbe::K, BackendProbe::N>>& b) {
  { backend.upload(host_a) } -> std::same_as<typename B::template Tensor<float, Axes<BackendProbe::M, BackendProbe::K>>>;
  { backend.download(a) } -> std::same_as<HostTensor<float, Axes<BackendProbe::M, BackendProbe::K>>>;
  { backend.matmul(a, b) } -> std::same_as<typename B::template Tensor<float, Axes<BackendProbe::M, BackendProbe::N>>>;
};

// A tensor held behind a handle: nothing of a host Tensor (no data, no extents) is reachable from
// outside OpaqueBackend, so generated code that reaches past the seam does not compile against it.
template <class E, class L>
class OpaqueTensor {
 public:
  OpaqueTensor(const OpaqueTensor&) = default;
  OpaqueTensor& operator=(const OpaqueTensor&) = default;

 private:
  friend struct OpaqueBackend;
  explicit OpaqueTensor(HostTensor<E, L> held) : held_(std::move(held)) {}
  HostTensor<E, L> held_;
};

// The test backend: every kernel unwraps its handles, runs Cpu's kernel, and wraps the result.
// Host tensors passed where a backend tensor belongs are refused at compile time (`open` of a host
// Tensor is deleted).
struct OpaqueBackend {
  template <class E, class L>
  using Tensor = OpaqueTensor<E, L>;

  OpaqueBackend() = default;
  explicit OpaqueBackend(int threads) : cpu_(threads) {}

  template <class E, class L>
  Tensor<E, L> upload(const HostTensor<E, L>& t) const { return Tensor<E, L>(t); }
  template <class E, class L>
  HostTensor<E, L> download(const Tensor<E, L>& t) const { return t.held_; }

  template <class E, class L>
  static const HostTensor<E, L>& open(const OpaqueTensor<E, L>& t) { return t.held_; }
  template <class E, class L>
  static const HostTensor<E, L>& open(const HostTensor<E, L>&) = delete;
  template <class T>
    requires(!requires { typename T::AxesType; })
  static const T& open(const T& other) { return other; }

  // A product's epilogue reads its operands through the seam too.
  template <class Out, class O, class K, std::size_t N, class... Es, class... Ls>
  static RowEpilogue<Out, O, K, N, HostTensor<Es, Ls>...> open(const RowEpilogue<Out, O, K, N, OpaqueTensor<Es, Ls>...>& e) {
    return {e.extents, e.args, std::apply([](const auto&... o) { return std::tuple<const HostTensor<Es, Ls>&...>(open(o)...); }, e.operands)};
  }

  template <class E, class L>
  static Tensor<E, L> close(HostTensor<E, L> t) { return Tensor<E, L>(std::move(t)); }
  // A kernel of several results (the recurrent layers) returns them as a tuple.
  template <class... T>
  static auto close(std::tuple<T...> t) {
    return std::apply([](auto&... e) { return std::make_tuple(close(std::move(e))...); }, t);
  }

  // The kernels of LOAM_BACKEND_KERNELS (kernels.inc.hpp). Operands the backend reads pass through
  // `open` (weights packed at load are host-side and shared with Cpu); others are forwarded as
  // they are.
#define LOAM_FORWARD_PLAIN(k) \
  template <class... Ts>      \
  auto k(const Ts&... a) const { return close(cpu_.k(open(a)...)); }
#define LOAM_FORWARD_OF(k)               \
  template <class Out, class... Ts>      \
  auto k(const Ts&... a) const { return close(cpu_.template k<Out>(open(a)...)); }
#define LOAM_FORWARD_OF2(k)                    \
  template <class Out, class Mid, class... Ts> \
  auto k(const Ts&... a) const { return close(cpu_.template k<Out, Mid>(open(a)...)); }
#define LOAM_FORWARD_OWN(k)
  LOAM_BACKEND_KERNELS(LOAM_FORWARD_PLAIN, LOAM_FORWARD_OF, LOAM_FORWARD_OF2, LOAM_FORWARD_OWN)
#undef LOAM_FORWARD_PLAIN
#undef LOAM_FORWARD_OF
#undef LOAM_FORWARD_OF2
#undef LOAM_FORWARD_OWN

  // The OWN kernels.
  // The condition's one element reaches the host as a download would.
  template <class L> bool read_condition(const Tensor<bool, L>& t) const { return cpu_.read_condition(open(t)); }
  template <bool TA = false, bool TB = false, class LA, class LB, class... Ts>
  auto gemm(const Tensor<float, LA>& a, const Tensor<float, LB>& b, const Ts&... rest) const { return close(cpu_.template gemm<TA, TB>(open(a), open(b), open(rest)...)); }
  template <bool TA = false, class LA, class K, class N, class... Ts>
  auto gemm(const Tensor<float, LA>& a, const PackedMatrix<K, N>& b, const Ts&... rest) const { return close(cpu_.template gemm<TA>(open(a), b, open(rest)...)); }
  template <class Out, class... Ts> auto concat(std::int64_t axis, const Ts&... a) const { return close(cpu_.template concat<Out>(axis, open(a)...)); }
  template <class Out, class E> auto range(E start, E limit, E delta) const { return close(cpu_.template range<Out, E>(start, limit, delta)); }
  template <class Out, class E> auto constant_of_shape(const std::array<std::int64_t, AxisRank<Out>>& extents, E value = E{}) const {
    return close(cpu_.template constant_of_shape<Out, E>(extents, value));
  }
  template <class L, class LS, class... Ts>
  auto layer_normalization(const Tensor<float, L>& x, const Tensor<float, LS>& scale, const Tensor<float, LS>& bias, const Ts&... rest) const {
    return close(cpu_.layer_normalization(open(x), open(scale), open(bias), rest...));
  }
  template <class L, class LS, class... Ts>
  auto layer_normalization(const Tensor<float, L>& x, const Tensor<float, LS>& scale, std::nullptr_t, const Ts&... rest) const {
    return close(cpu_.layer_normalization(open(x), open(scale), static_cast<const HostTensor<float, LS>*>(nullptr), rest...));
  }

 private:
  Cpu cpu_;
};

static_assert(Backend<Cpu>, "Cpu must model Backend");
static_assert(Backend<OpaqueBackend>, "OpaqueBackend must model Backend");
#undef LOAM_BACKEND_KERNELS
#undef LOAM_FRESH_RESULT_KERNELS
