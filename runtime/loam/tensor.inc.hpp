// Tensor<E, Axes<...>>: runtime extents (int64, one per axis) and contiguous row-major elements.
// Storage is shared, so a regrouping (Reshape, Flatten, Squeeze, Unsqueeze, Identity, a relabel)
// is a new Tensor over the same elements and costs no copy. Storage borrowed from static memory
// (embedded weights) is never written: the first write through a non-const accessor copies it.
// Kernels write only into tensors they allocated themselves.

// The integers narrower than int64 that ONNX moves: storage types, as Half and BFloat16 are. They
// cross the module's boundary as they are and are computed in int64, each result wrapped back
// into its own range where arithmetic could leave it.
template <class E>
concept NarrowInteger = std::same_as<E, std::int8_t> || std::same_as<E, std::uint8_t> || std::same_as<E, std::int16_t> ||
                        std::same_as<E, std::uint16_t> || std::same_as<E, std::int32_t> || std::same_as<E, std::uint32_t>;

template <class E>
concept Element = std::same_as<E, float> || std::same_as<E, double> || std::same_as<E, std::int64_t> || std::same_as<E, bool> ||
                  std::same_as<E, Half> || std::same_as<E, BFloat16> || NarrowInteger<E>;

// The element count of a shape, refusing negative extents and a count past int64. A shape with
// an extent of 0 holds no element, whatever its other extents.
template <std::size_t R>
constexpr std::int64_t element_count(const std::array<std::int64_t, R>& extents) {
  for (std::size_t i = 0; i < R; ++i)
    if (extents[i] < 0) throw KernelMisuse("tensor: negative extent " + std::to_string(extents[i]));
  for (std::size_t i = 0; i < R; ++i)
    if (extents[i] == 0) return 0;
  std::int64_t n = 1;
  for (std::size_t i = 0; i < R; ++i)
    if (__builtin_mul_overflow(n, extents[i], &n)) throw KernelMisuse("tensor: element count overflows int64");
  return n;
}

// Where tensor storage comes from. A forward pass allocates the same large blocks on every call;
// freed blocks of 64 KiB and more are kept per thread (up to 256 MiB) and handed out again, so a
// steady run does not return pages to the kernel and fault them back in on each call.
class TensorStorage {
 public:
  static constexpr std::size_t CACHED_MIN = std::size_t{64} << 10;
  static constexpr std::size_t CACHE_LIMIT = std::size_t{256} << 20;
  static constexpr std::size_t ALIGN = 64;

  static std::shared_ptr<void> allocate(std::size_t bytes) {
    // A placement holds for the first allocation after it: taken when the size is the planned
    // one, dropped otherwise (a kernel's own scratch, a result the plan did not expect).
    if (Placement& p = placement(); p.block != nullptr) {
      void* planned = p.block;
      const bool fits = p.bytes == bytes;
      p = {};
      if (fits) return std::shared_ptr<void>(std::shared_ptr<void>(), planned);  // no owner: the arena outlives it
    }
    void* block = nullptr;
    if (bytes >= CACHED_MIN && alive()) block = cache().take(bytes);
    if (block == nullptr) block = ::operator new(bytes, std::align_val_t{ALIGN});
    return std::shared_ptr<void>(block, Release{bytes});
  }

  // Returns every cached block of this thread to the allocator, and its arena when no forward
  // holds it.
  static void release_cache() {
    if (!alive()) return;
    cache().clear();
    if (!arena().entered) arena().clear();
  }

  // The memory plan's arena: one block per thread (a forward runs its kernels on the thread that
  // called it), grown to the largest plan entered and kept. Returns nullptr when a forward on this
  // thread holds it already (a nested forward then allocates as if it had no plan).
  static std::byte* enter_arena(std::size_t bytes) {
    if (!alive()) return nullptr;
    Arena& a = arena();
    if (a.entered) return nullptr;
    if (a.capacity < bytes) {
      a.clear();
      a.block = static_cast<std::byte*>(::operator new(bytes, std::align_val_t{ALIGN}));
      a.capacity = bytes;
    }
    a.entered = true;
    return a.block;
  }
  static void leave_arena() {
    if (!alive()) return;
    arena().entered = false;
    placement() = {};
  }
  // The next allocation of exactly `bytes` on this thread is `block` (a slice of the arena).
  static void place(void* block, std::size_t bytes) { placement() = {block, bytes}; }

