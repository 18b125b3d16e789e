// WHG1, the graph form of wai-ops/1 (spec wai-ops-1.md §10): the in-memory graph, its reader with
// the load checks of §10.5 steps 1-7, its canonical writer, and the graph identity (SHA-256).
//
// The structures mirror the file field for field, widths included (`w_bytes`, `m_bytes`, ...), so
// that write_whg1(read_whg1(b)) == b for every accepted b, and a graph's identity can be computed
// from the structure alone. Counts (`n_tensors`, `plen`, ...) are not stored: they are the sizes
// of the vectors, and the writer derives them.
//
// A refusal is a value (`Refusal`): the spec's code and a message naming the record, field and
// byte offset. Decoding (decode.hpp) reports the first refusal and computes nothing after it; the
// reader reports it by throwing `RefusalError`, which carries the value, or returns it from
// `try_read_whg1`.
#pragma once

#include "support/error.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace loam::wai {

// ---------------------------------------------------------------------------------------------
// Refusals (§4, §5E)

enum class RefusalCode : std::uint8_t {
  model_mismatch,
  too_large,
  geometry_mismatch,
  field_range,
  stream_exhausted,
  stream_noncanonical,
};

// The code as the spec spells it ("model_mismatch", ...).
std::string_view code_name(RefusalCode code);
// The inverse of code_name; nullopt for a string that names no code.
std::optional<RefusalCode> parse_code(std::string_view name);

struct Refusal {
  RefusalCode code = RefusalCode::model_mismatch;
  std::string message;  // names the record / field / byte offset (or operator / tensor / element)
  std::string_view code_name() const { return wai::code_name(code); }
};

// A refusal crossing a throwing interface. what() is "<code>: <message>".
class RefusalError : public loam::Error {
 public:
  explicit RefusalError(Refusal r);
  const Refusal& refusal() const { return refusal_; }

 private:
  Refusal refusal_;
};

[[noreturn]] void refuse(RefusalCode code, const std::string& message);

// ---------------------------------------------------------------------------------------------
// Enumerations, with the byte values of §10

enum class Policy : std::uint8_t { derived = 0, clamp = 1, check = 2 };
enum class InputKind : std::uint8_t { data = 0, state = 1 };
enum class Round : std::uint8_t { floor = 0, half_up = 1, half_even = 2 };
enum class BiasPlacement : std::uint8_t { none = 0, pre = 1, post = 2 };
enum class OperandKind : std::uint8_t { constant = 0, scalar = 1 };

enum class Opcode : std::uint8_t {
  conv = 0x01,
  rescale = 0x02,
  chscale = 0x03,
  lut16 = 0x04,
  add = 0x05,
  concat = 0x06,
  chunk_add = 0x07,
  split = 0x08,
  pixel_shuffle = 0x09,
  pixel_unshuffle = 0x0A,
  clamp = 0x0B,
  relu = 0x0C,
  leaky = 0x0D,
  pad_rep = 0x0E,
  crop_to = 0x0F,
  mul = 0x10,
  conv_transpose = 0x11,
  igdn = 0x12,
  abs = 0x13,
  crop = 0x14,
  subpos_split = 0x15,
  subpos_merge = 0x16,
  fill = 0x17,
  layernorm_c = 0x18,
  l2norm = 0x19,
  softmax = 0x1A,
  sigmoid = 0x1B,
  elu = 0x1C,
  gram = 0x1D,
  apply = 0x1E,
};

// The operator's name as §5 writes it ("conv", "conv_transpose", ...); "op_0xNN" for an unknown code.
std::string op_name(Opcode op);
// True for the 30 opcodes of §5.
bool is_known_opcode(std::uint8_t byte);

inline constexpr std::int8_t kNoExponent = -128;
inline constexpr std::uint32_t kMaxElemsCap = 1u << 26;  // §3: 2^26

// ---------------------------------------------------------------------------------------------
// Header and tables (§10.1, §10.2)

struct ScalarRecord {
  std::int64_t lo = 0;
  std::int64_t hi = 0;
};

struct InputRecord {
  std::uint32_t tensor = 0;
  std::uint32_t max_h = 0;  // 0 with max_w = 0: sizes set per decode
  std::uint32_t max_w = 0;
  InputKind kind = InputKind::data;
  std::uint32_t src = 0;    // state: position in the outputs table; data: 0
  std::int64_t init = 0;    // state: every element's value before a decode completes; data: 0
  bool declares_sizes() const { return max_h != 0 || max_w != 0; }
};

