// WHG1 reading and writing (§10): the bytes of a small graph written out by hand, the load checks
// of §10.5 in their order, and the identity.
#include "whg1_test_graphs.hpp"

#include "wai/whg1.hpp"

#include <gtest/gtest.h>

#include <cstring>

using namespace loam::wai;
using namespace loam::wai::testing;

namespace {

// relu over one input [1 channel], check range [-5, 5], max_elems 256: laid out by hand from
// §10.1-§10.4.
std::vector<std::uint8_t> relu_bytes() {
  std::vector<std::uint8_t> b = {
      'W', 'H', 'G', '1', 1, 1, 0, 0,  // magic, version, operator set, reserved
      2, 0, 0, 0,                      // n_tensors
      1, 0, 0, 0,                      // n_ops
      1, 0, 1, 0, 0, 0, 0, 0,          // n_inputs, n_outputs, n_scalars, reserved
      0, 1, 0, 0,                      // max_elems = 256
      0, 0, 0, 0,                      // reserved
  };
  b.insert(b.end(), 32, 0);                        // input 0: tensor 0, sizes per decode, data
  b.insert(b.end(), {1, 0, 0, 0});                 // output 0: tensor 1
  b.insert(b.end(), {1, 0, 0, 0, 0x80, 2, 0, 0});  // tensor 0: 1 channel, no exponent, check
  b.insert(b.end(), {0xfb, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 5, 0, 0, 0, 0, 0, 0, 0});
  b.insert(b.end(), {1, 0, 0, 0, 0x80, 0, 0, 0});  // tensor 1: derived
  b.insert(b.end(), 16, 0);
  b.insert(b.end(), {0x0c, 1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0});  // relu 0 -> 1, plen 0
  return b;
}

Refusal refusal_of(const std::vector<std::uint8_t>& b) {
  auto r = try_read_whg1(b);
  if (auto* ref = std::get_if<Refusal>(&r)) return *ref;
  ADD_FAILURE() << "the graph loaded";
  return {};
}

void put_u32(std::vector<std::uint8_t>& b, std::size_t off, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b[off + i] = static_cast<std::uint8_t>(v >> (8 * i));
}

}  // namespace

TEST(Whg1Reader, ReadsTheHandWrittenBytes) {
  const auto b = relu_bytes();
  ASSERT_EQ(b.size(), 132u);
  const Whg1Graph g = read_whg1(b);
  EXPECT_EQ(g.max_elems, 256u);
  ASSERT_EQ(g.tensors.size(), 2u);
  EXPECT_EQ(g.tensors[0].policy, Policy::check);
  EXPECT_EQ(g.tensors[0].lo, -5);
  EXPECT_EQ(g.tensors[0].hi, 5);
  EXPECT_FALSE(g.tensors[0].has_exponent());
  ASSERT_EQ(g.ops.size(), 1u);
  EXPECT_EQ(g.ops[0].opcode, Opcode::relu);
  EXPECT_EQ(g.ops[0].offset, 116u);
  EXPECT_EQ(write_whg1(g), b);
}

TEST(Whg1Writer, BuilderWritesTheSameBytes) {
  GraphBuilder gb;
  gb.g.max_elems = 256;
  const auto x = gb.input(1, -5, 5);
  const auto y = gb.tensor(1);
  gb.op(Opcode::relu, {x}, {y});
  gb.output(y);
  EXPECT_EQ(write_whg1(gb.g), relu_bytes());
}

