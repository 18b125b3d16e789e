// The CPU backend's kernels, one family a file (cpu_boundary, cpu_products, cpu_windows,
// cpu_movement, cpu_resampling, cpu_reductions), each a struct of kernels on host Tensors that `Cpu` (cpu.inc.hpp)
// joins. `Cpu::Tensor<E, L>` is the host Tensor itself, so upload and download cost nothing.
// Kernels whose operands' axes relate by a rule state it in their signature (matmul, gemm, a
// generated kernel's broadcasting, transpose by name); the rest take the result's axis list as an
// explicit template argument and trust it, as the generated call spells the list stage 0 computed.
// Extents are checked where a kernel reads them, throwing KernelMisuse on a contradiction; the
// generated module's checks rule those out first.

// The kernels' loops are written to vectorise: the CPU backend asks for -O2 with -O3's vectoriser
// (its dynamic cost model) whatever the module is compiled with, restored after the backend. The
// rest of -O3 (unswitching, peeling, versioning) doubled the compile of every module for no speed
// the kernel benchmarks could see. Short zeroing and copying loops stay loops rather than becoming
// calls to memset and memcpy.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("O2", "tree-vectorize", "vect-cost-model=dynamic", "no-tree-loop-distribute-patterns")
#endif

// What every family uses: the tensor type, the threads, and the helpers over extents and strides.
// Each family derives from it virtually, so a Cpu holds one set of threads that all of them use.
struct CpuBase {
  template <class E, class L>
  using Tensor = HostTensor<E, L>;

  CpuBase() = default;
  // Cpu owns the workers; a virtual base holds only a pointer, trivially copied, since a virtual
  // base is assigned once for each path to it.
  explicit CpuBase(const Workers* workers) : workers_(workers) {}

  // The threads the products, convolutions and windows split their work over; null where the
  // calling thread runs everything.
  const Workers* workers() const { return workers_; }
  int threads() const { return workers_ ? workers_->threads() : 1; }

 private:
  const Workers* workers_ = nullptr;

 public:

  template <std::size_t R>
  using Ext = std::array<std::int64_t, R>;

  // One element of `From` as `To`, as Cast computes it (Cast, and the resampling kernel's float
  // arithmetic over half-precision elements).
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
    // The position within the outer axes: in place up to 16 of them, so a copy allocates nothing.
    std::array<std::int64_t, 16> in_place{};
    std::vector<std::int64_t> beyond;
    std::int64_t* idx = in_place.data();
    if (r > in_place.size()) {
      beyond.assign(r, 0);
      idx = beyond.data();
    }
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
};
