// The CPU kernels of the recurrent layers: RNN, GRU and LSTM, one direction or both, with initial
// states, per-sequence lengths, the listed activations, clip, LSTM's peepholes and coupled
// input-forget gate, and GRU's linear_before_reset. Per direction, one SGEMM projects every step's
// input through W (with the biases that do not depend on the state); each step then multiplies the
// state by R and applies the cell's gates row by row.

enum class RecurrentDirection : std::uint8_t { Forward, Reverse, Bidirectional };
// ONNX's activation functions of the recurrent operators.
enum class RecurrentActivation : std::uint8_t {
  Relu, Tanh, Sigmoid, Affine, LeakyRelu, ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, Softsign, Softplus
};

struct RecurrentFunction {
  RecurrentActivation kind = RecurrentActivation::Tanh;
  float alpha = 0.0f, beta = 0.0f;
};

struct RecurrentParams {
  RecurrentDirection direction = RecurrentDirection::Forward;
  std::int64_t hidden = 0;
  bool batch_major = false;  // layout 1: X [batch, seq, input], Y [batch, seq, dir, hidden], states [batch, dir, hidden]
  float clip = 0.0f;         // 0: none; else every gate's input is bounded to [-clip, clip]
  bool input_forget = false;         // LSTM: the forget gate is 1 - the input gate
  bool linear_before_reset = false;  // GRU: the reset gate multiplies the state's product, not the state
  // The cell's functions in ONNX's order (RNN f; GRU f, g; LSTM f, g, h), then the reverse
  // direction's.
  std::array<RecurrentFunction, 6> functions{};
};

struct CpuRecurrent : virtual CpuBase {
  // ---------------------------------------------------------------- recurrence

  // Each kernel returns Y, then the last state(s). `Y` and `State` are the results' axis lists;
  // an optional operand is its tensor or nullptr.
  template <class Y, class State, class LX, class LW, class LR, class B, class S, class H0>
  std::tuple<Tensor<float, Y>, Tensor<float, State>> rnn(const Tensor<float, LX>& x, const Tensor<float, LW>& w, const Tensor<float, LR>& r,
                                                         const B& bias, const S& lens, const H0& h0, const RecurrentParams& p,
                                                         std::string_view lens_name = "sequence_lens") const {
    auto [y, h, c] = recurrent<Y, State>(Cell::Rnn, x, w, r, floats(bias), lengths(lens), floats(h0), {}, {}, p, lens_name);
    return {std::move(y), std::move(h)};
  }
  template <class Y, class State, class LX, class LW, class LR, class B, class S, class H0>
  std::tuple<Tensor<float, Y>, Tensor<float, State>> gru(const Tensor<float, LX>& x, const Tensor<float, LW>& w, const Tensor<float, LR>& r,
                                                         const B& bias, const S& lens, const H0& h0, const RecurrentParams& p,
                                                         std::string_view lens_name = "sequence_lens") const {
    auto [y, h, c] = recurrent<Y, State>(Cell::Gru, x, w, r, floats(bias), lengths(lens), floats(h0), {}, {}, p, lens_name);
    return {std::move(y), std::move(h)};
  }
  template <class Y, class State, class LX, class LW, class LR, class B, class S, class H0, class C0, class P>
  std::tuple<Tensor<float, Y>, Tensor<float, State>, Tensor<float, State>> lstm(const Tensor<float, LX>& x, const Tensor<float, LW>& w,
                                                                               const Tensor<float, LR>& r, const B& bias, const S& lens,
                                                                               const H0& h0, const C0& c0, const P& peepholes,
                                                                               const RecurrentParams& p,
                                                                               std::string_view lens_name = "sequence_lens") const {
    return recurrent<Y, State>(Cell::Lstm, x, w, r, floats(bias), lengths(lens), floats(h0), floats(c0), floats(peepholes), p, lens_name);
  }

 private:
  enum class Cell : std::uint8_t { Rnn, Gru, Lstm };

