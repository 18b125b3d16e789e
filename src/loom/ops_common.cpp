#include "loom/ops_common.hpp"

#include <algorithm>

#include "loom/syntax.hpp"

namespace loam::loom::detail {

std::uint64_t mask_bits(std::uint64_t bits, int width) {
  return width >= 64 ? bits : bits & ((std::uint64_t{1} << width) - 1);
}

std::int64_t signed_payload(std::uint64_t bits, int width) {
  if (width >= 64) return static_cast<std::int64_t>(bits);
  const std::uint64_t m = mask_bits(bits, width);
  const std::uint64_t sign = std::uint64_t{1} << (width - 1);
  return static_cast<std::int64_t>((m ^ sign) - sign);
}

std::uint64_t bits_of(Int v, Scalar type) {
  if (type == Scalar::Offset) return static_cast<std::uint64_t>(v);
  if (type == Scalar::Index) return static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
  return mask_bits(static_cast<std::uint64_t>(static_cast<std::int64_t>(v)), scalar_bits(type));
}

Int value_of(std::uint64_t bits, Scalar type) {
  if (type == Scalar::Offset) return Int(bits);
  if (type == Scalar::Index) return Int(static_cast<std::int64_t>(bits));
  return Int(signed_payload(bits, scalar_bits(type)));
}

Range carrier_range(Scalar type) {
  if (type == Scalar::Offset) return {0, kOffsetMax};
  return {kIndexMin, kIndexMax};
}

Range range_add(const Range& a, const Range& b) { return {a.lo + b.lo, a.hi + b.hi}; }
Range range_sub(const Range& a, const Range& b) { return {a.lo - b.hi, a.hi - b.lo}; }

// A product that saturates at +-2^126: far past every carrier, so "may overflow" stays true, and
// no product of two 64-bit-carrier bounds (up to 2^64 each) overflows 128 bits on the way.
Int mul_saturating(Int a, Int b) {
  constexpr Int limit = Int(1) << 126;
  if (a == 0 || b == 0) return 0;
  const Int ma = a < 0 ? -a : a, mb = b < 0 ? -b : b;
  const bool negative = (a < 0) != (b < 0);
  if (ma > limit / mb) return negative ? -limit : limit;
  return a * b;
}

Range range_mul(const Range& a, const Range& b) {
  const Int c[4] = {mul_saturating(a.lo, b.lo), mul_saturating(a.lo, b.hi), mul_saturating(a.hi, b.lo),
                    mul_saturating(a.hi, b.hi)};
  return {*std::min_element(c, c + 4), *std::max_element(c, c + 4)};
}

bool range_within(const Range& r, const Range& bounds) { return r.lo >= bounds.lo && r.hi <= bounds.hi; }

Facts exact(Int v) {
  Facts f;
  f.range = Range{v, v};
  f.align = align_of_constant(v);
  return f;
}

std::int64_t align_min(std::int64_t a, std::int64_t b) { return std::min(a, b); }
std::int64_t align_mul(std::int64_t a, std::int64_t b) {
  const Int p = Int(a) * Int(b);
  return p > (Int(1) << 62) ? std::int64_t{1} << 62 : static_cast<std::int64_t>(p);
}

std::string cpp_literal(std::uint64_t bits, Scalar type, const std::string& rt) {
  switch (type) {
    case Scalar::Index: {
      const auto v = static_cast<std::int64_t>(bits);
      if (v == std::numeric_limits<std::int64_t>::min()) return "(-9223372036854775807LL - 1)";
      return "std::int64_t(" + std::to_string(v) + "LL)";
    }
    case Scalar::Offset: return "std::uint64_t(" + std::to_string(bits) + "ULL)";
    case Scalar::I1: return bits ? "true" : "false";
    case Scalar::I8: return "std::uint8_t(" + std::to_string(bits) + "u)";
    case Scalar::I16: return "std::uint16_t(" + std::to_string(bits) + "u)";
    case Scalar::I32: return "std::uint32_t(" + std::to_string(bits) + "u)";
    case Scalar::I64: return "std::uint64_t(" + std::to_string(bits) + "ULL)";
    case Scalar::F32: {
      const std::string lit = print_literal(bits, type);
      if (lit == "inf") return "std::numeric_limits<float>::infinity()";
      if (lit == "-inf") return "(-std::numeric_limits<float>::infinity())";
      if (lit.rfind("0x", 0) == 0) return "std::bit_cast<float>(std::uint32_t(" + lit + "u))";
      return lit + "f";
    }
    case Scalar::F64: {
      const std::string lit = print_literal(bits, type);
      if (lit == "inf") return "std::numeric_limits<double>::infinity()";
      if (lit == "-inf") return "(-std::numeric_limits<double>::infinity())";
      if (lit.rfind("0x", 0) == 0) return "std::bit_cast<double>(std::uint64_t(" + lit + "ULL))";
      return lit;
    }
    default: {
      // A narrow float is held as the float of the same value (a NaN quiet, as it enters a value).
      const std::string width = scalar_bits(type) == 16 ? "std::uint16_t" : "std::uint8_t";
      return rt + "widen_" + narrow_round_function(type).substr(6) + "(" + width + "(" + std::to_string(bits) + "u))";
    }
  }
}

std::string cpp_scalar(Scalar type) {
  switch (type) {
    case Scalar::Index: return "std::int64_t";
    case Scalar::Offset: return "std::uint64_t";
    case Scalar::I1: return "bool";
    case Scalar::I8: return "std::uint8_t";
    case Scalar::I16: return "std::uint16_t";
    case Scalar::I32: return "std::uint32_t";
    case Scalar::I64: return "std::uint64_t";
    case Scalar::F64: return "double";
    default: return "float";
  }
}

void parse_parameters(OpParser& p, Region& r) {
  p.expect_punct("(");
  if (!p.at_punct(")")) {
    do {
      Location at;
      std::string n = p.parse_value_name(&at);
      p.expect_punct(":");
      Type t = p.parse_type();
      p.define_arg(r, n, std::move(t), at);
    } while (p.accept_punct(","));
  }
  p.expect_punct(")");
}

void print_parameters(OpPrinter& p, const Block& b) {
  p.text("(");
  for (std::size_t i = 0; i < b.args.size(); ++i) {
    if (i) p.text(", ");
    p.value_decl(b.args[i].get());
  }
  p.text(")");
}

void check_indices(const Op& op, OpVerifier& v, const Value* shaped, std::size_t count) {
  if (count != shaped->type.rank())
    v.fail(op, ref(shaped) + " has " + counted(shaped->type.rank(), "dimension") + ", but " + counted(count, "index") +
                   (count == 1 ? " is" : " are") + " given");
}

std::string fail_message(const Module& m, const Op& op, const std::string& what) {
  return where(m, op.loc) + std::string(op.name()) + ": " + what;
}

std::string narrow_round_function(Scalar type) {
  switch (type) {
    case Scalar::F16: return "round_f16";
    case Scalar::BF16: return "round_bf16";
    case Scalar::F8E4M3: return "round_f8e4m3";
    case Scalar::F8E5M2: return "round_f8e5m2";
    default: return "";
  }
}

}  // namespace loam::loom::detail

