#include "stage0/op_context.hpp"

#include <algorithm>
#include <cstring>

#include "support/error.hpp"

namespace loam::stage0 {

OpContext::OpContext(const Node& n, std::string w, std::vector<const ValueState*> i, stage0::OwedConditions& o)
    : node(n), where(std::move(w)), in(std::move(i)), owed(o) {
  out.resize(node.outputs.size());
  for (std::size_t k = 0; k < out.size(); ++k) out[k].name = node.outputs[k];
}

void OpContext::error(const std::string& message) const { fail(where + ": " + message); }

const ValueState& OpContext::input(std::size_t i) const {
  if (!has_input(i)) error("input " + std::to_string(i) + " is required");
  return *in[i];
}

std::string OpContext::tensor(std::size_t i) const {
  return "input " + std::to_string(i) + " '" + (i < node.inputs.size() ? node.inputs[i] : std::string()) + "'";
}

const std::vector<Extent>* OpContext::ints(std::size_t i) const {
  if (!has_input(i) || !in[i]->value || in[i]->value->kind != FoldedValue::Kind::Integer) return nullptr;
  return &in[i]->value->ints;
}

const std::vector<Extent>& OpContext::known_ints(std::size_t i, const std::string& what) const {
  input(i);  // an absent input is an error of its own
  const auto* v = ints(i);
  if (!v) throw ValueRequired(where + ": " + what + " (" + tensor(i) + ") is computed at run time; the build must know it", node.inputs.at(i));
  return *v;
}

std::vector<int64_t> OpContext::constant_ints(std::size_t i, const std::string& what) const {
  const auto& v = known_ints(i, what);
  std::vector<int64_t> r;
  r.reserve(v.size());
  for (const auto& e : v) {
    auto c = e.constant();
    if (!c) error(what + " (" + tensor(i) + ") holds the symbolic " + e.to_string() + "; the build must know it as a number");
    r.push_back(*c);
  }
  return r;
}

std::vector<double> OpContext::constant_floats(std::size_t i, const std::string& what) const {
  const ValueState& v = input(i);
  std::vector<double> r;
  if (v.value && v.value->kind == FoldedValue::Kind::Float) return {v.value->floats.begin(), v.value->floats.end()};
  if (v.value) {
    for (int64_t x : constant_ints(i, what)) r.push_back(static_cast<double>(x));
    return r;
  }
  const TensorData* t = v.source == ValueState::Source::Initializer ? v.initializer : nullptr;
  if (!t || !t->has_data)
    throw ValueRequired(where + ": " + what + " (" + tensor(i) + ") is computed at run time; the build must know it", node.inputs.at(i));
  const std::size_t size = t->elem == ElementType::F32 ? 4 : t->elem == ElementType::F64 ? 8 : 0;
  if (size == 0) error(what + " (" + tensor(i) + ") is " + element_type_name(t->elem) + "; the build reads it as float or double");
  auto count = t->element_count();
  if (!count || t->data.size() != static_cast<std::size_t>(*count) * size)
    error(what + " (" + tensor(i) + ") holds " + std::to_string(t->data.size()) + " bytes, not what its shape needs");
  for (std::size_t k = 0; k < t->data.size(); k += size) {
    if (size == 4) {
      float f;
      std::memcpy(&f, t->data.data() + k, 4);
      r.push_back(f);
    } else {
      double d;
      std::memcpy(&d, t->data.data() + k, 8);
      r.push_back(d);
    }
  }
  return r;
}

NodeAttributes OpContext::attributes() const {
  return NodeAttributes(node, [this](const std::string& why) { error(why); });
}

const Attribute* OpContext::attr(std::string_view name, Attribute::Kind kind) const { return attributes().find(name, kind); }

int64_t OpContext::attr_int(std::string_view name, int64_t fallback) const { return attributes().integer(name, fallback); }
std::optional<int64_t> OpContext::attr_int_opt(std::string_view name) const { return attributes().integer(name); }
float OpContext::attr_float(std::string_view name, float fallback) const { return attributes().real(name, fallback); }
std::string OpContext::attr_string(std::string_view name, const std::string& fallback) const { return attributes().text(name, fallback); }
std::optional<std::vector<int64_t>> OpContext::attr_ints(std::string_view name) const { return attributes().integers(name); }

std::size_t OpContext::axis(int64_t a, std::size_t r, const std::string& what) const { return attributes().axis(a, r, what); }

void OpContext::equal(const Extent& a, const Extent& b, const std::string& what) {
  stage0::require_equal(a, b, EqualityRule::Axis, OwedKind::AxisEqual, owed, where, what);
}

std::vector<Extent> OpContext::broadcast(const std::vector<std::size_t>& inputs) {
  std::vector<std::vector<Extent>> shapes;
  std::vector<std::string> names;
  for (std::size_t i : inputs) {
    shapes.push_back(input(i).dims);
    names.push_back(tensor(i));
  }
  return broadcast_shapes(shapes, names);
}

std::vector<Extent> OpContext::broadcast_shapes(const std::vector<std::vector<Extent>>& shapes,
                                                const std::vector<std::string>& names) {
  std::size_t r = 0;
  for (const auto& s : shapes) r = std::max(r, s.size());
  std::vector<Extent> result(r, Extent(1));
  std::vector<int> owner(r, -1);  // which shape gave result[k] (for messages)
  for (std::size_t si = 0; si < shapes.size(); ++si) {
    const auto& s = shapes[si];
    for (std::size_t k = 0; k < s.size(); ++k) {
      std::size_t pos = r - s.size() + k;
      const Extent& d = s[k];
      Extent& cur = result[pos];
      if (d == cur) {
        if (owner[pos] < 0) owner[pos] = static_cast<int>(si);
        continue;
      }
      std::string what = "axis " + std::to_string(k) + " of " + names[si] + " (" + d.to_string() + ")";
      if (owner[pos] >= 0)
        what += " and axis " + std::to_string(pos - (r - shapes[owner[pos]].size())) + " of " + names[owner[pos]] +
                " (" + cur.to_string() + ")";
      bool covered = owner[pos] >= 0;
      if (d == Extent(1)) {
        // A 1 stretches; where it meets a derived symbol reading as 1, the result keeps the 1.
        if (covered && stage0::reads_as_one(cur, owed, where, what)) cur = Extent(1);
        if (!covered) owner[pos] = static_cast<int>(si);
        continue;
      }
      if (!covered) {
        cur = d;
        owner[pos] = static_cast<int>(si);
        continue;
      }
      if (cur == Extent(1)) {
        if (!stage0::reads_as_one(d, owed, where, what)) cur = d, owner[pos] = static_cast<int>(si);
        continue;
      }
      // Neither is literally 1: a derived symbol reading as 1 stretches, else they must be equal.
      if (stage0::reads_as_one(d, owed, where, what)) continue;
      if (stage0::reads_as_one(cur, owed, where, what)) {
        cur = d;
        owner[pos] = static_cast<int>(si);
        continue;
      }
      if (d.is_constant() && cur.is_constant())
        error("cannot broadcast " + what);
      equal(cur, d, what);
      // Equal under what the inputs owe: carry the side that is a polynomial over input symbols.
      auto derived = [](const Extent& e) {
        for (auto sym : e.symbols())
          if (!stage0::is_input_symbol(sym)) return true;
        return false;
      };
      if (derived(cur) && !derived(d)) cur = d, owner[pos] = static_cast<int>(si);
    }
    (void)owner;
  }
  return result;
}

ValueState& OpContext::set_output(std::size_t i, ElementType elem, std::vector<Extent> dims) {
  if (i >= out.size()) error("the operator produces output " + std::to_string(i) + " but the node names " +
                             std::to_string(out.size()));
  out[i].elem = elem;
  out[i].dims = std::move(dims);
  return out[i];
}

std::optional<int64_t> OpContext::foldable_count(std::size_t i) const {
  auto c = product(out[i].dims).constant();
  if (!c || *c > kFoldLimit) return std::nullopt;
  return c;
}

void OpContext::fold_ints(std::size_t i, std::vector<Extent> values) {
  auto c = foldable_count(i);
  if (!c) return;
  if (static_cast<int64_t>(values.size()) != *c)
    error("internal: folded " + std::to_string(values.size()) + " elements for a shape of " + std::to_string(*c));
  for (const auto& v : values) owed.require_fits(v, where, "a value of output '" + out[i].name + "' (" + v.to_string() + ") stays within 2^63");
  FoldedValue f;
  f.kind = FoldedValue::Kind::Integer;
  f.ints = std::move(values);
  out[i].value = std::move(f);
}

void OpContext::fold_floats(std::size_t i, std::vector<float> values) {
  auto c = foldable_count(i);
  if (!c) return;
  if (static_cast<int64_t>(values.size()) != *c) error("internal: folded float count mismatch");
  FoldedValue f;
  f.kind = FoldedValue::Kind::Float;
  f.floats = std::move(values);
  out[i].value = std::move(f);
}

void OpContext::fold_picked(std::size_t input, const std::vector<std::size_t>& map, std::size_t out_index) {
  const auto& v = *this->input(input).value;
  if (v.kind == FoldedValue::Kind::Integer) {
    std::vector<Extent> r;
    r.reserve(map.size());
    for (std::size_t i : map) r.push_back(v.ints[i]);
    fold_ints(out_index, std::move(r));
  } else {
    std::vector<float> r;
    r.reserve(map.size());
    for (std::size_t i : map) r.push_back(v.floats[i]);
    fold_floats(out_index, std::move(r));
  }
}

bool OpContext::known(std::initializer_list<std::size_t> inputs) const {
  if (inputs.size() == 0) {
    for (std::size_t i = 0; i < in.size(); ++i)
      if (in[i] && !in[i]->value) return false;
    return true;
  }
  for (std::size_t i : inputs)
    if (!has_input(i) || !in[i]->value) return false;
  return true;
}

Extent product(const std::vector<Extent>& dims, std::size_t from, std::size_t to) {
  Extent p(1);
  to = std::min(to, dims.size());
  for (std::size_t k = from; k < to; ++k) p = p * dims[k];
  return p;
}

}  // namespace loam::stage0
