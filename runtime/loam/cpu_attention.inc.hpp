// Attention (opsets 23 to 25): softmax(Q K^T * scale + bias) V for each query head, with the
// bias of an attention mask, a causal frontier, a sliding window and the keys a batch pads; and
// the key and value caches it appends to. Both products of a head go through the SGEMM.

// What the build settles of one Attention node.
struct AttentionParams {
  float scale = 0.0f;            // multiplies Q K^T (the build's default is 1 / sqrt(head size))
  float softcap = 0.0f;          // > 0: scores become softcap * tanh(score / softcap) before the bias
  bool causal = false;           // key j is attended from query i only where j <= i + offset
  std::int64_t q_heads = 0;      // 3-D Q: its heads (4-D: Q's axis 1)
  std::int64_t kv_heads = 0;     // 3-D K and V: their heads
  std::int64_t left_window = -1;   // >= 0: key j only where i + offset - j <= left_window
  std::int64_t right_window = -1;  // >= 0: key j only where j - (i + offset) <= right_window
  std::int64_t scores_mode = 0;  // the scores output: 0 Q K^T * scale, 1 after softcap, 2 with the bias, 3 the softmax
  bool softmax_in_double = false;  // softmax_precision DOUBLE
};

struct CpuAttention : virtual CpuBase {
  // ---------------------------------------------------------------- attention

  // A key or value cache: `past` [batch, kv heads, P, head] (or nullptr) followed along its axis 2
  // by `x`, [batch, kv heads, S, head] or [batch, S, kv heads * head] with `kv_heads`.
  template <class Out, class LX, class PAST>
  Tensor<float, Out> attention_cache(const PAST& past, const Tensor<float, LX>& x, std::int64_t kv_heads) const {
    constexpr std::size_t R = AxisRank<LX>;
    static_assert(R == 3 || R == 4, "attention_cache: keys and values are 3-D or 4-D");
    static_assert(AxisRank<Out> == 4, "attention_cache: a cache is [batch, kv heads, sequence, head]");
    const auto& e = x.extents();
    const std::int64_t batch = e[0], heads = R == 4 ? e[1] : kv_heads, sequence = R == 4 ? e[2] : e[1];
    if (heads <= 0 || (R == 3 && e[2] % heads != 0)) throw KernelMisuse("attention_cache: the hidden extent is not a multiple of the kv heads");
    const std::int64_t head = R == 4 ? e[3] : e[2] / heads;
    std::int64_t before = 0;
    const float* p = nullptr;
    if constexpr (!std::is_same_v<PAST, std::nullptr_t>) {
      static_assert(AxisRank<typename PAST::AxesType> == 4, "attention_cache: a past cache is 4-D");
      const auto& pe = past.extents();
      if (pe[0] != batch || pe[1] != heads || pe[3] != head) throw KernelMisuse("attention_cache: the past cache is not [batch, kv heads, P, head] of the new entries");
      before = pe[2];
      p = past.data();
    }
    auto out = Tensor<float, Out>::uninitialized({batch, heads, before + sequence, head});
    float* y = out.mutable_data_unchecked();
    const float* in = x.data();
    for (std::int64_t b = 0; b < batch; ++b)
      for (std::int64_t h = 0; h < heads; ++h) {
        float* dst = y + (b * heads + h) * (before + sequence) * head;
        if (p) dst = std::copy_n(p + (b * heads + h) * before * head, before * head, dst);
        for (std::int64_t s = 0; s < sequence; ++s, dst += head)
          std::copy_n(in + (R == 4 ? ((b * heads + h) * sequence + s) * head : ((b * sequence + s) * heads + h) * head), head, dst);
      }
    return out;
  }

  // Y for q [batch, heads, S, head] (or [batch, S, heads * head]) over the keys and values: the
  // past caches [batch, kv heads, P, head] (or nullptr) followed by k and v, [batch, kv heads, S',
  // head] (or [batch, S', kv heads * head]); T = P + S' keys, each kv head serving heads / kv heads
  // query heads in turn. `mask` (or nullptr) is bool (false: not attended) or float (added), of
  // rank 1 to 4, broadcast to [batch, heads, S, T] from the right, its last extent at most T
  // (keys past it not attended). The causal frontier and the window sit at offset P; `nonpad` (or
  // nullptr, never with a past) holds the keys each batch holds, [batch]: keys past them are not
  // attended, and the offset is nonpad[b] - S. A query none of whose keys is attended gives 0.
  template <class Y, class LQ, class LK, class LV, class PK, class PV, class M, class NP>
  Tensor<float, Y> attention(const Tensor<float, LQ>& q, const Tensor<float, LK>& k, const Tensor<float, LV>& v, const PK& past_key,
                             const PV& past_value, const M& mask, const NP& nonpad, const AttentionParams& p,
                             std::string_view mask_name = "attn_mask", std::string_view nonpad_name = "nonpad_kv_seqlen") const {
    const KeysValues kv = keys_values(q, k, v, past_key, past_value, p);
    auto y = Tensor<float, Y>::uninitialized(y_extents<Y>(q, kv, p));
    attend(q, kv, mask, nonpad, p, y.mutable_data_unchecked(), nullptr, mask_name, nonpad_name);
    return y;
  }
  // The same, with the scores [batch, heads, S, T] that p.scores_mode chooses.
  template <class Y, class QK, class LQ, class LK, class LV, class PK, class PV, class M, class NP>
  std::tuple<Tensor<float, Y>, Tensor<float, QK>> attention_scores(const Tensor<float, LQ>& q, const Tensor<float, LK>& k,
                                                                   const Tensor<float, LV>& v, const PK& past_key, const PV& past_value,
                                                                   const M& mask, const NP& nonpad, const AttentionParams& p,
                                                                   std::string_view mask_name = "attn_mask",
                                                                   std::string_view nonpad_name = "nonpad_kv_seqlen") const {
    static_assert(AxisRank<QK> == 4, "attention_scores: the scores are [batch, heads, S, T]");
    const KeysValues kv = keys_values(q, k, v, past_key, past_value, p);
    auto y = Tensor<float, Y>::uninitialized(y_extents<Y>(q, kv, p));
    const auto q4 = query_shape(q, p);
    auto scores = Tensor<float, QK>::uninitialized({q4[0], q4[1], q4[2], kv.past + kv.sequence});
    attend(q, kv, mask, nonpad, p, y.mutable_data_unchecked(), scores.mutable_data_unchecked(), mask_name, nonpad_name);
    return {std::move(y), std::move(scores)};
  }

 private:
  // Q as [batch, heads, S, head].
  template <class LQ>
  static std::array<std::int64_t, 4> query_shape(const Tensor<float, LQ>& q, const AttentionParams& p) {
    constexpr std::size_t R = AxisRank<LQ>;
    static_assert(R == 3 || R == 4, "attention: Q is 3-D or 4-D");
    const auto& e = q.extents();
    if constexpr (R == 4) {
      return {e[0], e[1], e[2], e[3]};
    } else {
      if (p.q_heads <= 0 || e[2] % p.q_heads != 0) throw KernelMisuse("attention: Q's hidden extent is not a multiple of its heads");
      return {e[0], p.q_heads, e[1], e[2] / p.q_heads};
    }
  }
  // Where the keys and values lie: the past caches (P rows a kv head), then the new ones.
  struct KeysValues {
    const float* past_k = nullptr;
    const float* past_v = nullptr;
    const float* k = nullptr;
    const float* v = nullptr;
    std::int64_t batch = 0, heads = 0, past = 0, sequence = 0, head = 0, v_head = 0;
    bool three_d = false;
    // Key (or value, of width w) j of kv head h of batch b.
    const float* row(const float* cache, const float* fresh, std::int64_t w, std::int64_t b, std::int64_t h, std::int64_t j) const {
      if (j < past) return cache + ((b * heads + h) * past + j) * w;
      j -= past;
      return fresh + (three_d ? (b * sequence + j) * heads * w + h * w : ((b * heads + h) * sequence + j) * w);
    }
  };
  template <class LQ, class LK, class LV, class PK, class PV>
  static KeysValues keys_values(const Tensor<float, LQ>& q, const Tensor<float, LK>& k, const Tensor<float, LV>& v, const PK& past_key,
                                const PV& past_value, const AttentionParams& p) {
    constexpr std::size_t R = AxisRank<LQ>;
    static_assert(AxisRank<LK> == R && AxisRank<LV> == R, "attention: Q, K and V share a rank");
    static_assert(std::is_same_v<PK, std::nullptr_t> == std::is_same_v<PV, std::nullptr_t>, "attention: past_key and past_value come together");
    KeysValues kv;
    const auto& ke = k.extents();
    const auto& ve = v.extents();
    kv.three_d = R == 3;
    kv.batch = ke[0];
    kv.heads = R == 4 ? ke[1] : p.kv_heads;
    kv.sequence = R == 4 ? ke[2] : ke[1];
    if (kv.heads <= 0 || (R == 3 && (ke[2] % kv.heads != 0 || ve[2] % kv.heads != 0)))
      throw KernelMisuse("attention: K's and V's hidden extents are not multiples of the kv heads");
    kv.head = R == 4 ? ke[3] : ke[2] / kv.heads;
    kv.v_head = R == 4 ? ve[3] : ve[2] / kv.heads;
    if (ve[0] != kv.batch || (R == 4 ? ve[1] != kv.heads || ve[2] != kv.sequence : ve[1] != kv.sequence))
      throw KernelMisuse("attention: K and V disagree in batch, heads or sequence");
    kv.k = k.data();
    kv.v = v.data();
    if constexpr (!std::is_same_v<PK, std::nullptr_t>) {
      static_assert(PK::RANK == 4 && PV::RANK == 4, "attention: the past caches are [batch, kv heads, P, head]");
      const auto& pk = past_key.extents();
      const auto& pv = past_value.extents();
      if (pk[0] != kv.batch || pk[1] != kv.heads || pk[3] != kv.head || pv[0] != kv.batch || pv[1] != kv.heads || pv[2] != pk[2] ||
          pv[3] != kv.v_head)
        throw KernelMisuse("attention: the past caches are not [batch, kv heads, P, head] of K and V");
      kv.past = pk[2];
      kv.past_k = past_key.data();
      kv.past_v = past_value.data();
    }
    return kv;
  }
  template <class Y, class LQ>
  static std::array<std::int64_t, AxisRank<LQ>> y_extents(const Tensor<float, LQ>& q, const KeysValues& kv, const AttentionParams& p) {
    static_assert(AxisRank<Y> == AxisRank<LQ>, "attention: Y has Q's rank");
    const auto q4 = query_shape(q, p);
    if constexpr (AxisRank<LQ> == 4) return {q4[0], q4[1], q4[2], kv.v_head};
    else return {q4[0], q4[2], q4[1] * kv.v_head};
  }

  // The mask's elements as a bias, at (b, h, i, j) through strides of 0 where it broadcasts.
  struct MaskView {
    const float* floats = nullptr;
    const bool* bools = nullptr;
    std::array<std::int64_t, 4> stride{};  // over (batch, heads, S, its last extent)
    std::int64_t last = 0;                 // its last extent
  };
  template <class M>
  static MaskView mask_view(const M& mask, const std::array<std::int64_t, 4>& q4, std::int64_t total, std::string_view mask_name) {
    MaskView m;
    if constexpr (!std::is_same_v<M, std::nullptr_t>) {
      using E = typename M::ElementType;
      static_assert(std::is_same_v<E, float> || std::is_same_v<E, bool>, "attention: the mask is bool or float");
      constexpr std::size_t R = AxisRank<typename M::AxesType>;
      static_assert(R >= 1 && R <= 4, "attention: the mask has rank 1 to 4");
      const auto& e = mask.extents();
      const std::array<std::int64_t, 4> target{q4[0], q4[1], q4[2], total};
      std::array<std::int64_t, 4> dims{1, 1, 1, 1};
      for (std::size_t k = 0; k < R; ++k) dims[4 - R + k] = e[k];
      for (std::size_t k = 0; k < 3; ++k)
        if (dims[k] != 1 && dims[k] != target[k])
          throw KernelRefusal(InputError{std::string(mask_name), "", "",
                                         "axis " + std::to_string(k + R - 4) + " has " + std::to_string(dims[k]) +
                                             " elements, which broadcast to neither 1 nor " + std::to_string(target[k])});
      if (dims[3] > total)
        throw KernelRefusal(InputError{std::string(mask_name), "", "",
                                       "its last axis has " + std::to_string(dims[3]) + " elements, more than the " + std::to_string(total) + " keys"});
      std::int64_t s = 1;
      for (std::size_t k = 4; k-- > 0;) {
        m.stride[k] = dims[k] == 1 && k < 3 ? 0 : s;
        s *= dims[k];
      }
      m.last = dims[3];
      if constexpr (std::is_same_v<E, bool>) m.bools = mask.data();
      else m.floats = mask.data();
    }
    return m;
  }

