// The text form's reader: a lexer with line:column on every token, and a recursive-descent parser
// that reads each op through its declarative format or its custom hook. Names resolve as they are
// read, in the scope in force, so a use before its definition, a redefinition and a dimension bound
// to a name not in scope are refused at the place they are written.
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <unordered_map>

#include "loom/op_def.hpp"
#include "loom/syntax.hpp"
#include "loom/verifier.hpp"
#include "support/error.hpp"


namespace loam::loom {

namespace {

enum class Tok : std::uint8_t { End, Value, Symbol, Hash, Ident, Number, Punct };

struct Token {
  Tok kind = Tok::End;
  std::string text;  // without the sigil for Value, Symbol, Hash
  Location loc;
  std::size_t begin = 0;
  std::size_t end = 0;
};

bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }

constexpr std::size_t kMaxDepth = 200;  // nesting of regions; deeper text is refused, not recursed into

class Parser final : public OpParser {
 public:
  Parser(std::string_view text, std::string file) : text_(text), file_(std::move(file)) {
    module_.file = file_;
    advance();
  }

  Module run() {
    while (tok_.kind != Tok::End) {
      Block top;
      parse_op(top);
      for (auto& op : top.ops) {
        if (!op->def->has(kTopLevel)) fail(op->loc, std::string(op->name()) + " cannot stand at the top of a module");
        op->parent = nullptr;
        module_.ops.push_back(std::move(op));
      }
    }
    return std::move(module_);
  }

  // OpParser
  Location loc() const override { return tok_.loc; }
  bool at_punct(std::string_view p) const override { return tok_.kind == Tok::Punct && tok_.text == p; }
  bool accept_punct(std::string_view p) override {
    if (!at_punct(p)) return false;
    advance();
    return true;
  }
  void expect_punct(std::string_view p) override {
    if (!accept_punct(p)) fail(tok_.loc, "expected '" + std::string(p) + "', found " + describe(tok_));
  }
  bool at_keyword(std::string_view k) const override { return tok_.kind == Tok::Ident && tok_.text == k; }
  bool accept_keyword(std::string_view k) override {
    if (!at_keyword(k)) return false;
    advance();
    return true;
  }
  void expect_keyword(std::string_view k) override {
    if (!accept_keyword(k)) fail(tok_.loc, "expected '" + std::string(k) + "', found " + describe(tok_));
  }
  bool at_value() const override { return tok_.kind == Tok::Value; }

  Value* parse_operand() override {
    if (tok_.kind != Tok::Value) fail(tok_.loc, "expected a value (%name), found " + describe(tok_));
    Value* v = lookup(tok_.text, tok_.loc);
    advance();
    return v;
  }

  std::string parse_value_name(Location* at) override {
    if (tok_.kind != Tok::Value) fail(tok_.loc, "expected a value name (%name), found " + describe(tok_));
    if (at) *at = tok_.loc;
    std::string n = tok_.text;
    advance();
    return n;
  }

  Type parse_type() override {
    if (tok_.kind != Tok::Ident) fail(tok_.loc, "expected a type, found " + describe(tok_));
    const Location at = tok_.loc;
    const std::string word = tok_.text;
    if (auto s = scalar_from_name(word)) {
      advance();
      return Type::scalar(*s);
    }
    if (word == "buffer") {
      advance();
      return Type::buffer();
    }
    TypeKind kind;
    if (word == "tensor") kind = TypeKind::Tensor;
    else if (word == "tile") kind = TypeKind::Tile;
    else if (word == "vector") kind = TypeKind::Vector;
    else if (word == "view") kind = TypeKind::View;
    else fail(at, "'" + word + "' is not a type");
    advance();
    if (!at_punct("<")) fail(tok_.loc, "expected '<' after '" + word + "'");
    // Dimensions are read character by character: `4x128xf16` is no run of ordinary tokens.
    pos_ = tok_.end;
    std::vector<Extent> dims;
    Scalar element = Scalar::F32;
    while (true) {
      skip_space();
      if (peek_char() == '[' || std::isdigit(static_cast<unsigned char>(peek_char()))) {
        dims.push_back(read_extent());
        if (peek_char() != 'x') fail(here(), "expected 'x' after a dimension in " + word + "<...>");
        ++pos_;
        ++col_;
        continue;
      }
      const Location eat = here();
      std::string name = read_word();
      auto s = scalar_from_name(name);
      if (!s) fail(eat, name.empty() ? "expected a dimension or an element type in " + word + "<...>"
                                     : "'" + name + "' is not an element type");
      element = *s;
      break;
    }
    Attachment attachment;
    skip_space();
    if (peek_char() == ',') {
      ++pos_;
      ++col_;
      skip_space();
      attachment = read_attachment(dims.size());
      skip_space();
    }
    if (peek_char() != '>') fail(here(), "expected '>' to close " + word + "<...>");
    ++pos_;
    ++col_;
    advance();
    return Type::shaped(kind, std::move(dims), element, std::move(attachment));
  }

