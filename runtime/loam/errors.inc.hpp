// What the module's boundary reports. A LoadError names the checkpoint tensor (and the axis, where
// one is at fault); an InputError names the forward input, its axis and the node relying on it.
// Neither is thrown by the boundary checks: Weights::load returns LoadResult<Weights>, and forward's
// checks return the InputError. Kernels throw KernelRefusal only where a value decides it (a Gather
// index out of range) and KernelMisuse where extents contradict a kernel's contract, which the
// generated checks rule out before any kernel runs.

struct LoadError {
  std::string tensor;   // the checkpoint tensor at fault (empty when the container itself is)
  std::string axis;     // the axis at fault, if any
  std::string message;  // what is wrong, in words

  std::string what() const {
    std::string out = "weights";
    if (!tensor.empty()) out += ": tensor '" + tensor + "'";
    if (!axis.empty()) out += ", axis '" + axis + "'";
    return out + ": " + message;
  }
};

template <class T>
using LoadResult = std::expected<T, LoadError>;

struct InputError {
  std::string input;    // the forward argument (or tensor) at fault
  std::string axis;     // the axis at fault, if any
  std::string node;     // the node that relies on the condition, if any
  std::string message;

  std::string what() const {
    std::string out = "input";
    if (!input.empty()) out += " '" + input + "'";
    if (!axis.empty()) out += ", axis '" + axis + "'";
    if (!node.empty()) out += " (needed by node '" + node + "')";
    return out + ": " + message;
  }
};

template <class T>
using RunResult = std::expected<T, InputError>;

// A value the run computed is refused by a kernel (a Gather index outside its axis).
class KernelRefusal : public std::runtime_error {
 public:
  explicit KernelRefusal(InputError e) : std::runtime_error(e.what()), error_(std::move(e)) {}
  const InputError& error() const noexcept { return error_; }

 private:
  InputError error_;
};

// A kernel was called against its contract (extents that do not meet); the generated module's
// checks rule this out, so it names a defect in the caller rather than in the inputs.
class KernelMisuse : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};
