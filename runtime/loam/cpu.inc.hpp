// The CPU backend: every kernel of the operator set, from the families of cpu_*.inc.hpp (each
// kernel's name belongs to one family, so no family hides another's). `Cpu cpu;` runs every kernel
// on the calling thread; `Cpu cpu(threads)` splits the products, convolutions and windows over that
// many threads (the caller's among them), with results bit-identical to one thread's.
struct Cpu : CpuBoundary, CpuProducts, CpuWindows, CpuMovement, CpuResampling, CpuRecurrent, CpuAttention, CpuReductions {
  Cpu() = default;
  explicit Cpu(int threads) : Cpu(threads > 1 ? std::make_shared<const Workers>(threads) : nullptr) {}
  // Copies share the threads. A move copies too, so the pointer the families read and the
  // threads it points at never part.
  Cpu(const Cpu&) = default;
  Cpu& operator=(const Cpu&) = default;

 private:
  explicit Cpu(std::shared_ptr<const Workers> workers) : CpuBase(workers.get()), owned_(std::move(workers)) {}
  std::shared_ptr<const Workers> owned_;
};

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif
