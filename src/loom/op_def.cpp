#include "loom/op_def.hpp"

#include <cctype>
#include <deque>

#include "support/error.hpp"

namespace loam::loom {

namespace {

template <class Specs>
int index_of(const Specs& specs, std::string_view n) {
  for (std::size_t i = 0; i < specs.size(); ++i)
    if (specs[i].name == n) return static_cast<int>(i);
  return -1;
}

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }

// Reads a format string into directives, resolving each `$name` against the op's specs. A format
// that names something the op lacks is a mistake in Loom itself, refused when the table is built.
class FormatReader {
 public:
  FormatReader(const OpDef& def, std::string_view text) : def_(def), text_(text) {}

  std::vector<FormatItem> read() {
    auto items = read_items(false);
    if (pos_ < text_.size()) bad("unexpected ']]'");
    return items;
  }

 private:
  [[noreturn]] void bad(const std::string& what) {
    fail("op " + std::string(def_.name) + ": format \"" + std::string(text_) + "\": " + what);
  }

  std::string word() {
    std::size_t start = pos_;
    while (pos_ < text_.size() && ident_char(text_[pos_])) ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }

  int target(const std::string& n) {
    if (int i = def_.operand_index(n); i >= 0) return i;
    if (int r = def_.result_index(n); r >= 0) return -1 - r;
    bad("names no operand or result '" + n + "'");
  }

  std::vector<int> target_list() {
    std::vector<int> out;
    if (pos_ >= text_.size() || text_[pos_] != '(') bad("expected '(' after a type directive");
    ++pos_;
    while (true) {
      while (pos_ < text_.size() && text_[pos_] == ' ') ++pos_;
      out.push_back(target(word()));
      while (pos_ < text_.size() && text_[pos_] == ' ') ++pos_;
      if (pos_ < text_.size() && text_[pos_] == ',') { ++pos_; continue; }
      if (pos_ < text_.size() && text_[pos_] == ')') { ++pos_; break; }
      bad("expected ',' or ')' in a type directive");
    }
    return out;
  }

  std::vector<FormatItem> read_items(bool in_optional) {
    std::vector<FormatItem> items;
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      FormatItem item;
      if (c == ' ') {
        while (pos_ < text_.size() && text_[pos_] == ' ') ++pos_;
        item.kind = FormatItem::Kind::Space;
      } else if (text_.substr(pos_, 2) == "[[") {
        pos_ += 2;
        item.kind = FormatItem::Kind::Optional;
        item.group = read_items(true);
        if (item.group.empty()) bad("an empty optional group");
      } else if (text_.substr(pos_, 2) == "]]") {
        if (!in_optional) bad("']]' without '[['");
        pos_ += 2;
        return items;
      } else if (c == '$') {
        ++pos_;
        std::string n = word();
        if (int i = def_.operand_index(n); i >= 0) {
          item.kind = FormatItem::Kind::Operand;
          item.targets = {i};
        } else if (int a = def_.attr_index(n); a >= 0) {
          item.kind = FormatItem::Kind::Attr;
          item.targets = {a};
        } else if (int r = def_.region_index(n); r >= 0) {
          item.kind = FormatItem::Kind::Region;
          item.targets = {r};
        } else {
          bad("names no operand, attribute or region '" + n + "'");
        }
      } else if (text_.substr(pos_, 2) == "->") {
        pos_ += 2;
        item.kind = FormatItem::Kind::Punct;
        item.text = "->";
      } else if (std::string_view(",:[]()<>{}=").find(c) != std::string_view::npos) {
        ++pos_;
        item.kind = FormatItem::Kind::Punct;
        item.text = std::string(1, c);
      } else if (ident_char(c)) {
        std::string w = word();
        if (w == "type") {
          item.kind = FormatItem::Kind::TypeOf;
          item.targets = target_list();
        } else if (w == "types") {
          item.kind = FormatItem::Kind::TypesOf;
          item.targets = target_list();
          if (item.targets.size() != 1) bad("types() names one group");
          if (item.targets[0] < 0) item.targets[0] = -1;
        } else if (w == "functype") {
          item.kind = FormatItem::Kind::FuncType;
          item.targets = target_list();
          if (item.targets.size() != 2 || item.targets[0] < 0 || item.targets[1] >= 0)
            bad("functype() names an operand group and the results");
        } else {
          item.kind = FormatItem::Kind::Keyword;
          item.text = w;
        }
      } else {
        bad(std::string("unexpected character '") + c + "'");
      }
      items.push_back(std::move(item));
    }
    if (in_optional) bad("'[[' without ']]'");
    return items;
  }

  const OpDef& def_;
  std::string_view text_;
  std::size_t pos_ = 0;
};

}  // namespace

