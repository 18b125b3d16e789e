#include "wai/stage_ops.hpp"

#include "wai/fixed_point.hpp"

#include <algorithm>

namespace loam::wai {

namespace {
[[noreturn]] void condition(const std::string& op, const std::string& what) {
  throw StageRefusalError(RefusalCode::model_mismatch, -1, op + ": " + what);
}
[[noreturn]] void geometry(const std::string& op, const std::string& what) {
  throw StageRefusalError(RefusalCode::geometry_mismatch, -1, op + ": " + what);
}
}  // namespace

std::int64_t dequantize(std::int64_t sym, std::int64_t f, std::int64_t base) {
  if (f < 0 || f > 62) throw StageRefusalError(RefusalCode::field_range, 0, "dequantize: f " + std::to_string(f) + " is not in 0..=62");
  const i128 v = static_cast<i128>(sym) * (static_cast<i128>(1) << f) + base;  // |sym·2^f| <= 2^125
  if (!fits_i64(v)) throw StageRefusalError(RefusalCode::field_range, 0, "dequantize: value " + to_string_i128(v) + " does not fit i64");
  return static_cast<std::int64_t>(v);
}

std::int64_t bucket(std::int64_t sigma, const std::vector<std::int64_t>& e, BucketRule rule) {
  if (rule == BucketRule::ceil) {
    if (e.empty()) condition("bucket", "ceil needs at least one edge");
    const std::int64_t N = static_cast<std::int64_t>(e.size());
    const std::int64_t s = std::max(sigma, e[0]);
    std::int64_t n = 0;
    for (std::int64_t i = 0; i < N - 1; ++i) n += s <= e[static_cast<std::size_t>(i)] ? 1 : 0;
    return (N - 1) - n;
  }
  if (e.empty()) condition("bucket", "floor needs at least one edge");
  for (std::size_t i = 1; i < e.size(); ++i) {
    if (e[i] < e[i - 1]) condition("bucket", "floor edges decrease at edge " + std::to_string(i + 1));
  }
  std::int64_t b = 0;
  for (auto x : e) b += x <= sigma ? 1 : 0;
  return b;
}

std::int64_t scale_index(std::int64_t v, std::int64_t s, std::int64_t n) {
  if (s < 0 || s > 127) condition("scale_index", "s " + std::to_string(s) + " is not in 0..=127");
  if (n < 1) condition("scale_index", "n " + std::to_string(n) + " is below 1");
  const i128 q = round_shift(v, static_cast<unsigned>(s), Round::half_up);
  return static_cast<std::int64_t>(std::clamp<i128>(q, 0, n - 1));
}

Tensor block_stat(const Tensor& x, std::int64_t b, std::int64_t s, std::int64_t lo, std::int64_t hi) {
  if (b < 1) condition("block_stat", "b " + std::to_string(b) + " is below 1");
  if (s < 0 || s > 127) condition("block_stat", "s " + std::to_string(s) + " is not in 0..=127");
  if (lo > hi) condition("block_stat", "lo " + std::to_string(lo) + " > hi " + std::to_string(hi));
  Tensor out(x.shape);
  const std::int64_t H = x.shape.h, W = x.shape.w;
  for (std::int64_t c = 0; c < x.shape.c; ++c)
    for (std::int64_t by = 0; by < H; by += b)
      for (std::int64_t bx = 0; bx < W; bx += b) {
        const std::int64_t ey = std::min(H, by + b), ex = std::min(W, bx + b);
        i128 S = 0;  // at most 2^26 values of i64
        for (std::int64_t y = by; y < ey; ++y)
          for (std::int64_t xx = bx; xx < ex; ++xx) S += x.at(c, y, xx);
        const std::int64_t v = static_cast<std::int64_t>(std::clamp<i128>(round_shift(S, static_cast<unsigned>(s), Round::half_up), lo, hi));
        for (std::int64_t y = by; y < ey; ++y)
          for (std::int64_t xx = bx; xx < ex; ++xx) out.at(c, y, xx) = v;
      }
  return out;
}

std::int64_t band_lookup(std::int64_t v, const std::vector<std::int64_t>& e,
                         const std::vector<std::vector<std::int64_t>>& table, std::int64_t row) {
  if (row < 0 || row >= static_cast<std::int64_t>(table.size())) {
    condition("band_lookup", "row " + std::to_string(row) + " is not in [0, " + std::to_string(table.size()) + ")");
  }
  const auto& r = table[static_cast<std::size_t>(row)];
  if (r.size() != e.size() + 1) {
    condition("band_lookup", "row " + std::to_string(row) + " holds " + std::to_string(r.size()) + " entries, not m + 1 = " + std::to_string(e.size() + 1));
  }
  std::size_t band = 0;
  for (auto x : e) band += v >= x ? 1 : 0;
  return r[band];
}

// ---------------------------------------------------------------------------------------------
// E8 mans_decode

namespace {

// The backward 64-bit bit window of E8. Every refusal is stream_exhausted at the position the
// caller names.
class MansWindow {
 public:
  explicit MansWindow(const std::vector<std::uint8_t>& stream) : m_(8, 0) {
    m_.insert(m_.end(), stream.begin(), stream.end());
    L_ = stream.size();
  }
  std::int64_t at = 0;  // the position a refusal is reported at