  template <class LQ, class M, class NP>
  void attend(const Tensor<float, LQ>& q, const KeysValues& kv, const M& mask, const NP& nonpad, const AttentionParams& p, float* y,
              float* scores, std::string_view mask_name, std::string_view nonpad_name) const {
    const auto q4 = query_shape(q, p);
    const std::int64_t batch = q4[0], heads = q4[1], S = q4[2], head = q4[3];
    const std::int64_t kv_heads = kv.heads, T = kv.past + kv.sequence, v_head = kv.v_head, past = kv.past;
    if (kv.batch != batch || kv.head != head) throw KernelMisuse("attention: Q and K disagree in batch or head size");
    if (heads % kv_heads != 0) throw KernelMisuse("attention: the query heads are not a multiple of the kv heads");
    const std::int64_t group = heads / kv_heads;
    const MaskView m = mask_view(mask, q4, T, mask_name);
    const std::int64_t* held = nullptr;
    if constexpr (!std::is_same_v<NP, std::nullptr_t>) {
      static_assert(std::is_same_v<typename NP::ElementType, std::int64_t>, "attention: nonpad_kv_seqlen is int64");
      if (nonpad.count() != batch) throw KernelMisuse("attention: nonpad_kv_seqlen is not [batch]");
      held = nonpad.data();
      for (std::int64_t b = 0; b < batch; ++b)
        if (held[b] < 0 || held[b] > T)
          throw KernelRefusal(InputError{std::string(nonpad_name), "", "",
                                         "batch " + std::to_string(b) + " holds " + std::to_string(held[b]) + " keys, outside [0, " + std::to_string(T) + "]"});
    }
    constexpr float kMasked = -std::numeric_limits<float>::infinity();
    const bool q3 = AxisRank<LQ> == 3;
    const float* qd = q.data();
    // Each (batch, head) is a job of its own rows, its products serial: the same result on any
    // number of threads.
    run_jobs(workers(), batch * heads, [&](std::int64_t job) {
      const std::int64_t b = job / heads, h = job % heads, g = h / group;
      const std::int64_t offset = held && !past ? held[b] - S : past;
      const std::int64_t keys_held = held ? held[b] : T;
      // The group's keys and values as rows of their own (the past ones, then the new), the keys
      // packed as the product's B.
      std::vector<float> key_rows(static_cast<std::size_t>(T * head)), value_rows(static_cast<std::size_t>(T * v_head));
      for (std::int64_t j = 0; j < T; ++j) {
        std::copy_n(kv.row(kv.past_k, kv.k, head, b, g, j), head, key_rows.data() + j * head);
        std::copy_n(kv.row(kv.past_v, kv.v, v_head, b, g, j), v_head, value_rows.data() + j * v_head);
      }
      std::vector<float> packed(static_cast<std::size_t>(Sgemm::packed_b_size(head, T)));
      Sgemm::pack_b(key_rows.data(), 1, head, head, T, packed.data());
      const float* q0 = qd + (q3 ? b * S * heads * head + h * head : (b * heads + h) * S * head);
      std::vector<float> logits(static_cast<std::size_t>(S * T));
      Sgemm::Epilogue scaled;
      scaled.alpha = p.scale;
      Sgemm::run(S, T, head, Sgemm::AOperand::row_major(q0, q3 ? heads * head : head), Sgemm::packed_b(packed.data(), head), logits.data(), T,
                 scaled);
      std::vector<double> wide(p.softmax_in_double ? static_cast<std::size_t>(T) : 0);
      for (std::int64_t i = 0; i < S; ++i) {
        float* row = logits.data() + i * T;  // the scores, then the weights in place
        float* si = scores ? scores + ((b * heads + h) * S + i) * T : nullptr;
        // The causal frontier, the window and the keys held leave one run of keys [lo, hi).
        const std::int64_t at = offset + i;
        std::int64_t lo = 0, hi = std::min(T, keys_held);
        if (p.causal) hi = std::min(hi, at + 1);
        if (p.right_window >= 0) hi = std::min(hi, at + p.right_window + 1);
        if (p.left_window >= 0) lo = std::max(lo, at - p.left_window);
        lo = std::min(lo, T);
        hi = std::max(hi, lo);
        const auto capped = [&](float raw) { return p.softcap > 0 ? p.softcap * std::tanh(raw / p.softcap) : raw; };
        if (si) {
          for (std::int64_t j = 0; j < T; ++j) si[j] = p.scores_mode == 0 ? row[j] : capped(row[j]);
          if (p.scores_mode == 2)  // outside the run the bias is -inf
            for (std::int64_t j = 0; j < T; ++j)
              if (j < lo || j >= hi) si[j] += kMasked;
        }
        // Inside the run, the capped score plus the mask's bias; whether any key is attended.
        bool any = !(m.floats || m.bools) && hi > lo;
        for (std::int64_t j = lo; j < hi; ++j) {
          float bias = 0.0f;
          if (m.floats || m.bools) {
            if (j >= m.last) bias = kMasked;
            else {
              const std::int64_t e = b * m.stride[0] + h * m.stride[1] + i * m.stride[2] + j;
              bias = m.bools ? (m.bools[e] ? 0.0f : kMasked) : m.floats[e];
            }
            any = any || bias != kMasked;
          }
          row[j] = capped(row[j]) + bias;
        }
        if (si && p.scores_mode == 2) std::copy(row + lo, row + hi, si + lo);
        std::fill(row, row + lo, 0.0f);
        std::fill(row + hi, row + T, 0.0f);
        if (any) softmax_row(row + lo, wide.data(), hi - lo, p.softmax_in_double);
        else std::fill(row + lo, row + hi, 0.0f);
        if (si && p.scores_mode == 3) std::copy(row, row + T, si);
      }
      float* y0 = y + (q3 ? b * S * heads * v_head + h * v_head : (b * heads + h) * S * v_head);
      Sgemm::run(S, v_head, T, Sgemm::AOperand::row_major(logits.data(), T), Sgemm::BOperand::row_major(value_rows.data(), v_head), y0,
                 q3 ? heads * v_head : v_head, Sgemm::Epilogue{});
    });
  }

  // The softmax of a row of n logits, in place: a row of -inf (no key attended) gives zeros, not NaN.
  static void softmax_row(float* row, double* wide, std::int64_t n, bool in_double) {
    float max = -std::numeric_limits<float>::infinity();
    for (std::int64_t j = 0; j < n; ++j) max = std::max(max, row[j]);
    if (max == -std::numeric_limits<float>::infinity()) max = 0.0f;
    if (in_double) {
      double sum = 0;
      for (std::int64_t j = 0; j < n; ++j) sum += wide[j] = std::exp(static_cast<double>(row[j]) - max);
      if (sum == 0) sum = 1;
      for (std::int64_t j = 0; j < n; ++j) row[j] = static_cast<float>(wide[j] / sum);
      return;
    }
    float sum = 0;
    for (std::int64_t j = 0; j < n; ++j) sum += row[j] = std::exp(row[j] - max);
    if (sum == 0) sum = 1;
    for (std::int64_t j = 0; j < n; ++j) row[j] /= sum;
  }
};