  // An optional operand's elements, or none.
  template <class E>
  struct Elements {
    const E* data = nullptr;
    std::int64_t count = 0;
  };
  template <class T>
  static Elements<float> floats(const T& t) {
    if constexpr (std::is_same_v<T, std::nullptr_t>) {
      return {};
    } else {
      static_assert(std::is_same_v<typename T::ElementType, float>, "recurrent: a weight or state operand is float");
      return {t.data(), t.count()};
    }
  }
  // sequence_lens is int32 at the boundary and held in int64 by the kernels.
  template <class T>
  static Elements<std::int64_t> lengths(const T& t) {
    if constexpr (std::is_same_v<T, std::nullptr_t>) {
      return {};
    } else {
      static_assert(std::is_same_v<typename T::ElementType, std::int64_t>, "recurrent: sequence_lens is held in int64");
      return {t.data(), t.count()};
    }
  }

  static float activate(const RecurrentFunction& f, float v) {
    switch (f.kind) {
      case RecurrentActivation::Relu: return v > 0 ? v : 0.0f;
      case RecurrentActivation::Tanh: return std::tanh(v);
      case RecurrentActivation::Sigmoid: return 1.0f / (1.0f + std::exp(-v));
      case RecurrentActivation::Affine: return f.alpha * v + f.beta;
      case RecurrentActivation::LeakyRelu: return v >= 0 ? v : f.alpha * v;
      case RecurrentActivation::ThresholdedRelu: return v >= f.alpha ? v : 0.0f;
      case RecurrentActivation::ScaledTanh: return f.alpha * std::tanh(f.beta * v);
      case RecurrentActivation::HardSigmoid: return std::min(std::max(f.alpha * v + f.beta, 0.0f), 1.0f);
      case RecurrentActivation::Elu: return v >= 0 ? v : f.alpha * (std::exp(v) - 1.0f);
      case RecurrentActivation::Softsign: return v / (1.0f + std::fabs(v));
      case RecurrentActivation::Softplus: return v > 0 ? v + std::log1p(std::exp(-v)) : std::log1p(std::exp(v));
    }
    return v;
  }

  // B^T of a [n][k] row-major block, packed as SGEMM's B operand ([k][n]).
  static std::vector<float> packed_transpose(const float* m, std::int64_t n, std::int64_t k) {
    std::vector<float> out(static_cast<std::size_t>(Sgemm::packed_b_size(k, n)));
    Sgemm::pack_b(m, 1, k, k, n, out.data());
    return out;
  }

