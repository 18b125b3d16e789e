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

  template <class E, class L>
  static Tensor<E, L> close(HostTensor<E, L> t) { return Tensor<E, L>(std::move(t)); }

  // Operands the backend reads (weights packed at load are host-side and shared with Cpu).
  template <class... Ts> auto identity(const Ts&... a) const { return close(cpu_.identity(open(a)...)); }
  template <class Out, class... Ts> auto reshape(const Ts&... a) const { return close(cpu_.template reshape<Out>(open(a)...)); }
  template <class Out, class... Ts> auto lift(const Ts&... a) const { return close(cpu_.template lift<Out>(open(a)...)); }
  template <class Out, class... Ts> auto relabel(const Ts&... a) const { return close(cpu_.template relabel<Out>(open(a)...)); }
  // The condition's one element reaches the host as a download would.
  template <class L> bool read_condition(const Tensor<bool, L>& t) const { return cpu_.read_condition(open(t)); }
  template <class To, class... Ts> auto cast(const Ts&... a) const { return close(cpu_.template cast<To>(open(a)...)); }
  template <class Out, class O, class... Ts> auto loom(const Ts&... a) const { return close(cpu_.template loom<Out, O>(open(a)...)); }
  template <class... Ts> auto matmul(const Ts&... a) const { return close(cpu_.matmul(open(a)...)); }
  template <class Out, class... Ts> auto matmul_broadcast(const Ts&... a) const { return close(cpu_.template matmul_broadcast<Out>(open(a)...)); }
  template <class... Ts> auto matmul_bias(const Ts&... a) const { return close(cpu_.matmul_bias(open(a)...)); }
  template <bool TA = false, bool TB = false, class LA, class LB, class... Ts>
  auto gemm(const Tensor<float, LA>& a, const Tensor<float, LB>& b, const Ts&... rest) const { return close(cpu_.template gemm<TA, TB>(open(a), open(b), open(rest)...)); }
  template <bool TA = false, class LA, class K, class N, class... Ts>
  auto gemm(const Tensor<float, LA>& a, const PackedMatrix<K, N>& b, const Ts&... rest) const { return close(cpu_.template gemm<TA>(open(a), b, open(rest)...)); }
  template <class Out, class... Ts> auto conv(const Ts&... a) const { return close(cpu_.template conv<Out>(open(a)...)); }
  template <class Out, class... Ts> auto max_pool(const Ts&... a) const { return close(cpu_.template max_pool<Out>(open(a)...)); }
  template <class Out, class Mid, class... Ts> auto conv_max_pool(const Ts&... a) const { return close(cpu_.template conv_max_pool<Out, Mid>(open(a)...)); }
  template <class Out, class Mid, class... Ts> auto conv_average_pool(const Ts&... a) const {
    return close(cpu_.template conv_average_pool<Out, Mid>(open(a)...));
  }
  template <class Out, class... Ts> auto max_pool_indices(const Ts&... a) const { return close(cpu_.template max_pool_indices<Out>(open(a)...)); }
  template <class Out, class... Ts> auto average_pool(const Ts&... a) const { return close(cpu_.template average_pool<Out>(open(a)...)); }
  template <class Out, class... Ts> auto global_average_pool(const Ts&... a) const { return close(cpu_.template global_average_pool<Out>(open(a)...)); }
  template <class Out, class... Ts> auto global_max_pool(const Ts&... a) const { return close(cpu_.template global_max_pool<Out>(open(a)...)); }
  template <class Out, class... Ts> auto transpose(const Ts&... a) const { return close(cpu_.template transpose<Out>(open(a)...)); }
  template <class Out, class... Ts> auto slice(const Ts&... a) const { return close(cpu_.template slice<Out>(open(a)...)); }
  template <class Out, class... Ts> auto split_part(const Ts&... a) const { return close(cpu_.template split_part<Out>(open(a)...)); }
  template <class Out, class... Ts> auto concat(std::int64_t axis, const Ts&... a) const { return close(cpu_.template concat<Out>(axis, open(a)...)); }
  template <class Out, class... Ts> auto gather(const Ts&... a) const { return close(cpu_.template gather<Out>(open(a)...)); }
  template <class Out, class... Ts> auto expand(const Ts&... a) const { return close(cpu_.template expand<Out>(open(a)...)); }
  template <class Out, class... Ts> auto tile(const Ts&... a) const { return close(cpu_.template tile<Out>(open(a)...)); }
  template <class Out, class... Ts> auto pad(const Ts&... a) const { return close(cpu_.template pad<Out>(open(a)...)); }
  template <class Out, class E> auto range(E start, E limit, E delta) const { return close(cpu_.template range<Out, E>(start, limit, delta)); }
  template <class Out, class E> auto constant_of_shape(const std::array<std::int64_t, AxisRank<Out>>& extents, E value = E{}) const {
    return close(cpu_.template constant_of_shape<Out, E>(extents, value));
  }
  template <class... Ts> auto softmax(const Ts&... a) const { return close(cpu_.softmax(open(a)...)); }
  template <class... Ts> auto log_softmax(const Ts&... a) const { return close(cpu_.log_softmax(open(a)...)); }
  template <class... Ts> auto softmax_flattened(const Ts&... a) const { return close(cpu_.softmax_flattened(open(a)...)); }
  template <class... Ts> auto log_softmax_flattened(const Ts&... a) const { return close(cpu_.log_softmax_flattened(open(a)...)); }
  template <class Out, class... Ts> auto reduce_sum(const Ts&... a) const { return close(cpu_.template reduce_sum<Out>(open(a)...)); }
  template <class Out, class... Ts> auto reduce_mean(const Ts&... a) const { return close(cpu_.template reduce_mean<Out>(open(a)...)); }
  template <class Out, class... Ts> auto reduce_max(const Ts&... a) const { return close(cpu_.template reduce_max<Out>(open(a)...)); }
  template <class Out, class... Ts> auto reduce_min(const Ts&... a) const { return close(cpu_.template reduce_min<Out>(open(a)...)); }
  template <class Out, class... Ts> auto reduce_prod(const Ts&... a) const { return close(cpu_.template reduce_prod<Out>(open(a)...)); }
  template <class Out, class... Ts> auto argmax(const Ts&... a) const { return close(cpu_.template argmax<Out>(open(a)...)); }
  template <class... Ts> auto batch_normalization(const Ts&... a) const { return close(cpu_.batch_normalization(open(a)...)); }
  template <class Out, class... Ts> auto layer_normalization_statistic(const Ts&... a) const {
    return close(cpu_.template layer_normalization_statistic<Out>(open(a)...));
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