TEST(Whg1Identity, IsTheSha256OfTheBytes) {
  // FIPS 180-2's example: SHA-256("abc").
  const std::uint8_t abc[] = {'a', 'b', 'c'};
  EXPECT_EQ(to_hex(sha256(abc)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const auto b = relu_bytes();
  EXPECT_EQ(graph_identity(read_whg1(b)), sha256(b));
}

TEST(Whg1Reader, EveryTruncationIsRefused) {
  const auto b = relu_bytes();
  for (std::size_t n = 0; n < b.size(); ++n) {
    std::vector<std::uint8_t> cut(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(n));
    EXPECT_EQ(load_verdict(cut), "model_mismatch") << n;
  }
  auto longer = b;
  longer.push_back(0);
  const Refusal r = refusal_of(longer);
  EXPECT_EQ(r.code, RefusalCode::model_mismatch);
  EXPECT_NE(r.message.find("byte 132"), std::string::npos) << r.message;
}

TEST(Whg1Reader, HeaderChecksInOrder) {
  {
    auto b = relu_bytes();
    b[0] = 'X';
    b[4] = 2;  // a later fault in the same step: the magic is named
    const Refusal r = refusal_of(b);
    EXPECT_NE(r.message.find("magic"), std::string::npos) << r.message;
  }
  {
    auto b = relu_bytes();
    b[4] = 2;
    b[6] = 1;  // step 1 (version) before step 2 (reserved)
    EXPECT_NE(refusal_of(b).message.find("version"), std::string::npos);
  }
  {
    auto b = relu_bytes();
    b[5] = 2;
    EXPECT_NE(refusal_of(b).message.find("operator set"), std::string::npos);
  }
  {
    auto b = relu_bytes();
    b[29] = 1;
    put_u32(b, 8, 0);  // step 2 (reserved) before step 3 (counts)
    EXPECT_NE(refusal_of(b).message.find("byte 29"), std::string::npos);
  }
  {
    auto b = relu_bytes();
    put_u32(b, 8, 0);
    EXPECT_NE(refusal_of(b).message.find("n_tensors is 0"), std::string::npos);
  }
  for (std::uint32_t bad : {0u, (1u << 26) + 1}) {
    auto b = relu_bytes();
    put_u32(b, 24, bad);
    EXPECT_NE(refusal_of(b).message.find("max_elems"), std::string::npos);
  }
  {
    auto b = relu_bytes();
    put_u32(b, 24, 1u << 26);  // the cap itself is allowed
    EXPECT_EQ(load_verdict(b), "ok");
  }
  {
    auto b = relu_bytes();
    put_u32(b, 8, 3);  // one more tensor record than the file holds
    const Refusal r = refusal_of(b);
    EXPECT_EQ(r.code, RefusalCode::model_mismatch);
    EXPECT_NE(r.message.find("counts"), std::string::npos) << r.message;
  }
}

TEST(Whg1Reader, RecordChecks) {
  auto refuse_with = [](std::size_t off, std::uint8_t v, const char* needle) {
    auto b = relu_bytes();
    b[off] = v;
    const Refusal r = refusal_of(b);
    EXPECT_EQ(r.code, RefusalCode::model_mismatch);
    EXPECT_NE(r.message.find(needle), std::string::npos) << off << ": " << r.message;
  };
  refuse_with(32 + 4, 3, "max_h");          // max_h without max_w
  refuse_with(32 + 12, 2, "kind");          // input kind 2
  refuse_with(32 + 13, 1, "reserved");      // input reserved
  refuse_with(32 + 16, 1, "src");           // a data input's src
  refuse_with(32 + 24, 1, "init");          // a data input's init
  refuse_with(64, 9, "past the tensor table");  // output names tensor 9
  refuse_with(68 + 5, 3, "policy");         // tensor policy 3
  refuse_with(68 + 6, 1, "reserved");       // tensor reserved
  refuse_with(68, 0, "channels is 0");
  refuse_with(92 + 8, 1, "derived");        // derived tensor with lo = 1
  refuse_with(116, 0x1f, "unknown opcode");
  refuse_with(116, 0x00, "unknown opcode");
  refuse_with(116 + 1, 2, "n_in");
  refuse_with(116 + 2, 0, "n_out");
  refuse_with(116 + 3, 1, "reserved");
  refuse_with(116 + 8, 7, "past the tensor table");
  {
    // check lo > hi: lo = 6 > hi = 5
    auto b = relu_bytes();
    b[68 + 8] = 6;
    for (int i = 1; i < 8; ++i) b[68 + 8 + i] = 0;
    EXPECT_NE(refusal_of(b).message.find("lo 6 > hi 5"), std::string::npos);
  }
  {
    // relu with plen 1 and one parameter byte: the parameter length is not exact.
    auto b = relu_bytes();
    b[128] = 1;
    b.push_back(0);
    EXPECT_NE(refusal_of(b).message.find("longer"), std::string::npos);
  }
}

namespace {
GraphBuilder sized_conv(std::uint32_t max_h, std::uint32_t max_w, std::uint32_t ph) {
  ConvParams c;
  c.cout = 1; c.kh = 3; c.kw = 3; c.ph = ph; c.pw = ph;
  c.rq = rq_shift(0);
  c.weights.assign(9, 1);
  return unary(Opcode::conv, c, 1, 1, -5, 5, max_h, max_w);
}
}  // namespace

TEST(Whg1Reader, GraphRules) {
  {
    GraphBuilder b = unary(Opcode::relu, std::monostate{}, 1, 1);
    b.g.tensors[0].policy = Policy::derived;
    b.g.tensors[0].lo = b.g.tensors[0].hi = 0;
    EXPECT_NE(refusal_of(write_whg1(b.g)).message.find("policy derived"), std::string::npos);
  }
  {
    GraphBuilder b = unary(Opcode::relu, std::monostate{}, 1, 1);
    b.tensor(1);  // a tensor nothing defines
    EXPECT_NE(refusal_of(write_whg1(b.g)).message.find("neither a graph input"), std::string::npos);
  }
  {
    GraphBuilder b = unary(Opcode::relu, std::monostate{}, 1, 1);
    b.op(Opcode::relu, {0}, {1});  // tensor 1 produced twice
    EXPECT_NE(refusal_of(write_whg1(b.g)).message.find("already the output"), std::string::npos);
  }
  {
    GraphBuilder b;
    const auto x = b.input(1, 0, 1);
    b.op(Opcode::relu, {x}, {x});  // writes a graph input
    b.output(x);
    EXPECT_NE(refusal_of(write_whg1(b.g)).message.find("a graph input"), std::string::npos);
  }
  {
    GraphBuilder b;
    const auto x = b.input(1, 0, 1);
    const auto y = b.tensor(1), z = b.tensor(1);
    b.op(Opcode::relu, {z}, {y});  // reads a later operator's output
    b.op(Opcode::relu, {x}, {z});
    b.output(y);
    EXPECT_NE(refusal_of(write_whg1(b.g)).message.find("earlier operator"), std::string::npos);
  }
  {
    // Input 0 of kind state.
    GraphBuilder b;
    const auto s = b.state(1, 0, 9, 0, 0);
    const auto y = b.tensor(1);
    b.op(Opcode::relu, {s}, {y});
    b.output(y);
    EXPECT_NE(refusal_of(write_whg1(b.g)).message.find("input 0 is a state input"), std::string::npos);
  }
  {
    // State rules: src past the outputs, channel count, init outside the range.
    auto graph = [](std::uint32_t src, std::uint32_t state_channels, std::int64_t init) {
      GraphBuilder b;
      const auto x = b.input(1, 0, 9);
      const auto s = b.state(state_channels, 0, 9, src, init);
      const auto y = b.tensor(1), z = b.tensor(state_channels);
      b.op(Opcode::relu, {x}, {y});
      b.op(Opcode::relu, {s}, {z});
      b.output(y);
      b.output(z);
      return b.g;
    };
    EXPECT_EQ(load_verdict(graph(0, 1, 0)), "ok");
    EXPECT_EQ(load_verdict(graph(1, 1, 9)), "ok");
    EXPECT_NE(refusal_of(write_whg1(graph(2, 1, 0))).message.find("src 2"), std::string::npos);
    EXPECT_NE(refusal_of(write_whg1(graph(0, 2, 0))).message.find("channels"), std::string::npos);
    EXPECT_NE(refusal_of(write_whg1(graph(0, 1, 10))).message.find("init 10"), std::string::npos);
    EXPECT_NE(refusal_of(write_whg1(graph(0, 1, -1))).message.find("init -1"), std::string::npos);
  }
}

TEST(Whg1Reader, ExponentRules) {
  auto add_graph = [](std::int8_t ea, std::int8_t eb, std::int8_t ey) {
    GraphBuilder b;
    const auto a = b.input(1, 0, 9);
    const auto c = b.input(1, 0, 9);
    b.g.tensors[a].exponent = ea;
    b.g.tensors[c].exponent = eb;
    const auto y = b.tensor(1, Policy::derived, 0, 0, ey);
    b.op(Opcode::add, {a, c}, {y});
    b.output(y);
    return b.g;
  };
  EXPECT_EQ(load_verdict(add_graph(kNoExponent, kNoExponent, kNoExponent)), "ok");
  EXPECT_EQ(load_verdict(add_graph(3, 3, 3)), "ok");
  EXPECT_EQ(load_verdict(add_graph(3, 3, kNoExponent)), "model_mismatch");
  EXPECT_EQ(load_verdict(add_graph(3, 4, 3)), "model_mismatch");
  EXPECT_EQ(load_verdict(add_graph(-127, -127, -127)), "ok");

  auto lut = [](std::int8_t e_in, std::int8_t tensor_e) {
    Lut16Params l;
    l.e_in = e_in;
    l.table.assign(65536, 0);
    GraphBuilder b = unary(Opcode::lut16, l, 1, 1, -100, 100);
    b.g.tensors[0].exponent = tensor_e;
    return b.g;
  };
  EXPECT_EQ(load_verdict(lut(kNoExponent, kNoExponent)), "ok");
  EXPECT_EQ(load_verdict(lut(5, 5)), "ok");
  EXPECT_EQ(load_verdict(lut(5, kNoExponent)), "model_mismatch");
  EXPECT_EQ(load_verdict(lut(kNoExponent, 5)), "model_mismatch");
  // T[0] must be 0.
  Lut16Params bad;
  bad.table.assign(65536, 0);
  bad.table[0] = 1;
  EXPECT_EQ(load_verdict(unary(Opcode::lut16, bad, 1, 1, -100, 100).g), "model_mismatch");
}

TEST(Whg1Reader, ParameterRanges) {
  ConvParams c;
  c.rq = rq_shift(127);
  c.weights = {1};
  EXPECT_EQ(load_verdict(unary(Opcode::conv, c, 1, 1).g), "ok");
  c.rq.shift = {128};
  EXPECT_EQ(load_verdict(unary(Opcode::conv, c, 1, 1).g), "model_mismatch");
  c.rq.shift = {0};
  c.groups = 2;  // 1 input channel is not a multiple of 2
  c.cout = 2;
  c.weights = {1, 1};
  EXPECT_EQ(load_verdict(unary(Opcode::conv, c, 1, 2).g), "model_mismatch");
  LeakyParams l{1, 63};
  EXPECT_EQ(load_verdict(unary(Opcode::leaky, l, 1, 1).g), "ok");
  l.f = 64;
  EXPECT_EQ(load_verdict(unary(Opcode::leaky, l, 1, 1).g), "model_mismatch");
  EXPECT_EQ(load_verdict(unary(Opcode::clamp, ClampParams{3, 2}, 1, 1).g), "model_mismatch");
  EXPECT_EQ(load_verdict(unary(Opcode::clamp, ClampParams{2, 2}, 1, 1).g), "ok");
  EXPECT_EQ(load_verdict(unary(Opcode::pad_rep, PadRepParams{0}, 1, 1).g), "model_mismatch");
  SubposParams sp;
  sp.order = {0, 1, 2, 2};
  EXPECT_EQ(load_verdict(unary(Opcode::subpos_split, sp, 1, 1).g), "model_mismatch");
  // chscale: the scalar's range must lie within the rows.
  for (auto [hi, verdict] : {std::pair<std::int64_t, const char*>{1, "ok"}, {2, "model_mismatch"}}) {
    ChscaleParams ch;
    ch.n_rows = 2;
    ch.m = {1, 2};
    GraphBuilder b = unary(Opcode::chscale, ch, 1, 1);
    b.scalar(0, hi);
    EXPECT_EQ(load_verdict(b.g), std::string(verdict)) << hi;
  }
  // An RQ whose m_bytes is set with no multiplier.
  RqParams rp{rq_shift(0)};
  rp.rq.m_bytes = 4;
  EXPECT_EQ(load_verdict(unary(Opcode::rescale, rp, 1, 1).g), "model_mismatch");
  // mul with a bias.
  RqParams mb{rq_shift(0)};
  mb.rq.bias = BiasPlacement::post;
  mb.rq.b_bytes = 8;
  mb.rq.bias_values = {1};
  GraphBuilder m;
  const auto a = m.input(1, 0, 1), bb = m.input(1, 0, 1);
  const auto y = m.tensor(1);
  m.op(Opcode::mul, {a, bb}, {y}, mb);
  m.output(y);
  EXPECT_EQ(load_verdict(m.g), "model_mismatch");
}

TEST(Whg1Reader, PlanAtLoad) {
  // A 3×3 kernel on declared 2×2 inputs without padding does not plan; with padding 1 it does.
  EXPECT_EQ(load_verdict(sized_conv(2, 2, 0).g), "model_mismatch");
  EXPECT_EQ(load_verdict(sized_conv(2, 2, 1).g), "ok");
  EXPECT_EQ(load_verdict(sized_conv(3, 3, 0).g), "ok");
  // Undeclared sizes: nothing to plan but channels, so it loads (and refuses at run time).
  EXPECT_EQ(load_verdict(sized_conv(0, 0, 0).g), "ok");
  // A padded side past 2^26 is too_large, before the shape rule.
  EXPECT_EQ(load_verdict(sized_conv(1, 1, 1u << 25).g), "too_large");
  // An input past max_elems at its declared sizes.
  {
    GraphBuilder b = sized_conv(16, 17, 1);
    b.g.max_elems = 16 * 16;
    EXPECT_EQ(load_verdict(b.g), "too_large");
    b.g.max_elems = 16 * 17;
    EXPECT_EQ(load_verdict(b.g), "ok");
  }
  // Step 6 before step 7: the same too_large graph with a derived input is model_mismatch.
  {
    GraphBuilder b = sized_conv(1, 1, 1u << 25);
    b.g.tensors[0].policy = Policy::derived;
    b.g.tensors[0].lo = b.g.tensors[0].hi = 0;
    EXPECT_EQ(load_verdict(b.g), "model_mismatch");
  }
  // Within step 7, every channel count before any size: pad_rep past the cap at op 0 and a
  // chunk_add on 3 channels at op 1 is model_mismatch.
  {
    GraphBuilder b;
    const auto x = b.input(3, 0, 1, 4, 4);
    const auto p = b.tensor(3), q = b.tensor(1);
    b.op(Opcode::pad_rep, {x}, {p}, PadRepParams{(1u << 26) + 1});
    b.op(Opcode::chunk_add, {p}, {q});
    b.output(q);
    EXPECT_EQ(load_verdict(b.g), "model_mismatch");
    b.g.tensors[x].channels = 2;
    b.g.tensors[p].channels = 2;
    EXPECT_EQ(load_verdict(b.g), "too_large");
  }
  // An output whose channel count differs from its record.
  EXPECT_EQ(load_verdict(unary(Opcode::relu, std::monostate{}, 2, 3).g), "model_mismatch");
  // gram, l2norm and softmax need declared sizes.
  EXPECT_EQ(load_verdict(unary(Opcode::softmax, std::monostate{}, 1, 1).g), "model_mismatch");
  EXPECT_EQ(load_verdict(unary(Opcode::softmax, std::monostate{}, 1, 1, 0, 1, 4, 4).g), "ok");
  EXPECT_EQ(load_verdict(unary(Opcode::l2norm, L2normParams{1}, 1, 1).g), "model_mismatch");
}

TEST(Whg1Reader, CropPlannedAtLoadOnSmallestStartLargestLength) {
  // Input 1×4×4 declared. A scalar start is planned at 0; a scalar length at min(hi, S - s0).
  auto graph = [](Operand y0, Operand h, std::int64_t s_lo, std::int64_t s_hi) {
    CropParams c;
    c.y0 = y0;
    c.h = h;
    c.x0 = Operand{OperandKind::constant, 0};
    c.w = Operand{OperandKind::constant, 4};
    GraphBuilder b = unary(Opcode::crop, c, 1, 1, 0, 1, 4, 4);
    b.scalar(s_lo, s_hi);
    return b.g;
  };
  const Operand s{OperandKind::scalar, 0};
  auto k = [](std::uint32_t v) { return Operand{OperandKind::constant, v}; };
  EXPECT_EQ(load_verdict(graph(k(1), k(3), 0, 0)), "ok");
  EXPECT_EQ(load_verdict(graph(k(2), k(3), 0, 0)), "model_mismatch");  // 2 + 3 > 4
  EXPECT_EQ(load_verdict(graph(s, k(4), 100, 200)), "ok");             // scalar start planned at 0
  EXPECT_EQ(load_verdict(graph(k(4), s, 1, 9)), "model_mismatch");     // length min(9, 0) = 0
  EXPECT_EQ(load_verdict(graph(k(3), s, 1, 9)), "ok");                 // length min(9, 1) = 1
  EXPECT_EQ(load_verdict(graph(k(0), s, -5, 0)), "model_mismatch");    // length min(0, 4) = 0
}