  std::string parse_symbol() override {
    if (tok_.kind != Tok::Symbol) fail(tok_.loc, "expected a symbol (@name), found " + describe(tok_));
    std::string s = tok_.text;
    advance();
    return s;
  }

  std::int64_t parse_integer() override {
    if (tok_.kind != Tok::Number) fail(tok_.loc, "expected an integer, found " + describe(tok_));
    std::int64_t v = 0;
    const std::string& t = tok_.text;
    auto r = std::from_chars(t.data(), t.data() + t.size(), v);
    if (r.ec != std::errc() || r.ptr != t.data() + t.size())
      fail(tok_.loc, r.ec == std::errc::result_out_of_range ? "'" + t + "' does not fit in 64 bits" : "'" + t + "' is not an integer");
    advance();
    return v;
  }

  void begin_region(Region& r, bool isolated) override {
    if (scopes_.size() >= kMaxDepth) fail(tok_.loc, "regions nest deeper than " + std::to_string(kMaxDepth));
    scopes_.push_back(Scope{&r, isolated, {}});
  }

  Value* define_arg(Region& r, const std::string& name, Type type, Location at) override {
    Value* v = r.block.add_arg(name, std::move(type), at);
    define(v);
    return v;
  }

  void parse_region_body(Region& r) override {
    const Location open = tok_.loc;
    expect_punct("{");
    while (!at_punct("}")) {
      if (tok_.kind == Tok::End)
        fail(tok_.loc, "expected '}' to close the region opened at " + std::to_string(open.line) + ":" +
                           std::to_string(open.col));
      parse_op(r.block);
    }
    advance();
  }

  void end_region(Region&) override { scopes_.pop_back(); }

  void check_stated(const Value* v, const Type& stated, Location at, std::string_view op) override {
    if (v->type == stated) return;
    fail(at, ref(v) + " is " + print_type(v->type) + ", but " + std::string(op) + " states " + print_type(stated));
  }

  [[noreturn]] void fail(Location at, const std::string& message) override {
    loam::fail(where(module_, at) + message);
  }

 private:
  struct Scope {
    Region* region = nullptr;
    bool isolated = false;
    std::unordered_map<std::string, Value*> names;
  };

