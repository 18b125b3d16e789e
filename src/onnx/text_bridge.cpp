#include "onnx/text_bridge.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <set>

#include "support/error.hpp"

namespace loam::onnx_front {
namespace {

struct Token {
  enum class Kind : uint8_t { Ident, Number, String, Punct, Arrow } kind;
  std::string text;  // Ident/Number: as written; String: the unescaped value; Punct: one char
  int line = 1;
  bool escaped = false;  // String: the literal used a backslash escape
};

bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool is_float_word(const std::string& s) {
  std::string l = lower(s);
  return l == "nan" || l == "inf" || l == "infinity";
}

bool is_primitive_type(const std::string& s) {
  static const std::set<std::string> names = {
      "float", "uint8", "int8", "uint16", "int16", "int32", "int64", "string", "bool",
      "float16", "double", "uint32", "uint64", "complex64", "complex128", "bfloat16"};
  return names.count(s) > 0;
}

bool is_type_keyword(const std::string& s) {
  return s == "seq" || s == "map" || s == "optional" || s == "sparse_tensor";
}

int attribute_kind(const std::string& s) {
  static const std::pair<const char*, int> kinds[] = {
      {"float", 1}, {"int", 2}, {"string", 3}, {"tensor", 4}, {"graph", 5}, {"floats", 6},
      {"ints", 7}, {"strings", 8}, {"tensors", 9}, {"graphs", 10}};
  for (auto& [n, k] : kinds)
    if (s == n) return k;
  return 0;
}

class Lexer {
 public:
  Lexer(std::string_view text, const std::string& origin) : s_(text), origin_(origin) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    std::size_t i = 0;
    int line = 1;
    while (i < s_.size()) {
      char c = s_[i];
      if (c == '\0') fail(origin_ + ": line " + std::to_string(line) + ": NUL byte in text model (byte offset " + std::to_string(i) + ")");
      if (c == '\n') { ++line; ++i; continue; }
      if (std::isspace(static_cast<unsigned char>(c))) { ++i; continue; }
      if (c == '#') {
        while (i < s_.size() && s_[i] != '\n') ++i;
        continue;
      }
      Token t{Token::Kind::Punct, {}, line};
      if (c == '"') {
        t.kind = Token::Kind::String;
        ++i;
        bool closed = false;
        while (i < s_.size()) {
          char d = s_[i];
          if (d == '\0') fail(origin_ + ": line " + std::to_string(line) + ": NUL byte in a string literal");
          if (d == '"') { closed = true; ++i; break; }
          if (d == '\\') {
            if (i + 1 >= s_.size()) break;
            t.escaped = true;
            d = s_[i + 1];
            i += 2;
          } else {
            ++i;
          }
          if (d == '\n') ++line;
          t.text.push_back(d);
        }
        if (!closed) fail(origin_ + ": line " + std::to_string(t.line) + ": unterminated string literal");
      } else if (is_ident_start(c)) {
        t.kind = Token::Kind::Ident;
        std::size_t j = i;
        while (j < s_.size() && is_ident_char(s_[j])) ++j;
        t.text = std::string(s_.substr(i, j - i));
        i = j;
      } else if (std::isdigit(static_cast<unsigned char>(c))) {
        // Numbers as ONNX's parser reads them: digits with at most one point, then an exponent.
        t.kind = Token::Kind::Number;
        std::size_t j = i;
        bool point = false;
        while (j < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[j])) || s_[j] == '.')) {
          if (s_[j] == '.') {
            if (point) break;
            point = true;
          }
          ++j;
        }
        if (j < s_.size() && (s_[j] == 'e' || s_[j] == 'E')) {
          ++j;
          if (j < s_.size() && (s_[j] == '+' || s_[j] == '-')) ++j;
          while (j < s_.size() && std::isdigit(static_cast<unsigned char>(s_[j]))) ++j;
        }
        t.text = std::string(s_.substr(i, j - i));
        i = j;
      } else if (c == '=' && i + 1 < s_.size() && s_[i + 1] == '>') {
        t.kind = Token::Kind::Arrow;
        t.text = "=>";
        i += 2;
      } else {
        t.text = std::string(1, c);
        ++i;
      }
      out.push_back(std::move(t));
    }
    return out;
  }

 private:
  std::string_view s_;
  const std::string& origin_;
};