struct TensorRecord {
  std::uint32_t channels = 1;
  std::int8_t exponent = kNoExponent;  // -127..=127, or kNoExponent
  Policy policy = Policy::derived;
  std::int64_t lo = 0;  // derived: 0
  std::int64_t hi = 0;  // derived: 0
  bool has_exponent() const { return exponent != kNoExponent; }
};

// ---------------------------------------------------------------------------------------------
// Operator parameters (§10.4)

// The requantisation block RQ (§5.1, §10.4). `mult` has 0 (absent), 1 or C entries; `shift` 1 or
// C; `bias` C entries when `bias != none`, else none.
struct RqBlock {
  Round round = Round::floor;
  BiasPlacement bias = BiasPlacement::none;
  std::uint8_t m_kind = 0;   // 0 absent, 1 one value, 2 one per channel
  std::uint8_t s_kind = 1;   // 1 one value, 2 one per channel
  std::uint8_t m_bytes = 0;  // 4 or 8; 0 when m_kind = 0
  std::uint8_t b_bytes = 0;  // 4 or 8; 0 when bias = none
  std::vector<std::int64_t> mult;
  std::vector<std::uint8_t> shift;  // each <= 127
  std::vector<std::int64_t> bias_values;

  // Per-channel accessors, with §5.1's defaults (absent mult = 1, absent bias = 0).
  std::int64_t mult_of(std::size_t o) const {
    return m_kind == 0 ? 1 : mult[m_kind == 1 ? 0 : o];
  }
  unsigned shift_of(std::size_t o) const { return shift[s_kind == 1 ? 0 : o]; }
  std::int64_t pre_bias_of(std::size_t o) const {
    return bias == BiasPlacement::pre ? bias_values[o] : 0;
  }
  std::int64_t post_bias_of(std::size_t o) const {
    return bias == BiasPlacement::post ? bias_values[o] : 0;
  }
};

struct ConvParams {
  std::uint32_t cout = 1, kh = 1, kw = 1, sh = 1, sw = 1, ph = 0, pw = 0, groups = 1;
  std::uint8_t w_bytes = 1;  // 1, 2, 4 or 8
  RqBlock rq;
  std::vector<std::int64_t> weights;  // Wt[cout][cin/groups][kh][kw], row-major
};

struct ConvTransposeParams {
  std::uint32_t cout = 1, kh = 1, kw = 1, sh = 1, sw = 1, ph = 0, pw = 0, oph = 0, opw = 0;
  std::uint8_t w_bytes = 1;
  RqBlock rq;
  std::vector<std::int64_t> weights;  // Wt[cin][cout][kh][kw], row-major
};

// rescale and mul (mul: bias = none).
struct RqParams {
  RqBlock rq;
};

struct ChscaleParams {
  std::uint32_t scalar = 0;  // index into the scalar table
  std::uint32_t n_rows = 1;
  Round round = Round::floor;
  std::uint8_t m_bytes = 4;  // 4 or 8
  std::uint8_t shift = 0;    // <= 127
  std::vector<std::int64_t> m;  // M[n_rows][C], row-major
};

struct Lut16Params {
  std::int8_t e_in = kNoExponent;
  std::int8_t e_out = kNoExponent;
  std::vector<std::int16_t> table;  // 65536 entries, T[0] = 0; out = T[v + 32768]
};

struct SplitParams {
  std::uint32_t start = 0, count = 1;
};

// pixel_shuffle and pixel_unshuffle.
struct ShuffleParams {
  std::uint32_t r = 1;
};

struct ClampParams {
  std::int64_t lo = 0, hi = 0;
};

struct LeakyParams {
  std::int64_t a = 0;
  std::uint32_t f = 0;  // <= 63
};

struct PadRepParams {
  std::uint32_t m = 1;
};

struct Operand {
  OperandKind kind = OperandKind::constant;
  std::uint32_t value = 0;  // the constant, or the scalar's index
};

struct CropParams {
  Operand y0, x0, h, w;
};

// subpos_split and subpos_merge: order[k] = 2a + b, a permutation of 0..3.
struct SubposParams {
  std::array<std::uint8_t, 4> order{0, 1, 2, 3};
};

