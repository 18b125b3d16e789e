// WHG1 reading (load checks §10.5 steps 1-6; step 7 is whg1_plan.cpp), canonical writing and
// identity. The reader walks the bytes once, front to back; every message names the byte offset
// and the record.
#include "wai/whg1.hpp"

#include "wai/whg1_plan.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <cstring>
#include <limits>

namespace loam::wai {

// ---------------------------------------------------------------------------------------------
// Refusals and names

std::string_view code_name(RefusalCode code) {
  switch (code) {
    case RefusalCode::model_mismatch: return "model_mismatch";
    case RefusalCode::too_large: return "too_large";
    case RefusalCode::geometry_mismatch: return "geometry_mismatch";
    case RefusalCode::field_range: return "field_range";
    case RefusalCode::stream_exhausted: return "stream_exhausted";
    case RefusalCode::stream_noncanonical: return "stream_noncanonical";
  }
  return "model_mismatch";
}

std::optional<RefusalCode> parse_code(std::string_view name) {
  for (auto c : {RefusalCode::model_mismatch, RefusalCode::too_large, RefusalCode::geometry_mismatch,
                 RefusalCode::field_range, RefusalCode::stream_exhausted,
                 RefusalCode::stream_noncanonical}) {
    if (code_name(c) == name) return c;
  }
  return std::nullopt;
}

RefusalError::RefusalError(Refusal r)
    : loam::Error(std::string(wai::code_name(r.code)) + ": " + r.message), refusal_(std::move(r)) {}

void refuse(RefusalCode code, const std::string& message) { throw RefusalError(Refusal{code, message}); }

namespace {
struct OpInfo {
  Opcode op;
  const char* name;
  int n_in;   // -2: at least 2
  int n_out;
};
constexpr OpInfo kOps[] = {
    {Opcode::conv, "conv", 1, 1},
    {Opcode::rescale, "rescale", 1, 1},
    {Opcode::chscale, "chscale", 1, 1},
    {Opcode::lut16, "lut16", 1, 1},
    {Opcode::add, "add", 2, 1},
    {Opcode::concat, "concat", -2, 1},
    {Opcode::chunk_add, "chunk_add", 1, 1},
    {Opcode::split, "split", 1, 1},
    {Opcode::pixel_shuffle, "pixel_shuffle", 1, 1},
    {Opcode::pixel_unshuffle, "pixel_unshuffle", 1, 1},
    {Opcode::clamp, "clamp", 1, 1},
    {Opcode::relu, "relu", 1, 1},
    {Opcode::leaky, "leaky", 1, 1},
    {Opcode::pad_rep, "pad_rep", 1, 1},
    {Opcode::crop_to, "crop_to", 2, 1},
    {Opcode::mul, "mul", 2, 1},
    {Opcode::conv_transpose, "conv_transpose", 1, 1},
    {Opcode::igdn, "igdn", 1, 1},
    {Opcode::abs, "abs", 1, 1},
    {Opcode::crop, "crop", 1, 1},
    {Opcode::subpos_split, "subpos_split", 1, 4},
    {Opcode::subpos_merge, "subpos_merge", 4, 1},
    {Opcode::fill, "fill", 1, 1},
    {Opcode::layernorm_c, "layernorm_c", 1, 1},
    {Opcode::l2norm, "l2norm", 1, 1},
    {Opcode::softmax, "softmax", 1, 1},
    {Opcode::sigmoid, "sigmoid", 1, 1},
    {Opcode::elu, "elu", 1, 1},
    {Opcode::gram, "gram", 2, 1},
    {Opcode::apply, "apply", 2, 1},
};
const OpInfo* find_op(std::uint8_t b) {
  for (const auto& o : kOps)
    if (static_cast<std::uint8_t>(o.op) == b) return &o;
  return nullptr;
}
}  // namespace

bool is_known_opcode(std::uint8_t byte) { return find_op(byte) != nullptr; }

std::string op_name(Opcode op) {
  if (const OpInfo* i = find_op(static_cast<std::uint8_t>(op))) return i->name;
  static const char* hex = "0123456789ABCDEF";
  const auto b = static_cast<std::uint8_t>(op);
  return std::string("op_0x") + hex[b >> 4] + hex[b & 15];
}

// ---------------------------------------------------------------------------------------------
// Identity

Sha256 sha256(std::span<const std::uint8_t> bytes) {
  Sha256 out{};
  unsigned int len = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), out.data(), &len, EVP_sha256(), nullptr) != 1 ||
      len != out.size()) {
    fail("SHA-256: OpenSSL EVP_Digest failed");
  }
  return out;
}

std::string to_hex(std::span<const std::uint8_t> bytes) {
  static const char* hex = "0123456789abcdef";
  std::string s;
  s.reserve(bytes.size() * 2);
  for (auto b : bytes) {
    s.push_back(hex[b >> 4]);
    s.push_back(hex[b & 15]);
  }
  return s;
}

Sha256 graph_identity(const Whg1Graph& graph) { return sha256(write_whg1(graph)); }

// ---------------------------------------------------------------------------------------------
// Reading

namespace {

class Reader {
 public:
  Reader(std::span<const std::uint8_t> b, const std::string& source) : b_(b), source_(source) {}

  [[noreturn]] void fail_at(std::uint64_t off, const std::string& what) const {
    refuse(RefusalCode::model_mismatch, source_ + ": byte " + std::to_string(off) + ": " + what);
  }