namespace loam::loom::detail {

std::uint64_t read_scalar(const Storage& s, std::uint64_t offset, Scalar type) {
  const int n = scalar_bytes(type);
  std::uint64_t bits = 0;
  for (int i = 0; i < n; ++i) bits |= static_cast<std::uint64_t>(s.bytes[offset + static_cast<std::uint64_t>(i)]) << (8 * i);
  if (type == Scalar::I1) bits = bits != 0 ? 1 : 0;
  return quiet_narrow_nan(bits, type);
}

void write_scalar(Storage& s, std::uint64_t offset, Scalar type, std::uint64_t bits) {
  const int n = scalar_bytes(type);
  for (int i = 0; i < n; ++i) s.bytes[offset + static_cast<std::uint64_t>(i)] = static_cast<std::byte>((bits >> (8 * i)) & 0xFF);
}

std::uint64_t view_offset(Frame& fr, const Op& op, const RtValue& view, const std::vector<Value*>& indices, int lanes,
                          const std::vector<std::uint64_t>* mask) {
  std::uint64_t offset = view.base;
  for (std::size_t k = 0; k < indices.size(); ++k) {
    const std::int64_t i = fr.index(indices[k]);
    const std::int64_t d = view.dims[k];
    const bool last = k + 1 == indices.size();
    if (lanes > 0 && last) {
      for (int l = 0; l < lanes; ++l) {
        if (mask && !(*mask)[static_cast<std::size_t>(l)]) continue;
        if (i < 0 || i > d - 1 - l)
          fr.fail(op, "lane " + std::to_string(l) + " at " + ref(indices[k]) + " = " + std::to_string(i) +
                          " lies outside dimension " + std::to_string(k) + " of " + ref(op.operands[0]) + " (extent " +
                          std::to_string(d) + ")");
      }
    } else if (i < 0 || i >= d) {
      fr.fail(op, ref(indices[k]) + " = " + std::to_string(i) + " lies outside dimension " + std::to_string(k) + " (extent " +
                      std::to_string(d) + ")");
    }
    // In range, so the product is inside the view, which buffer.view checked fits its buffer.
    offset += static_cast<std::uint64_t>(i < 0 ? 0 : i) * view.strides[k];
  }
  return offset;
}

CppAddress view_address(CppEmitter& e, const Op& op, const Value* view, const std::vector<Value*>& indices, int lanes,
                        bool masked) {
  const CppMemory& m = e.memory(op, view);
  const Type& vt = view->type;
  const FactAnalysis& facts = e.facts();
  std::string offset;
  for (std::size_t k = 0; k < indices.size(); ++k) {
    const Extent& d = vt.dims()[k];
    const bool last = k + 1 == indices.size();
    const std::string i = e.use(indices[k]);
    const std::string dim = m.dims[k];
    if (lanes > 0 && last) {
      if (!masked) {
        const Facts fi = facts.at(&op, indices[k]);
        const bool proven = !d.dynamic() && fi.range && fi.range->lo >= 0 && fi.range->hi + lanes <= d.size;
        if (!proven)
          e.check(op, e.rt() + "lanes_fit(" + i + ", " + dim + ", " + std::to_string(lanes) + ")",
                  std::to_string(lanes) + " lanes at " + ref(indices[k]) + " reach outside dimension " + std::to_string(k) + " of " +
                      ref(view));
      }
    } else if (!facts.proves_below(&op, indices[k], d.dynamic() ? d.value : nullptr, d.size)) {
      e.check(op, "std::uint64_t(" + i + ") < std::uint64_t(" + dim + ")",
              ref(indices[k]) + " lies outside dimension " + std::to_string(k) + " of " + ref(view));
    }
    offset += (offset.empty() ? "" : " + ") + std::string("std::uint64_t(") + i + ") * " + m.strides[k];
  }
  return {m.data, offset.empty() ? "0" : offset};
}

std::string load_expr(CppEmitter& e, const Type& t, const std::string& p) {
  const Scalar s = t.element();
  const std::string rt = e.rt();
  const std::string narrow = narrow_round_function(s);
  if (!t.is_vector()) {
    if (s == Scalar::I1) return "(" + rt + "load<std::uint8_t>(" + p + ") != 0)";
    if (!narrow.empty()) return rt + "widen_" + narrow.substr(6) + "(" + rt + "load<std::uint" + std::to_string(scalar_bits(s)) + "_t>(" + p + "))";
    return rt + "load<" + cpp_scalar(s) + ">(" + p + ")";
  }
  const std::string n = std::to_string(t.dims()[0].size);
  if (s == Scalar::I1) return rt + "to_mask(" + rt + "load<" + rt + "vec<std::uint8_t, " + n + ">>(" + p + ") != 0)";
  if (!narrow.empty())
    return rt + "widen_" + narrow.substr(6) + "(" + rt + "load<" + rt + "vec<std::uint" + std::to_string(scalar_bits(s)) + "_t, " + n +
           ">>(" + p + "))";
  return rt + "load<" + e.cpp_type(t) + ">(" + p + ")";
}

std::string store_stmt(CppEmitter& e, const Type& t, const std::string& p, const std::string& v) {
  const Scalar s = t.element();
  const std::string rt = e.rt();
  const std::string narrow = narrow_round_function(s);
  if (!t.is_vector()) {
    if (s == Scalar::I1) return rt + "store(" + p + ", std::uint8_t(" + v + " ? 1 : 0));";
    if (!narrow.empty()) return rt + "store(" + p + ", " + rt + "bits_" + narrow.substr(6) + "(" + v + "));";
    return rt + "store(" + p + ", " + v + ");";
  }
  if (s == Scalar::I1) return rt + "store(" + p + ", " + rt + "mask_bytes(" + v + "));";
  if (!narrow.empty()) return rt + "store(" + p + ", " + rt + "bits_" + narrow.substr(6) + "(" + v + "));";
  return rt + "store(" + p + ", " + v + ");";
}

}  // namespace loam::loom::detail