 private:
  struct Placement {
    void* block = nullptr;
    std::size_t bytes = 0;
  };
  static Placement& placement() {
    static thread_local Placement p;
    return p;
  }
  struct Arena {
    std::byte* block = nullptr;
    std::size_t capacity = 0;
    bool entered = false;
    void clear() {
      if (block != nullptr) ::operator delete(block, std::align_val_t{ALIGN});
      block = nullptr;
      capacity = 0;
    }
    ~Arena() {
      alive() = false;
      clear();
    }
  };
  static Arena& arena() {
    static thread_local Arena a;
    return a;
  }
  struct Release {
    std::size_t bytes;
    void operator()(void* block) const {
      if (bytes >= CACHED_MIN && alive() && cache().keep(block, bytes)) return;
      ::operator delete(block, std::align_val_t{ALIGN});
    }
  };
  struct Cache {
    std::vector<std::pair<std::size_t, void*>> blocks;
    std::size_t held = 0;
    void* take(std::size_t bytes) {
      for (std::size_t i = blocks.size(); i-- > 0;)
        if (blocks[i].first == bytes) {
          void* b = blocks[i].second;
          blocks.erase(blocks.begin() + static_cast<std::ptrdiff_t>(i));
          held -= bytes;
          return b;
        }
      return nullptr;
    }
    bool keep(void* block, std::size_t bytes) {
      if (held + bytes > CACHE_LIMIT || blocks.size() >= 64) return false;
      blocks.emplace_back(bytes, block);
      held += bytes;
      return true;
    }
    void clear() {
      for (auto& [bytes, b] : blocks) ::operator delete(b, std::align_val_t{ALIGN});
      blocks.clear();
      held = 0;
    }
    ~Cache() {
      alive() = false;
      clear();
    }
  };
  // Trivially destructible, so it can be read while (and after) the cache is torn down.
  static bool& alive() {
    static thread_local bool flag = true;
    return flag;
  }
  static Cache& cache() {
    static thread_local Cache c;
    return c;
  }
};

// What a tensor holds, whatever its axes: one class per element type and rank, so the code that
// allocates, counts, copies and releases tensors exists once per (E, rank) and not once per axis
// list; Tensor<E, Axes<...>> below adds only the axes, which the kernels' signatures check.
template <class E, std::size_t R>
class TensorData {
  static_assert(Element<E>, "Tensor: the element type must be float, double, int64_t, bool, Half, BFloat16 or an integer of 8, 16 or 32 bits");

 public:
  using ElementType = E;
  static constexpr std::size_t RANK = R;
  using Extents = std::array<std::int64_t, R>;

  const Extents& extents() const noexcept { return extents_; }
  std::int64_t extent(std::size_t i) const { return extents_.at(i); }
  std::int64_t count() const noexcept { return count_; }
  bool empty() const noexcept { return count_ == 0; }

  const E* data() const noexcept { return storage_.get(); }
  E* data() {
    if (borrowed_ && count_ > 0) detach();
    return mutable_data_unchecked();
  }
  std::span<const E> values() const noexcept { return {data(), static_cast<std::size_t>(count_)}; }
  std::span<E> values() { return {data(), static_cast<std::size_t>(count_)}; }

  // Row-major strides in elements.
  Extents strides() const noexcept {
    Extents s{};
    std::int64_t step = 1;
    for (std::size_t i = R; i-- > 0;) {
      s[i] = step;
      step *= extents_[i];
    }
    return s;
  }

  // Storage access for kernels: the shared block and whether it is borrowed.
  const std::shared_ptr<const E>& storage() const noexcept { return storage_; }
  bool is_borrowed() const noexcept { return borrowed_; }
  E* mutable_data_unchecked() const noexcept { return const_cast<E*>(storage_.get()); }