  std::uint64_t pos() const { return pos_; }
  std::uint64_t remaining() const { return b_.size() - pos_; }
  void need(std::uint64_t n, const std::string& record) const {
    if (n > remaining()) {
      fail_at(pos_, record + ": needs " + std::to_string(n) + " bytes, the file has " +
                        std::to_string(remaining()) + " left");
    }
  }
  std::uint64_t le(unsigned n) {
    std::uint64_t v = 0;
    for (unsigned i = 0; i < n; ++i) v |= static_cast<std::uint64_t>(b_[pos_ + i]) << (8 * i);
    pos_ += n;
    return v;
  }
  std::uint8_t u8() { return static_cast<std::uint8_t>(le(1)); }
  std::uint16_t u16() { return static_cast<std::uint16_t>(le(2)); }
  std::uint32_t u32() { return static_cast<std::uint32_t>(le(4)); }
  std::uint64_t u64() { return le(8); }
  std::int64_t i64() { return static_cast<std::int64_t>(le(8)); }
  // A signed little-endian integer of 1, 2, 4 or 8 bytes.
  std::int64_t sint(unsigned n) {
    const std::uint64_t v = le(n);
    if (n == 8) return static_cast<std::int64_t>(v);
    const std::uint64_t sign = std::uint64_t{1} << (8 * n - 1);
    return static_cast<std::int64_t>(v ^ sign) - static_cast<std::int64_t>(sign);
  }

 private:
  std::span<const std::uint8_t> b_;
  const std::string& source_;
  std::uint64_t pos_ = 0;
};

std::string tensor_name(std::uint32_t t) { return "tensor " + std::to_string(t); }

// Reads one operator's parameters (§10.4) from exactly `plen` bytes and checks their ranges
// (§10.5 step 5). `cin` is the first input tensor's channel count.
struct ParamReader {
  Reader& r;
  const Whg1Graph& g;
  std::string where;  // "operator 3 (conv) at byte 412"
  std::uint64_t end;  // offset one past the parameters

  [[noreturn]] void bad(const std::string& what) const { r.fail_at(r.pos(), where + ": " + what); }
  void need(std::uint64_t n, const char* field) const {
    if (n > end - r.pos()) {
      bad(std::string("parameter ") + field + " runs past the parameter length");
    }
  }
  std::uint8_t u8(const char* f) { need(1, f); return r.u8(); }
  std::int8_t i8(const char* f) { need(1, f); return static_cast<std::int8_t>(r.u8()); }
  std::uint16_t u16(const char* f) { need(2, f); return r.u16(); }
  std::uint32_t u32(const char* f) { need(4, f); return r.u32(); }
  std::uint64_t u64(const char* f) { need(8, f); return r.u64(); }
  std::int64_t i64(const char* f) { need(8, f); return r.i64(); }
  void reserved(unsigned n, const char* f) {
    need(n, f);
    for (unsigned i = 0; i < n; ++i) {
      const auto at = r.pos();
      if (r.u8() != 0) r.fail_at(at, where + ": reserved byte of " + f + " is not 0");
    }
  }
  // count values of `width` bytes each; the length is checked before anything is allocated.
  std::vector<std::int64_t> ints(unsigned __int128 count, unsigned width, const char* f) {
    const std::uint64_t left = end - r.pos();
    const unsigned __int128 bytes = count > left ? static_cast<unsigned __int128>(left) + 1 : count * width;
    if (bytes > left) {
      bad(std::string("parameter ") + f + " needs more bytes than the " + std::to_string(left) +
          " the parameter length leaves");
    }
    std::vector<std::int64_t> v(static_cast<std::size_t>(count));
    for (auto& x : v) x = r.sint(width);
    return v;
  }
  void done() {
    if (r.pos() != end) {
      bad("parameter length " + std::to_string(end - r.pos()) +
          " bytes longer than the operator's parameters");
    }
  }