int OpDef::operand_index(std::string_view n) const { return index_of(operands, n); }
int OpDef::result_index(std::string_view n) const { return index_of(results, n); }
int OpDef::attr_index(std::string_view n) const { return index_of(attrs, n); }
int OpDef::region_index(std::string_view n) const {
  for (std::size_t i = 0; i < regions.size(); ++i)
    if (regions[i] == n) return static_cast<int>(i);
  return -1;
}

const OpDef* OpTable::find(std::string_view n) const {
  for (const auto& d : defs_)
    if (d->name == n) return d.get();
  return nullptr;
}

const OpDef& OpTable::get(std::string_view n) const {
  const OpDef* d = find(n);
  if (!d) fail("Loom has no operation '" + std::string(n) + "'");
  return *d;
}

void OpTable::add(OpDef def) {
  if (find(def.name)) fail("op " + std::string(def.name) + " is declared twice");
  int variadic = 0;
  for (const auto& o : def.operands) variadic += o.variadic ? 1 : 0;
  if (variadic > 1) fail("op " + std::string(def.name) + " has two variadic operand groups");
  const bool custom = def.parse || def.print;
  if (custom && (!def.parse || !def.print || !def.format.empty()))
    fail("op " + std::string(def.name) + " needs either a format or both parse and print hooks");
  if (!custom) def.parsed_format = FormatReader(def, def.format).read();
  defs_.push_back(std::make_unique<OpDef>(std::move(def)));
}

std::string op_reference_markdown() {
  std::string out =
      "# Loom operations\n\nEvery operation Loom declares, generated by `loam loom ops` from the op table "
      "(src/loom/ops_*.cpp); a test keeps this file equal to it. The text form is the op's format: `$name` "
      "is an operand, attribute or region, `type(...)` the type stated for the values it names; structured "
      "ops have their own syntax, shown in docs/loom.md.\n\n";
  out += "| op | what it gives | text form |\n| --- | --- | --- |\n";
  for (const auto& d : op_table().all()) {
    std::string form = d->parse ? std::string("(structured)") : std::string(d->format);
    for (auto& c : form)
      if (c == '|') c = '/';
    out += "| `" + std::string(d->name) + "` | " + std::string(d->summary) + " | " + (form.empty() ? "" : "`" + form + "`") + " |\n";
  }
  return out;
}

std::string_view intern(std::string s) {
  static std::deque<std::string> pool;
  pool.push_back(std::move(s));
  return pool.back();
}

const OpTable& op_table() {
  static const OpTable table = [] {
    OpTable t;
    register_index_ops(t);
    register_arith_ops(t);
    register_vector_ops(t);
    register_memory_ops(t);
    register_control_ops(t);
    register_func_ops(t);
    register_kernel_ops(t);
    return t;
  }();
  return table;
}

namespace constraint {
namespace {
bool is_vec(const Type& t) { return t.is_vector(); }
}  // namespace
const TypeConstraint any{"any type", [](const Type&) { return true; }};
const TypeConstraint index{"index", [](const Type& t) { return t.is_scalar(Scalar::Index); }};
const TypeConstraint offset{"offset", [](const Type& t) { return t.is_scalar(Scalar::Offset); }};
const TypeConstraint address{"index or offset", [](const Type& t) { return t.is_scalar() && is_address(t.element()); }};
const TypeConstraint i1{"i1", [](const Type& t) { return t.is_scalar(Scalar::I1); }};
const TypeConstraint integer{"a fixed-width integer", [](const Type& t) { return t.is_scalar() && is_integer(t.element()); }};
const TypeConstraint integer_or_address{"an integer or address value", [](const Type& t) {
  return t.is_scalar() && (is_integer(t.element()) || is_address(t.element()));
}};
const TypeConstraint scalar_float{"a float scalar", [](const Type& t) { return t.is_scalar() && is_float(t.element()); }};
const TypeConstraint scalar_integer{"an integer scalar", [](const Type& t) { return t.is_scalar() && is_integer(t.element()); }};
const TypeConstraint scalar_value{"a fixed-width integer or float scalar", [](const Type& t) {
  return t.is_scalar() && !is_address(t.element());
}};
const TypeConstraint buffer{"buffer", [](const Type& t) { return t.is_buffer(); }};
const TypeConstraint view{"a view", [](const Type& t) { return t.is_view(); }};
const TypeConstraint tensor{"a tensor", [](const Type& t) { return t.is_tensor(); }};
const TypeConstraint vector{"a vector", [](const Type& t) { return is_vec(t); }};
const TypeConstraint vector_float{"a vector of floats", [](const Type& t) { return is_vec(t) && is_float(t.element()); }};
const TypeConstraint vector_integer{"a vector of integers", [](const Type& t) { return is_vec(t) && is_integer(t.element()); }};
const TypeConstraint vector_mask{"a vector of i1", [](const Type& t) { return is_vec(t) && t.element() == Scalar::I1; }};
const TypeConstraint storable{"a fixed-width integer or float scalar", [](const Type& t) {
  return t.is_scalar() && !is_address(t.element());
}};
}  // namespace constraint

}  // namespace loam::loom