// What an open bracket encloses, which decides how a token inside is read (a quoted string is a
// name in a signature but a value in an attribute, a word is a float only in a value place).
enum class Ctx : uint8_t {
  Header, Signature, NodeInputs, TypeArgs, ValueInfoList, AttrList, GraphBody, TensorLiteral, ValueList
};

class Bridge {
 public:
  Bridge(std::vector<Token> toks, std::string_view text, const std::string& origin, TextFixups& fx)
      : t_(std::move(toks)), origin_(origin), fx_(fx) {
    fx_.ident_prefix = unused_prefix(text, "__loam_id");
    fx_.string_prefix = unused_prefix(text, "__loam_str");
    fx_.node_attr = unused_prefix(text, "__loam_node_name");
    choose_sentinels();
  }

  std::string run() {
    for (i_ = 0; i_ < t_.size(); ++i_) step();
    if (!stack_.empty()) fail(at(t_.empty() ? 1 : t_.back().line) + "unclosed bracket at end of text");
    return out_;
  }

 private:
  static std::string unused_prefix(std::string_view text, std::string p) {
    while (text.find(p) != std::string_view::npos) p += "x";
    return p + "_";
  }

  std::string at(int line) const { return origin_ + ": line " + std::to_string(line) + ": "; }

  // Sentinels are x.5 values in [2^22, 2^23): exact in float and double, and none of them equal to
  // any number the text spells, so a restored value can only come from a word.
  void choose_sentinels() {
    std::set<double> used;
    for (const auto& t : t_)
      if (t.kind == Token::Kind::Number) used.insert(std::strtod(t.text.c_str(), nullptr));
    double candidate = 4194304.5;
    for (int k = 0; k < 4; ++k) {
      while (used.count(candidate) || used.count(-candidate)) candidate += 1.0;
      sentinel_[k] = candidate;
      candidate += 1.0;
    }
  }

  const Token* peek(std::size_t k) const { return k < t_.size() ? &t_[k] : nullptr; }
  bool is_punct(std::size_t k, char c) const {
    const Token* t = peek(k);
    return t && t->kind == Token::Kind::Punct && t->text[0] == c;
  }
  const Token* prev() const { return i_ > 0 ? &t_[i_ - 1] : nullptr; }
  bool prev_is(char c) const { return i_ > 0 && is_punct(i_ - 1, c); }
  Ctx top() const { return stack_.empty() ? Ctx::GraphBody : stack_.back().ctx; }
  bool at_top_level() const { return stack_.empty(); }

  void emit(const std::string& s, int line) {
    while (out_line_ < line) {
      out_ += '\n';
      ++out_line_;
    }
    if (!out_.empty() && out_.back() != '\n' && out_.back() != '-') out_ += ' ';
    out_ += s;
  }

  std::string quote(const std::string& s) { return "\"" + s + "\""; }

  std::string ident_placeholder(const std::string& name) {
    fx_.idents.push_back(name);
    return fx_.ident_prefix + std::to_string(fx_.idents.size() - 1);
  }
  std::string string_placeholder(TextFixups::StringFix f) {
    fx_.strings.push_back(std::move(f));
    return quote(fx_.string_prefix + std::to_string(fx_.strings.size() - 1));
  }

  void push(Ctx c) {
    if (stack_.size() >= static_cast<std::size_t>(kMaxTextDepth))
      fail(at(t_[i_].line) + "brackets nest deeper than " + std::to_string(kMaxTextDepth));
    stack_.push_back({c});
  }

  // Emits a name or literal string token.
  void emit_string(const Token& t, bool as_identifier) {
    if (as_identifier) emit(ident_placeholder(t.text), t.line);
    else if (t.escaped || t.text.find('"') != std::string::npos) emit(string_placeholder({t.text, 0}), t.line);
    else emit(quote(t.text), t.line);
  }