  RqBlock rq(std::uint64_t channels) {
    RqBlock q;
    const auto at = r.pos();
    const auto round = u8("RQ.round");
    const auto bias = u8("RQ.bias");
    q.m_kind = u8("RQ.m_kind");
    q.s_kind = u8("RQ.s_kind");
    q.m_bytes = u8("RQ.m_bytes");
    q.b_bytes = u8("RQ.b_bytes");
    if (round > 2) r.fail_at(at, where + ": RQ.round " + std::to_string(round) + " is not 0, 1 or 2");
    if (bias > 2) r.fail_at(at + 1, where + ": RQ.bias " + std::to_string(bias) + " is not 0, 1 or 2");
    if (q.m_kind > 2) r.fail_at(at + 2, where + ": RQ.m_kind " + std::to_string(q.m_kind) + " is not 0, 1 or 2");
    if (q.s_kind != 1 && q.s_kind != 2) r.fail_at(at + 3, where + ": RQ.s_kind " + std::to_string(q.s_kind) + " is not 1 or 2");
    if (q.m_kind == 0 ? q.m_bytes != 0 : (q.m_bytes != 4 && q.m_bytes != 8)) {
      r.fail_at(at + 4, where + ": RQ.m_bytes " + std::to_string(q.m_bytes) +
                            (q.m_kind == 0 ? " is not 0 with no multiplier" : " is not 4 or 8"));
    }
    if (bias == 0 ? q.b_bytes != 0 : (q.b_bytes != 4 && q.b_bytes != 8)) {
      r.fail_at(at + 5, where + ": RQ.b_bytes " + std::to_string(q.b_bytes) +
                            (bias == 0 ? " is not 0 with no bias" : " is not 4 or 8"));
    }
    q.round = static_cast<Round>(round);
    q.bias = static_cast<BiasPlacement>(bias);
    reserved(2, "RQ");
    const std::uint64_t n_m = q.m_kind == 0 ? 0 : q.m_kind == 1 ? 1 : channels;
    q.mult = ints(n_m, q.m_bytes, "RQ.mult");
    const std::uint64_t n_s = q.s_kind == 1 ? 1 : channels;
    need(n_s, "RQ.shift");
    q.shift.resize(static_cast<std::size_t>(n_s));
    for (auto& s : q.shift) {
      const auto a = r.pos();
      s = r.u8();
      if (s > 127) r.fail_at(a, where + ": RQ.shift " + std::to_string(s) + " is past 127");
    }
    if (q.bias != BiasPlacement::none) q.bias_values = ints(channels, q.b_bytes, "RQ.bias");
    return q;
  }
};

OpParams read_params(ParamReader& p, Opcode op, std::uint64_t cin) {
  auto range = [&](bool ok, const std::string& what) {
    if (!ok) p.bad(what);
  };
  switch (op) {
    case Opcode::conv: {
      ConvParams c;
      c.cout = p.u32("cout"); c.kh = p.u32("kh"); c.kw = p.u32("kw"); c.sh = p.u32("sh");
      c.sw = p.u32("sw"); c.ph = p.u32("ph"); c.pw = p.u32("pw"); c.groups = p.u32("groups");
      c.w_bytes = p.u8("w_bytes");
      p.reserved(3, "w_bytes");
      range(c.cout >= 1, "cout is 0");
      range(c.kh >= 1 && c.kw >= 1, "kernel side kh or kw is 0");
      range(c.sh >= 1 && c.sw >= 1, "stride sh or sw is 0");
      range(c.groups >= 1, "groups is 0");
      range(c.w_bytes == 1 || c.w_bytes == 2 || c.w_bytes == 4 || c.w_bytes == 8,
            "w_bytes " + std::to_string(c.w_bytes) + " is not 1, 2, 4 or 8");
      range(cin % c.groups == 0, "input channels " + std::to_string(cin) +
                                     " are not a multiple of groups " + std::to_string(c.groups));
      range(c.cout % c.groups == 0, "cout " + std::to_string(c.cout) +
                                        " is not a multiple of groups " + std::to_string(c.groups));
      c.rq = p.rq(c.cout);
      const unsigned __int128 n = static_cast<unsigned __int128>(c.cout) * (cin / c.groups) * c.kh * c.kw;
      c.weights = p.ints(n, c.w_bytes, "Wt");
      return c;
    }
    case Opcode::conv_transpose: {
      ConvTransposeParams c;
      c.cout = p.u32("cout"); c.kh = p.u32("kh"); c.kw = p.u32("kw"); c.sh = p.u32("sh");
      c.sw = p.u32("sw"); c.ph = p.u32("ph"); c.pw = p.u32("pw"); c.oph = p.u32("oph");
      c.opw = p.u32("opw");
      c.w_bytes = p.u8("w_bytes");
      p.reserved(3, "w_bytes");
      range(c.cout >= 1, "cout is 0");
      range(c.kh >= 1 && c.kw >= 1, "kernel side kh or kw is 0");
      range(c.sh >= 1 && c.sw >= 1, "stride sh or sw is 0");
      range(c.w_bytes == 1 || c.w_bytes == 2 || c.w_bytes == 4 || c.w_bytes == 8,
            "w_bytes " + std::to_string(c.w_bytes) + " is not 1, 2, 4 or 8");
      c.rq = p.rq(c.cout);
      const unsigned __int128 n = static_cast<unsigned __int128>(cin) * c.cout * c.kh * c.kw;
      c.weights = p.ints(n, c.w_bytes, "Wt");
      return c;
    }
    case Opcode::rescale: return RqParams{p.rq(cin)};
    case Opcode::mul: {
      RqParams q{p.rq(cin)};
      range(q.rq.bias == BiasPlacement::none, "mul's RQ has a bias");
      return q;
    }
    case Opcode::gram:
    case Opcode::apply: {
      ContractionParams c;
      c.groups = p.u32("groups");
      range(c.groups >= 1, "groups is 0");
      c.rq = p.rq(cin);
      range(c.rq.m_kind == 0, "the RQ of " + op_name(op) + " has a multiplier");
      range(c.rq.bias == BiasPlacement::none, "the RQ of " + op_name(op) + " has a bias");
      range(c.rq.s_kind == 1, "the RQ of " + op_name(op) + " has a shift per channel");
      return c;
    }
    case Opcode::chscale: {
      ChscaleParams c;
      c.scalar = p.u32("scalar");
      c.n_rows = p.u32("n_rows");
      const auto round = p.u8("round");
      c.m_bytes = p.u8("m_bytes");
      c.shift = p.u8("shift");
      p.reserved(1, "shift");
      range(round <= 2, "round " + std::to_string(round) + " is not 0, 1 or 2");
      c.round = static_cast<Round>(round);
      range(c.m_bytes == 4 || c.m_bytes == 8, "m_bytes " + std::to_string(c.m_bytes) + " is not 4 or 8");
      range(c.shift <= 127, "shift " + std::to_string(c.shift) + " is past 127");
      range(c.n_rows >= 1, "n_rows is 0");
      range(c.scalar < p.g.scalars.size(), "scalar index " + std::to_string(c.scalar) +
                                               " is past the scalar table (" +
                                               std::to_string(p.g.scalars.size()) + " scalars)");
      const auto& s = p.g.scalars[c.scalar];
      range(s.lo >= 0 && s.hi <= static_cast<std::int64_t>(c.n_rows) - 1,
            "scalar " + std::to_string(c.scalar) + "'s range [" + std::to_string(s.lo) + ", " +
                std::to_string(s.hi) + "] is not within the rows [0, " +
                std::to_string(c.n_rows - 1) + "]");
      c.m = p.ints(static_cast<unsigned __int128>(c.n_rows) * cin, c.m_bytes, "M");
      return c;
    }
    case Opcode::lut16: {
      Lut16Params l;
      l.e_in = p.i8("e_in");
      l.e_out = p.i8("e_out");
      p.reserved(2, "e_out");
      auto t = p.ints(65536, 2, "T");
      l.table.assign(t.begin(), t.end());
      range(l.table[0] == 0, "T[0] is " + std::to_string(l.table[0]) + ", not 0");
      return l;
    }
    case Opcode::add: case Opcode::concat: case Opcode::chunk_add: case Opcode::relu:
    case Opcode::abs: case Opcode::crop_to: case Opcode::softmax: case Opcode::sigmoid:
      return std::monostate{};
    case Opcode::split: {
      SplitParams s;
      s.start = p.u32("start");
      s.count = p.u32("count");
      range(s.count >= 1, "count is 0");
      return s;
    }
    case Opcode::pixel_shuffle:
    case Opcode::pixel_unshuffle: {
      ShuffleParams s{p.u32("r")};
      range(s.r >= 1, "r is 0");
      return s;
    }
    case Opcode::clamp: {
      ClampParams c;
      c.lo = p.i64("lo");
      c.hi = p.i64("hi");
      range(c.lo <= c.hi, "lo " + std::to_string(c.lo) + " > hi " + std::to_string(c.hi));
      return c;
    }
    case Opcode::leaky: {
      LeakyParams l;
      l.a = p.i64("a");
      l.f = p.u32("f");
      range(l.f <= 63, "f " + std::to_string(l.f) + " is past 63");
      return l;
    }
    case Opcode::pad_rep: {
      PadRepParams m{p.u32("m")};
      range(m.m >= 1, "m is 0");
      return m;
    }
    case Opcode::crop: {
      CropParams c;
      const char* names[4] = {"y0", "x0", "h", "w"};
      Operand* ops[4] = {&c.y0, &c.x0, &c.h, &c.w};
      for (int i = 0; i < 4; ++i) {
        const auto kind = p.u8(names[i]);
        p.reserved(3, names[i]);
        ops[i]->value = p.u32(names[i]);
        range(kind <= 1, std::string("operand ") + names[i] + " kind " + std::to_string(kind) +
                             " is not 0 or 1");
        ops[i]->kind = static_cast<OperandKind>(kind);
        if (ops[i]->kind == OperandKind::scalar) {
          range(ops[i]->value < p.g.scalars.size(),
                std::string("operand ") + names[i] + " names scalar " +
                    std::to_string(ops[i]->value) + ", past the scalar table");
        }
      }
      return c;
    }
    case Opcode::subpos_split:
    case Opcode::subpos_merge: {
      SubposParams s;
      unsigned seen = 0;
      for (auto& o : s.order) {
        o = p.u8("order");
        range(o <= 3, "order entry " + std::to_string(o) + " is past 3");
        seen |= 1u << o;
      }
      range(seen == 15, "order is not a permutation of the four sub-positions");
      return s;
    }
    case Opcode::fill: {
      FillParams f;
      const auto kind = p.u8("kind");
      p.reserved(7, "kind");
      f.value = p.i64("value");
      range(kind <= 1, "kind " + std::to_string(kind) + " is not 0 or 1");
      f.kind = static_cast<OperandKind>(kind);
      if (f.kind == OperandKind::scalar) {
        range(f.value >= 0 && static_cast<std::uint64_t>(f.value) < p.g.scalars.size(),
              "value names scalar " + std::to_string(f.value) + ", past the scalar table");
      }
      return f;
    }
    case Opcode::igdn: {
      IgdnParams q;
      q.gf = p.u32("gf");
      q.frac = p.u32("frac");
      q.g_bytes = p.u8("g_bytes");
      p.reserved(7, "g_bytes");
      range(q.gf <= 127, "gf " + std::to_string(q.gf) + " is past 127");
      range(q.frac <= 127, "frac " + std::to_string(q.frac) + " is past 127");
      range(q.g_bytes == 4 || q.g_bytes == 8, "g_bytes " + std::to_string(q.g_bytes) + " is not 4 or 8");
      q.gamma = p.ints(static_cast<unsigned __int128>(cin) * cin, q.g_bytes, "gamma");
      q.beta = p.ints(cin, 8, "beta");
      return q;
    }
    case Opcode::layernorm_c: {
      LayernormParams q;
      q.eps = p.u64("eps");
      q.g_bytes = p.u8("g_bytes");
      p.reserved(7, "g_bytes");
      range(q.eps >= 1, "eps is 0");
      range(q.g_bytes == 4 || q.g_bytes == 8, "g_bytes " + std::to_string(q.g_bytes) + " is not 4 or 8");
      q.gamma = p.ints(cin, q.g_bytes, "gamma");
      q.beta = p.ints(cin, 8, "beta");
      return q;
    }
    case Opcode::l2norm: {
      L2normParams q{p.u64("eps")};
      range(q.eps >= 1, "eps is 0");
      return q;
    }
    case Opcode::elu: return EluParams{p.i64("alpha")};
  }
  p.bad("unknown opcode");
}

// §10.3's graph rules and §3's exponent rules (step 6).
void check_graph_rules(const Whg1Graph& g, const std::string& source) {
  auto bad = [&](const std::string& what) { refuse(RefusalCode::model_mismatch, source + ": " + what); };
  const std::size_t nt = g.tensors.size();
  std::vector<std::int64_t> producer(nt, -2);  // -2 undefined, -1 graph input, else op index
  for (std::size_t i = 0; i < g.inputs.size(); ++i) {
    const auto t = g.inputs[i].tensor;
    if (producer[t] != -2) bad("input " + std::to_string(i) + ": " + tensor_name(t) + " is already a graph input");
    producer[t] = -1;
  }
  for (std::size_t k = 0; k < g.ops.size(); ++k) {
    const Operator& op = g.ops[k];
    const std::string where = "operator " + std::to_string(k) + " (" + op_name(op.opcode) +
                              ") at byte " + std::to_string(op.offset);
    for (auto t : op.inputs) {
      if (producer[t] == -2) bad(where + ": reads " + tensor_name(t) + ", which no graph input or earlier operator defines");
    }
    for (auto t : op.outputs) {
      if (producer[t] == -1) bad(where + ": writes " + tensor_name(t) + ", a graph input");
      if (producer[t] >= 0) bad(where + ": writes " + tensor_name(t) + ", already the output of operator " + std::to_string(producer[t]));
      producer[t] = static_cast<std::int64_t>(k);
    }
  }
  for (std::size_t t = 0; t < nt; ++t) {
    if (producer[t] == -2) bad(tensor_name(static_cast<std::uint32_t>(t)) + " is neither a graph input nor an operator's output");
  }
  for (std::size_t i = 0; i < g.inputs.size(); ++i) {
    const InputRecord& in = g.inputs[i];
    const TensorRecord& tr = g.tensors[in.tensor];
    if (tr.policy == Policy::derived) bad("input " + std::to_string(i) + ": " + tensor_name(in.tensor) + " has the policy derived, not check or clamp");
  }
  if (g.inputs[0].kind != InputKind::data) bad("input 0 is a state input, not data");
  for (std::size_t i = 0; i < g.inputs.size(); ++i) {
    const InputRecord& in = g.inputs[i];
    if (in.kind != InputKind::state) continue;
    const std::string where = "input " + std::to_string(i) + " (state)";
    if (in.src >= g.outputs.size()) bad(where + ": src " + std::to_string(in.src) + " is past the outputs table (" + std::to_string(g.outputs.size()) + " outputs)");
    const TensorRecord& tr = g.tensors[in.tensor];
    const TensorRecord& src = g.tensors[g.outputs[in.src]];
    if (src.channels != tr.channels) bad(where + ": output " + std::to_string(in.src) + " has " + std::to_string(src.channels) + " channels, the state input " + std::to_string(tr.channels));
    if (in.init < tr.lo || in.init > tr.hi) bad(where + ": init " + std::to_string(in.init) + " is outside the input's range [" + std::to_string(tr.lo) + ", " + std::to_string(tr.hi) + "]");
  }
  // Exponents (§3, §5.6).
  for (std::size_t k = 0; k < g.ops.size(); ++k) {
    const Operator& op = g.ops[k];
    const std::string where = "operator " + std::to_string(k) + " (" + op_name(op.opcode) + ")";
    if (op.opcode == Opcode::add || op.opcode == Opcode::concat || op.opcode == Opcode::chunk_add) {
      std::vector<std::uint32_t> ts = op.inputs;
      ts.insert(ts.end(), op.outputs.begin(), op.outputs.end());
      const std::int8_t e0 = g.tensors[ts[0]].exponent;
      for (auto t : ts) {
        if (g.tensors[t].exponent != e0) bad(where + ": exponents differ (" + tensor_name(ts[0]) + " and " + tensor_name(t) + "); either none or all equal");
      }
    } else if (op.opcode == Opcode::lut16) {
      const auto& l = std::get<Lut16Params>(op.params);
      if (l.e_in != g.tensors[op.inputs[0]].exponent) bad(where + ": e_in " + std::to_string(l.e_in) + " differs from the input tensor's exponent " + std::to_string(g.tensors[op.inputs[0]].exponent));
      if (l.e_out != g.tensors[op.outputs[0]].exponent) bad(where + ": e_out " + std::to_string(l.e_out) + " differs from the output tensor's exponent " + std::to_string(g.tensors[op.outputs[0]].exponent));
    }
  }
}

Whg1Graph read_impl(std::span<const std::uint8_t> bytes, const ReadOptions& options) {
  const std::string& src = options.source;
  Reader r(bytes, src);
  Whg1Graph g;
  // Step 1: magic, version, operator set.
  if (bytes.size() < 32) r.fail_at(0, "header: the file has " + std::to_string(bytes.size()) + " bytes, fewer than the 32-byte header");
  if (std::memcmp(bytes.data(), "WHG1", 4) != 0) r.fail_at(0, "header: magic is not WHG1");
  if (bytes[4] != 1) r.fail_at(4, "header: version " + std::to_string(bytes[4]) + " is not 1");
  if (bytes[5] != 1) r.fail_at(5, "header: operator set " + std::to_string(bytes[5]) + " is not 1 (wai-ops/1)");
  // Step 2: reserved fields.
  for (unsigned off : {6u, 7u, 22u, 23u, 28u, 29u, 30u, 31u}) {
    if (bytes[off] != 0) r.fail_at(off, "header: reserved byte is not 0");
  }
  // Step 3: the counts against the file's length.
  r.le(8);
  const std::uint32_t nt = r.u32(), nops = r.u32();
  const std::uint16_t ni = r.u16(), no = r.u16(), ns = r.u16();
  r.u16();
  g.max_elems = r.u32();
  r.u32();
  if (nt == 0) r.fail_at(8, "header: n_tensors is 0");
  if (nops == 0) r.fail_at(12, "header: n_ops is 0");
  if (ni == 0) r.fail_at(16, "header: n_inputs is 0");
  if (no == 0) r.fail_at(18, "header: n_outputs is 0");
  if (g.max_elems == 0 || g.max_elems > kMaxElemsCap) r.fail_at(24, "header: max_elems " + std::to_string(g.max_elems) + " is not in 1..=2^26");
  const unsigned __int128 least = static_cast<unsigned __int128>(32) + 16u * ns + 32u * ni + 4u * no +
                                  static_cast<unsigned __int128>(24) * nt + static_cast<unsigned __int128>(8) * nops;
  if (least > bytes.size()) {
    r.fail_at(8, "header: the counts need at least " + std::to_string(static_cast<std::uint64_t>(least)) +
                     " bytes (tables and one 8-byte record per operator), the file has " + std::to_string(bytes.size()));
  }
  // Step 4: each table's records.
  g.scalars.resize(ns);
  for (std::uint32_t i = 0; i < ns; ++i) {
    const auto at = r.pos();
    auto& s = g.scalars[i];
    s.lo = r.i64();
    s.hi = r.i64();
    if (s.lo > s.hi) r.fail_at(at, "scalar " + std::to_string(i) + ": lo " + std::to_string(s.lo) + " > hi " + std::to_string(s.hi));
  }
  g.inputs.resize(ni);
  for (std::uint32_t i = 0; i < ni; ++i) {
    const auto at = r.pos();
    auto& in = g.inputs[i];
    const std::string w = "input " + std::to_string(i);
    in.tensor = r.u32();
    in.max_h = r.u32();
    in.max_w = r.u32();
    const auto kind = r.u8();
    for (int k = 0; k < 3; ++k) if (r.u8() != 0) r.fail_at(at + 13 + k, w + ": reserved byte is not 0");
    in.src = r.u32();
    if (r.u32() != 0) r.fail_at(at + 20, w + ": reserved field is not 0");
    in.init = r.i64();
    if (in.tensor >= nt) r.fail_at(at, w + ": tensor " + std::to_string(in.tensor) + " is past the tensor table (" + std::to_string(nt) + " tensors)");
    if ((in.max_h == 0) != (in.max_w == 0)) r.fail_at(at + 4, w + ": max_h " + std::to_string(in.max_h) + " and max_w " + std::to_string(in.max_w) + " are not both 0 or both at least 1");
    if (in.declares_sizes() != g.inputs[0].declares_sizes()) r.fail_at(at + 4, w + ": declares its sizes unlike input 0; every input declares them or none does");
    if (kind > 1) r.fail_at(at + 12, w + ": kind " + std::to_string(kind) + " is not 0 (data) or 1 (state)");
    in.kind = static_cast<InputKind>(kind);
    if (in.kind == InputKind::data && in.src != 0) r.fail_at(at + 16, w + ": a data input's src is " + std::to_string(in.src) + ", not 0");
    if (in.kind == InputKind::data && in.init != 0) r.fail_at(at + 24, w + ": a data input's init is " + std::to_string(in.init) + ", not 0");
  }
  g.outputs.resize(no);
  for (std::uint32_t i = 0; i < no; ++i) {
    const auto at = r.pos();
    g.outputs[i] = r.u32();
    if (g.outputs[i] >= nt) r.fail_at(at, "output " + std::to_string(i) + ": tensor " + std::to_string(g.outputs[i]) + " is past the tensor table");
  }
  g.tensors.resize(nt);
  for (std::uint32_t i = 0; i < nt; ++i) {
    const auto at = r.pos();
    auto& t = g.tensors[i];
    const std::string w = "tensor " + std::to_string(i);
    t.channels = r.u32();
    t.exponent = static_cast<std::int8_t>(r.u8());
    const auto policy = r.u8();
    if (r.u16() != 0) r.fail_at(at + 6, w + ": reserved field is not 0");
    t.lo = r.i64();
    t.hi = r.i64();
    if (t.channels == 0) r.fail_at(at, w + ": channels is 0");
    if (policy > 2) r.fail_at(at + 5, w + ": policy " + std::to_string(policy) + " is not 0, 1 or 2");
    t.policy = static_cast<Policy>(policy);
    if (t.policy == Policy::derived && (t.lo != 0 || t.hi != 0)) r.fail_at(at + 8, w + ": a derived tensor's lo and hi are not 0");
    if (t.policy != Policy::derived && t.lo > t.hi) r.fail_at(at + 8, w + ": lo " + std::to_string(t.lo) + " > hi " + std::to_string(t.hi));
  }
  // Step 5: operators.
  g.ops.resize(nops);
  for (std::uint32_t k = 0; k < nops; ++k) {
    Operator& op = g.ops[k];
    op.offset = r.pos();
    std::string where = "operator " + std::to_string(k) + " at byte " + std::to_string(op.offset);
    r.need(4, where);
    const auto code = r.u8();
    const auto n_in = r.u8(), n_out = r.u8();
    if (r.u8() != 0) r.fail_at(op.offset + 3, where + ": reserved byte is not 0");
    const OpInfo* info = find_op(code);
    if (!info) r.fail_at(op.offset, where + ": unknown opcode " + std::to_string(code));
    op.opcode = info->op;
    where = "operator " + std::to_string(k) + " (" + info->name + ") at byte " + std::to_string(op.offset);
    const bool in_ok = info->n_in == -2 ? n_in >= 2 : n_in == info->n_in;
    if (!in_ok) r.fail_at(op.offset + 1, where + ": n_in " + std::to_string(n_in) + " is not the operator's");
    if (n_out != info->n_out) r.fail_at(op.offset + 2, where + ": n_out " + std::to_string(n_out) + " is not the operator's");
    r.need(4u * (n_in + n_out) + 4u, where);
    op.inputs.resize(n_in);
    op.outputs.resize(n_out);
    for (auto* list : {&op.inputs, &op.outputs}) {
      for (auto& t : *list) {
        const auto at = r.pos();
        t = r.u32();
        if (t >= nt) r.fail_at(at, where + ": tensor " + std::to_string(t) + " is past the tensor table");
      }
    }
    const auto plen_at = r.pos();
    const std::uint32_t plen = r.u32();
    if (plen > r.remaining()) r.fail_at(plen_at, where + ": plen " + std::to_string(plen) + " runs past the end of the file");
    ParamReader p{r, g, where, r.pos() + plen};
    op.params = read_params(p, op.opcode, g.tensors[op.inputs[0]].channels);
    p.done();
  }
  if (r.remaining() != 0) r.fail_at(r.pos(), "bytes follow the last operator");
  // Step 6: graph rules, state rules, exponents.
  check_graph_rules(g, src);
  // Step 7: the plan.
  if (options.plan) plan_at_load(g, src);
  return g;
}

}  // namespace

