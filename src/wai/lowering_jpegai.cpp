#include "wai/lowering_jpegai.hpp"

namespace loam::wai {

namespace {

constexpr const char* kCode = "model_mismatch";

[[noreturn]] void bad(const std::string& msg) { throw LoweringError(kCode, msg); }

std::vector<std::int64_t> int_array(const nlohmann::json& v, const std::string& where) {
  if (!v.is_array()) bad(where + ": not an array");
  std::vector<std::int64_t> out;
  out.reserve(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out.push_back(json_i64(v[i], kCode, where + "[" + std::to_string(i) + "]"));
  return out;
}

const nlohmann::json& member(const nlohmann::json& obj, const std::string& name, const std::string& file) {
  if (!obj.is_object() || !obj.contains(name)) bad(file + ": no member " + name);
  return obj[name];
}

// A tensor member { "dims": [...], "v": [...] } with the dims `expect`.
std::vector<std::int64_t> tensor(const nlohmann::json& obj, const std::string& name, const std::string& file,
                                 const std::vector<std::int64_t>& expect) {
  const nlohmann::json& t = member(obj, name, file);
  const std::string where = file + " " + name;
  const std::vector<std::int64_t> dims = int_array(member(t, "dims", where), where + " dims");
  if (dims != expect) {
    std::string e;
    for (std::int64_t d : expect) e += (e.empty() ? "" : ", ") + std::to_string(d);
    bad(where + ": dims are not [" + e + "]");
  }
  std::vector<std::int64_t> v = int_array(member(t, "v", where), where + " v");
  std::int64_t n = 1;
  for (std::int64_t d : dims) n *= d;
  if (static_cast<std::int64_t>(v.size()) != n) bad(where + ": " + std::to_string(v.size()) + " values, dims give " + std::to_string(n));
  return v;
}

std::int64_t dim0(const nlohmann::json& obj, const std::string& name, const std::string& file) {
  const nlohmann::json& t = member(obj, name, file);
  const std::vector<std::int64_t> dims = int_array(member(t, "dims", file + " " + name), file + " " + name + " dims");
  if (dims.empty() || dims[0] < 1 || dims[0] > (1 << 26)) bad(file + " " + name + ": bad first dimension");
  return dims[0];
}

void check_rows(const nlohmann::json& v, std::size_t rows, const std::string& where) {
  const std::vector<std::int64_t> c = int_array(v, where);
  if (c.size() != rows * 63) bad(where + ": " + std::to_string(c.size()) + " values, not " + std::to_string(rows * 63));
  for (std::size_t i = 0; i < c.size(); ++i) {
    if (c[i] < 0 || c[i] > 255) bad(where + "[" + std::to_string(i) + "] is not in [0, 255]");
    if (i % 63 != 0 && c[i] < c[i - 1]) bad(where + ": row " + std::to_string(i / 63) + " decreases");
  }
}

ConvParams block(const nlohmann::json& hs, const std::string& file, const char* w, const char* b, const char* s,
                 std::int64_t cout, std::int64_t cin, std::uint32_t k) {
  ConvParams p;
  p.cout = static_cast<std::uint32_t>(cout);
  p.kh = p.kw = k;
  p.sh = p.sw = 1;
  p.ph = p.pw = k / 2;
  p.groups = 1;
  p.weights = tensor(hs, w, file, {cout, cin, k, k});
  p.w_bytes = smallest_width(p.weights, {1, 2, 4, 8});
  p.rq.round = Round::floor;
  p.rq.bias = BiasPlacement::pre;
  p.rq.bias_values = tensor(hs, b, file, {cout});
  p.rq.b_bytes = smallest_width(p.rq.bias_values, {4, 8});
  p.rq.m_kind = 0;
  p.rq.m_bytes = 0;
  p.rq.s_kind = 2;  // the source gives one shift per channel
  for (std::int64_t sh : tensor(hs, s, file, {1, cout, 1, 1})) {
    if (sh < 0 || sh > 127) bad(file + " " + s + ": shift " + std::to_string(sh) + " is not in 0..=127");
    p.rq.shift.push_back(static_cast<std::uint8_t>(sh));
  }
  return p;
}

}  // namespace

void check_jpegai_norm(const nlohmann::json& norm) {
  const std::string f = "norm.json";
  const nlohmann::json& pmf = member(norm, "pmf", f);
  if (!pmf.is_array() || pmf.size() < 32) bad(f + " pmf: fewer than 32 rows");
  std::size_t width = 0;
  for (std::size_t r = 0; r < pmf.size(); ++r) {
    const std::vector<std::int64_t> row = int_array(pmf[r], f + " pmf[" + std::to_string(r) + "]");
    if (row.empty() || (r > 0 && row.size() != width)) bad(f + " pmf: rows are not all of one width >= 1");
    width = row.size();
    std::int64_t sum = 0;
    for (std::int64_t x : row) {
      if (x < 0 || x > 256) bad(f + " pmf[" + std::to_string(r) + "]: a value outside [0, 256]");
      sum += x;
    }
    if (sum != 256) bad(f + " pmf[" + std::to_string(r) + "] sums to " + std::to_string(sum) + ", not 256");
  }
  const std::vector<std::int64_t> bounds = int_array(member(norm, "bounds", f), f + " bounds");
  if (bounds.size() < 32) bad(f + " bounds: fewer than 32");
  for (std::int64_t b : bounds)
    if (b < 0 || b > 255) bad(f + " bounds: " + std::to_string(b) + " is not in [0, 255]");
  if (json_i64(member(norm, "per_channel", f), kCode, f + " per_channel") != 16) bad(f + " per_channel is not 16");
  check_rows(member(norm, "cdfs_y", f), 160, f + " cdfs_y");
  check_rows(member(norm, "cdfs_uv", f), 96, f + " cdfs_uv");
  if (int_array(member(norm, "gain_y", f), f + " gain_y").size() != 160) bad(f + " gain_y: not 160 values");
  if (int_array(member(norm, "gain_uv", f), f + " gain_uv").size() != 96) bad(f + " gain_uv: not 96 values");
}

std::vector<std::uint8_t> lower_jpegai_scale(const std::vector<std::uint8_t>& hs_json,
                                             const std::vector<std::uint8_t>& norm_json, JpegaiPlane plane) {
  const std::string file = plane == JpegaiPlane::y ? "weights/hs_y.json" : "weights/hs_uv.json";
  const nlohmann::json norm = parse_json(norm_json, kCode, "norm.json");
  check_jpegai_norm(norm);
  const nlohmann::json hs = parse_json(hs_json, kCode, file);
  const std::int64_t Cz = plane == JpegaiPlane::y ? 160 : 96;
  const std::int64_t C1 = dim0(hs, "conv1.weight", file), C2 = dim0(hs, "depthwise.weight", file);
  const std::int64_t C3 = 16 * Cz;
  const std::vector<std::int64_t> gains =
      int_array(member(norm, plane == JpegaiPlane::y ? "gain_y" : "gain_uv", "norm.json"), "norm.json gain");

  Whg1Graph g;
  g.max_elems = kMaxElemsCap;
  g.tensors.push_back(lowered_tensor(static_cast<std::uint32_t>(Cz), Policy::check, -31, 32));
  InputRecord in;
  in.max_h = in.max_w = 4;
  g.inputs.push_back(in);
  const auto c = [](std::int64_t v) { return static_cast<std::uint32_t>(v); };
  std::uint32_t t = append_op(g, Opcode::clamp, {0}, ClampParams{-128, 127}, c(Cz));
  t = append_op(g, Opcode::conv, {t}, block(hs, file, "conv1.weight", "conv1.bias", "onnx::Pow_85", C1, Cz, 1), c(C1));
  t = append_op(g, Opcode::relu, {t}, std::monostate{}, c(C1));
  t = append_op(g, Opcode::clamp, {t}, ClampParams{-128, 127}, c(C1));
  t = append_op(g, Opcode::conv, {t}, block(hs, file, "depthwise.weight", "depthwise.bias", "onnx::Pow_91", C2, C1, 3), c(C2));
  t = append_op(g, Opcode::relu, {t}, std::monostate{}, c(C2));
  t = append_op(g, Opcode::clamp, {t}, ClampParams{-128, 127}, c(C2));
  t = append_op(g, Opcode::conv, {t}, block(hs, file, "pointwise.weight", "pointwise.bias", "onnx::Pow_97", C3, C2, 1), c(C3));
  t = append_op(g, Opcode::pixel_shuffle, {t}, ShuffleParams{4}, c(Cz));
  t = append_op(g, Opcode::abs, {t}, std::monostate{}, c(Cz));
  t = append_op(g, Opcode::clamp, {t}, ClampParams{0, 3967}, c(Cz));
  RqParams gain;
  gain.rq.round = Round::floor;
  gain.rq.bias = BiasPlacement::pre;
  gain.rq.bias_values = gains;
  gain.rq.b_bytes = smallest_width(gains, {4, 8});
  gain.rq.m_kind = 0;
  gain.rq.m_bytes = 0;
  gain.rq.s_kind = 1;  // the lowering's own constant shift 0, written once
  gain.rq.shift = {0};
  t = append_op(g, Opcode::rescale, {t}, gain, c(Cz));
  g.outputs = {t};
  std::vector<std::uint8_t> bytes;
  try {
    bytes = write_whg1(g);
    ReadOptions ro;
    ro.source = file;
    (void)read_whg1(bytes, ro);  // §10.5 steps 1-7 on the lowered bytes
  } catch (const RefusalError& e) {
    bad(file + ": the scale graph does not load: " + e.what());
  }
  return bytes;
}

LoweredSet lower_jpegai_scale_pair(const std::vector<std::uint8_t>& hs_y_json,
                                   const std::vector<std::uint8_t>& hs_uv_json,
                                   const std::vector<std::uint8_t>& norm_json) {
  LoweredSet set;
  set.graphs.push_back(RoleGraph{"hs_y", lower_jpegai_scale(hs_y_json, norm_json, JpegaiPlane::y)});
  set.graphs.push_back(RoleGraph{"hs_uv", lower_jpegai_scale(hs_uv_json, norm_json, JpegaiPlane::uv)});
  CertifyOptions co;
  co.capability = "wai.image.jpegai";
  co.lowering = "jpegai-int/1";
  try {
    set.certificate = certify(set.graphs, co);
  } catch (const RefusalError& e) {
    bad(std::string("a scale graph does not load: ") + e.what());
  }
  if (!set.certificate.verdict.acc32) bad("the scale graphs do not meet acc32, the profile §11 declares for hs_y and hs_uv");
  return set;
}

}  // namespace loam::wai
