#include "wai/decode_json.hpp"

#include "wai/stage_ops.hpp"

#include <charconv>

namespace loam::wai {

using nlohmann::json;

std::int64_t json_i64(const json& v, const std::string& where) {
  if (v.is_number_integer()) {
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) {
      fail(where + ": " + v.dump() + " does not fit i64");
    }
    return v.get<std::int64_t>();
  }
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    std::int64_t out = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    if (ec != std::errc() || p != s.data() + s.size() || s.empty()) fail(where + ": \"" + s + "\" is not a decimal i64");
    return out;
  }
  fail(where + ": expected an integer, found " + v.dump());
}

json json_int(std::int64_t v) { return std::to_string(v); }

namespace {
const json& member(const json& o, const char* key, const std::string& where) {
  if (!o.is_object() || !o.contains(key)) fail(where + ": missing \"" + key + "\"");
  return o.at(key);
}
const json& array_of(const json& v, const std::string& where) {
  if (!v.is_array()) fail(where + ": expected an array");
  return v;
}
std::vector<std::int64_t> ints(const json& v, const std::string& where) {
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < array_of(v, where).size(); ++i) out.push_back(json_i64(v[i], where + "[" + std::to_string(i) + "]"));
  return out;
}
}  // namespace

Tensor json_tensor(const json& v, const std::string& where) {
  const auto shape = ints(member(v, "shape", where), where + ".shape");
  if (shape.size() != 3) fail(where + ".shape: expected [C, H, W]");
  Tensor t;
  t.shape = Shape{shape[0], shape[1], shape[2]};
  t.data = ints(member(v, "data", where), where + ".data");
  const __int128 n = static_cast<__int128>(t.shape.c) * t.shape.h * t.shape.w;
  if (t.shape.c < 0 || t.shape.h < 0 || t.shape.w < 0 || n != static_cast<__int128>(t.data.size())) {
    fail(where + ": shape " + to_string(t.shape) + " does not match " + std::to_string(t.data.size()) + " values");
  }
  return t;
}

json tensor_json(const Tensor& t) {
  json data = json::array();
  for (auto v : t.data) data.push_back(json_int(v));
  return json{{"data", data}, {"shape", {json_int(t.shape.c), json_int(t.shape.h), json_int(t.shape.w)}}};
}

std::vector<DecodeRequest> parse_decodes(const json& doc) {
  std::vector<json> items;
  if (doc.is_array()) {
    items.assign(doc.begin(), doc.end());
  } else if (doc.is_object() && doc.contains("decodes")) {
    const json& d = array_of(doc.at("decodes"), "decodes");
    items.assign(d.begin(), d.end());
  } else {
    items.push_back(doc);
  }
  std::vector<DecodeRequest> out;
  for (std::size_t k = 0; k < items.size(); ++k) {
    const std::string where = "decode " + std::to_string(k);
    DecodeRequest r;
    const json& inputs = array_of(member(items[k], "inputs", where), where + ".inputs");
    for (std::size_t i = 0; i < inputs.size(); ++i) r.inputs.push_back(json_tensor(inputs[i], where + ".inputs[" + std::to_string(i) + "]"));
    if (items[k].contains("scalars")) r.scalars = ints(items[k].at("scalars"), where + ".scalars");
    if (items[k].contains("expect")) r.expect = items[k].at("expect");
    out.push_back(std::move(r));
  }
  return out;
}

json outcome_json(const DecodeOutcome& o) {
  if (!o.completed()) return json{{"refuse", std::string(o.refusal->code_name())}};
  json outs = json::array();
  for (const auto& t : o.outputs) outs.push_back(tensor_json(t));
  return json{{"outputs", outs}};
}

// ---------------------------------------------------------------------------------------------

namespace {
std::vector<std::uint8_t> hex_bytes(const json& v, const std::string& where) {
  if (!v.is_string()) fail(where + ": expected a hex string");
  const std::string& s = v.get_ref<const std::string&>();
  if (s.size() % 2 != 0) fail(where + ": odd number of hex digits");
  auto nib = [&](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    fail(where + ": '" + std::string(1, c) + "' is not a hex digit");
  };
  std::vector<std::uint8_t> out;
  for (std::size_t i = 0; i < s.size(); i += 2) out.push_back(static_cast<std::uint8_t>(nib(s[i]) * 16 + nib(s[i + 1])));
  return out;
}
std::vector<std::vector<std::int64_t>> int_rows(const json& v, const std::string& where) {
  std::vector<std::vector<std::int64_t>> out;
  for (std::size_t i = 0; i < array_of(v, where).size(); ++i) out.push_back(ints(v[i], where + "[" + std::to_string(i) + "]"));
  return out;
}
json rows_json(const std::vector<std::vector<std::int64_t>>& rows) {
  json out = json::array();
  for (const auto& r : rows) {
    json a = json::array();
    for (auto v : r) a.push_back(json_int(v));
    out.push_back(a);
  }
  return out;
}
}  // namespace

