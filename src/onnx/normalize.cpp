#include "onnx/normalize.hpp"

#include <bit>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "support/error.hpp"

namespace loam {
namespace {

// ONNX's TensorProto.DataType names, as Cast-1 wrote its `to` attribute.
std::optional<int64_t> data_type_from_name(const std::string& s) {
  static const std::pair<const char*, int64_t> names[] = {
      {"FLOAT", 1}, {"UINT8", 2}, {"INT8", 3}, {"UINT16", 4}, {"INT16", 5}, {"INT32", 6},
      {"INT64", 7}, {"STRING", 8}, {"BOOL", 9}, {"FLOAT16", 10}, {"DOUBLE", 11}, {"UINT32", 12},
      {"UINT64", 13}, {"COMPLEX64", 14}, {"COMPLEX128", 15}, {"BFLOAT16", 16}};
  for (auto& [n, v] : names)
    if (s == n) return v;
  return std::nullopt;
}

class Normalizer {
 public:
  explicit Normalizer(Model& m) : model_(m) {
    collect_names(m.graph);
  }

  void run() {
    auto v = model_.opset("");
    if (!v) return;  // no default-domain nodes to restate (verify_graph refuses any that exist)
    if (*v > kLastOpset)
      fail("the model imports opset " + std::to_string(*v) + " of the default ONNX domain; Loam reads opsets up to " +
           std::to_string(kLastOpset));
    version_ = *v;
    graph(model_.graph);
    constants_as_weights(model_.graph);
    for (auto& o : model_.opset_imports)
      if (o.domain.empty() || o.domain == "ai.onnx") o.version = std::max(o.version, kCurrentOpset);
    if (wrote_loam_ && !model_.opset(kLoamDomain)) model_.opset_imports.push_back({kLoamDomain, 1});
  }

 private:
  void collect_names(const Graph& g) {
    for (const auto& v : g.inputs) names_.insert(v.name);
    for (const auto& v : g.outputs) names_.insert(v.name);
    for (const auto& v : g.value_info) names_.insert(v.name), types_.emplace(v.name, v.type.elem);
    for (const auto& v : g.inputs) types_.emplace(v.name, v.type.elem);
    for (const auto& v : g.outputs) types_.emplace(v.name, v.type.elem);
    for (const auto* list : {&g.inputs, &g.value_info, &g.outputs})
      for (const auto& v : *list)
        if (v.type.shape) ranks_.emplace(v.name, v.type.shape->size());
    for (const auto& t : g.initializers) names_.insert(t.name), types_.emplace(t.name, t.elem);
    for (const auto& n : g.nodes) {
      for (const auto& s : n.inputs) names_.insert(s);
      for (const auto& s : n.outputs) names_.insert(s);
      for (const auto& a : n.attributes) {
        if (a.g) collect_names(*a.g);
        for (const auto& sg : a.graphs)
          if (sg) collect_names(*sg);
      }
    }
  }

  // A fresh initializer name for a moved attribute: "<first output>__<attribute>", with a numeric
  // suffix if a name in the model already spells it.
  std::string fresh_name(const Node& n, const std::string& what) {
    std::string base = (n.outputs.empty() || n.outputs[0].empty() ? (n.name.empty() ? n.op_type : n.name) : n.outputs[0]) + "__" + what;
    std::string name = base;
    for (int k = 1; names_.count(name); ++k) name = base + "_" + std::to_string(k);
    names_.insert(name);
    return name;
  }

  std::string add_constant(const Node& n, const std::string& what, ElementType elem, std::vector<int64_t> dims,
                           std::vector<std::byte> data) {
    TensorData t;
    t.name = fresh_name(n, what);
    t.elem = elem;
    t.dims = std::move(dims);
    t.data = std::move(data);
    model_.graph.initializers.push_back(t);
    return t.name;
  }

  std::string add_ints(const Node& n, const std::string& what, const std::vector<int64_t>& v, bool scalar_shape = false) {
    std::vector<std::byte> data(v.size() * 8);
    if (!v.empty()) std::memcpy(data.data(), v.data(), data.size());
    std::vector<int64_t> dims;
    if (!scalar_shape) dims.push_back(static_cast<int64_t>(v.size()));
    return add_constant(n, what, ElementType::I64, dims, std::move(data));
  }

  // A scalar of `elem` (a float type) holding `value`: Pad's value, Clip's bounds, Dropout's ratio.
  std::string add_float_scalar(const Node& n, const std::string& what, ElementType elem, double value) {
    std::vector<std::byte> data;
    auto put = [&](auto x) {
      data.resize(sizeof x);
      std::memcpy(data.data(), &x, sizeof x);
    };
    switch (elem) {
      case ElementType::F64: put(value); break;
      case ElementType::F16: put(f32_to_f16(static_cast<float>(value))); break;
      case ElementType::BF16: put(static_cast<uint16_t>(std::bit_cast<uint32_t>(static_cast<float>(value)) >> 16)); break;
      default: elem = ElementType::F32; put(static_cast<float>(value)); break;
    }
    return add_constant(n, what, elem, {}, std::move(data));
  }