  // ---- the lexer
  char peek_char(std::size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  Location here() const { return {line_, col_}; }

  void skip_space() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == '\n') {
        ++pos_;
        ++line_;
        col_ = 1;
      } else if (c == ' ' || c == '\t' || c == '\r') {
        ++pos_;
        ++col_;
      } else if (c == '/' && peek_char(1) == '/') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else {
        break;
      }
    }
  }

  std::string read_word() {
    std::size_t start = pos_;
    while (pos_ < text_.size() && name_char(text_[pos_])) ++pos_;
    col_ += static_cast<int>(pos_ - start);
    return std::string(text_.substr(start, pos_ - start));
  }

  void advance() {
    skip_space();
    tok_ = Token{};
    tok_.loc = here();
    tok_.begin = pos_;
    if (pos_ >= text_.size()) {
      tok_.kind = Tok::End;
      tok_.end = pos_;
      return;
    }
    char c = text_[pos_];
    auto sigil = [&](Tok kind) {
      ++pos_;
      ++col_;
      tok_.kind = kind;
      tok_.text = read_word();
      if (tok_.text.empty()) fail(tok_.loc, std::string("expected a name after '") + c + "'");
    };
    if (c == '%') {
      sigil(Tok::Value);
    } else if (c == '@') {
      sigil(Tok::Symbol);
    } else if (c == '#') {
      sigil(Tok::Hash);
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '-' && (std::isdigit(static_cast<unsigned char>(peek_char(1))) ||
                             text_.substr(pos_, 4) == "-inf"))) {
      std::size_t start = pos_;
      ++pos_;
      while (pos_ < text_.size()) {
        char d = text_[pos_];
        bool exponent_sign = (d == '+' || d == '-') && (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E') &&
                             !(text_.substr(start, 2) == "0x" || text_.substr(start, 3) == "-0x");
        if (std::isalnum(static_cast<unsigned char>(d)) || d == '.' || exponent_sign) ++pos_;
        else break;
      }
      tok_.kind = Tok::Number;
      tok_.text = std::string(text_.substr(start, pos_ - start));
      col_ += static_cast<int>(pos_ - start);
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      tok_.kind = Tok::Ident;
      tok_.text = read_word();
    } else if (c == '-' && peek_char(1) == '>') {
      pos_ += 2;
      col_ += 2;
      tok_.kind = Tok::Punct;
      tok_.text = "->";
    } else if (std::string_view("(){}[]<>,:=").find(c) != std::string_view::npos) {
      ++pos_;
      ++col_;
      tok_.kind = Tok::Punct;
      tok_.text = std::string(1, c);
    } else {
      if (!std::isprint(static_cast<unsigned char>(c))) {
        static const char* kHex = "0123456789ABCDEF";
        const auto b = static_cast<unsigned char>(c);
        fail(tok_.loc, std::string("unexpected byte 0x") + kHex[b >> 4] + kHex[b & 15] + " (Loom text is ASCII)");
      }
      fail(tok_.loc, "unexpected character '" + std::string(1, c) + "'");
    }
    tok_.end = pos_;
  }

  static std::string describe(const Token& t) {
    switch (t.kind) {
      case Tok::End: return "the end of the text";
      case Tok::Value: return "%" + t.text;
      case Tok::Symbol: return "@" + t.text;
      case Tok::Hash: return "#" + t.text;
      default: return "'" + t.text + "'";
    }
  }

  // `[%name]` or a literal; the lexer's position is at its first character. `what` names it in
  // messages: a dimension or a stride.
  Extent read_extent(std::string_view what = "dimension") {
    if (peek_char() == '[') {
      ++pos_;
      ++col_;
      skip_space();
      const Location at = here();
      if (peek_char() != '%') fail(at, "expected %name inside '[...]' of a dynamic " + std::string(what));
      ++pos_;
      ++col_;
      std::string n = read_word();
      if (n.empty()) fail(at, "expected a name after '%'");
      skip_space();
      if (peek_char() != ']') fail(here(), "expected ']' after %" + n);
      ++pos_;
      ++col_;
      return Extent::bound_to(lookup(n, at));
    }
    const Location at = here();
    std::size_t start = pos_;
    while (std::isdigit(static_cast<unsigned char>(peek_char()))) ++pos_;
    col_ += static_cast<int>(pos_ - start);
    if (pos_ == start)
      fail(at, "expected a " + std::string(what) + ": a non-negative integer or [%name]");
    std::int64_t v = 0;
    auto r = std::from_chars(text_.data() + start, text_.data() + pos_, v);
    if (r.ec != std::errc()) fail(at, "the " + std::string(what) + " " + std::string(text_.substr(start, pos_ - start)) + " does not fit in 64 bits");
    return Extent::of(v);
  }

  Attachment read_attachment(std::size_t rank) {
    const Location at = here();
    if (peek_char() != '#') fail(at, "expected an encoding or layout (#name) after ','");
    ++pos_;
    ++col_;
    std::string name = read_word();
    if (name.empty()) fail(at, "expected an encoding or layout name after '#'");
    Attachment a;
    for (const auto& n : named_encodings())
      if (n.name == name) {
        a.encoding = n.record;
        return a;
      }
    if (name == "strided") {
      if (peek_char() != '<') fail(here(), "expected '<' after #strided");
      ++pos_;
      ++col_;
      StridedLayout layout;
      while (true) {
        skip_space();
        layout.strides.push_back(read_extent("stride"));
        skip_space();
        if (peek_char() == 'x') {
          ++pos_;
          ++col_;
          continue;
        }
        break;
      }
      if (peek_char() != '>') fail(here(), "expected '>' to close #strided<...>");
      ++pos_;
      ++col_;
      (void)rank;
      a.layout = std::move(layout);
      return a;
    }
    if (name == "loom.block_quant") {
      a.encoding = read_block_quant();
      return a;
    }
    fail(at, "#" + name + " is neither a known encoding nor a layout");
  }

  BlockQuant read_block_quant() {
    if (peek_char() != '<') fail(here(), "expected '<' after #loom.block_quant");
    ++pos_;
    ++col_;
    BlockQuant q;
    std::vector<std::string> seen;
    while (true) {
      skip_space();
      const Location at = here();
      std::string key = read_word();
      if (key.empty()) fail(at, "expected a parameter of #loom.block_quant (block, bits, zero, scale)");
      for (const auto& s : seen)
        if (s == key) fail(at, "#loom.block_quant gives '" + key + "' twice");
      seen.push_back(key);
      skip_space();
      if (peek_char() != '=') fail(here(), "expected '=' after '" + key + "' in #loom.block_quant");
      ++pos_;
      ++col_;
      skip_space();
      const Location vat = here();
      std::string value;
      if (peek_char() == '-') {
        ++pos_;
        ++col_;
        value = "-";
      }
      value += read_word();
      auto number = [&]() -> int {
        int v = 0;
        auto r = std::from_chars(value.data(), value.data() + value.size(), v);
        if (value.empty() || r.ec != std::errc() || r.ptr != value.data() + value.size())
          fail(vat, "'" + key + "' of #loom.block_quant takes a number, not '" + value + "'");
        return v;
      };
      if (key == "block") q.block = number();
      else if (key == "bits") q.bits = number();
      else if (key == "zero") q.zero = number();
      else if (key == "scale") {
        auto s = scalar_from_name(value);
        if (!s) fail(vat, "'" + value + "' is not a scalar type for the scale of #loom.block_quant");
        q.scale = *s;
      } else {
        fail(at, "#loom.block_quant has no parameter '" + key + "' (it takes block, bits, zero, scale)");
      }
      skip_space();
      if (peek_char() == ',') {
        ++pos_;
        ++col_;
        continue;
      }
      break;
    }
    if (peek_char() != '>') fail(here(), "expected '>' to close #loom.block_quant<...>");
    ++pos_;
    ++col_;
    for (const char* required : {"block", "bits", "zero", "scale"}) {
      bool found = false;
      for (const auto& s : seen) found = found || s == required;
      if (!found) fail(here(), std::string("#loom.block_quant needs '") + required + "'");
    }
    return q;
  }

  // Whether the text ahead is `%a, %b =`: the next statement's results, not operands.
  bool at_definition() {
    const std::size_t pos = pos_;
    const int line = line_, col = col_;
    const Token tok = tok_;
    bool definition = false;
    while (tok_.kind == Tok::Value) {
      advance();
      if (at_punct("=")) {
        definition = true;
        break;
      }
      if (!accept_punct(",")) break;
    }
    pos_ = pos;
    line_ = line;
    col_ = col;
    tok_ = tok;
    return definition;
  }

  // ---- names
  Value* lookup(const std::string& n, Location at) {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto f = it->names.find(n);
      if (f != it->names.end()) return f->second;
      if (it->isolated) break;
    }
    fail(at, "%" + n + " is not defined here");
  }

  void define(Value* v) {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto f = it->names.find(v->name);
      if (f != it->names.end())
        fail(v->loc, "%" + v->name + " is already defined at " + std::to_string(f->second->loc.line) + ":" +
                         std::to_string(f->second->loc.col));
      if (it->isolated) break;
    }
    if (scopes_.empty()) fail(v->loc, "%" + v->name + " is defined at the top of a module, outside any region");
    scopes_.back().names.emplace(v->name, v);
  }

  // ---- operations
  void parse_op(Block& block) {
    const Location start = tok_.loc;
    std::vector<std::pair<std::string, Location>> names;
    if (tok_.kind == Tok::Value) {
      while (true) {
        Location at;
        std::string n = parse_value_name(&at);
        names.emplace_back(std::move(n), at);
        if (!accept_punct(",")) break;
      }
      expect_punct("=");
    }
    if (tok_.kind != Tok::Ident) fail(tok_.loc, "expected an operation, found " + describe(tok_));
    const Location name_at = tok_.loc;
    const OpDef* def = op_table().find(tok_.text);
    if (!def) fail(name_at, "'" + tok_.text + "' is not a Loom operation");
    advance();
    auto op = std::make_unique<Op>(def);
    op->loc = start;
    op->parent = &block;
    const bool variadic_results = !def->results.empty() && def->results.back().variadic;
    if (!variadic_results && names.size() != def->results.size()) {
      fail(start, std::string(def->name) + " gives " + std::to_string(def->results.size()) +
                      (def->results.size() == 1 ? " result" : " results") + ", but " +
                      std::to_string(names.size()) + (names.size() == 1 ? " is" : " are") + " named");
    }
    for (auto& [n, at] : names) op->add_result(n, Type{}, at);
    if (def->parse) def->parse(*op, *this);
    else parse_format(*op, def->parsed_format);
    if (def->infer) def->infer(*op);
    finish_literals(*op);
    Op* placed = block.append(std::move(op));
    for (auto& r : placed->results) define(r.get());
  }

  // The generic reader: the format's directives in order.
  void parse_format(Op& op, const std::vector<FormatItem>& items) {
    const OpDef& def = *op.def;
    std::vector<std::vector<Value*>> slots(def.operands.size());
    std::vector<bool> filled(def.operands.size(), false);
    read_items(op, items, slots, filled);
    for (std::size_t i = 0; i < slots.size(); ++i) {
      if (!filled[i] && !def.operands[i].variadic)
        fail(op.loc, std::string(def.name) + " needs its operand '" + std::string(def.operands[i].name) + "'");
      for (Value* v : slots[i]) op.operands.push_back(v);
    }
  }

  static const FormatItem* anchor_of(const FormatItem& optional) {
    for (const auto& g : optional.group)
      if (g.kind != FormatItem::Kind::Space) return &g;
    return nullptr;
  }

  void read_items(Op& op, const std::vector<FormatItem>& items, std::vector<std::vector<Value*>>& slots,
                  std::vector<bool>& filled) {
    const OpDef& def = *op.def;
    for (const auto& item : items) {
      switch (item.kind) {
        case FormatItem::Kind::Space: break;
        case FormatItem::Kind::Punct: expect_punct(item.text); break;
        case FormatItem::Kind::Keyword: expect_keyword(item.text); break;
        case FormatItem::Kind::Operand: {
          const auto i = static_cast<std::size_t>(item.targets[0]);
          filled[i] = true;
          if (!def.operands[i].variadic) {
            slots[i] = {parse_operand()};
          } else if (at_value()) {
            slots[i].push_back(parse_operand());
            while (accept_punct(",")) slots[i].push_back(parse_operand());
          }
          break;
        }
        case FormatItem::Kind::Attr: read_attr(op, static_cast<std::size_t>(item.targets[0]), slots); break;
        case FormatItem::Kind::Region: {
          Region& r = op.add_region();
          begin_region(r, false);
          parse_region_body(r);
          end_region(r);
          break;
        }
        case FormatItem::Kind::TypeOf: {
          const Location at = tok_.loc;
          Type t = parse_type();
          for (int target : item.targets) {
            if (target >= 0) {
              for (Value* v : slots[static_cast<std::size_t>(target)]) check_stated(v, t, at, def.name);
            } else {
              op.results[static_cast<std::size_t>(-1 - target)]->type = t;
            }
          }
          break;
        }
        case FormatItem::Kind::TypesOf: read_types(op, item.targets[0], slots); break;
        case FormatItem::Kind::FuncType: {
          expect_punct("(");
          read_types(op, item.targets[0], slots);
          expect_punct(")");
          expect_punct("->");
          expect_punct("(");
          read_types(op, -1, slots);
          expect_punct(")");
          break;
        }
        case FormatItem::Kind::Optional: {
          const FormatItem* anchor = anchor_of(item);
          bool present = false;
          if (anchor->kind == FormatItem::Kind::Attr)
            present = at_keyword(def.attrs[static_cast<std::size_t>(anchor->targets[0])].name);
          else if (anchor->kind == FormatItem::Kind::Operand)
            present = at_value() && !at_definition();
          else if (anchor->kind == FormatItem::Kind::Punct || anchor->kind == FormatItem::Kind::Keyword)
            present = (tok_.kind == Tok::Punct || tok_.kind == Tok::Ident) && tok_.text == anchor->text;
          if (present) read_items(op, item.group, slots, filled);
          else if (anchor->kind == FormatItem::Kind::Operand) filled[static_cast<std::size_t>(anchor->targets[0])] = true;
          break;
        }
      }
    }
  }

  // Types of an operand group (checked) or of the results (given): comma-separated.
  void read_types(Op& op, int group, std::vector<std::vector<Value*>>& slots) {
    if (group >= 0) {
      auto& values = slots[static_cast<std::size_t>(group)];
      for (std::size_t i = 0; i < values.size(); ++i) {
        if (i) expect_punct(",");
        const Location at = tok_.loc;
        check_stated(values[i], parse_type(), at, op.def->name);
      }
      return;
    }
    for (std::size_t i = 0; i < op.results.size(); ++i) {
      if (i) expect_punct(",");
      op.results[i]->type = parse_type();
    }
    if (!op.results.empty() && at_punct(","))
      fail(tok_.loc, std::string(op.def->name) + " states more result types than the " + counted(op.results.size(), "result") +
                         " named");
    if (op.results.empty() && tok_.kind == Tok::Ident && !at_keyword("launch") && scalar_or_shape(tok_.text))
      fail(tok_.loc, std::string(op.def->name) + " states a result type, but no result is named");
  }

  static bool scalar_or_shape(const std::string& w) {
    return scalar_from_name(w) || w == "buffer" || w == "tensor" || w == "tile" || w == "vector" || w == "view";
  }

  void read_attr(Op& op, std::size_t index, std::vector<std::vector<Value*>>& slots) {
    const AttrSpec& spec = op.def->attrs[index];
    Attr& a = op.attrs[index];
    a.present = true;
    const Location at = tok_.loc;
    switch (spec.kind) {
      case AttrKind::Choice: {
        if (tok_.kind == Tok::Ident)
          for (std::size_t c = 0; c < spec.choices.size(); ++c)
            if (spec.choices[c] == tok_.text) {
              a.i = static_cast<std::int64_t>(c);
              advance();
              return;
            }
        std::string list;
        for (std::size_t c = 0; c < spec.choices.size(); ++c) list += (c ? ", " : "") + std::string(spec.choices[c]);
        fail(at, describe(tok_) + " is not a " + std::string(spec.name) + " of " + std::string(op.def->name) +
                     " (one of " + list + ")");
      }
      case AttrKind::Integer: a.i = parse_integer(); return;
      case AttrKind::Symbol: a.text = parse_symbol(); return;
      case AttrKind::Contract:
        if (tok_.kind != Tok::Ident) fail(at, "expected a contract name, found " + describe(tok_));
        a.text = tok_.text;
        advance();
        return;
      case AttrKind::Flag: expect_keyword(spec.name); return;
      case AttrKind::Facts: read_facts(op, a, slots); return;
      case AttrKind::Literal:
        if (tok_.kind != Tok::Number && !(tok_.kind == Tok::Ident && (tok_.text == "true" || tok_.text == "false" ||
                                                                        tok_.text == "inf" || tok_.text == "nan")))
          fail(at, "expected a literal, found " + describe(tok_));
        a.text = tok_.text;
        literal_locs_[&a] = at;
        advance();
        return;
    }
  }

  // `range(%v, lo, hi)` and `align(%v, n)`, comma-separated; each names the op's first operand.
  void read_facts(Op& op, Attr& a, std::vector<std::vector<Value*>>& slots) {
    Value* subject = slots.empty() || slots[0].empty() ? nullptr : slots[0][0];
    do {
      const Location at = tok_.loc;
      Fact f;
      if (accept_keyword("range")) f.kind = Fact::Kind::Range;
      else if (accept_keyword("align")) f.kind = Fact::Kind::Align;
      else fail(at, "expected a fact (range or align), found " + describe(tok_));
      expect_punct("(");
      const Location vat = tok_.loc;
      Value* v = parse_operand();
      if (v != subject)
        fail(vat, "the fact names " + ref(v) + ", but " + std::string(op.def->name) + " refines " + ref(subject));
      expect_punct(",");
      if (f.kind == Fact::Kind::Range) {
        f.lo = parse_integer();
        expect_punct(",");
        f.hi = parse_integer();
      } else {
        f.align = parse_integer();
      }
      expect_punct(")");
      a.facts.push_back(f);
    } while (accept_punct(","));
  }

  // A literal is read as written and given its bits once the result type is known.
  void finish_literals(Op& op) {
    for (std::size_t i = 0; i < op.def->attrs.size(); ++i) {
      if (op.def->attrs[i].kind != AttrKind::Literal) continue;
      Attr& a = op.attrs[i];
      const Location at = literal_locs_.count(&a) ? literal_locs_[&a] : op.loc;
      literal_locs_.erase(&a);
      if (op.results.empty() || !op.results[0]->type.is_scalar())
        fail(at, std::string(op.def->name) + " gives a scalar, not " + (op.results.empty() ? std::string("nothing") : print_type(op.results[0]->type)));
      a.bits = literal_bits(a.text, op.results[0]->type.element(), at);
    }
  }

  std::uint64_t literal_bits(const std::string& text, Scalar type, Location at) {
    try {
      return parse_literal(text, type);
    } catch (const Error& e) {
      fail(at, e.what());
    }
  }

  std::string_view text_;
  std::string file_;
  std::size_t pos_ = 0;
  int line_ = 1;
  int col_ = 1;
  Token tok_;
  Module module_;
  std::vector<Scope> scopes_;
  std::unordered_map<const Attr*, Location> literal_locs_;
};

}  // namespace