json run_stage_json(const std::string& op, const json& in, const json& modes) {
  auto i64 = [&](const char* key) { return json_i64(member(in, key, "in"), std::string("in.") + key); };
  try {
    if (op == "dequantize") return json{{"value", json_int(dequantize(i64("sym"), i64("f"), i64("base")))}};
    if (op == "bucket") {
      const std::string rule = member(modes, "bucket", "modes").get<std::string>();
      if (rule != "ceil" && rule != "floor") fail("modes.bucket: \"" + rule + "\" is not ceil or floor");
      return json{{"index", json_int(bucket(i64("sigma"), ints(member(in, "edges", "in"), "in.edges"),
                                            rule == "ceil" ? BucketRule::ceil : BucketRule::floor))}};
    }
    if (op == "coded") return json{{"coded", coded(i64("v"), i64("thr"))}};
    if (op == "scale_index") return json{{"index", json_int(scale_index(i64("v"), i64("s"), i64("n")))}};
    if (op == "block_stat") {
      return json{{"out", tensor_json(block_stat(json_tensor(member(in, "x", "in"), "in.x"), i64("b"), i64("s"), i64("lo"), i64("hi")))}};
    }
    if (op == "band_lookup") {
      return json{{"value", json_int(band_lookup(i64("v"), ints(member(in, "edges", "in"), "in.edges"),
                                                 int_rows(member(in, "table", "in"), "in.table"), i64("row")))}};
    }
    if (op == "mans_decode") {
      const auto memory = hex_bytes(member(in, "memory", "in"), "in.memory");
      const std::string mode = member(in, "mode", "in").get<std::string>();
      if (mode == "sgm") {
        std::vector<MansSpan> spans;
        const json& js = array_of(member(in, "spans", "in"), "in.spans");
        for (std::size_t k = 0; k < js.size(); ++k) {
          MansSpan s;
          const std::string w = "in.spans[" + std::to_string(k) + "]";
          for (const auto& m : array_of(member(js[k], "mask", w), w + ".mask")) {
            if (!m.is_boolean()) fail(w + ".mask: expected booleans");
            s.mask.push_back(m.get<bool>());
          }
          s.sigma = ints(member(js[k], "sigma", w), w + ".sigma");
          spans.push_back(std::move(s));
        }
        return json{{"symbols", rows_json(mans_decode_sgm(memory, int_rows(member(in, "pmf", "in"), "in.pmf"),
                                                          ints(member(in, "bounds", "in"), "in.bounds"), spans))}};
      }
      if (mode == "fac") {
        return json{{"symbols", rows_json(mans_decode_fac(memory, int_rows(member(in, "rows", "in"), "in.rows"),
                                                          ints(member(in, "lengths", "in"), "in.lengths")))}};
      }
      fail("in.mode: \"" + mode + "\" is not sgm or fac");
    }
    if (op == "residual_step") return json{{"value", json_int(residual_step(i64("pred"), i64("r"), i64("q"), i64("lo"), i64("hi")))}};
    if (op == "mc_predict") {
      return json{{"value", json_int(mc_predict(json_tensor(member(in, "frame", "in"), "in.frame"), i64("y"), i64("x"), i64("c"),
                                                i64("dy"), i64("dx"), i64("precision")))}};
    }
    if (op == "up2_predict") return json{{"out", tensor_json(up2_predict(json_tensor(member(in, "prev", "in"), "in.prev"), i64("d0"), i64("d1")))}};
    if (op == "rate_predict") {
      return json{{"out", tensor_json(rate_predict(json_tensor(member(in, "prev", "in"), "in.prev"), i64("rate_num"), i64("rate_den"), i64("d0")))}};
    }
    if (op == "coding_order") {
      const auto s = ints(member(in, "shape", "in"), "in.shape");
      if (s.size() != 3) fail("in.shape: expected [C, H, W]");
      // The operator takes up to 2^26 positions; a JSON answer holds one decimal string per position,
      // so a vector's answer is bounded well below that (2^20) to keep the printed form in memory.
      constexpr __int128 kMaxJsonIndices = __int128{1} << 20;
      if (s[0] > 0 && s[1] > 0 && s[2] > 0 && static_cast<__int128>(s[0]) * s[1] * s[2] > kMaxJsonIndices) {
        fail("in.shape: [" + std::to_string(s[0]) + ", " + std::to_string(s[1]) + ", " + std::to_string(s[2]) +
             "] has more than 2^20 positions, the most a stage vector's answer lists");
      }
      const std::string order = member(in, "order", "in").get<std::string>();
      if (order != "raster" && order != "checkerboard") fail("in.order: \"" + order + "\" is not raster or checkerboard");
      const bool cb = order == "checkerboard";
      const bool anchor = cb ? member(in, "anchor", "in").get<bool>() : false;
      json idx = json::array();
      for (auto v : coding_order(Shape{s[0], s[1], s[2]}, cb, anchor)) idx.push_back(json_int(v));
      return json{{"indices", idx}};
    }
    if (op == "rans64_decode") fail("rans64_decode (E1) is not implemented: it needs the text of integer-payloads §2");
    fail("\"" + op + "\" is not a stage operator of §5E");
  } catch (const StageRefusalError& e) {
    return json{{"at", json_int(e.at())}, {"refuse", std::string(e.refusal().code_name())}};
  } catch (const json::exception& e) {
    fail("stage " + op + ": malformed input: " + e.what());
  }
}

}  // namespace loam::wai