  static uint16_t f32_to_f16(float f) {
    // Round-to-nearest-even conversion, enough for the bounds and pad values old opsets wrote.
    uint32_t x = std::bit_cast<uint32_t>(f);
    uint32_t sign = (x >> 16) & 0x8000;
    int32_t exp = static_cast<int32_t>((x >> 23) & 0xff) - 127 + 15;
    uint32_t mant = x & 0x7fffff;
    if (((x >> 23) & 0xff) == 0xff) return static_cast<uint16_t>(sign | 0x7c00 | (mant ? 0x200 : 0));
    if (exp >= 31) return static_cast<uint16_t>(sign | 0x7c00);
    if (exp <= 0) {
      if (exp < -10) return static_cast<uint16_t>(sign);
      mant |= 0x800000;
      uint32_t shift = static_cast<uint32_t>(14 - exp);
      uint32_t half = mant >> shift;
      uint32_t rem = mant & ((1u << shift) - 1);
      uint32_t mid = 1u << (shift - 1);
      if (rem > mid || (rem == mid && (half & 1))) ++half;
      return static_cast<uint16_t>(sign | half);
    }
    uint32_t half = sign | (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
    uint32_t rem = mant & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (half & 1))) ++half;
    return static_cast<uint16_t>(half);
  }

  ElementType type_of(const std::string& name) const {
    auto it = types_.find(name);
    return it == types_.end() ? ElementType::Undefined : it->second;
  }

  static Attribute* find(Node& n, std::string_view name) {
    for (auto& a : n.attributes)
      if (a.name == name) return &a;
    return nullptr;
  }
  static void erase(Node& n, std::string_view name) {
    std::erase_if(n.attributes, [&](const Attribute& a) { return a.name == name; });
  }
  static Attribute int_attr(const std::string& name, int64_t v) {
    Attribute a;
    a.name = name;
    a.kind = Attribute::Kind::Int;
    a.i = v;
    return a;
  }
  static Attribute string_attr(const std::string& name, const std::string& v) {
    Attribute a;
    a.name = name;
    a.kind = Attribute::Kind::String;
    a.s = v;
    return a;
  }

  const std::vector<int64_t>& ints_of(Node& n, const Attribute& a) {
    if (a.kind != Attribute::Kind::Ints)
      fail(n.label() + ": attribute '" + a.name + "' must be ints, found " + attribute_kind_name(a.kind));
    return a.ints;
  }

  // Moves an ints attribute to operand `index` (padding skipped optional operands with "").
  bool move_ints(Node& n, const std::string& attr, std::size_t index) {
    Attribute* a = find(n, attr);
    if (!a) return false;
    std::string name = add_ints(n, attr, ints_of(n, *a));
    erase(n, attr);
    set_input(n, index, name);
    return true;
  }

  static void set_input(Node& n, std::size_t index, const std::string& name) {
    if (n.inputs.size() <= index) n.inputs.resize(index + 1);
    n.inputs[index] = name;
  }

  static bool is_old_binary(const std::string& op) {
    static const std::set<std::string> ops = {"Add", "Sub", "Mul", "Div", "Pow", "And", "Or", "Xor", "Equal", "Greater", "Less"};
    return ops.count(op) > 0;
  }

