#include "stage_cases.hpp"

#include <cstdint>
#include <functional>
#include <initializer_list>

namespace loam::wai::vectors {

namespace {

using json = nlohmann::json;

json I(std::int64_t v) { return std::to_string(v); }

json ints(std::initializer_list<std::int64_t> vs) {
  json a = json::array();
  for (std::int64_t v : vs) a.push_back(I(v));
  return a;
}

json ints(const std::vector<std::int64_t>& vs) {
  json a = json::array();
  for (std::int64_t v : vs) a.push_back(I(v));
  return a;
}

json tensor(std::int64_t c, std::int64_t h, std::int64_t w, const std::vector<std::int64_t>& data) {
  return json{{"data", ints(data)}, {"shape", ints({c, h, w})}};
}

constexpr std::int64_t kI64Max = INT64_MAX, kI64Min = INT64_MIN;
constexpr std::int64_t kI32Max = INT32_MAX, kI32Min = INT32_MIN;

// Deterministic stream bytes (xorshift64), so the corpus is fixed by this file alone.
std::string stream_hex(std::uint64_t seed, std::size_t n) {
  static const char* digits = "0123456789abcdef";
  std::uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  std::string out;
  for (std::size_t i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    const unsigned b = static_cast<unsigned>(x >> 56);
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  return out;
}

struct Stage {
  std::vector<StageCase> cases;
  void add(const std::string& op, const std::string& id, json in, json modes = json::object()) {
    cases.push_back(StageCase{op, id, std::move(in), std::move(modes)});
  }
};

void dequantize(Stage& s) {
  auto d = [&](const std::string& id, std::int64_t sym, std::int64_t f, std::int64_t base) {
    s.add("dequantize", id, json{{"sym", I(sym)}, {"f", I(f)}, {"base", I(base)}});
  };
  d("plain", 5, 3, -7);
  d("negative_sym", -3, 4, 2);
  d("f0", -9, 0, 9);
  d("f62", 1, 62, 0);
  d("f63_refused", 1, 63, 0);
  d("at_i64_max", 1, 62, (std::int64_t{1} << 62) - 1);
  d("one_past_i64_max", 1, 62, std::int64_t{1} << 62);
  d("at_i64_min", -2, 62, 0);
  d("one_past_i64_min", -2, 62, -1);
  d("sym_alone_past_i64", std::int64_t{1} << 40, 30, kI64Min);
}

void bucket(Stage& s) {
  const json ceil{{"bucket", "ceil"}}, floor{{"bucket", "floor"}};
  auto b = [&](const std::string& id, std::int64_t sigma, std::initializer_list<std::int64_t> edges, const json& m) {
    s.add("bucket", id, json{{"sigma", I(sigma)}, {"edges", ints(edges)}}, m);
  };
  // ceil: b = (N-1) - #{i < N-1 : max(σ, e0) <= e_i}
  b("ceil_exactly_at_an_edge", 20, {10, 20, 30, 40}, ceil);
  b("ceil_one_above_an_edge", 21, {10, 20, 30, 40}, ceil);
  b("ceil_below_e0", -5, {10, 20, 30, 40}, ceil);
  b("ceil_above_every_edge", 1000, {10, 20, 30, 40}, ceil);
  b("ceil_last_edge_never_compared", 35, {10, 20, 30, 0}, ceil);
  b("ceil_one_edge", 7, {3}, ceil);
  b("ceil_unsorted_edges", 15, {30, 10, 20, 5}, ceil);
  b("ceil_no_edges_refused", 7, {}, ceil);
  // floor: b = #{i : e_i <= σ}
  b("floor_exactly_at_an_edge", 20, {10, 20, 30}, floor);
  b("floor_one_below_an_edge", 19, {10, 20, 30}, floor);
  b("floor_below_every_edge", -100, {10, 20, 30}, floor);
  b("floor_above_every_edge", 30, {10, 20, 30}, floor);
  b("floor_equal_edges", 20, {20, 20, 30}, floor);
  b("floor_decreasing_edges_refused", 20, {10, 30, 20}, floor);
  b("floor_no_edges_refused", 20, {}, floor);
}

void coded(Stage& s) {
  auto c = [&](const std::string& id, std::int64_t v, std::int64_t thr) {
    s.add("coded", id, json{{"v", I(v)}, {"thr", I(thr)}});
  };
  c("equal_is_not_coded", 382, 382);
  c("one_above", 383, 382);
  c("one_below", 381, 382);
  c("negative", -5, -6);
  c("i64_ends", kI64Max, kI64Min);
}

void scale_index(Stage& s) {
  auto c = [&](const std::string& id, std::int64_t v, std::int64_t sh, std::int64_t n) {
    s.add("scale_index", id, json{{"v", I(v)}, {"s", I(sh)}, {"n", I(n)}});
  };
  c("positive_tie_rounds_up", 3 * 128 + 64, 7, 32);
  c("negative_tie_rounds_up", -64, 7, 32);
  c("clamped_to_zero", -1000, 7, 32);
  c("clamped_to_n_minus_1", 32 * 128, 7, 32);
  c("at_n_minus_1", 31 * 128 + 63, 7, 32);
  c("shift_0", 17, 0, 32);
  c("shift_127", kI64Max, 127, 32);
  c("n_1", 12345, 2, 1);
  c("shift_128_refused", 5, 128, 32);
  c("n_0_refused", 5, 7, 0);
}

void block_stat(Stage& s) {
  std::vector<std::int64_t> x;
  for (int c = 0; c < 2; ++c)
    for (int i = 0; i < 25; ++i) x.push_back((c == 0 ? 1 : -1) * (i * 7 % 11));
  auto c = [&](const std::string& id, json xt, std::int64_t b, std::int64_t sh, std::int64_t lo, std::int64_t hi) {
    s.add("block_stat", id, json{{"x", std::move(xt)}, {"b", I(b)}, {"s", I(sh)}, {"lo", I(lo)}, {"hi", I(hi)}});
  };
  c("partial_blocks_5x5_b2", tensor(2, 5, 5, x), 2, 2, -100, 100);
  c("clamped", tensor(2, 5, 5, x), 3, 0, -6, 6);
  c("jpegai_form_b8_s6", tensor(1, 3, 9, std::vector<std::int64_t>(27, 4351)), 8, 6, 0, 4351);
  c("ties_on_both_signs", tensor(2, 1, 2, {1, 1, -1, -1}), 2, 2, -10, 10);
  c("b_larger_than_plane", tensor(1, 2, 3, {1, 2, 3, 4, 5, 6}), 8, 1, -100, 100);
  c("b0_refused", tensor(1, 1, 1, {1}), 0, 0, 0, 1);
  c("lo_above_hi_refused", tensor(1, 1, 1, {1}), 1, 0, 2, 1);
  c("shift_128_refused", tensor(1, 1, 1, {1}), 1, 128, 0, 1);
}

void band_lookup(Stage& s) {
  const json table = json::array({ints({-31, 20, 122, 181}), ints({-80, -31, 71, 130})});
  auto c = [&](const std::string& id, std::int64_t v, std::int64_t row, json t = json()) {
    s.add("band_lookup", id, json{{"v", I(v)}, {"edges", ints({1004, 1353, 1938})}, {"table", t.is_null() ? table : t}, {"row", I(row)}});
  };
  c("below_the_first_edge", 1003, 0);
  c("at_the_first_edge", 1004, 1);
  c("at_the_second_edge", 1353, 0);
  c("one_below_the_last_edge", 1937, 1);
  c("at_the_last_edge", 1938, 0);
  c("far_below", kI64Min, 1);
  c("row_out_of_range_refused", 1004, 2);
  c("row_of_wrong_length_refused", 1004, 0, json::array({ints({1, 2, 3}), ints({1, 2, 3, 4})}));
}

// A pmf row of `width` entries: `heavy` at column `k_heavy`, the rest spread over the first columns.
json pmf_row(int width, int k_heavy, int heavy) {
  std::vector<std::int64_t> p(static_cast<std::size_t>(width), 0);
  p[static_cast<std::size_t>(k_heavy)] = heavy;
  int left = 256 - heavy;
  for (int k = 0; left > 0; k = (k + 1) % width) {
    if (k == k_heavy) continue;
    ++p[static_cast<std::size_t>(k)];
    --left;
  }
  return ints(p);
}

json span(const std::vector<bool>& mask, const std::vector<std::int64_t>& sigma) {
  return json{{"mask", mask}, {"sigma", ints(sigma)}};
}

void mans_decode(Stage& s) {
  // sgm. Symbol sym(k) is k/2 (even k) or -(k+1)/2 (odd k); the escape is taken where sym = -β.
  // Every row has one width, 510 (symbols -255..254). Row 0: most weight on k = 1 (symbol -1), bound
  // 1; row 1: on k = 255 (symbol -128), bound 128; row 2: on k = 509 (symbol -255), bound 255.
  const json pmf = json::array({pmf_row(510, 1, 200), pmf_row(510, 255, 200), pmf_row(510, 509, 200)});
  const json bounds = ints({1, 128, 255});
  auto sgm = [&](const std::string& id, const std::string& memory, json p, json b, json spans) {
    s.add("mans_decode", id, json{{"memory", memory}, {"mode", "sgm"}, {"pmf", std::move(p)}, {"bounds", std::move(b)}, {"spans", std::move(spans)}});
  };
  const std::vector<bool> all7(7, true);
  sgm("sgm_bound_1", stream_hex(1, 96), pmf, bounds, json::array({span(all7, {0, 0, 0, 0, 0, 0, 0})}));
  sgm("sgm_bound_128_escapes", stream_hex(2, 96), pmf, bounds, json::array({span(all7, {1, 1, 1, 1, 1, 1, 1})}));
  sgm("sgm_bound_255_escapes", stream_hex(3, 96), pmf, bounds, json::array({span(all7, {2, 2, 2, 2, 2, 2, 2})}));
  sgm("sgm_masked_spans_of_every_remainder", stream_hex(4, 160), pmf, bounds,
      json::array({span({true, false, true, true, false}, {0, 1, 2, 0, 1}),
                   span({false, true, true, false, true, true}, {1, 1, 2, 2, 0, 0}),
                   span({true, true}, {2, 1}),
                   span({true}, {1}),
                   span({}, {}),
                   span({true, true, true, true}, {0, 2, 1, 2})}));
  sgm("sgm_all_unmasked", stream_hex(5, 16), pmf, bounds, json::array({span({false, false, false, false, false}, {0, 1, 2, 0, 1})}));
  sgm("sgm_zero_tail_refused", stream_hex(6, 24) + "0000000000000000", pmf, bounds, json::array({span(all7, {0, 0, 0, 0, 0, 0, 0})}));
  sgm("sgm_short_stream_refused", stream_hex(7, 9), pmf, bounds,
      json::array({span(std::vector<bool>(64, true), std::vector<std::int64_t>(64, 1))}));
  sgm("sgm_stream_shorter_than_8_bytes", "a5c3e1", pmf, bounds, json::array({span({true, true}, {0, 0})}));
  sgm("sgm_pmf_not_summing_to_256_refused", stream_hex(8, 32), json::array({ints({100, 100})}), ints({0}),
      json::array({span({true}, {0})}));
  sgm("sgm_pmf_rows_of_two_widths_refused", stream_hex(8, 32), json::array({ints({128, 128}), ints({256, 0, 0})}),
      ints({0, 0}), json::array({span({true}, {0})}));
  sgm("sgm_bound_256_refused", stream_hex(8, 32), pmf, ints({1, 128, 256}), json::array({span({true}, {0})}));
  sgm("sgm_sigma_without_a_row_refused", stream_hex(8, 32), pmf, ints({1, 128, 255, 3}), json::array({span({true}, {3})}));
  sgm("sgm_mask_and_sigma_lengths_differ_refused", stream_hex(8, 32), pmf, bounds, json::array({span({true, true}, {0})}));

  // fac: rows of 63 cumulative counts; slot 255 always holds the escape symbol 63 (read(6)).
  auto row = [](int heavy_at, int last) {
    std::vector<std::int64_t> c(63);
    for (int a = 0; a < 63; ++a) c[static_cast<std::size_t>(a)] = a < heavy_at ? a : std::min(last, a + 128);
    c[62] = last;
    return ints(c);
  };
  auto fac = [&](const std::string& id, const std::string& memory, json rows, json lengths) {
    s.add("mans_decode", id, json{{"memory", memory}, {"mode", "fac"}, {"rows", std::move(rows)}, {"lengths", std::move(lengths)}});
  };
  fac("fac_rows_of_every_remainder", stream_hex(9, 160), json::array({row(3, 255), row(10, 255), row(0, 200), row(62, 255), row(5, 255)}),
      ints({16, 5, 6, 7, 0}));
  fac("fac_unwritten_slots_keep_the_previous_row", stream_hex(10, 160), json::array({row(3, 255), row(62, 62)}),
      ints({8, 16}));
  fac("fac_zero_tail_refused", stream_hex(11, 8) + "0000000000000000", json::array({row(3, 255)}), ints({16}));
  fac("fac_short_stream_refused", stream_hex(12, 10), json::array({row(3, 255), row(3, 255)}), ints({16, 48}));
  fac("fac_decreasing_counts_refused", stream_hex(13, 32), json::array({ints(std::vector<std::int64_t>(62, 5))}), ints({4}));
  {
    std::vector<std::int64_t> bad(63, 10);
    bad[62] = 256;
    fac("fac_count_256_refused", stream_hex(13, 32), json::array({ints(bad)}), ints({4}));
    bad[62] = 10;
    bad[30] = 9;
    fac("fac_counts_not_non_decreasing_refused", stream_hex(13, 32), json::array({ints(bad)}), ints({4}));
  }
  fac("fac_lengths_count_differs_refused", stream_hex(13, 32), json::array({row(3, 255)}), ints({4, 4}));
}

void residual_step(Stage& s) {
  auto c = [&](const std::string& id, std::int64_t pred, std::int64_t r, std::int64_t q, std::int64_t lo, std::int64_t hi) {
    s.add("residual_step", id, json{{"pred", I(pred)}, {"r", I(r)}, {"q", I(q)}, {"lo", I(lo)}, {"hi", I(hi)}});
  };
  // lo 0, hi 255, q 3: R = 255/3 + 1 = 86.
  c("r_at_plus_R", 0, 86, 3, 0, 255);
  c("r_at_minus_R", 255, -86, 3, 0, 255);
  c("r_at_plus_R_plus_1", 0, 87, 3, 0, 255);
  c("r_at_minus_R_minus_1", 255, -87, 3, 0, 255);
  c("inside", 100, -7, 3, 0, 255);
  c("i16_range", -32768, 2, 65535, -32768, 32767);
  c("r_at_i32_max", 0, kI32Max, 65535, -32768, 32767);
  c("r_at_i32_min", 0, kI32Min, 65535, -32768, 32767);
  c("near_the_i32_limits", kI32Max, 2, 65535, kI32Max - 65535, kI32Max);
  c("at_the_i32_limits", kI32Min, -1, 1, kI32Min, kI32Max);
  c("r_past_i32_refused", 0, kI32Max + 1, 3, 0, 255);
  c("q_0_refused", 0, 1, 0, 0, 255);
  c("q_65536_refused", 0, 1, 65536, 0, 255);
  c("lo_equal_hi_refused", 5, 1, 1, 5, 5);
  c("pred_outside_refused", 256, 1, 1, 0, 255);
}

void mc_predict(Stage& s) {
  std::vector<std::int64_t> f;
  for (int c = 0; c < 3; ++c)
    for (int i = 0; i < 12; ++i) f.push_back((c * 85 + i * 23) % 256);
  const json frame = tensor(3, 3, 4, f);
  auto c = [&](const std::string& id, std::int64_t y, std::int64_t x, std::int64_t ch, std::int64_t dy, std::int64_t dx,
               std::int64_t prec, json fr = json()) {
    s.add("mc_predict", id, json{{"frame", fr.is_null() ? frame : fr}, {"y", I(y)}, {"x", I(x)}, {"c", I(ch)}, {"dy", I(dy)}, {"dx", I(dx)}, {"precision", I(prec)}});
  };
  c("whole_pel", 1, 1, 0, 1, 2, 1);
  c("whole_pel_clamped_outside", 0, 3, 2, -5, 9, 1);
  c("half_pel_none", 1, 1, 1, 2, -2, 2);
  c("half_pel_x", 1, 1, 1, 0, 1, 2);
  c("half_pel_y", 1, 1, 2, -1, 0, 2);
  c("half_pel_both", 2, 3, 0, 1, 1, 2);
  c("half_pel_both_negative", 0, 0, 2, -3, -1, 2);
  c("max_sum_rounds", 0, 0, 0, 1, 1, 2, tensor(3, 1, 1, {255, 255, 255}));
  c("channel_3_refused", 0, 0, 3, 0, 0, 1);
  c("precision_3_refused", 0, 0, 0, 0, 0, 3);
  c("pixel_outside_refused", 3, 0, 0, 0, 0, 1);
}

void up2_predict(Stage& s) {
  auto c = [&](const std::string& id, json prev, std::int64_t d0, std::int64_t d1) {
    s.add("up2_predict", id, json{{"prev", std::move(prev)}, {"d0", I(d0)}, {"d1", I(d1)}});
  };
  c("odd_sizes", tensor(2, 2, 3, {0, 10, 255, 7, 100, 3, -5, 4, 9, 1000, -1000, 6}), 3, 5);
  c("even_sizes", tensor(1, 2, 2, {1, 2, 3, 4}), 4, 4);
  c("one_by_one", tensor(1, 1, 1, {77}), 1, 1);
  c("rounding_ties", tensor(1, 2, 2, {0, 1, 2, 3}), 4, 3);
  c("prev_of_wrong_shape_refused", tensor(1, 2, 2, {1, 2, 3, 4}), 5, 4);
  c("d0_zero_refused", tensor(1, 0, 1, {}), 0, 1);
}

void rate_predict(Stage& s) {
  auto c = [&](const std::string& id, json prev, std::int64_t num, std::int64_t den, std::int64_t d0) {
    s.add("rate_predict", id, json{{"prev", std::move(prev)}, {"rate_num", I(num)}, {"rate_den", I(den)}, {"d0", I(d0)}});
  };
  const json prev = tensor(2, 1, 4, {-100, 50, 3, 32767, -32768, 32767, -1, 0});
  c("upsample_3_over_2", prev, 3, 2, 6);
  c("downsample_2_over_3", prev, 2, 3, 2);
  c("identity", prev, 1, 1, 4);
  c("negative_ties", tensor(1, 1, 2, {-1, -2}), 2, 1, 4);
  c("wide_rate", tensor(1, 1, 2, {-32768, 32767}), 4294967295, 4294967294, 2);
  c("d0_one_past_refused", prev, 3, 2, 7);
  c("rate_den_0_refused", prev, 3, 0, 1);
  c("prev_not_one_row_refused", tensor(1, 2, 1, {1, 2}), 1, 1, 1);
}

void coding_order(Stage& s) {
  auto c = [&](const std::string& id, std::initializer_list<std::int64_t> shape, const std::string& order, bool anchor) {
    json in{{"shape", ints(shape)}, {"order", order}};
    if (order == "checkerboard") in["anchor"] = anchor;
    s.add("coding_order", id, std::move(in));
  };
  c("raster", {2, 2, 3}, "raster", false);
  c("checkerboard_anchor", {2, 3, 3}, "checkerboard", true);
  c("checkerboard_non_anchor", {2, 3, 3}, "checkerboard", false);
  c("checkerboard_one_by_one", {1, 1, 1}, "checkerboard", false);
}

}  // namespace

std::vector<StageCase> stage_cases() {
  Stage s;
  dequantize(s);
  bucket(s);
  coded(s);
  scale_index(s);
  block_stat(s);
  band_lookup(s);
  mans_decode(s);
  residual_step(s);
  mc_predict(s);
  up2_predict(s);
  rate_predict(s);
  coding_order(s);
  return std::move(s.cases);
}

namespace {

// One int_synth.json layer (§13.1), weights [in_ch][out_ch][k][k] from `w(ci, co, y, x)`.
json synth_layer(std::int64_t in_ch, std::int64_t out_ch, std::int64_t k, std::int64_t stride, std::int64_t pad,
                 std::int64_t out_pad, std::int64_t shift, bool relu,
                 const std::function<std::int64_t(std::int64_t, std::int64_t, std::int64_t, std::int64_t)>& w,
                 const std::vector<std::int64_t>& bias) {
  json weight = json::array();
  for (std::int64_t ci = 0; ci < in_ch; ++ci) {
    json a = json::array();
    for (std::int64_t co = 0; co < out_ch; ++co) {
      json b = json::array();
      for (std::int64_t y = 0; y < k; ++y) {
        json c = json::array();
        for (std::int64_t x = 0; x < k; ++x) c.push_back(w(ci, co, y, x));
        b.push_back(std::move(c));
      }
      a.push_back(std::move(b));
    }
    weight.push_back(std::move(a));
  }
  json l{{"in_ch", in_ch}, {"out_ch", out_ch}, {"k", k}, {"stride", stride}, {"pad", pad}, {"weight", std::move(weight)},
         {"bias", bias}, {"shift", shift}, {"relu", relu}};
  if (out_pad) l["out_pad"] = out_pad;
  return l;
}

std::vector<std::uint8_t> bytes_of(const json& j) {
  const std::string s = j.dump();
  return std::vector<std::uint8_t>(s.begin(), s.end());
}

json one_weight(std::int64_t v) {
  return synth_layer(1, 1, 1, 1, 0, 0, 0, false, [v](auto, auto, auto, auto) { return v; }, {0});
}

}  // namespace

std::vector<SetCase> set_cases() {
  const std::string cap = "wai.neural.int_synth";
  std::vector<SetCase> out;
  auto add = [&](const std::string& name, const json& set, std::optional<std::string> pin = std::nullopt) {
    out.push_back(SetCase{cap, name, bytes_of(set), std::move(pin)});
  };
  // A small two-layer set: 2 latent channels, 3x3 stride 2 with output padding, relu, then 1x1.
  add("small", json{{"layers", json::array({
                        synth_layer(2, 3, 3, 2, 1, 1, 4, true,
                                    [](auto ci, auto co, auto y, auto x) { return ((ci * 7 + co * 5 + y * 3 + x) % 11) - 5; },
                                    {3, -4, 17}),
                        synth_layer(3, 3, 1, 1, 0, 0, 2, false,
                                    [](auto ci, auto co, auto, auto) { return ci == co ? 9 : -2; }, {100, 50, -7})})}});
  // acc32 at its edge: over the latents' [-128, 127], weight 2^24 gives convT.acc = [-2^31, 127·2^24];
  // one weight one larger passes -2^31. A pin over each claims acc32.
  add("acc32_at_the_edge", json{{"layers", json::array({one_weight(std::int64_t{1} << 24)})}}, "acc32");
  add("acc32_fails_by_one_weight", json{{"layers", json::array({one_weight((std::int64_t{1} << 24) + 1)})}}, "acc32");
  // acc64 at its edge: layer 0 (weight 67637280, bias 31, relu) gives [0, 2^33 - 1]; layer 1
  // (weight 2^30, bias 2^30 - 1) gives convT.acc = [0, 2^63 - 1]. A bias one larger passes i64.
  auto acc64 = [](std::int64_t b1) {
    return json{{"layers", json::array({synth_layer(1, 1, 1, 1, 0, 0, 0, true, [](auto, auto, auto, auto) { return 67637280; }, {31}),
                                        synth_layer(1, 1, 1, 1, 0, 0, 0, false,
                                                    [](auto, auto, auto, auto) { return std::int64_t{1} << 30; }, {b1})})}};
  };
  add("acc64_at_the_edge", acc64((std::int64_t{1} << 30) - 1));
  add("acc64_fails_by_one_unit", acc64(std::int64_t{1} << 30));
  // Sets refused by §13.1's load checks (payload_malformed) before a graph exists.
  add("refused_no_layers", json{{"layers", json::array()}});
  json shift = one_weight(1);
  shift["shift"] = 128;
  add("refused_shift_128", json{{"layers", json::array({shift})}});
  json stride0 = one_weight(1);
  stride0["stride"] = 0;
  add("refused_stride_0", json{{"layers", json::array({stride0})}});
  add("refused_layers_do_not_chain",
      json{{"layers", json::array({one_weight(1), synth_layer(2, 1, 1, 1, 0, 0, 0, false, [](auto, auto, auto, auto) { return 1; }, {0})})}});
  json wide = one_weight(1);
  wide["weight"] = json::array({json::array({json::array({json::array({std::int64_t{1} << 31})})})});
  add("refused_weight_past_i32", json{{"layers", json::array({wide})}});
  json short_bias = one_weight(1);
  short_bias["bias"] = json::array({0, 0});
  add("refused_bias_length", json{{"layers", json::array({short_bias})}});
  json out_ch0 = one_weight(1);
  out_ch0["out_ch"] = 0;
  out_ch0["weight"] = json::array({json::array()});
  out_ch0["bias"] = json::array();
  add("refused_out_ch_0", json{{"layers", json::array({out_ch0})}});
  const std::string truncated = "{\"layers\": [";
  out.push_back(SetCase{cap, "refused_not_json", std::vector<std::uint8_t>(truncated.begin(), truncated.end()), std::nullopt});
  return out;
}

}  // namespace loam::wai::vectors