  bool in_attribute_value_list() const {
    return stack_.size() >= 2 && stack_.back().ctx == Ctx::ValueList && stack_[stack_.size() - 2].ctx == Ctx::AttrList;
  }

  // Whether the identifier at i_ is in a place where ONNX's grammar reads a float word.
  bool float_word_position(std::size_t k) const {
    const Token* nx = peek(k + 1);
    bool next_ok = !nx || (nx->kind == Token::Kind::Punct && std::string(",}]>").find(nx->text[0]) != std::string::npos);
    if (!next_ok) return false;
    std::size_t p = k;
    if (p > 0 && is_punct(p - 1, '-')) --p;
    if (top() == Ctx::TensorLiteral) return true;
    if (top() == Ctx::AttrList) return p > 0 && is_punct(p - 1, '=');
    if (in_attribute_value_list()) return true;
    return false;
  }

  void emit_float_word(const Token& t, bool negative) {
    std::string l = lower(t.text);
    double value = l == "nan" ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
    if (negative) value = -value;
    int k = (l == "nan" ? 0 : 2) + (negative ? 1 : 0);
    double s = sentinel_[k];
    bool known = false;
    for (auto& [sv, v] : fx_.float_words) known |= sv == s;
    if (!known) fx_.float_words.emplace_back(s, value);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.1f", s);
    emit(buf, t.line);
  }

  // A type in a place where a value's type or a tensor's type is written: rewrites float16 and
  // bfloat16, and in an attribute value also takes a tensor's name off.
  void emit_type(bool attribute_value) {
    const Token& ty = t_[i_];
    std::optional<std::size_t> fix;
    auto need_fix = [&]() -> TextFixups::TypeFix& {
      if (!fix) {
        fx_.types.push_back({});
        fix = fx_.types.size() - 1;
      }
      return fx_.types[*fix];
    };
    std::string word = ty.text;
    if (word == "float16" || word == "bfloat16") {
      need_fix().elem = word == "float16" ? 10 : 16;
      word = "uint16";
    }
    // Find the shape, if any, and what follows it.
    std::size_t after = i_ + 1;
    std::size_t close = 0;
    bool has_shape = is_punct(i_ + 1, '[');
    if (has_shape) {
      close = i_ + 2;
      while (close < t_.size() && !is_punct(close, ']')) {
        const Token& d = t_[close];
        bool ok = d.kind == Token::Kind::Ident || d.kind == Token::Kind::Number || d.kind == Token::Kind::String ||
                  is_punct(close, ',') || is_punct(close, '?') || is_punct(close, '-');
        if (!ok) fail(at(d.line) + "unexpected '" + d.text + "' in a shape");
        ++close;
      }
      if (close >= t_.size()) fail(at(ty.line) + "unclosed '[' in a shape");
      after = close + 1;
    }
    std::optional<std::string> tensor_name;
    std::size_t resume = after;
    if (attribute_value) {
      const Token* nm = peek(after);
      if (nm && (nm->kind == Token::Kind::Ident || nm->kind == Token::Kind::String) &&
          (is_punct(after + 1, '{') || is_punct(after + 1, '=') || is_punct(after + 1, '['))) {
        tensor_name = nm->text;
        resume = after + 1;
        if (is_punct(resume, '=')) ++resume;
      }
    }
    if (tensor_name) need_fix().tensor_name = tensor_name;
    if (is_punct(resume, '[') && attribute_value)
      fail(at(ty.line) + "tensor " + (tensor_name ? "'" + *tensor_name + "' " : "") +
           "names its own data file (external data); Loam reads weights from the model itself or from a checkpoint");
    emit(word, ty.line);
    std::string tag;
    if (fix) tag = "-" + std::to_string(kTypeTagBase + static_cast<int64_t>(*fix));
    if (!has_shape) {
      if (fix) {
        fx_.types[*fix].shape = TextFixups::TypeFix::Shape::Scalar;
        emit("[" + tag + "]", ty.line);
      }
    } else if (close == i_ + 2) {  // `[]`: rank unknown
      if (fix) {
        fx_.types[*fix].shape = TextFixups::TypeFix::Shape::UnknownRank;
        emit("[" + tag + "]", ty.line);
      } else {
        emit("[]", ty.line);
      }
    } else {
      emit("[", t_[i_ + 1].line);
      for (std::size_t k = i_ + 2; k < close; ++k) {
        const Token& d = t_[k];
        if (d.kind == Token::Kind::String) emit(ident_placeholder(d.text), d.line);
        else emit(d.text, d.line);
      }
      if (fix) emit(", " + tag, t_[close].line);
      emit("]", t_[close].line);
    }
    i_ = resume - 1;  // the loop's ++ moves to `resume`
  }