  void node(Node& n) {
    if (!(n.domain.empty() || n.domain == "ai.onnx")) return;
    n.domain.clear();
    const int64_t v = version_;
    const std::string& op = n.op_type;
    // Opset 1 carried `consumed_inputs` (an in-place hint) and some operators `is_test`; neither
    // changes what a node computes.
    if (v < 6) erase(n, "consumed_inputs");
    if (v < 7 && (op == "BatchNormalization" || op == "Dropout")) erase(n, "is_test");

    if (op == "Concat" && v < 4) {
      if (!find(n, "axis")) n.attributes.push_back(int_attr("axis", 1));
    } else if (op == "Reshape" && v < 5) {
      if (!move_ints(n, "shape", 1) && n.inputs.size() < 2)
        fail(n.label() + ": Reshape of opset " + std::to_string(v) + " has no 'shape' attribute");
    } else if ((op == "Squeeze" || op == "Unsqueeze") && v < 13) {
      move_ints(n, "axes", 1);
    } else if (op == "Slice" && v < 10) {
      Attribute* axes = find(n, "axes");
      if (!find(n, "starts") || !find(n, "ends"))
        fail(n.label() + ": Slice of opset " + std::to_string(v) + " needs 'starts' and 'ends' attributes");
      bool has_axes = axes != nullptr;
      move_ints(n, "starts", 1);
      move_ints(n, "ends", 2);
      if (has_axes) move_ints(n, "axes", 3);
    } else if (op == "Split" && v < 13) {
      move_ints(n, "split", 1);
    } else if (op == "ReduceSum" && v < 13) {
      move_ints(n, "axes", 1);
    } else if (op == "TopK" && v < 10) {
      Attribute* k = find(n, "k");
      if (!k || k->kind != Attribute::Kind::Int) fail(n.label() + ": TopK of opset " + std::to_string(v) + " needs an int 'k' attribute");
      std::string name = add_ints(n, "k", {k->i});
      erase(n, "k");
      set_input(n, 1, name);
    } else if (op == "Pad" && v < 11) {
      Attribute* pads = find(n, "pads");
      if (!pads) pads = find(n, "paddings");  // Pad-1's name for it
      if (!pads) fail(n.label() + ": Pad of opset " + std::to_string(v) + " has no 'pads' attribute");
      std::string pads_name = add_ints(n, "pads", ints_of(n, *pads));
      double value = 0;
      if (Attribute* val = find(n, "value")) value = val->f;
      erase(n, "pads");
      erase(n, "paddings");
      erase(n, "value");
      set_input(n, 1, pads_name);
      if (value != 0 && !n.inputs.empty())
        set_input(n, 2, add_float_scalar(n, "value", type_of(n.inputs[0]), value));
    } else if (op == "Clip" && v < 11) {
      ElementType elem = n.inputs.empty() ? ElementType::Undefined : type_of(n.inputs[0]);
      Attribute* mn = find(n, "min");
      Attribute* mx = find(n, "max");
      std::optional<double> lo, hi;
      if (mn) lo = mn->f;
      if (mx) hi = mx->f;
      erase(n, "min");
      erase(n, "max");
      if (lo) set_input(n, 1, add_float_scalar(n, "min", elem, *lo));
      if (hi) set_input(n, 2, add_float_scalar(n, "max", elem, *hi));
    } else if (op == "Dropout" && v < 12) {
      if (Attribute* r = find(n, "ratio")) {
        double ratio = r->f;
        erase(n, "ratio");
        set_input(n, 1, add_float_scalar(n, "ratio", n.inputs.empty() ? ElementType::Undefined : type_of(n.inputs[0]), ratio));
      }
    } else if (op == "Cast" && v < 6) {
      Attribute* to = find(n, "to");
      if (to && to->kind == Attribute::Kind::String) {
        auto t = data_type_from_name(to->s);
        if (!t) fail(n.label() + ": Cast 'to' names no element type: '" + to->s + "'");
        *to = int_attr("to", *t);
      }
    } else if ((op == "Softmax" || op == "LogSoftmax" || op == "Hardmax") && v < 13) {
      // Before 13 these normalised every axis from `axis` on as one lane (default axis 1).
      int64_t axis = 1;
      if (Attribute* a = find(n, "axis")) axis = a->i;
      n.op_type = op + "Flattened";
      n.domain = kLoamDomain;
      n.attributes.clear();
      n.attributes.push_back(int_attr("axis", axis));
      wrote_loam_ = true;
    } else if (is_old_binary(op) && v < 7) {
      Attribute* b = find(n, "broadcast");
      bool broadcast = b && b->i != 0;
      Attribute* axis = find(n, "axis");
      if (broadcast && axis) {
        // B aligned at A's axis `axis` rather than at A's end: no current spelling.
        int64_t ax = axis->i;
        n.attributes.clear();
        n.attributes.push_back(string_attr("op", op));
        n.attributes.push_back(int_attr("axis", ax));
        n.op_type = "ZipAt";
        n.domain = kLoamDomain;
        wrote_loam_ = true;
      } else {
        // Without `axis` the old rule is suffix alignment, which numpy broadcasting is; without
        // `broadcast` the shapes were equal. Either way today's operator means the same.
        erase(n, "broadcast");
        erase(n, "axis");
      }
    } else if (op == "Upsample" || (op == "Resize" && v < 11)) {
      restate_as_resize(n);
    } else if (op == "Gemm" && v < 7) {
      erase(n, "broadcast");
    } else if (op == "PRelu" && v < 7) {
      restate_channel_slope(n);
    }
  }