Whg1Graph read_whg1(std::span<const std::uint8_t> bytes, const ReadOptions& options) {
  return read_impl(bytes, options);
}

std::variant<Whg1Graph, Refusal> try_read_whg1(std::span<const std::uint8_t> bytes,
                                               const ReadOptions& options) {
  try {
    return read_impl(bytes, options);
  } catch (const RefusalError& e) {
    return e.refusal();
  }
}

void check_whg1(const Whg1Graph& graph, const ReadOptions& options) {
  const auto bytes = write_whg1(graph);
  (void)read_whg1(bytes, options);
}

// ---------------------------------------------------------------------------------------------
// Writing

namespace {

class Writer {
 public:
  std::vector<std::uint8_t> out;
  void le(std::uint64_t v, unsigned n) {
    for (unsigned i = 0; i < n; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  }
  void u8(std::uint64_t v) { le(v, 1); }
  void u16(std::uint64_t v) { le(v, 2); }
  void u32(std::uint64_t v) { le(v, 4); }
  void u64(std::uint64_t v) { le(v, 8); }
  void i64(std::int64_t v) { le(static_cast<std::uint64_t>(v), 8); }
  void zeros(unsigned n) { le(0, n); }
  void sint(std::int64_t v, unsigned width, const std::string& what) {
    if (width < 8) {
      const std::int64_t lim = std::int64_t{1} << (8 * width - 1);
      if (v < -lim || v >= lim) fail("write_whg1: " + what + " value " + std::to_string(v) + " does not fit " + std::to_string(width) + " bytes");
    }
    le(static_cast<std::uint64_t>(v), width);
  }
  void ints(const std::vector<std::int64_t>& v, std::size_t count, unsigned width, const std::string& what) {
    if (v.size() != count) fail("write_whg1: " + what + " has " + std::to_string(v.size()) + " values, the record needs " + std::to_string(count));
    for (auto x : v) sint(x, width, what);
  }
};

void write_rq(Writer& w, const RqBlock& q, std::size_t channels, const std::string& where) {
  w.u8(static_cast<std::uint8_t>(q.round));
  w.u8(static_cast<std::uint8_t>(q.bias));
  w.u8(q.m_kind);
  w.u8(q.s_kind);
  w.u8(q.m_bytes);
  w.u8(q.b_bytes);
  w.zeros(2);
  const std::size_t n_m = q.m_kind == 0 ? 0 : q.m_kind == 1 ? 1 : channels;
  w.ints(q.mult, n_m, q.m_bytes, where + " RQ.mult");
  const std::size_t n_s = q.s_kind == 1 ? 1 : channels;
  if (q.shift.size() != n_s) fail("write_whg1: " + where + " RQ.shift has " + std::to_string(q.shift.size()) + " values, the record needs " + std::to_string(n_s));
  for (auto s : q.shift) w.u8(s);
  if (q.bias != BiasPlacement::none) w.ints(q.bias_values, channels, q.b_bytes, where + " RQ.bias");
}

void write_params(Writer& w, const Whg1Graph& g, const Operator& op, const std::string& where) {
  const std::size_t cin = op.inputs.empty() || op.inputs[0] >= g.tensors.size() ? 0 : g.tensors[op.inputs[0]].channels;
  std::visit(
      [&](const auto& p) {
        using P = std::decay_t<decltype(p)>;
        if constexpr (std::is_same_v<P, ConvParams>) {
          for (auto v : {p.cout, p.kh, p.kw, p.sh, p.sw, p.ph, p.pw, p.groups}) w.u32(v);
          w.u8(p.w_bytes);
          w.zeros(3);
          write_rq(w, p.rq, p.cout, where);
          // With groups not dividing cin the record has no weight count: the weights are written
          // as given, so that such a graph can be written and refused by the reader.
          const bool counted = p.groups != 0 && cin % p.groups == 0;
          const std::size_t n = counted ? std::size_t{p.cout} * (cin / p.groups) * p.kh * p.kw : p.weights.size();
          w.ints(p.weights, n, p.w_bytes, where + " Wt");
        } else if constexpr (std::is_same_v<P, ConvTransposeParams>) {
          for (auto v : {p.cout, p.kh, p.kw, p.sh, p.sw, p.ph, p.pw, p.oph, p.opw}) w.u32(v);
          w.u8(p.w_bytes);
          w.zeros(3);
          write_rq(w, p.rq, p.cout, where);
          w.ints(p.weights, cin * p.cout * p.kh * p.kw, p.w_bytes, where + " Wt");
        } else if constexpr (std::is_same_v<P, RqParams>) {
          write_rq(w, p.rq, cin, where);
        } else if constexpr (std::is_same_v<P, ContractionParams>) {
          w.u32(p.groups);
          write_rq(w, p.rq, cin, where);
        } else if constexpr (std::is_same_v<P, ChscaleParams>) {
          w.u32(p.scalar);
          w.u32(p.n_rows);
          w.u8(static_cast<std::uint8_t>(p.round));
          w.u8(p.m_bytes);
          w.u8(p.shift);
          w.zeros(1);
          w.ints(p.m, std::size_t{p.n_rows} * cin, p.m_bytes, where + " M");
        } else if constexpr (std::is_same_v<P, Lut16Params>) {
          w.u8(static_cast<std::uint8_t>(p.e_in));
          w.u8(static_cast<std::uint8_t>(p.e_out));
          w.zeros(2);
          if (p.table.size() != 65536) fail("write_whg1: " + where + " lut16 table has " + std::to_string(p.table.size()) + " entries, not 65536");
          for (auto t : p.table) w.u16(static_cast<std::uint16_t>(t));
        } else if constexpr (std::is_same_v<P, SplitParams>) {
          w.u32(p.start);
          w.u32(p.count);
        } else if constexpr (std::is_same_v<P, ShuffleParams>) {
          w.u32(p.r);
        } else if constexpr (std::is_same_v<P, ClampParams>) {
          w.i64(p.lo);
          w.i64(p.hi);
        } else if constexpr (std::is_same_v<P, LeakyParams>) {
          w.i64(p.a);
          w.u32(p.f);
        } else if constexpr (std::is_same_v<P, PadRepParams>) {
          w.u32(p.m);
        } else if constexpr (std::is_same_v<P, CropParams>) {
          for (const Operand* o : {&p.y0, &p.x0, &p.h, &p.w}) {
            w.u8(static_cast<std::uint8_t>(o->kind));
            w.zeros(3);
            w.u32(o->value);
          }
        } else if constexpr (std::is_same_v<P, SubposParams>) {
          for (auto o : p.order) w.u8(o);
        } else if constexpr (std::is_same_v<P, FillParams>) {
          w.u8(static_cast<std::uint8_t>(p.kind));
          w.zeros(7);
          w.i64(p.value);
        } else if constexpr (std::is_same_v<P, IgdnParams>) {
          w.u32(p.gf);
          w.u32(p.frac);
          w.u8(p.g_bytes);
          w.zeros(7);
          w.ints(p.gamma, cin * cin, p.g_bytes, where + " gamma");
          w.ints(p.beta, cin, 8, where + " beta");
        } else if constexpr (std::is_same_v<P, LayernormParams>) {
          w.u64(p.eps);
          w.u8(p.g_bytes);
          w.zeros(7);
          w.ints(p.gamma, cin, p.g_bytes, where + " gamma");
          w.ints(p.beta, cin, 8, where + " beta");
        } else if constexpr (std::is_same_v<P, L2normParams>) {
          w.u64(p.eps);
        } else if constexpr (std::is_same_v<P, EluParams>) {
          w.i64(p.alpha);
        }
      },
      op.params);
}

// The parameter struct each opcode carries.
bool params_match(Opcode op, const OpParams& p) {
  switch (op) {
    case Opcode::conv: return std::holds_alternative<ConvParams>(p);
    case Opcode::conv_transpose: return std::holds_alternative<ConvTransposeParams>(p);
    case Opcode::rescale: case Opcode::mul: return std::holds_alternative<RqParams>(p);
    case Opcode::gram: case Opcode::apply: return std::holds_alternative<ContractionParams>(p);
    case Opcode::chscale: return std::holds_alternative<ChscaleParams>(p);
    case Opcode::lut16: return std::holds_alternative<Lut16Params>(p);
    case Opcode::split: return std::holds_alternative<SplitParams>(p);
    case Opcode::pixel_shuffle: case Opcode::pixel_unshuffle: return std::holds_alternative<ShuffleParams>(p);
    case Opcode::clamp: return std::holds_alternative<ClampParams>(p);
    case Opcode::leaky: return std::holds_alternative<LeakyParams>(p);
    case Opcode::pad_rep: return std::holds_alternative<PadRepParams>(p);
    case Opcode::crop: return std::holds_alternative<CropParams>(p);
    case Opcode::subpos_split: case Opcode::subpos_merge: return std::holds_alternative<SubposParams>(p);
    case Opcode::fill: return std::holds_alternative<FillParams>(p);
    case Opcode::igdn: return std::holds_alternative<IgdnParams>(p);
    case Opcode::layernorm_c: return std::holds_alternative<LayernormParams>(p);
    case Opcode::l2norm: return std::holds_alternative<L2normParams>(p);
    case Opcode::elu: return std::holds_alternative<EluParams>(p);
    default: return std::holds_alternative<std::monostate>(p);
  }
}

}  // namespace

std::vector<std::uint8_t> write_whg1(const Whg1Graph& g) {
  auto count = [](std::size_t n, std::size_t max, const char* what) {
    if (n > max) fail(std::string("write_whg1: ") + what + " has " + std::to_string(n) + " records, past its count field");
  };
  count(g.tensors.size(), UINT32_MAX, "the tensor table");
  count(g.ops.size(), UINT32_MAX, "the operator list");
  count(g.inputs.size(), UINT16_MAX, "the input table");
  count(g.outputs.size(), UINT16_MAX, "the output table");
  count(g.scalars.size(), UINT16_MAX, "the scalar table");
  Writer w;
  w.out.insert(w.out.end(), {'W', 'H', 'G', '1', 1, 1, 0, 0});
  w.u32(g.tensors.size());
  w.u32(g.ops.size());
  w.u16(g.inputs.size());
  w.u16(g.outputs.size());
  w.u16(g.scalars.size());
  w.zeros(2);
  w.u32(g.max_elems);
  w.zeros(4);
  for (const auto& s : g.scalars) {
    w.i64(s.lo);
    w.i64(s.hi);
  }
  for (const auto& in : g.inputs) {
    w.u32(in.tensor);
    w.u32(in.max_h);
    w.u32(in.max_w);
    w.u8(static_cast<std::uint8_t>(in.kind));
    w.zeros(3);
    w.u32(in.src);
    w.zeros(4);
    w.i64(in.init);
  }
  for (auto t : g.outputs) w.u32(t);
  for (const auto& t : g.tensors) {
    w.u32(t.channels);
    w.u8(static_cast<std::uint8_t>(t.exponent));
    w.u8(static_cast<std::uint8_t>(t.policy));
    w.zeros(2);
    w.i64(t.lo);
    w.i64(t.hi);
  }
  for (std::size_t k = 0; k < g.ops.size(); ++k) {
    const Operator& op = g.ops[k];
    const std::string where = "operator " + std::to_string(k) + " (" + op_name(op.opcode) + ")";
    if (!params_match(op.opcode, op.params)) fail("write_whg1: " + where + " carries another operator's parameters");
    if (op.inputs.size() > 255 || op.outputs.size() > 255) fail("write_whg1: " + where + " has more than 255 inputs or outputs");
    w.u8(static_cast<std::uint8_t>(op.opcode));
    w.u8(op.inputs.size());
    w.u8(op.outputs.size());
    w.zeros(1);
    for (auto t : op.inputs) w.u32(t);
    for (auto t : op.outputs) w.u32(t);
    Writer p;
    write_params(p, g, op, where);
    if (p.out.size() > UINT32_MAX) fail("write_whg1: " + where + " parameters pass 2^32 bytes");
    w.u32(p.out.size());
    w.out.insert(w.out.end(), p.out.begin(), p.out.end());
  }
  return std::move(w.out);
}

}  // namespace loam::wai