  // `[name]` before a node: remembered, and carried into the node as a tag attribute.
  void take_node_name() {
    const Token* nm = peek(i_ + 1);
    if (!nm || (nm->kind != Token::Kind::Ident && nm->kind != Token::Kind::String) || !is_punct(i_ + 2, ']'))
      fail(at(t_[i_].line) + "expected a node name between '[' and ']'");
    fx_.node_names.push_back(nm->text);
    std::string tag_attr = fx_.node_attr + " = " + quote(std::to_string(fx_.node_names.size() - 1));
    // Find where the node's attributes go: after its op type, or after its inputs if it writes them there.
    std::size_t k = i_ + 3;
    while (k < t_.size() && !(t_[k].kind == Token::Kind::Punct && t_[k].text[0] == '=')) ++k;
    ++k;  // past '='
    while (k < t_.size() && (t_[k].kind == Token::Kind::Ident || is_punct(k, '.'))) ++k;
    if (k >= t_.size()) fail(at(t_[i_].line) + "node '" + nm->text + "' has no operator");
    if (is_punct(k, '<')) {
      pending_insert_.emplace_back(k, tag_attr + ",");
    } else if (is_punct(k, '(')) {
      std::size_t depth = 0, m = k;
      for (; m < t_.size(); ++m) {
        if (is_punct(m, '(')) ++depth;
        if (is_punct(m, ')') && --depth == 0) break;
      }
      if (m + 1 < t_.size() && is_punct(m + 1, '<')) pending_insert_.emplace_back(m + 1, tag_attr + ",");
      else pending_insert_.emplace_back(k - 1, "<" + tag_attr + ">");
    } else {
      fail(at(t_[k].line) + "expected '<' or '(' after the operator of node '" + nm->text + "'");
    }
    i_ += 2;
  }

  void step() {
    const Token& t = t_[i_];
    switch (t.kind) {
      case Token::Kind::Arrow: emit("=>", t.line); break;
      case Token::Kind::Number: {
        std::string text = t.text;
        if (float_annotation_ && text.find_first_of(".eE") == std::string::npos) text += ".0";
        emit(text, t.line);
        break;
      }
      case Token::Kind::String: {
        bool ident = false;
        switch (top()) {
          case Ctx::Signature: case Ctx::NodeInputs: case Ctx::TypeArgs: case Ctx::GraphBody: ident = true; break;
          case Ctx::ValueInfoList: ident = !prev_is('='); break;
          case Ctx::AttrList: ident = is_punct(i_ + 1, '('); break;  // a subgraph's name
          default: ident = false; break;  // header values, attribute values, tensor elements
        }
        emit_string(t, ident);
        break;
      }
      case Token::Kind::Ident: {
        Ctx c = top();
        bool entry_start = prev_is('(') || prev_is(',') || prev_is('<');
        if (is_float_word(t.text) && float_word_position(i_)) {
          emit_float_word(t, false);
          break;
        }
        if (is_primitive_type(t.text)) {
          bool attr_value = c == Ctx::AttrList && prev_is('=');
          bool vi_type = (c == Ctx::Signature || c == Ctx::ValueInfoList || c == Ctx::TypeArgs) && entry_start;
          if (attr_value || vi_type) {
            emit_type(attr_value);
            break;
          }
        }
        if (c == Ctx::AttrList && is_punct(i_ + 1, ':') && entry_start) {
          // `name: type = value`: 1.12 reads no annotation. Keep the name, drop the type, and
          // remember it for an empty list or an integer written for a float.
          const Token* ty = peek(i_ + 2);
          int kind = ty && ty->kind == Token::Kind::Ident ? attribute_kind(ty->text) : 0;
          if (!kind) fail(at(t.line) + "unknown attribute type annotation on '" + t.text + "'");
          emit(t.text, t.line);
          i_ += 2;
          annotation_ = kind;
          break;
        }
        emit(t.text, t.line);
        break;
      }
      case Token::Kind::Punct: punct(t); break;
    }
    if (!pending_insert_.empty()) {
      for (auto it = pending_insert_.begin(); it != pending_insert_.end();) {
        if (it->first == i_) {
          emit(it->second, t.line);
          it = pending_insert_.erase(it);
        } else {
          ++it;
        }
      }
    }
  }

