// The text form's writer. Its output is the canonical text: two-space indentation per region, one
// op per line, a blank line between top-level ops, every literal in its shortest exact spelling.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "loom/op_def.hpp"
#include "loom/syntax.hpp"
#include "support/error.hpp"


namespace loam::loom {

namespace {

std::string hex_bits(std::uint64_t bits, int width_bits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%0*llX", width_bits / 4, static_cast<unsigned long long>(bits));
  return buf;
}

std::string with_point(std::string s) {
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

}  // namespace

std::string print_literal(std::uint64_t bits, Scalar type) {
  if (type == Scalar::I1) return bits ? "true" : "false";
  if (type == Scalar::Offset) return std::to_string(bits);
  if (type == Scalar::Index) return std::to_string(static_cast<std::int64_t>(bits));
  if (is_integer(type)) {
    const int n = scalar_bits(type);
    std::int64_t v = static_cast<std::int64_t>(bits);
    if (n < 64) {
      const std::uint64_t sign = std::uint64_t{1} << (n - 1);
      v = static_cast<std::int64_t>((bits ^ sign) - sign);  // sign-extend the payload
    }
    return std::to_string(v);
  }
  const double d = float_value(bits, type);
  if (std::isnan(d)) return hex_bits(bits, scalar_bits(type));
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  char buf[64];
  if (type == Scalar::F64) {
    auto r = std::to_chars(buf, buf + sizeof buf, d);
    return with_point(std::string(buf, r.ptr));
  }
  if (type == Scalar::F32) {
    auto r = std::to_chars(buf, buf + sizeof buf, static_cast<float>(d));
    return with_point(std::string(buf, r.ptr));
  }
  // The narrow formats: the fewest digits that read back to the same bits.
  for (int precision = 1; precision <= 17; ++precision) {
    auto r = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::general, precision);
    std::string s(buf, r.ptr);
    if (float_bits(std::strtod(s.c_str(), nullptr), type) == bits) return with_point(s);
  }
  return hex_bits(bits, scalar_bits(type));
}

namespace {

class Printer final : public OpPrinter {
 public:
  explicit Printer(int indent) : indent_(indent) {}

  void text(std::string_view s) override { out_ += s; }
  void operand(const Value* v) override { out_ += ref(v); }
  void type(const Type& t) override { out_ += print_type(t); }
  void value_decl(const Value* v) override { out_ += ref(v) + ": " + print_type(v->type); }
  void region(const Region& r) override {
    out_ += "{\n";
    for (const auto& op : r.block.ops) {
      out_.append(static_cast<std::size_t>(indent_ + 1) * 2, ' ');
      out_ += Printer::op_line(*op, indent_ + 1);
      out_ += '\n';
    }
    out_.append(static_cast<std::size_t>(indent_) * 2, ' ');
    out_ += '}';
  }

  static std::string op_line(const Op& op, int indent) {
    std::string line;
    for (std::size_t i = 0; i < op.results.size(); ++i) line += (i ? ", " : "") + ref(op.results[i].get());
    if (!op.results.empty()) line += " = ";
    line += op.name();
    Printer body(indent);
    if (op.def->print) op.def->print(op, body);
    else body.format(op, op.def->parsed_format);
    std::string rest = std::move(body.out_);
    while (!rest.empty() && rest.back() == ' ') rest.pop_back();
    std::size_t lead = rest.find_first_not_of(' ');
    rest = lead == std::string::npos ? std::string() : rest.substr(lead);
    if (!rest.empty()) line += (rest[0] == '<' ? "" : " ") + rest;
    return line;
  }

 private:
  void values(const std::vector<Value*>& vs) {
    for (std::size_t i = 0; i < vs.size(); ++i) out_ += (i ? ", " : "") + ref(vs[i]);
  }
  void types(const std::vector<Value*>& vs) {
    for (std::size_t i = 0; i < vs.size(); ++i) out_ += (i ? ", " : "") + print_type(vs[i]->type);
  }
  std::vector<Value*> result_values(const Op& op) {
    std::vector<Value*> vs;
    for (const auto& r : op.results) vs.push_back(r.get());
    return vs;
  }