 protected:
  // Every extent 0: nothing to allocate but a rank-0 tensor's one element. Kept out of line of
  // the extents' constructor, so a struct of many tensors (a module's Weights) starts cheaply.
  TensorData() {
    if constexpr (R == 0) {
      count_ = 1;
      storage_ = allocate(1, true);
    }
  }
  // Zero-filled.
  explicit TensorData(const Extents& extents) : extents_(extents), count_(element_count(extents)) {
    if (count_ > 0) storage_ = allocate(count_, true);
  }
  // Takes the elements; their number must match the extents.
  TensorData(const Extents& extents, std::vector<E> values) : TensorData(uninitialized_data(extents)) {
    if (static_cast<std::int64_t>(values.size()) != count_)
      throw KernelMisuse("tensor: " + std::to_string(values.size()) + " values for a shape of " +
                         std::to_string(count_) + " elements");
    std::copy(values.begin(), values.end(), mutable_data_unchecked());
  }
  TensorData(const Extents& extents, std::shared_ptr<const E> storage, bool borrowed)
      : extents_(extents), count_(element_count(extents)), storage_(std::move(storage)), borrowed_(borrowed) {}
  // Allocated and not filled.
  static TensorData uninitialized_data(const Extents& extents) {
    TensorData t(extents, std::shared_ptr<const E>(), false);
    if (t.count_ > 0) t.storage_ = allocate(t.count_, false);
    return t;
  }

 private:
  // E is float, int64, bool or a 16-bit struct of bits: implicit-lifetime types, so raw storage
  // from TensorStorage holds them without constructors running.
  static std::shared_ptr<const E> allocate(std::int64_t n, bool zeroed) {
    const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(E);
    std::shared_ptr<void> block = TensorStorage::allocate(bytes);
    if (zeroed) std::memset(block.get(), 0, bytes);
    E* first = static_cast<E*>(block.get());
    return std::shared_ptr<const E>(std::move(block), first);
  }

  void detach() {
    std::shared_ptr<const E> block = allocate(count_, false);
    std::copy(storage_.get(), storage_.get() + count_, const_cast<E*>(block.get()));
    storage_ = std::move(block);
    borrowed_ = false;
  }

  Extents extents_{};
  std::int64_t count_ = 0;
  std::shared_ptr<const E> storage_;
  bool borrowed_ = false;
};

// A regrouping keeps every element (one function for every axis list's regrouped).
inline void check_regroup_count(std::int64_t count, std::int64_t target) {
  if (count != target) throw KernelMisuse("reshape: " + std::to_string(count) + " elements cannot take a shape of " + std::to_string(target));
}

template <class E, class L>
class Tensor;

template <class E, class... A>
class Tensor<E, Axes<A...>> : public TensorData<E, sizeof...(A)> {
  using Data = TensorData<E, sizeof...(A)>;

 public:
  using AxesType = Axes<A...>;
  using typename Data::Extents;

  // Every extent 0 (a rank-0 tensor holds one element, zero).
  Tensor() = default;
  // Zero-filled.
  explicit Tensor(const Extents& extents) : Data(extents) {}
  // Takes the elements; their number must match the extents.
  Tensor(const Extents& extents, std::vector<E> values) : Data(extents, std::move(values)) {}
  Tensor(const Extents& extents, std::initializer_list<E> values) : Data(extents, std::vector<E>(values)) {}

  // Allocated and not filled: for kernels that write every element.
  static Tensor uninitialized(const Extents& extents) { return Tensor(Data::uninitialized_data(extents)); }

  // Over memory the caller keeps alive and unchanged for the tensor's life (static weights):
  // no copy, and a write through a non-const accessor copies first.
  static Tensor borrowed(const Extents& extents, const E* data) {
    return Tensor(extents, std::shared_ptr<const E>(std::shared_ptr<const E>(), data), true);
  }

  // Over elements another owner shares (a view of a larger block).
  static Tensor shared(const Extents& extents, std::shared_ptr<const E> data) { return Tensor(extents, std::move(data), false); }

  using Data::extent;
  template <class Axis>
    requires(AxisIn<Axis, Axes<A...>>)
  std::int64_t extent() const noexcept {
    return this->extents()[AxisIndex<Axis, Axes<A...>>];
  }

  // The same elements under other axes and extents with the same element count (no copy).
  template <class L>
  Tensor<E, L> regrouped(const typename Tensor<E, L>::Extents& extents) const {
    check_regroup_count(this->count(), element_count(extents));
    return Tensor<E, L>::from_parts(extents, this->storage(), this->is_borrowed());
  }

  static Tensor from_parts(const Extents& extents, std::shared_ptr<const E> storage, bool borrowed) {
    return Tensor(extents, std::move(storage), borrowed);
  }

 private:
  Tensor(const Extents& extents, std::shared_ptr<const E> storage, bool borrowed) : Data(extents, std::move(storage), borrowed) {}
  explicit Tensor(Data data) : Data(std::move(data)) {}
};

// The name a backend's associated tensor type refers to (inside a backend, `Tensor` is its own).
template <class E, class L>
using HostTensor = Tensor<E, L>;