  // Upsample (scales an attribute before opset 9, an operand from it) and Resize-10 are
  // loam.Resize (X, roi, scales): today's Resize under asymmetric coordinates and the rounding
  // they had, which no nearest_mode of today spells (src/ops/resize.cpp).
  void restate_as_resize(Node& n) {
    if (n.op_type == "Upsample" && version_ < 9) {
      Attribute* scales = find(n, "scales");
      if (!scales || scales->kind != Attribute::Kind::Floats)
        fail(n.label() + ": Upsample of opset " + std::to_string(version_) + " needs a floats 'scales' attribute");
      std::vector<std::byte> data(scales->floats.size() * 4);
      if (!data.empty()) std::memcpy(data.data(), scales->floats.data(), data.size());
      std::string name = add_constant(n, "scales", ElementType::F32, {static_cast<int64_t>(scales->floats.size())}, std::move(data));
      erase(n, "scales");
      set_input(n, 1, name);
    }
    if (n.inputs.size() != 2)
      fail(n.label() + ": " + n.op_type + " of opset " + std::to_string(version_) + " reads X and scales, not " +
           std::to_string(n.inputs.size()) + " inputs");
    if (Attribute* mode = find(n, "mode"); mode && mode->kind == Attribute::Kind::String && mode->s == "bilinear") mode->s = "linear";
    n.inputs = {n.inputs[0], "", n.inputs[1]};
    n.op_type = "Resize";
    n.domain = kLoamDomain;
    wrote_loam_ = true;
  }

  // PRelu before opset 7 applied a slope of several elements per channel, along X's axis 1; opset
  // 7 broadcasts numpy-style from the end. A rank-1 slope the graph carries is restated as a copy
  // shaped [C, 1, ...] so today's alignment puts it on axis 1. A slope of one element means the same
  // under both rules; any other form has no one reading and is left for stage 0 to check.
  void restate_channel_slope(Node& n) {
    if (n.inputs.size() < 2) return;
    auto x_rank = ranks_.find(n.inputs[0]);
    if (x_rank == ranks_.end() || x_rank->second < 3) return;
    const TensorData* slope = nullptr;
    for (const auto& t : model_.graph.initializers)
      if (t.name == n.inputs[1]) slope = &t;
    if (!slope || slope->dims.size() != 1 || slope->dims[0] <= 1 || slope->data.empty()) return;
    std::vector<int64_t> dims(x_rank->second - 1, 1);
    dims[0] = slope->dims[0];
    TensorData copy = *slope;
    set_input(n, 1, add_constant(n, "slope", copy.elem, std::move(dims), std::move(copy.data)));
  }

  // A float Constant of more than kConstantWeightElements elements becomes an initializer of its
  // output's name: a weight like any other (paddle2onnx writes every weight as a Constant), which
  // the module embeds or a checkpoint supplies by that name, and which fusion may pack. A small one
  // stays a Constant, whose value stage 0 folds (a scalar of an expression, Resize's scales).
  void constants_as_weights(Graph& g) {
    std::set<std::string> outputs;
    for (const auto& o : g.outputs) outputs.insert(o.name);
    std::vector<Node> kept;
    for (auto& n : g.nodes) {
      const bool weight = n.domain.empty() && n.op_type == "Constant" && n.outputs.size() == 1 && !n.outputs[0].empty() &&
                          !outputs.count(n.outputs[0]) && !g.initializer(n.outputs[0]) && n.attributes.size() == 1 &&
                          n.attributes[0].name == "value" && n.attributes[0].kind == Attribute::Kind::Tensor &&
                          n.attributes[0].t && is_weight_tensor(*n.attributes[0].t);
      if (!weight) {
        kept.push_back(std::move(n));
        continue;
      }
      TensorData t = *n.attributes[0].t;
      t.name = n.outputs[0];
      g.initializers.push_back(std::move(t));
    }
    g.nodes = std::move(kept);
  }

  static bool is_weight_tensor(const TensorData& t) {
    if (t.elem != ElementType::F32 && t.elem != ElementType::F16 && t.elem != ElementType::BF16) return false;
    auto count = t.element_count();
    return t.has_data && count && *count > kConstantWeightElements &&
           t.data.size() == static_cast<std::size_t>(*count) * element_size(t.elem);
  }

  void graph(Graph& g) {
    for (auto& n : g.nodes) {
      node(n);
      // Subgraphs are shared between copies of a Model; restate a private copy.
      for (auto& a : n.attributes) {
        if (a.g) {
          a.g = std::make_shared<Graph>(*a.g);
          graph(*a.g);
        }
        for (auto& sg : a.graphs) {
          if (!sg) continue;
          sg = std::make_shared<Graph>(*sg);
          graph(*sg);
        }
      }
    }
  }

  Model& model_;
  int64_t version_ = 0;
  std::map<std::string, std::size_t> ranks_;  // declared ranks of graph inputs, outputs and value_info
  bool wrote_loam_ = false;
  std::set<std::string> names_;
  std::map<std::string, ElementType> types_;
};

}  // namespace

void normalize_opsets(Model& model) { Normalizer(model).run(); }

}  // namespace loam