  void format(const Op& op, const std::vector<FormatItem>& items) {
    const OpDef& def = *op.def;
    for (const auto& item : items) {
      switch (item.kind) {
        case FormatItem::Kind::Space:
          if (out_.empty() || out_.back() != ' ') out_ += ' ';
          break;
        case FormatItem::Kind::Punct:
        case FormatItem::Kind::Keyword: out_ += item.text; break;
        case FormatItem::Kind::Operand:
          values(op.operand_group(def.operands[static_cast<std::size_t>(item.targets[0])].name));
          break;
        case FormatItem::Kind::Attr: attr(op, static_cast<std::size_t>(item.targets[0])); break;
        case FormatItem::Kind::Region: region(*op.regions[static_cast<std::size_t>(item.targets[0])]); break;
        case FormatItem::Kind::TypeOf: {
          const int t = item.targets[0];
          if (t >= 0) {
            auto group = op.operand_group(def.operands[static_cast<std::size_t>(t)].name);
            out_ += group.empty() ? "?" : print_type(group[0]->type);
          } else {
            out_ += print_type(op.results[static_cast<std::size_t>(-1 - t)]->type);
          }
          break;
        }
        case FormatItem::Kind::TypesOf:
          if (item.targets[0] >= 0) types(op.operand_group(def.operands[static_cast<std::size_t>(item.targets[0])].name));
          else types(result_values(op));
          break;
        case FormatItem::Kind::FuncType:
          out_ += '(';
          types(op.operand_group(def.operands[static_cast<std::size_t>(item.targets[0])].name));
          out_ += ") -> (";
          types(result_values(op));
          out_ += ')';
          break;
        case FormatItem::Kind::Optional: {
          const FormatItem* anchor = nullptr;
          for (const auto& g : item.group)
            if (g.kind != FormatItem::Kind::Space) { anchor = &g; break; }
          bool present = false;
          if (anchor->kind == FormatItem::Kind::Attr) present = op.attrs[static_cast<std::size_t>(anchor->targets[0])].present;
          else if (anchor->kind == FormatItem::Kind::Operand)
            present = !op.operand_group(def.operands[static_cast<std::size_t>(anchor->targets[0])].name).empty();
          if (present) format(op, item.group);
          break;
        }
      }
    }
  }

  void attr(const Op& op, std::size_t index) {
    const AttrSpec& spec = op.def->attrs[index];
    const Attr& a = op.attrs[index];
    switch (spec.kind) {
      case AttrKind::Choice: out_ += spec.choices.at(static_cast<std::size_t>(a.i)); break;
      case AttrKind::Integer: out_ += std::to_string(a.i); break;
      case AttrKind::Symbol: out_ += "@" + a.text; break;
      case AttrKind::Contract: out_ += a.text; break;
      case AttrKind::Flag: out_ += spec.name; break;
      case AttrKind::Facts: {
        const std::string subject = op.operands.empty() ? "%?" : ref(op.operands[0]);
        for (std::size_t i = 0; i < a.facts.size(); ++i) {
          const Fact& f = a.facts[i];
          if (i) out_ += ", ";
          if (f.kind == Fact::Kind::Range)
            out_ += "range(" + subject + ", " + std::to_string(f.lo) + ", " + std::to_string(f.hi) + ")";
          else
            out_ += "align(" + subject + ", " + std::to_string(f.align) + ")";
        }
        break;
      }
      case AttrKind::Literal:
        out_ += op.results.empty() ? "?" : print_literal(a.bits, op.results[0]->type.element());
        break;
    }
  }

  int indent_;
  std::string out_;
};

}  // namespace

std::string print_op(const Op& op) { return Printer::op_line(op, 0); }

std::string print_module(const Module& m) {
  std::string out;
  for (std::size_t i = 0; i < m.ops.size(); ++i) {
    if (i) out += '\n';
    out += Printer::op_line(*m.ops[i], 0);
    out += '\n';
  }
  return out;
}

}  // namespace loam::loom