struct FillParams {
  OperandKind kind = OperandKind::constant;
  std::int64_t value = 0;  // the constant, or the scalar's index when kind = scalar
};

struct IgdnParams {
  std::uint32_t gf = 0, frac = 0;  // each <= 127
  std::uint8_t g_bytes = 4;        // 4 or 8
  std::vector<std::int64_t> gamma;  // γ[C][C], row i = output channel
  std::vector<std::int64_t> beta;   // β[C]
};

struct LayernormParams {
  std::uint64_t eps = 1;  // 1..=2^64-1
  std::uint8_t g_bytes = 4;
  std::vector<std::int64_t> gamma;  // γ[C]
  std::vector<std::int64_t> beta;   // β[C]
};

struct L2normParams {
  std::uint64_t eps = 1;
};

struct EluParams {
  std::int64_t alpha = 0;
};

// gram and apply: RQ with m_kind = 0, bias = none, s_kind = 1.
struct ContractionParams {
  std::uint32_t groups = 1;
  RqBlock rq;
};

// std::monostate: the operators with plen = 0 (add, concat, chunk_add, relu, abs, crop_to,
// softmax, sigmoid).
using OpParams = std::variant<std::monostate, ConvParams, ConvTransposeParams, RqParams,
                              ChscaleParams, Lut16Params, SplitParams, ShuffleParams, ClampParams,
                              LeakyParams, PadRepParams, CropParams, SubposParams, FillParams,
                              IgdnParams, LayernormParams, L2normParams, EluParams,
                              ContractionParams>;

struct Operator {
  Opcode opcode = Opcode::relu;
  std::vector<std::uint32_t> inputs;   // tensor indices
  std::vector<std::uint32_t> outputs;  // tensor indices
  OpParams params;
  std::uint64_t offset = 0;  // byte offset of the record in the file it was read from (0 if built)
};

// ---------------------------------------------------------------------------------------------
// The graph

struct Whg1Graph {
  // Header (§10.1). version and operator set are always 1; the counts are the table sizes.
  std::uint32_t max_elems = kMaxElemsCap;  // 1..=2^26
  std::vector<ScalarRecord> scalars;
  std::vector<InputRecord> inputs;
  std::vector<std::uint32_t> outputs;  // tensor indices
  std::vector<TensorRecord> tensors;
  std::vector<Operator> ops;  // in evaluation order

  // True when the inputs declare their sizes (all or none do, §10.2).
  bool declares_sizes() const { return !inputs.empty() && inputs[0].declares_sizes(); }
};

// ---------------------------------------------------------------------------------------------
// Reading, writing, identity

struct ReadOptions {
  std::string source = "<whg1>";  // the file name that prefixes every message
  // Step 7 of §10.5 (the plan). Off only for tools that inspect a graph that does not plan.
  bool plan = true;
};

// Reads and load-checks (§10.5 steps 1-7, in order) a WHG1 file. Throws RefusalError with
// `model_mismatch`, or `too_large` for a size past a cap in step 7. Step 8 (the bounds pass and
// the profile verdict) is not part of this function.
Whg1Graph read_whg1(std::span<const std::uint8_t> bytes, const ReadOptions& options = {});

// The same, with the refusal as a value.
std::variant<Whg1Graph, Refusal> try_read_whg1(std::span<const std::uint8_t> bytes,
                                               const ReadOptions& options = {});

// Canonical bytes: reserved fields zero, every length exact, every value at the width its record
// states. Throws loam::Error when a value does not fit its stated width or a vector's length is
// not the one its record implies (the graph could not be represented).
std::vector<std::uint8_t> write_whg1(const Whg1Graph& graph);

// The §10.5 load checks steps 4-7 on a graph built in memory (a writer's input need not be
// valid). Equivalent to read_whg1(write_whg1(g)).
void check_whg1(const Whg1Graph& graph, const ReadOptions& options = {});

using Sha256 = std::array<std::uint8_t, 32>;
Sha256 sha256(std::span<const std::uint8_t> bytes);
std::string to_hex(std::span<const std::uint8_t> bytes);  // lowercase
// A graph's identity: the SHA-256 of its WHG1 bytes (§10.5).
Sha256 graph_identity(const Whg1Graph& graph);

}  // namespace loam::wai