  void init() {
    p_ = L_;
    h_ = le64(p_);
    if (h_ == 0) exhausted("init: the last 8 bytes are zero (no sentinel bit)");
    b_ = 63 - static_cast<unsigned>(__builtin_clzll(h_));
    h_ -= std::uint64_t{1} << b_;
    s1 = static_cast<std::uint8_t>(read(8));
    s2 = static_cast<std::uint8_t>(read(8));
    flush();
  }
  std::uint64_t read(unsigned k) {
    if (k > b_) exhausted("read(" + std::to_string(k) + ") with " + std::to_string(b_) + " bits in the window");
    b_ -= k;
    const std::uint64_t r = h_ >> b_;
    h_ -= r << b_;
    return r;
  }
  void flush() {
    const std::uint64_t d = 7 ^ (b_ / 8);
    if (d > p_) exhausted("flush needs " + std::to_string(d) + " bytes, " + std::to_string(p_) + " remain");
    p_ -= d;
    const unsigned nb = 56 + (b_ % 8);
    h_ = le64(p_) & ((std::uint64_t{1} << nb) - 1);
    b_ = nb;
  }
  std::uint8_t s1 = 0, s2 = 0;

 private:
  [[noreturn]] void exhausted(const std::string& what) const {
    throw StageRefusalError(RefusalCode::stream_exhausted, at, "mans_decode: " + what);
  }
  std::uint64_t le64(std::uint64_t i) const {
    std::uint64_t v = 0;
    for (int k = 0; k < 8; ++k) v |= static_cast<std::uint64_t>(m_[i + k]) << (8 * k);
    return v;
  }
  std::vector<std::uint8_t> m_;
  std::uint64_t L_ = 0, p_ = 0, h_ = 0;
  unsigned b_ = 0;
};

std::int64_t wrap16(std::int64_t a) { return ((a + 32768) % 65536 + 65536) % 65536 - 32768; }

// The 256-entry latent table of one row P (E8, *Building the latent tables*).
std::vector<std::uint32_t> latent_table(const std::vector<std::int64_t>& P) {
  const std::size_t w = P.size();
  std::vector<std::int64_t> C(w + 1, 0), F(w + 1), G(w + 1);
  for (std::size_t k = 0; k < w; ++k) C[k + 1] = C[k] + P[k];
  for (std::size_t k = 0; k <= w; ++k) {
    F[k] = C[k] - C[k] / 2;
    G[k] = C[k] / 2 + 128;
  }
  std::vector<std::uint32_t> T(256, 0);
  auto entry = [](std::int64_t sym, std::int64_t next) {
    unsigned nb = 0;
    while ((next << nb) < 256) ++nb;
    const std::int64_t base = (next << nb) ^ 256;
    return static_cast<std::uint32_t>((static_cast<std::uint32_t>(nb) << 24) | (static_cast<std::uint32_t>(base) << 16) |
                                      static_cast<std::uint32_t>(sym & 0xffff));
  };
  for (std::size_t k = 0; k < w && C[k] < 256; ++k) {
    const std::int64_t sym = k % 2 == 0 ? static_cast<std::int64_t>(k / 2) : -static_cast<std::int64_t>((k + 1) / 2);
    for (std::int64_t u = F[k]; u < F[k + 1]; ++u) T[static_cast<std::size_t>(u)] = entry(sym, P[k] + (u - F[k]));
    for (std::int64_t u = G[k]; u < G[k + 1]; ++u) T[static_cast<std::size_t>(u)] = entry(sym, P[k] + (F[k + 1] - F[k]) + (u - G[k]));
  }
  return T;
}

}  // namespace

std::vector<std::vector<std::int64_t>> mans_decode_sgm(const std::vector<std::uint8_t>& memory,
                                                       const std::vector<std::vector<std::int64_t>>& pmf,
                                                       const std::vector<std::int64_t>& bounds,
                                                       const std::vector<MansSpan>& spans) {
  // Conditions, before the window starts.
  if (pmf.empty()) condition("mans_decode", "no rows P");
  const std::size_t w = pmf[0].size();
  if (w < 1) condition("mans_decode", "rows of width 0");
  for (std::size_t s = 0; s < pmf.size(); ++s) {
    if (pmf[s].size() != w) condition("mans_decode", "row " + std::to_string(s) + " has width " + std::to_string(pmf[s].size()) + ", row 0 " + std::to_string(w));
    i128 sum = 0;
    for (auto v : pmf[s]) {
      if (v < 0) condition("mans_decode", "row " + std::to_string(s) + " has a negative entry");
      sum += v;
    }
    if (sum != 256) condition("mans_decode", "row " + std::to_string(s) + " sums to " + to_string_i128(sum) + ", not 256");
  }
  for (std::size_t s = 0; s < bounds.size(); ++s) {
    if (bounds[s] < 0 || bounds[s] > 255) condition("mans_decode", "bound " + std::to_string(s) + " is not in [0, 255]");
  }
  for (std::size_t k = 0; k < spans.size(); ++k) {
    if (spans[k].mask.size() != spans[k].sigma.size()) condition("mans_decode", "span " + std::to_string(k) + "'s mask and distributions differ in length");
    for (auto s : spans[k].sigma) {
      if (s < 0 || static_cast<std::size_t>(s) >= pmf.size() || static_cast<std::size_t>(s) >= bounds.size()) {
        condition("mans_decode", "span " + std::to_string(k) + " names distribution " + std::to_string(s) + ", which has no row or no bound");
      }
    }
  }
  std::vector<std::vector<std::uint32_t>> T;
  for (const auto& P : pmf) T.push_back(latent_table(P));

  MansWindow win(memory);
  win.at = 0;
  win.init();
  std::vector<std::vector<std::int64_t>> out;
  std::int64_t pos0 = 0;  // the global index of the span's first position
  for (const MansSpan& span : spans) {
    const std::int64_t Lp = static_cast<std::int64_t>(span.mask.size());
    std::vector<std::int64_t> sym(static_cast<std::size_t>(Lp), 0);
    auto in = [&](bool second, std::int64_t i) {
      if (!span.mask[static_cast<std::size_t>(i)]) return;
      win.at = pos0 + i;
      std::uint8_t& s = second ? win.s2 : win.s1;
      const std::uint32_t t = T[static_cast<std::size_t>(span.sigma[static_cast<std::size_t>(i)])][s];
      s = static_cast<std::uint8_t>(((t >> 16) | win.read(t >> 24)) & 255);
      sym[static_cast<std::size_t>(i)] = wrap16(t & 0xffff);
    };
    auto outf = [&](std::int64_t i) {
      if (!span.mask[static_cast<std::size_t>(i)]) return;
      win.at = pos0 + i;
      const std::int64_t beta = bounds[static_cast<std::size_t>(span.sigma[static_cast<std::size_t>(i)])];
      std::int64_t& y = sym[static_cast<std::size_t>(i)];
      if (y + beta != 0) return;
      const std::uint64_t f = win.read(1);
      const std::int64_t v = static_cast<std::int64_t>(win.read(f == 1 ? 3 : 16));
      y = v % 2 == 0 ? wrap16(v / 2 + beta) : wrap16(-(v / 2) - beta);
      win.flush();
    };
    std::int64_t i = 0;
    for (; i + 4 <= Lp; i += 4) {
      in(false, i);
      in(true, i + 1);
      in(false, i + 2);
      in(true, i + 3);
      win.at = pos0 + i + 3;
      win.flush();
      for (int k = 0; k < 4; ++k) outf(i + k);
    }
    if (Lp % 4 >= 2) {
      in(false, i);
      outf(i);
      in(true, i + 1);
      outf(i + 1);
      win.at = pos0 + i + 1;
      win.flush();
      i += 2;
    }
    if (Lp % 2 == 1) {
      in(false, i);
      outf(i);
      win.at = pos0 + i;
      win.flush();
    }
    pos0 += Lp;
    out.push_back(std::move(sym));
  }
  return out;
}

std::vector<std::vector<std::int64_t>> mans_decode_fac(const std::vector<std::uint8_t>& memory,
                                                       const std::vector<std::vector<std::int64_t>>& rows,
                                                       const std::vector<std::int64_t>& lengths) {
  if (rows.size() != lengths.size()) condition("mans_decode", std::to_string(rows.size()) + " rows but " + std::to_string(lengths.size()) + " lengths");
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (rows[r].size() != 63) condition("mans_decode", "row " + std::to_string(r) + " has " + std::to_string(rows[r].size()) + " counts, not 63");
    std::int64_t prev = 0;
    for (auto c : rows[r]) {
      if (c < prev || c > 255) condition("mans_decode", "row " + std::to_string(r) + "'s counts are not non-decreasing within [0, 255]");
      prev = c;
    }
    if (lengths[r] < 0) condition("mans_decode", "row " + std::to_string(r) + " has a negative length");
  }
  // The preprocessing table Zp[1..511].
  std::vector<std::uint32_t> Zp(512, 0);
  unsigned nb = 0;
  for (std::uint32_t i = 511; i >= 1; --i) {
    if ((i << nb) < 256) ++nb;
    Zp[i] = ((i << nb) ^ 256) + 256 * nb;
  }
  std::vector<std::uint32_t> Tz(256, 0);
  MansWindow win(memory);
  win.at = 0;
  win.init();
  std::vector<std::vector<std::int64_t>> out;
  std::int64_t pos0 = 0, last_in = 0;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    std::int64_t cprev = 0;
    for (std::int64_t a = 0; a < 63; ++a) {
      const std::int64_t ca = rows[r][static_cast<std::size_t>(a)], k = ca - cprev;
      for (std::int64_t j = cprev; j < ca; ++j) Tz[static_cast<std::size_t>(j)] = (Zp[static_cast<std::size_t>(k + j - cprev)] << 16) + static_cast<std::uint32_t>(a);
      cprev = ca;
    }
    Tz[255] = (Zp[1] << 16) + 63;
    const std::int64_t Lp = lengths[r];
    std::vector<std::int64_t> sym(static_cast<std::size_t>(Lp), 0);
    auto in = [&](bool second, std::int64_t i) {
      win.at = last_in = pos0 + i;
      std::uint8_t& s = second ? win.s2 : win.s1;
      const std::uint32_t t = Tz[s];
      s = static_cast<std::uint8_t>(((t >> 16) | win.read(t >> 24)) & 255);
      sym[static_cast<std::size_t>(i)] = t & 255;
    };
    auto outf = [&](std::int64_t i) {
      win.at = pos0 + i;
      if (sym[static_cast<std::size_t>(i)] == 63) sym[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(win.read(6));
    };
    std::int64_t i = 0;
    for (; i + 4 <= Lp; i += 4) {
      in(false, i);
      in(true, i + 1);
      in(false, i + 2);
      in(true, i + 3);
      for (int k = 0; k < 4; ++k) outf(i + k);
      win.at = pos0 + i + 3;
      win.flush();
    }
    if (Lp % 4 >= 2) {
      in(false, i);
      outf(i);
      in(true, i + 1);
      outf(i + 1);
      i += 2;
    }
    if (Lp % 2 == 1) {
      in(false, i);
      outf(i);
    }
    win.at = last_in;
    win.flush();
    pos0 += Lp;
    out.push_back(std::move(sym));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------

std::int64_t residual_step(std::int64_t pred, std::int64_t r, std::int64_t q, std::int64_t lo, std::int64_t hi) {
  if (!(lo < hi)) condition("residual_step", "lo " + std::to_string(lo) + " is not below hi " + std::to_string(hi));
  if (pred < lo || pred > hi) condition("residual_step", "pred " + std::to_string(pred) + " is outside [lo, hi]");
  if (q < 1 || q > 65535) condition("residual_step", "q " + std::to_string(q) + " is not in [1, 65535]");
  if (r < INT32_MIN || r > INT32_MAX) condition("residual_step", "r " + std::to_string(r) + " does not fit i32");
  const i128 v = static_cast<i128>(pred) + static_cast<i128>(r) * q;  // |r·q| < 2^47
  return static_cast<std::int64_t>(std::clamp<i128>(v, lo, hi));
}

namespace {
// E10's half-pel rule on the four neighbours of (iy, ix) through p.
template <typename P>
std::int64_t half_pel(P p, std::int64_t iy, std::int64_t fy, std::int64_t ix, std::int64_t fx) {
  // Formed in 128 bits: the samples are u8 in every registered use (sums <= 4·255 + 2), but any
  // i64 samples average without wrapping.
  auto q = [&](std::int64_t Y, std::int64_t X) { return static_cast<i128>(p(Y, X)); };
  if (fy == 0 && fx == 0) return p(iy, ix);
  if (fy == 0) return static_cast<std::int64_t>((q(iy, ix) + q(iy, ix + 1) + 1) >> 1);
  if (fx == 0) return static_cast<std::int64_t>((q(iy, ix) + q(iy + 1, ix) + 1) >> 1);
  return static_cast<std::int64_t>((q(iy, ix) + q(iy, ix + 1) + q(iy + 1, ix) + q(iy + 1, ix + 1) + 2) >> 2);
}
}  // namespace

std::int64_t mc_predict(const Tensor& frame, std::int64_t y, std::int64_t x, std::int64_t c, std::int64_t dy,
                        std::int64_t dx, std::int64_t precision) {
  const std::int64_t h = frame.shape.h, w = frame.shape.w;
  if (frame.shape.c != 3) condition("mc_predict", "the frame has " + std::to_string(frame.shape.c) + " channels, not 3");
  if (c < 0 || c > 2) condition("mc_predict", "channel " + std::to_string(c) + " is not 0, 1 or 2");
  if (precision != 1 && precision != 2) condition("mc_predict", "mv_precision " + std::to_string(precision) + " is not 1 or 2");
  if (y < 0 || y >= h || x < 0 || x >= w) condition("mc_predict", "pixel (" + std::to_string(y) + ", " + std::to_string(x) + ") is outside the frame");
  if (dy < INT32_MIN || dy > INT32_MAX || dx < INT32_MIN || dx > INT32_MAX) condition("mc_predict", "the vector does not fit i32");
  auto p = [&](std::int64_t Y, std::int64_t X) -> std::int64_t {
    return frame.at(c, std::clamp<std::int64_t>(Y, 0, h - 1), std::clamp<std::int64_t>(X, 0, w - 1));
  };
  if (precision == 1) return p(y + dy, x + dx);
  return half_pel(p, y + (dy >> 1), dy & 1, x + (dx >> 1), dx & 1);
}

Tensor up2_predict(const Tensor& prev, std::int64_t d0, std::int64_t d1) {
  if (d0 < 1 || d1 < 1) geometry("up2_predict", "d0 or d1 is 0");
  const std::int64_t hp = (d0 + 1) / 2, wp = (d1 + 1) / 2;
  if (prev.shape.h != hp || prev.shape.w != wp) {
    geometry("up2_predict", "prev is " + to_string(prev.shape) + ", the picture below " + std::to_string(d0) + "×" +
                                std::to_string(d1) + " is " + std::to_string(hp) + "×" + std::to_string(wp));
  }
  Tensor out(Shape{prev.shape.c, d0, d1});
  for (std::int64_t ch = 0; ch < prev.shape.c; ++ch) {
    auto p = [&](std::int64_t Y, std::int64_t X) -> std::int64_t { return prev.at(ch, std::min(Y, hp - 1), std::min(X, wp - 1)); };
    for (std::int64_t y = 0; y < d0; ++y)
      for (std::int64_t x = 0; x < d1; ++x) out.at(ch, y, x) = half_pel(p, y >> 1, y & 1, x >> 1, x & 1);
  }
  return out;
}

Tensor rate_predict(const Tensor& prev, std::int64_t rate_num, std::int64_t rate_den, std::int64_t d0) {
  if (rate_num < 1 || rate_den < 1 || d0 < 1) geometry("rate_predict", "d0, rate_num or rate_den is 0");
  if (rate_num > UINT32_MAX || rate_den > UINT32_MAX) condition("rate_predict", "rate_num or rate_den is past a u32");
  const std::int64_t n = prev.shape.w;
  if (prev.shape.h != 1 || static_cast<i128>(d0) > static_cast<i128>(n) * rate_num / rate_den) {
    geometry("rate_predict", "prev is " + to_string(prev.shape) + ", too short for " + std::to_string(d0) + " samples at " +
                                 std::to_string(rate_num) + "/" + std::to_string(rate_den));
  }
  auto rdiv = [](i128 num, i128 d) -> i128 {
    if (d < 1) return 0;
    const i128 a = num < 0 ? -num : num;
    const i128 q = (2 * a + d) / (2 * d);
    return num < 0 ? -q : q;
  };
  Tensor out(Shape{prev.shape.c, 1, d0});
  for (std::int64_t ch = 0; ch < prev.shape.c; ++ch)
    for (std::int64_t i = 0; i < d0; ++i) {
      const i128 s = static_cast<i128>(i) * rate_den;
      const std::int64_t lo = static_cast<std::int64_t>(s / rate_num), rho = static_cast<std::int64_t>(s % rate_num);
      const std::int64_t hi = std::min(lo + 1, n - 1);
      const i128 a = prev.at(ch, 0, lo), b = prev.at(ch, 0, hi);
      out.at(ch, 0, i) = static_cast<std::int64_t>(rdiv(a * rate_num + (b - a) * rho, rate_num));
    }
  return out;
}

std::vector<std::int64_t> coding_order(Shape s, bool checkerboard, bool anchor) {
  if (s.c < 1 || s.h < 1 || s.w < 1) condition("coding_order", "shape " + to_string(s) + " has an empty side");
  if (static_cast<i128>(s.c) * s.h * s.w > kMaxElemsCap) condition("coding_order", "shape " + to_string(s) + " is past 2^26 elements");
  std::vector<std::int64_t> idx;
  for (std::int64_t c = 0; c < s.c; ++c)
    for (std::int64_t y = 0; y < s.h; ++y)
      for (std::int64_t x = 0; x < s.w; ++x) {
        if (checkerboard && (((y + x) % 2 == 0) != anchor)) continue;
        idx.push_back((c * s.h + y) * s.w + x);
      }
  return idx;
}

}  // namespace loam::wai