  template <class Y, class State, class LX, class LW, class LR>
  static std::tuple<Tensor<float, Y>, Tensor<float, State>, Tensor<float, State>> recurrent(
      Cell cell, const Tensor<float, LX>& x, const Tensor<float, LW>& w, const Tensor<float, LR>& r, Elements<float> bias,
      Elements<std::int64_t> lens, Elements<float> h0, Elements<float> c0, Elements<float> peepholes, const RecurrentParams& p,
      std::string_view lens_name) {
    static_assert(AxisRank<LX> == 3 && AxisRank<LW> == 3 && AxisRank<LR> == 3, "recurrent: X, W and R have three axes");
    static_assert(AxisRank<Y> == 4 && AxisRank<State> == 3, "recurrent: Y has four axes, a state three");
    const std::int64_t gates = cell == Cell::Rnn ? 1 : cell == Cell::Gru ? 3 : 4;
    const std::int64_t dirs = p.direction == RecurrentDirection::Bidirectional ? 2 : 1, hidden = p.hidden;
    const auto& xe = x.extents();
    const std::int64_t steps = p.batch_major ? xe[1] : xe[0], batch = p.batch_major ? xe[0] : xe[1], input = xe[2];
    const std::int64_t gh = gates * hidden;
    if (w.extents() != std::array<std::int64_t, 3>{dirs, gh, input} || r.extents() != std::array<std::int64_t, 3>{dirs, gh, hidden})
      throw KernelMisuse("recurrent: W or R does not match the directions, gates, hidden size and input size");
    if ((bias.data && bias.count != dirs * 2 * gh) || (lens.data && lens.count != batch) ||
        (h0.data && h0.count != dirs * batch * hidden) || (c0.data && c0.count != dirs * batch * hidden) ||
        (peepholes.data && peepholes.count != dirs * 3 * hidden))
      throw KernelMisuse("recurrent: an optional operand's extents do not match");
    std::vector<std::int64_t> length(static_cast<std::size_t>(batch), steps);
    if (lens.data)
      for (std::int64_t n = 0; n < batch; ++n) {
        if (lens.data[n] < 0 || lens.data[n] > steps)
          throw KernelRefusal(InputError{std::string(lens_name), "", "",
                                         "sequence length " + std::to_string(lens.data[n]) + " at element " + std::to_string(n) +
                                             " lies outside [0, " + std::to_string(steps) + "]"});
        length[n] = lens.data[n];
      }

    const Ext<4> ye = p.batch_major ? Ext<4>{batch, steps, dirs, hidden} : Ext<4>{steps, dirs, batch, hidden};
    const Ext<3> se = p.batch_major ? Ext<3>{batch, dirs, hidden} : Ext<3>{dirs, batch, hidden};
    auto y = Tensor<float, Y>::uninitialized(ye);
    auto y_h = Tensor<float, State>::uninitialized(se);
    auto y_c = Tensor<float, State>::uninitialized(cell == Cell::Lstm ? se : Ext<3>{});
    float* yd = y.mutable_data_unchecked();
    std::fill(yd, yd + y.count(), 0.0f);  // steps past a sequence's length stay 0
    // Where (step t, direction d, sequence n) sits in Y, and (d, n) in a state.
    auto y_at = [&](std::int64_t t, std::int64_t d, std::int64_t n) {
      return (p.batch_major ? (n * steps + t) * dirs + d : (t * dirs + d) * batch + n) * hidden;
    };
    auto state_at = [&](std::int64_t d, std::int64_t n) { return (p.batch_major ? n * dirs + d : d * batch + n) * hidden; };
    auto x_row = [&](std::int64_t t, std::int64_t n) { return p.batch_major ? n * steps + t : t * batch + n; };
    auto clip = [&](float v) { return p.clip > 0 ? std::min(std::max(v, -p.clip), p.clip) : v; };
    const bool gru_reset_after = cell == Cell::Gru && p.linear_before_reset;
    // GRU without linear_before_reset multiplies (r . h) by R_h apart from the other gates.
    const std::int64_t state_columns = cell == Cell::Gru && !p.linear_before_reset ? 2 * hidden : gh;

    std::vector<float> xw(static_cast<std::size_t>(steps * batch * gh)), hr(static_cast<std::size_t>(batch * gh));
    std::vector<float> h(static_cast<std::size_t>(batch * hidden)), c(h.size()), reset_state(h.size()), reset_product(h.size());
    std::vector<float> input_bias(static_cast<std::size_t>(gh)), state_bias(static_cast<std::size_t>(gh), 0.0f);
    for (std::int64_t d = 0; d < dirs; ++d) {
      const bool reverse = p.direction == RecurrentDirection::Reverse || d == 1;
      const RecurrentFunction* fn = p.functions.data() + d * (cell == Cell::Rnn ? 1 : cell == Cell::Gru ? 2 : 3);
      const float* wd = w.data() + d * gh * input;
      const float* rd = r.data() + d * gh * hidden;
      // W's and R's biases together where they add before any gate; GRU's R_h bias stays apart
      // under linear_before_reset, inside the reset gate's product.
      for (std::int64_t j = 0; j < gh; ++j) {
        const float wb = bias.data ? bias.data[d * 2 * gh + j] : 0.0f, rb = bias.data ? bias.data[d * 2 * gh + gh + j] : 0.0f;
        const bool apart = gru_reset_after && j >= 2 * hidden;
        input_bias[j] = apart ? wb : wb + rb;
        state_bias[j] = apart ? rb : 0.0f;
      }
      const std::vector<float> w_packed = packed_transpose(wd, gh, input);
      Sgemm::Epilogue with_bias;
      with_bias.col_bias = input_bias.data();
      Sgemm::run(steps * batch, gh, input, Sgemm::AOperand::row_major(x.data(), input), Sgemm::packed_b(w_packed.data(), input),
                 xw.data(), gh, with_bias);
      const std::vector<float> r_packed = packed_transpose(rd, state_columns, hidden);
      const std::vector<float> rh_packed =
          state_columns < gh ? packed_transpose(rd + 2 * hidden * hidden, hidden, hidden) : std::vector<float>{};
      Sgemm::Epilogue state_epilogue;
      state_epilogue.col_bias = gru_reset_after ? state_bias.data() : nullptr;
      for (std::int64_t n = 0; n < batch; ++n)
        for (std::int64_t j = 0; j < hidden; ++j) {
          h[n * hidden + j] = h0.data ? h0.data[state_at(d, n) + j] : 0.0f;
          c[n * hidden + j] = c0.data ? c0.data[state_at(d, n) + j] : 0.0f;
        }
      const float* pd = peepholes.data ? peepholes.data + d * 3 * hidden : nullptr;
      for (std::int64_t s = 0; s < steps; ++s) {
        Sgemm::run(batch, state_columns, hidden, Sgemm::AOperand::row_major(h.data(), hidden), Sgemm::packed_b(r_packed.data(), hidden),
                   hr.data(), gh, state_epilogue);
        if (cell == Cell::Gru && !p.linear_before_reset) {
          // r . h first, then its product with R_h into hr's last H columns.
          for (std::int64_t n = 0; n < batch; ++n) {
            if (s >= length[n]) continue;
            const std::int64_t t = reverse ? length[n] - 1 - s : s;
            const float* xg = xw.data() + x_row(t, n) * gh;
            const float* hg = hr.data() + n * gh;
            for (std::int64_t j = 0; j < hidden; ++j)
              reset_state[n * hidden + j] = activate(fn[0], clip(xg[hidden + j] + hg[hidden + j])) * h[n * hidden + j];
          }
          Sgemm::run(batch, hidden, hidden, Sgemm::AOperand::row_major(reset_state.data(), hidden),
                     Sgemm::packed_b(rh_packed.data(), hidden), reset_product.data(), hidden, {});
        }
        for (std::int64_t n = 0; n < batch; ++n) {
          if (s >= length[n]) continue;
          const std::int64_t t = reverse ? length[n] - 1 - s : s;
          const float* xg = xw.data() + x_row(t, n) * gh;
          const float* hg = hr.data() + n * gh;
          float* hn = h.data() + n * hidden;
          float* cn = c.data() + n * hidden;
          switch (cell) {
            case Cell::Rnn:
              for (std::int64_t j = 0; j < hidden; ++j) hn[j] = activate(fn[0], clip(xg[j] + hg[j]));
              break;
            case Cell::Gru:
              for (std::int64_t j = 0; j < hidden; ++j) {
                const float z = activate(fn[0], clip(xg[j] + hg[j]));
                float candidate;
                if (p.linear_before_reset) {
                  const float reset = activate(fn[0], clip(xg[hidden + j] + hg[hidden + j]));
                  candidate = activate(fn[1], clip(xg[2 * hidden + j] + reset * hg[2 * hidden + j]));
                } else {
                  candidate = activate(fn[1], clip(xg[2 * hidden + j] + reset_product[n * hidden + j]));
                }
                hn[j] = (1.0f - z) * candidate + z * hn[j];
              }
              break;
            case Cell::Lstm:
              // Gates in W's order: input, output, forget, cell; peepholes: input, output, forget.
              for (std::int64_t j = 0; j < hidden; ++j) {
                const float prev = cn[j];
                const float i = activate(fn[0], clip(xg[j] + hg[j] + (pd ? pd[j] * prev : 0.0f)));
                const float f = p.input_forget ? 1.0f - i
                                               : activate(fn[0], clip(xg[2 * hidden + j] + hg[2 * hidden + j] + (pd ? pd[2 * hidden + j] * prev : 0.0f)));
                const float g = activate(fn[1], clip(xg[3 * hidden + j] + hg[3 * hidden + j]));
                cn[j] = f * prev + i * g;
                const float o = activate(fn[0], clip(xg[hidden + j] + hg[hidden + j] + (pd ? pd[hidden + j] * cn[j] : 0.0f)));
                hn[j] = o * activate(fn[2], cn[j]);
              }
              break;
          }
          std::copy(hn, hn + hidden, yd + y_at(t, d, n));
        }
      }
      // A sequence of length 0 ends in zero states, as onnxruntime gives them (not its initial ones).
      for (std::int64_t n = 0; n < batch; ++n) {
        if (length[n] == 0) {
          std::fill(h.data() + n * hidden, h.data() + (n + 1) * hidden, 0.0f);
          std::fill(c.data() + n * hidden, c.data() + (n + 1) * hidden, 0.0f);
        }
        std::copy(h.data() + n * hidden, h.data() + (n + 1) * hidden, y_h.mutable_data_unchecked() + state_at(d, n));
        if (cell == Cell::Lstm) std::copy(c.data() + n * hidden, c.data() + (n + 1) * hidden, y_c.mutable_data_unchecked() + state_at(d, n));
      }
    }
    return {std::move(y), std::move(y_h), std::move(y_c)};
  }
};