  void punct(const Token& t) {
    char c = t.text[0];
    // ONNX 1.12's literal reader leaves a literal it cannot start unset (".5", "*"): refuse such a
    // token here, where the message can say what is wrong, instead of letting it read one.
    if (c == '.' && !(i_ > 0 && t_[i_ - 1].kind == Token::Kind::Ident && peek(i_ + 1) &&
                      peek(i_ + 1)->kind == Token::Kind::Ident))
      fail(at(t.line) + "unexpected '.' (a number may end at its point but not start there)");
    bool value_place = top() == Ctx::TensorLiteral || top() == Ctx::ValueList || (top() == Ctx::AttrList && prev_is('='));
    if (value_place && std::string("-,}]>[:").find(c) == std::string::npos)
      fail(at(t.line) + "unexpected '" + t.text + "' where a value is expected");
    switch (c) {
      case '-':
        if (const Token* nx = peek(i_ + 1); nx && nx->kind == Token::Kind::Ident && is_float_word(nx->text) && float_word_position(i_ + 1)) {
          ++i_;
          emit_float_word(*nx, true);
          return;
        }
        emit("-", t.line);
        return;
      case '=':
        emit("=", t.line);
        if (top() == Ctx::AttrList) {
          float_annotation_ = annotation_ == 1 || annotation_ == 6;
          if (annotation_ && is_punct(i_ + 1, '[') && is_punct(i_ + 2, ']')) {
            emit(string_placeholder({"", annotation_}), t.line);
            i_ += 2;
            annotation_ = 0;
            float_annotation_ = false;
          }
          annotation_ = 0;
        } else if ((top() == Ctx::Signature || top() == Ctx::ValueInfoList) && is_punct(i_ + 1, '[')) {
          std::string name = i_ > 0 ? t_[i_ - 1].text : "";
          fail(at(t.line) + "initializer '" + name + "' names its own data file (external data); Loam reads weights from the model itself or from a checkpoint");
        }
        return;
      case ',':
        if (top() == Ctx::AttrList) float_annotation_ = false;
        emit(",", t.line);
        return;
      case '<': {
        Ctx nc = i_ == 0 ? Ctx::Header
                 : (top() == Ctx::GraphBody && !at_top_level()) ? Ctx::AttrList  // a node's attributes
                 : Ctx::ValueInfoList;                                          // after a signature
        push(nc);
        emit("<", t.line);
        return;
      }
      case '(': {
        Ctx nc = (top() == Ctx::GraphBody && !at_top_level()) ? Ctx::NodeInputs
                 : (prev() && prev()->kind == Token::Kind::Ident && is_type_keyword(prev()->text)) ? Ctx::TypeArgs
                 : Ctx::Signature;
        push(nc);
        emit("(", t.line);
        return;
      }
      case '[': {
        if (!at_top_level() && top() == Ctx::GraphBody) {
          take_node_name();
          return;
        }
        push(Ctx::ValueList);
        emit("[", t.line);
        return;
      }
      case '{': {
        bool literal = prev_is(']') || prev_is('=') || (prev() && prev()->kind == Token::Kind::Ident && is_primitive_type(prev()->text));
        push(literal ? Ctx::TensorLiteral : Ctx::GraphBody);
        emit("{", t.line);
        return;
      }
      case '>': case ')': case ']': case '}': {
        if (stack_.empty()) fail(at(t.line) + "unbalanced '" + std::string(1, c) + "'");
        Ctx open = stack_.back().ctx;
        bool ok = (c == '>' && (open == Ctx::Header || open == Ctx::AttrList || open == Ctx::ValueInfoList)) ||
                  (c == ')' && (open == Ctx::Signature || open == Ctx::NodeInputs || open == Ctx::TypeArgs)) ||
                  (c == ']' && open == Ctx::ValueList) ||
                  (c == '}' && (open == Ctx::GraphBody || open == Ctx::TensorLiteral));
        if (!ok) fail(at(t.line) + "unbalanced '" + std::string(1, c) + "'");
        stack_.pop_back();
        if (c == '>') float_annotation_ = false;
        emit(std::string(1, c), t.line);
        return;
      }
      default:
        emit(t.text, t.line);
    }
  }

