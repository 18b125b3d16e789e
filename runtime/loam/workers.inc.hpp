// The threads the CPU kernels split their largest loops over: the calling thread and THREADS - 1
// standard threads a `Workers` starts once and keeps. A kernel hands `run` a number of jobs, each
// writing elements no other job writes and computing each of them as the one-thread loop does, so
// a result is bit-identical for any thread count; only which thread computes a job varies.
//
// Between calls a worker spins for a short while before it sleeps, so the products of one forward,
// which follow each other within microseconds, do not each pay a wake-up through the kernel.

class Workers {
 public:
  // threads: how many threads a call runs on, the caller's included (at least 1).
  explicit Workers(int threads) : count_(threads < 1 ? 1 : threads) {
    pool_.reserve(static_cast<std::size_t>(count_ - 1));
    for (int t = 1; t < count_; ++t) pool_.emplace_back([this] { serve(); });
  }
  Workers(const Workers&) = delete;
  Workers& operator=(const Workers&) = delete;
  ~Workers() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_.store(true, std::memory_order_release);
    }
    wake_.notify_all();
    for (auto& t : pool_) t.join();
  }

  int threads() const { return count_; }

  // job(i) for every i in [0, jobs), each once, the calling thread taking its share; returns when
  // every job has finished, rethrowing the first exception a job threw (the others still run). A
  // call made from inside a job, or while another thread's call holds the workers, runs its jobs
  // in order on the calling thread.
  template <class F>
  void run(std::int64_t jobs, F&& job) const {
    if (jobs <= 0) return;
    // Only the cast back to F is per job type; the dispatch below is one function for every kernel.
    using Job = std::remove_reference_t<F>;
    dispatch(jobs, [](const void* f, std::int64_t i) { (*static_cast<Job*>(const_cast<void*>(f)))(i); }, static_cast<const void*>(&job));
  }

 private:
  void dispatch(std::int64_t jobs, void (*call)(const void*, std::int64_t), const void* job) const {
    std::unique_lock<std::mutex> held(dispatch_, std::try_to_lock);
    if (jobs == 1 || count_ == 1 || inside_job_ || !held.owns_lock()) {
      for (std::int64_t i = 0; i < jobs; ++i) call(job, i);
      return;
    }
    call_ = call;
    job_ = job;
    jobs_ = jobs;
    error_ = nullptr;
    next_.store(0, std::memory_order_relaxed);
    active_.store(count_ - 1, std::memory_order_relaxed);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    take_jobs();
    // The jobs are balanced, so the others finish soon: spin, then sleep.
    for (int spin = 0; active_.load(std::memory_order_acquire) != 0; ++spin) {
      if (spin < SPIN_CHECKS) {
        relax(spin);
        continue;
      }
      std::unique_lock<std::mutex> lock(mutex_);
      idle_.wait(lock, [&] { return active_.load(std::memory_order_acquire) == 0; });
    }
    if (error_) std::rethrow_exception(error_);
  }

  // A wait first checks SPIN_CHECKS times (about a millisecond), then sleeps on a condition
  // variable. The checks pause the core; past the first PAUSES they yield it too, so a thread
  // sharing a core with the one it waits for (more threads than cores, or a busy machine) lets it
  // run rather than spinning through its time slice.
  static constexpr int SPIN_CHECKS = 1 << 14;
  static constexpr int PAUSES = 1 << 10;

  static void relax(int spin) {
    if (spin >= PAUSES) {
      std::this_thread::yield();
      return;
    }
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __builtin_ia32_pause();
#endif
  }

  // Takes jobs until none is left; a job's exception is kept (the first one) and rethrown by run.
  void take_jobs() const {
    inside_job_ = true;
    for (std::int64_t i; (i = next_.fetch_add(1, std::memory_order_relaxed)) < jobs_;) {
      try {
        call_(job_, i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!error_) error_ = std::current_exception();
      }
    }
    inside_job_ = false;
  }

  void serve() const {
    std::uint64_t seen = 0;
    for (;;) {
      std::uint64_t now = generation_.load(std::memory_order_acquire);
      for (int spin = 0; now == seen && spin < SPIN_CHECKS && !stop_.load(std::memory_order_acquire); ++spin) {
        relax(spin);
        now = generation_.load(std::memory_order_acquire);
      }
      if (now == seen) {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return generation_.load(std::memory_order_acquire) != seen || stop_.load(std::memory_order_acquire); });
        now = generation_.load(std::memory_order_acquire);
      }
      if (stop_.load(std::memory_order_acquire)) return;
      seen = now;
      take_jobs();
      if (active_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> lock(mutex_);
        idle_.notify_one();
      }
    }
  }

  int count_;
  std::vector<std::thread> pool_;
  mutable std::mutex dispatch_;  // held by the call in progress
  mutable std::mutex mutex_;     // guards the waits and error_
  mutable std::condition_variable wake_, idle_;
  mutable std::atomic<std::uint64_t> generation_{0};
  mutable std::atomic<bool> stop_{false};
  // The call in progress, written before generation_ moves and read after a worker sees it move.
  mutable void (*call_)(const void*, std::int64_t) = nullptr;
  mutable const void* job_ = nullptr;
  mutable std::int64_t jobs_ = 0;
  mutable std::atomic<std::int64_t> next_{0};
  mutable std::atomic<int> active_{0};  // workers still in the call
  mutable std::exception_ptr error_;
  static inline thread_local bool inside_job_ = false;
};

// job(i) for every i in [0, jobs): on `workers` where there are some, else in order here.
template <class F>
void run_jobs(const Workers* workers, std::int64_t jobs, F&& job) {
  if (workers) {
    workers->run(jobs, job);
    return;
  }
  for (std::int64_t i = 0; i < jobs; ++i) job(i);
}

// The part [first, end) of `count` units that job `job` of `jobs` takes: as equal as whole units
// allow, the larger parts first.
inline std::pair<std::int64_t, std::int64_t> job_share(std::int64_t count, std::int64_t jobs, std::int64_t job) {
  const std::int64_t base = count / jobs, extra = count % jobs;
  const std::int64_t first = job * base + std::min(job, extra);
  return {first, first + base + (job < extra ? 1 : 0)};
}
