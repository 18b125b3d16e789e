// RNN, GRU and LSTM (opsets 7 and 14): one recurrent layer over a sequence, forward, reverse or
// both ways, with optional biases, initial states, per-sequence lengths and (LSTM) peepholes.
// Shape rule: Y is [seq, directions, batch, hidden] ([batch, seq, directions, hidden] under
// layout 1), each last state [directions, batch, hidden] ([batch, directions, hidden]). The cell's
// settings are read at build time; the runtime kernels (runtime/loam/cpu_recurrent.inc.hpp) run it.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <iterator>

#include "ops/op.hpp"

namespace loam::ops {
namespace {

enum class Cell : uint8_t { Rnn, Gru, Lstm };

Cell cell_of(const Node& n) { return n.op_type == "RNN" ? Cell::Rnn : n.op_type == "GRU" ? Cell::Gru : Cell::Lstm; }
int64_t gates_of(Cell c) { return c == Cell::Rnn ? 1 : c == Cell::Gru ? 3 : 4; }
// How many activation functions a direction takes, and their defaults (ONNX's f, g, h).
std::size_t functions_of(Cell c) { return c == Cell::Rnn ? 1 : c == Cell::Gru ? 2 : 3; }

// ONNX's activation functions of the recurrent operators, in the kernel's enum order; each with
// whether it reads alpha and beta, and the defaults of the ONNX operator of its name (ScaledTanh
// has none: its values must be listed).
struct ActivationSpec {
  const char* name;
  bool alpha, beta;
  float alpha_default, beta_default;
};
constexpr ActivationSpec kActivations[] = {
    {"Relu", false, false, 0, 0},           {"Tanh", false, false, 0, 0},       {"Sigmoid", false, false, 0, 0},
    {"Affine", true, true, 1.0f, 0.0f},     {"LeakyRelu", true, false, 0.01f, 0}, {"ThresholdedRelu", true, false, 1.0f, 0},
    {"ScaledTanh", true, true, NAN, NAN},   {"HardSigmoid", true, true, 0.2f, 0.5f}, {"Elu", true, false, 1.0f, 0},
    {"Softsign", false, false, 0, 0},       {"Softplus", false, false, 0, 0}};
constexpr std::size_t kTanh = 1, kSigmoid = 2;

struct Function {
  std::size_t kind = kTanh;
  float alpha = 0, beta = 0;
};

// What the node's attributes choose.
struct Recurrence {
  Cell cell = Cell::Lstm;
  int64_t directions = 1;
  std::size_t direction = 0;  // forward, reverse, bidirectional
  bool batch_major = false;   // layout 1
  float clip = 0;
  bool input_forget = false, linear_before_reset = false;
  std::vector<Function> functions;  // functions_of(cell) per direction
};

template <class Fail>
Recurrence recurrence(const Node& n, const NodeAttributes& a, Fail&& fail) {
  Recurrence r;
  r.cell = cell_of(n);
  const std::string direction = a.text("direction", "forward");
  if (direction == "forward") r.direction = 0;
  else if (direction == "reverse") r.direction = 1;
  else if (direction == "bidirectional") r.direction = 2, r.directions = 2;
  else fail("attribute 'direction' is '" + direction + "'; ONNX defines forward, reverse, bidirectional");
  const int64_t layout = a.integer("layout", 0);
  if (layout != 0 && layout != 1) fail("attribute 'layout' is " + std::to_string(layout) + "; ONNX defines 0 and 1");
  r.batch_major = layout == 1;
  if (const Attribute* clip = a.find("clip", Attribute::Kind::Float)) {
    if (!(clip->f > 0)) fail("attribute 'clip' is " + std::to_string(clip->f) + "; a clip threshold is positive");
    r.clip = clip->f;
  }
  if (r.cell == Cell::Lstm) r.input_forget = a.integer("input_forget", 0) != 0;
  if (r.cell == Cell::Gru) r.linear_before_reset = a.integer("linear_before_reset", 0) != 0;

  const std::size_t per = functions_of(r.cell);
  std::vector<std::string> names;
  if (const Attribute* listed = a.find("activations", Attribute::Kind::Strings)) names = listed->strings;
  if (names.empty()) {
    const std::size_t defaults[] = {kSigmoid, kTanh, kTanh};  // LSTM's f, g, h; GRU's f, g
    for (int64_t d = 0; d < r.directions; ++d)
      for (std::size_t k = 0; k < per; ++k) r.functions.push_back({r.cell == Cell::Rnn ? kTanh : defaults[k]});
    return r;
  }
  if (names.size() == per && r.directions == 2) names.insert(names.end(), names.begin(), names.end());
  if (names.size() != per * static_cast<std::size_t>(r.directions))
    fail("attribute 'activations' lists " + std::to_string(names.size()) + " functions; " + std::string(n.op_type) + " takes " +
         std::to_string(per) + " per direction");
  std::vector<float> alphas, betas;
  if (const Attribute* x = a.find("activation_alpha", Attribute::Kind::Floats)) alphas = x->floats;
  if (const Attribute* x = a.find("activation_beta", Attribute::Kind::Floats)) betas = x->floats;
  std::size_t next_alpha = 0, next_beta = 0;
  for (const std::string& name : names) {
    auto lower = [](std::string s) {
      for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      return s;
    };
    std::size_t kind = std::size(kActivations);
    for (std::size_t k = 0; k < std::size(kActivations); ++k)
      if (lower(name) == lower(kActivations[k].name)) kind = k;
    if (kind == std::size(kActivations))
      fail("activation '" + name + "' is none of Relu, Tanh, Sigmoid, Affine, LeakyRelu, ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, "
           "Softsign, Softplus");
    const ActivationSpec& spec = kActivations[kind];
    Function f{kind, spec.alpha_default, spec.beta_default};
    // activation_alpha and activation_beta are consumed in the functions' order, by those that read them.
    if (spec.alpha) f.alpha = next_alpha < alphas.size() ? alphas[next_alpha++] : spec.alpha_default;
    if (spec.beta) f.beta = next_beta < betas.size() ? betas[next_beta++] : spec.beta_default;
    if (std::isnan(f.alpha) || std::isnan(f.beta))
      fail("activation '" + name + "' needs its alpha and beta in activation_alpha and activation_beta; ONNX gives it no defaults");
    r.functions.push_back(f);
  }
  return r;
}

// The hidden size: the attribute, else R's last length.
template <class Fail>
int64_t hidden_size(const NodeAttributes& a, const std::vector<Extent>& r_dims, Fail&& fail) {
  if (auto h = a.integer("hidden_size")) {
    if (*h < 1) fail("attribute 'hidden_size' is " + std::to_string(*h) + "; a hidden size is positive");
    return *h;
  }
  if (r_dims.size() == 3)
    if (auto h = r_dims[2].constant(); h && *h > 0) return *h;
  fail("no attribute 'hidden_size', and R's last length is not a number the build knows");
  return 0;
}

// Y's and a state's extents.
std::vector<Extent> y_dims(const Recurrence& r, const Extent& seq, const Extent& batch, int64_t hidden) {
  if (r.batch_major) return {batch, seq, Extent(r.directions), Extent(hidden)};
  return {seq, Extent(r.directions), batch, Extent(hidden)};
}
std::vector<Extent> state_dims(const Recurrence& r, const Extent& batch, int64_t hidden) {
  if (r.batch_major) return {batch, Extent(r.directions), Extent(hidden)};
  return {Extent(r.directions), batch, Extent(hidden)};
}

bool output_given(const Node& n, std::size_t k) { return k < n.outputs.size() && !n.outputs[k].empty(); }

void recurrent(OpContext& c) {
  const Recurrence r = recurrence(c.node, c.attributes(), [&](const std::string& m) { c.error(m); });
  const auto& x = c.input(0);
  if (x.dims.size() != 3) c.error(c.tensor(0) + " " + x.shape_string() + " must have 3 axes: sequence, batch, input (or batch first under layout 1)");
  if (!is_float_type(x.elem)) c.error(c.tensor(0) + " is " + element_type_name(x.elem) + "; a recurrent layer computes floats");
  const Extent seq = r.batch_major ? x.dims[1] : x.dims[0], batch = r.batch_major ? x.dims[0] : x.dims[1], input = x.dims[2];
  const int64_t h = hidden_size(c.attributes(), c.input(2).dims, [&](const std::string& m) { c.error(m); });
  // The gates' rows (and B's twice as many, P's three per hidden unit) must be lengths int64 holds.
  int64_t gates_rows = 0, peepholes = 0;
  if (__builtin_mul_overflow(int64_t{gates_of(r.cell)}, h, &gates_rows) || gates_rows > INT64_MAX / 2 ||
      __builtin_mul_overflow(int64_t{3}, h, &peepholes))
    c.error("hidden size " + std::to_string(h) + " times its " + std::to_string(gates_of(r.cell)) + " gates passes 2^63");
  const Extent dirs(r.directions), gh(gates_rows);
  // An operand's shape, its element type the input's (sequence_lens: int32).
  auto shaped = [&](std::size_t i, const std::vector<Extent>& want, const char* what, ElementType elem) {
    if (!c.has_input(i)) return;
    const auto& v = c.input(i);
    if (v.elem != elem) c.error(c.tensor(i) + " (" + what + ") is " + element_type_name(v.elem) + ", not " + element_type_name(elem));
    if (v.dims.size() != want.size())
      c.error(c.tensor(i) + " (" + what + ") " + v.shape_string() + " must have " + std::to_string(want.size()) + " axes");
    for (std::size_t k = 0; k < want.size(); ++k)
      c.equal(v.dims[k], want[k], "axis " + std::to_string(k) + " of " + c.tensor(i) + " (" + what + ")");
  };
  shaped(1, {dirs, gh, input}, "W", x.elem);
  shaped(2, {dirs, gh, Extent(h)}, "R", x.elem);
  shaped(3, {dirs, gh * Extent(2)}, "B", x.elem);
  shaped(4, {batch}, "sequence_lens", ElementType::I32);
  shaped(5, state_dims(r, batch, h), "initial_h", x.elem);
  if (r.cell == Cell::Lstm) {
    shaped(6, state_dims(r, batch, h), "initial_c", x.elem);
    shaped(7, {dirs, Extent(peepholes)}, "P", x.elem);
  }
  if (output_given(c.node, 0)) c.set_output(0, x.elem, y_dims(r, seq, batch, h));
  for (std::size_t k = 1; k < (r.cell == Cell::Lstm ? 3u : 2u); ++k)
    if (output_given(c.node, k)) c.set_output(k, x.elem, state_dims(r, batch, h));
}

// The directions are W's axis 0 (and R's, B's, P's); the input size X's last axis and W's; the
// hidden size R's last axis; the batch and the sequence X's. Y and the states are made of those.
void name_recurrent(axes::NodeNaming& x) {
  const bool batch_major = x.int_attr("layout", 0) == 1;
  const auto& in = x.axes_of(0);
  const auto& w = x.axes_of(1);
  const auto& r = x.axes_of(2);
  if (in.size() != 3 || w.size() != 3 || r.size() != 3) x.error("X, W and R must have 3 axes");
  const AxisName seq = in[batch_major ? 1 : 0], batch = in[batch_major ? 0 : 1], dirs = w[0], hidden = r[2];
  x.meet(in[2], w[2], "the input size of '" + x.in(0) + "' and '" + x.in(1) + "'");
  x.meet(dirs, r[0], "the directions of '" + x.in(1) + "' and '" + x.in(2) + "'");
  const std::vector<AxisName> state = batch_major ? std::vector<AxisName>{batch, dirs, hidden} : std::vector<AxisName>{dirs, batch, hidden};
  if (x.has(3)) x.meet(dirs, x.axes_of(3)[0], "the directions of '" + x.in(1) + "' and '" + x.in(3) + "'");
  if (x.has(4)) x.meet(batch, x.axes_of(4)[0], "the batch of '" + x.in(0) + "' and '" + x.in(4) + "'");
  const bool lstm = x.node.op_type == "LSTM";
  for (std::size_t i : {std::size_t{5}, std::size_t{6}}) {
    if (!x.has(i) || (i == 6 && !lstm)) continue;
    const auto& s = x.axes_of(i);
    for (std::size_t k = 0; k < 3 && k < s.size(); ++k) x.meet(state[k], s[k], "the initial state '" + x.in(i) + "'");
  }
  if (lstm && x.has(7)) x.meet(dirs, x.axes_of(7)[0], "the directions of '" + x.in(1) + "' and '" + x.in(7) + "'");
  if (output_given(x.node, 0))
    x.complete(0, batch_major ? axes::Partial{batch, seq, dirs, hidden} : axes::Partial{seq, dirs, batch, hidden});
  for (std::size_t k = 1; k < (lstm ? 3u : 2u); ++k)
    if (output_given(x.node, k)) x.complete(k, axes::Partial(state.begin(), state.end()));
}

void lower_recurrent(LowerContext& cx, const Node& n) {
  auto fail = [&](const std::string& m) { cx.error(m); };
  const Recurrence r = recurrence(n, cx.attributes(), fail);
  const TensorInfo x = cx.info(cx.in(0));
  if (!held_in_float(x.elem)) cx.error(std::string("the recurrent kernels compute float, not ") + element_type_name(x.elem));
  const int64_t h = hidden_size(cx.attributes(), cx.value(cx.in(2)).dims, fail);
  const std::size_t results = r.cell == Cell::Lstm ? 3 : 2;
  // Y's axes and a state's, from whichever result the graph reads: each is the other with the
  // sequence's axis added or taken away.
  const std::size_t seq_at = r.batch_major ? 1 : 0;
  std::vector<AxisName> y_axes, state_axes;
  if (output_given(n, 0)) {
    y_axes = cx.info(n.outputs[0]).axes;
    state_axes = y_axes;
    state_axes.erase(state_axes.begin() + static_cast<std::ptrdiff_t>(seq_at));
  } else {
    for (std::size_t k = 1; k < results && state_axes.empty(); ++k)
      if (output_given(n, k)) state_axes = cx.info(n.outputs[k]).axes;
    if (state_axes.empty()) cx.error("none of its results is read");
    y_axes = state_axes;
    y_axes.insert(y_axes.begin() + static_cast<std::ptrdiff_t>(seq_at), x.axes[seq_at]);
  }
  // A result the graph does not read is a local of the call's.
  const Extent seq = x.dims[seq_at], batch = x.dims[r.batch_major ? 0 : 1];
  std::vector<std::string> names;
  for (std::size_t k = 0; k < results; ++k) {
    if (output_given(n, k)) {
      names.push_back(n.outputs[k]);
      continue;
    }
    std::string local = n.outputs.at(0).empty() ? n.label() : n.outputs[0];
    local += "@unread" + std::to_string(k);
    cx.synthetic[local] = TensorInfo{local, x.elem, k == 0 ? y_axes : state_axes, k == 0 ? y_dims(r, seq, batch, h) : state_dims(r, batch, h)};
    names.push_back(local);
  }

  std::vector<Arg> args = {Arg::of_tensor(cx.in(0)), Arg::of_tensor(cx.in(1)), Arg::of_tensor(cx.in(2))};
  const std::size_t operands = r.cell == Cell::Lstm ? 8 : 6;
  for (std::size_t i = 3; i < operands; ++i) args.push_back(cx.has(i) ? Arg::of_tensor(cx.in(i)) : Arg::of_code("nullptr"));
  static const char* const direction_spelled[] = {"Forward", "Reverse", "Bidirectional"};
  std::string params = std::string("RecurrentParams{RecurrentDirection::") + direction_spelled[r.direction] + ", " +
                       std::to_string(h) + ", " + (r.batch_major ? "true" : "false") + ", " + float_literal(r.clip) + ", " +
                       (r.input_forget ? "true" : "false") + ", " + (r.linear_before_reset ? "true" : "false") + ", {{";
  std::vector<CallConstant> constants = {{loom::Scalar::Index, r.direction, "direction"},
                                         {loom::Scalar::Index, static_cast<uint64_t>(h), "hidden"},
                                         {loom::Scalar::I1, r.batch_major ? 1u : 0u, "batch_major"},
                                         {loom::Scalar::F32, loom::float_bits(r.clip, loom::Scalar::F32), "clip"},
                                         {loom::Scalar::I1, r.input_forget ? 1u : 0u, "input_forget"},
                                         {loom::Scalar::I1, r.linear_before_reset ? 1u : 0u, "linear_before_reset"}};
  for (std::size_t k = 0; k < r.functions.size(); ++k) {
    const Function& f = r.functions[k];
    params += std::string(k ? ", " : "") + "{RecurrentActivation::" + kActivations[f.kind].name + ", " + float_literal(f.alpha) + ", " +
              float_literal(f.beta) + "}";
    constants.push_back({loom::Scalar::Index, f.kind, "activation"});
    constants.push_back({loom::Scalar::F32, loom::float_bits(f.alpha, loom::Scalar::F32), "alpha"});
    constants.push_back({loom::Scalar::F32, loom::float_bits(f.beta, loom::Scalar::F32), "beta"});
  }
  args.push_back(Arg::of_code(params + "}}}", constants));
  args.push_back(cx.has(4) ? quoted_name(cx.in(4)) : Arg::of_code("\"sequence_lens\""));
  const char* kernel = r.cell == Cell::Rnn ? "rnn" : r.cell == Cell::Gru ? "gru" : "lstm";
  cx.call(kernel, {TypeArg::of_axes(y_axes), TypeArg::of_axes(state_axes)}, args, names);
}

}  // namespace

void register_recurrent(std::vector<Operator>& r) {
  for (std::string_view op : {"RNN", "GRU", "LSTM"})
    r.push_back({.op_type = op, .infer = recurrent, .name_axes = name_recurrent, .lower = lower_recurrent, .in_scope = true});
}

}  // namespace loam::ops
