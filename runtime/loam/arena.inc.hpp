// A generated forward's memory plan at run time (the layout is arena_plan.inc.hpp's): the arena is
// the calling thread's (TensorStorage's), kept between calls, so a steady run allocates nothing
// for the values the plan places.

// The bytes of a value of `count` elements of `element` bytes each, as forward computes them for
// the plan; a count below zero or a product past size_t is refused, never wrapped.
inline std::size_t arena_value_bytes(std::int64_t count, std::size_t element) {
  std::size_t bytes = 0;
  if (count < 0 || __builtin_mul_overflow(static_cast<std::size_t>(count), element, &bytes))
    throw KernelMisuse("memory plan: " + std::to_string(count) + " elements of " + std::to_string(element) + " bytes do not fit size_t");
  return bytes;
}

// A forward's hold on its thread's arena: place(k) has the next kernel's result written into
// value k's block. Without the arena (a nested forward) it places nothing, and the kernels
// allocate their results as they would with no plan.
class ArenaScope {
 public:
  ArenaScope(std::size_t bytes, const std::size_t* offsets, const std::size_t* sizes)
      : base_(TensorStorage::enter_arena(bytes)), offsets_(offsets), sizes_(sizes) {}
  ArenaScope(const ArenaScope&) = delete;
  ArenaScope& operator=(const ArenaScope&) = delete;
  ~ArenaScope() {
    if (base_ != nullptr) TensorStorage::leave_arena();
  }
  void place(std::size_t value) const {
    if (base_ != nullptr && sizes_[value] > 0) TensorStorage::place(base_ + offsets_[value], sizes_[value]);
  }

 private:
  std::byte* base_;
  const std::size_t* offsets_;
  const std::size_t* sizes_;
};

// The plan of one forward (a thread_local of it): laid out again only when a call's sizes differ
// from the last call's.
template <std::size_t N>
class ArenaPlan {
 public:
  ArenaScope enter(const std::array<ArenaInterval, N>& life, const std::array<std::size_t, N>& bytes) {
    if (!planned_ || bytes != bytes_) {
      // The arena is no larger than the values' rounded bytes together: if those fit, every
      // offset and end the layout computes does.
      std::size_t total = 0;
      for (const std::size_t b : bytes)
        if (__builtin_add_overflow(total, b, &total) || __builtin_add_overflow(total, ARENA_ALIGN, &total))
          throw KernelMisuse("memory plan: the intermediates' " + std::to_string(N) + " blocks together do not fit size_t");
      bytes_ = bytes;
      peak_ = plan_arena(life, bytes_, offsets_, scratch_);
      planned_ = true;
    }
    return ArenaScope(peak_, offsets_.data(), bytes_.data());
  }
  std::size_t peak_bytes() const { return peak_; }

 private:
  bool planned_ = false;
  std::size_t peak_ = 0;
  std::array<std::size_t, N> bytes_{}, offsets_{};
  std::array<std::uint32_t, 2 * N> scratch_{};
};