std::uint64_t parse_literal(const std::string& text, Scalar type) {
  auto refuse = [&](const std::string& why) -> std::uint64_t {
    loam::fail("the literal " + text + " " + why + " " + std::string(scalar_name(type)));
  };
  const bool hex = text.rfind("0x", 0) == 0 || text.rfind("0X", 0) == 0;
  if (hex) {
    std::uint64_t v = 0;
    auto r = std::from_chars(text.data() + 2, text.data() + text.size(), v, 16);
    if (r.ec != std::errc() || r.ptr != text.data() + text.size() || text.size() == 2) return refuse("is not a hex pattern for");
    const int bits = is_address(type) ? 64 : scalar_bits(type);
    if (bits < 64 && (v >> bits) != 0) return refuse("has more bits than");
    return v;
  }
  if (type == Scalar::I1) {
    if (text == "true" || text == "1") return 1;
    if (text == "false" || text == "0") return 0;
    return refuse("is no value of");
  }
  if (!is_float(type)) {
    if (type == Scalar::Offset) {
      std::uint64_t v = 0;
      auto r = std::from_chars(text.data(), text.data() + text.size(), v);
      if (r.ec != std::errc() || r.ptr != text.data() + text.size()) return refuse("is not a value of");
      return v;
    }
    std::int64_t v = 0;
    auto r = std::from_chars(text.data(), text.data() + text.size(), v);
    if (r.ec != std::errc() || r.ptr != text.data() + text.size()) {
      // An unsigned payload above INT64_MAX for i64 is still an i64 bit pattern.
      std::uint64_t u = 0;
      auto ru = std::from_chars(text.data(), text.data() + text.size(), u);
      if (type == Scalar::I64 && ru.ec == std::errc() && ru.ptr == text.data() + text.size()) return u;
      return refuse("is not a value of");
    }
    if (type == Scalar::Index) return static_cast<std::uint64_t>(v);
    const int bits = scalar_bits(type);
    if (bits < 64) {
      const std::int64_t lo = -(std::int64_t{1} << (bits - 1));
      const std::int64_t hi = (std::int64_t{1} << bits) - 1;
      if (v < lo || v > hi) return refuse("does not fit in");
      return static_cast<std::uint64_t>(v) & ((std::uint64_t{1} << bits) - 1);
    }
    return static_cast<std::uint64_t>(v);
  }
  double d = 0;
  if (text == "inf") d = std::numeric_limits<double>::infinity();
  else if (text == "-inf") d = -std::numeric_limits<double>::infinity();
  else if (text == "nan") d = std::numeric_limits<double>::quiet_NaN();
  else if (text == "true" || text == "false") return refuse("is no value of");
  else {
    char* end = nullptr;
    if (type == Scalar::F32) {
      float f = std::strtof(text.c_str(), &end);
      if (end != text.c_str() + text.size()) return refuse("is not a number of");
      if (!std::isfinite(f)) return refuse("is beyond the largest finite value of");
      return std::bit_cast<std::uint32_t>(f);
    }
    d = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size()) return refuse("is not a number of");
  }
  const std::uint64_t bits = float_bits(d, type);
  // A number the format cannot hold is refused, not rounded to infinity (or NaN, in f8E4M3).
  const bool written_finite = text != "inf" && text != "-inf" && text != "nan";
  if (written_finite && !std::isfinite(float_value(bits, type))) return refuse("is beyond the largest finite value of");
  return bits;
}

Module parse_module_unverified(std::string_view text, std::string file) {
  return Parser(text, std::move(file)).run();
}

Module parse_module(std::string_view text, std::string file) {
  Module m = parse_module_unverified(text, std::move(file));
  verify_module(m);
  return m;
}

}  // namespace loam::loom