  struct Open {
    Ctx ctx;
  };
  std::vector<Token> t_;
  const std::string& origin_;
  TextFixups& fx_;
  std::vector<Open> stack_;
  std::size_t i_ = 0;
  std::string out_;
  int out_line_ = 1;
  double sentinel_[4] = {};
  int annotation_ = 0;
  bool float_annotation_ = false;
  std::vector<std::pair<std::size_t, std::string>> pending_insert_;
};

// ---- restoring ----

class Restorer {
 public:
  Restorer(const TextFixups& fx, const std::string& origin) : fx_(fx), origin_(origin) {}

  void model(onnx::ModelProto& m) {
    str(*m.mutable_producer_name());
    str(*m.mutable_producer_version());
    str(*m.mutable_domain());
    str(*m.mutable_doc_string());
    for (auto& kv : *m.mutable_metadata_props()) {
      str(*kv.mutable_key());
      str(*kv.mutable_value());
    }
    for (auto& o : *m.mutable_opset_import()) str(*o.mutable_domain());
    if (m.has_graph()) graph(*m.mutable_graph());
  }

 private:
  void name(std::string& s) {
    if (s.rfind(fx_.ident_prefix, 0) != 0) return;
    std::size_t k = index(s.substr(fx_.ident_prefix.size()));
    if (k < fx_.idents.size()) s = fx_.idents[k];
  }
  const TextFixups::StringFix* string_fix(const std::string& s) {
    if (s.rfind(fx_.string_prefix, 0) != 0) return nullptr;
    std::size_t k = index(s.substr(fx_.string_prefix.size()));
    return k < fx_.strings.size() ? &fx_.strings[k] : nullptr;
  }
  void str(std::string& s) {
    if (auto* f = string_fix(s)) s = f->text;
  }
  static std::size_t index(const std::string& digits) {
    if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) return SIZE_MAX;
    return std::stoul(digits);
  }
  template <typename F>
  F word(F v) {
    for (auto& [s, value] : fx_.float_words)
      if (v == static_cast<F>(s)) return static_cast<F>(value);
    return v;
  }

  // A tag dimension at the end of a shape or dims list: the type fix it stands for.
  const TextFixups::TypeFix* tag(int64_t last) {
    if (last > -kTypeTagBase) return nullptr;
    int64_t k = -last - kTypeTagBase;
    if (k < 0 || static_cast<uint64_t>(k) >= fx_.types.size()) return nullptr;
    return &fx_.types[static_cast<std::size_t>(k)];
  }

  void type(onnx::TypeProto& tp) {
    switch (tp.value_case()) {
      case onnx::TypeProto::kTensorType: {
        auto& tt = *tp.mutable_tensor_type();
        if (!tt.has_shape()) return;
        auto& sh = *tt.mutable_shape();
        for (auto& d : *sh.mutable_dim())
          if (d.has_dim_param()) name(*d.mutable_dim_param());
        if (sh.dim_size() == 0 || !sh.dim(sh.dim_size() - 1).has_dim_value()) return;
        const auto* f = tag(sh.dim(sh.dim_size() - 1).dim_value());
        if (!f) return;
        sh.mutable_dim()->RemoveLast();
        if (f->elem) tt.set_elem_type(f->elem);
        if (f->shape == TextFixups::TypeFix::Shape::UnknownRank) tt.clear_shape();
        return;
      }
      case onnx::TypeProto::kSequenceType: type(*tp.mutable_sequence_type()->mutable_elem_type()); return;
      case onnx::TypeProto::kMapType: type(*tp.mutable_map_type()->mutable_value_type()); return;
      case onnx::TypeProto::kOptionalType: type(*tp.mutable_optional_type()->mutable_elem_type()); return;
      default: return;
    }
  }

  void tensor(onnx::TensorProto& t) {
    name(*t.mutable_name());
    if (t.dims_size() > 0) {
      if (const auto* f = tag(t.dims(t.dims_size() - 1))) {
        t.mutable_dims()->RemoveLast();
        if (f->elem) t.set_data_type(f->elem);
        if (f->tensor_name) t.set_name(*f->tensor_name);
      }
    }
    for (auto& v : *t.mutable_float_data()) v = word(v);
    for (auto& v : *t.mutable_double_data()) v = word(v);
    for (auto& s : *t.mutable_string_data()) str(s);
  }

  void value_info(onnx::ValueInfoProto& v) {
    name(*v.mutable_name());
    if (v.has_type()) type(*v.mutable_type());
  }

  void attribute(onnx::AttributeProto& a) {
    if (a.type() == onnx::AttributeProto::STRING) {
      if (auto* f = string_fix(a.s()); f && f->empty_list_kind) {
        a.clear_s();
        a.set_type(static_cast<onnx::AttributeProto::AttributeType>(f->empty_list_kind));
        return;
      }
    }
    if (a.has_s()) str(*a.mutable_s());  // mutable_s() alone would mark an int attribute as also a string
    for (auto& s : *a.mutable_strings()) str(s);
    if (a.has_f()) a.set_f(word(a.f()));
    for (auto& v : *a.mutable_floats()) v = word(v);
    if (a.has_t()) tensor(*a.mutable_t());
    for (auto& t : *a.mutable_tensors()) tensor(t);
    if (a.has_g()) graph(*a.mutable_g());
    for (auto& g : *a.mutable_graphs()) graph(g);
  }

  void graph(onnx::GraphProto& g) {
    name(*g.mutable_name());
    for (auto& v : *g.mutable_input()) value_info(v);
    for (auto& v : *g.mutable_output()) value_info(v);
    for (auto& v : *g.mutable_value_info()) value_info(v);
    for (auto& t : *g.mutable_initializer()) tensor(t);
    for (auto& n : *g.mutable_node()) {
      for (auto& s : *n.mutable_input()) name(s);
      for (auto& s : *n.mutable_output()) name(s);
      auto& attrs = *n.mutable_attribute();
      for (int k = 0; k < attrs.size(); ++k) {
        if (attrs[k].name() == fx_.node_attr) {
          std::size_t idx = index(attrs[k].s());
          if (idx < fx_.node_names.size()) n.set_name(fx_.node_names[idx]);
          attrs.DeleteSubrange(k, 1);
          --k;
          continue;
        }
        attribute(attrs[k]);
      }
    }
  }

  const TextFixups& fx_;
  const std::string& origin_;
};

}  // namespace

std::string bridge_text(std::string_view text, const std::string& origin, TextFixups& fixups) {
  std::vector<Token> toks = Lexer(text, origin).run();
  return Bridge(std::move(toks), text, origin, fixups).run();
}

void restore_fixups(onnx::ModelProto& model, const TextFixups& fixups, const std::string& origin) {
  Restorer(fixups, origin).model(model);
}

}  // namespace loam::onnx_front
