#include "loom/run_args.hpp"

#include <charconv>
#include <cmath>
#include <fstream>
#include <iterator>

#include "loom/ops_common.hpp"
#include "loom/syntax.hpp"
#include "support/error.hpp"

namespace loam::loom {

namespace {

// splitmix64: the same stream on every machine.
struct Random {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
};

std::uint64_t random_element(Random& r, Scalar t) {
  if (is_float(t)) return float_bits(-4.0 + 8.0 * r.uniform(), t);
  if (t == Scalar::I1) return r.next() & 1;
  return detail::mask_bits(r.next(), scalar_bits(t));
}

[[noreturn]] void refuse(const Value* p, const std::string& spec, const std::string& why) {
  fail("the argument '" + spec + "' for " + ref(p) + " (" + print_type(p->type) + ") " + why);
}

std::uint64_t seed_of(const std::string& fill, std::size_t position) {
  if (fill == "random") return 0x10AD0000ULL + position;
  std::uint64_t seed = 0;
  const std::string digits = fill.substr(7, fill.size() - 8);
  auto r = std::from_chars(digits.data(), digits.data() + digits.size(), seed);
  if (r.ec != std::errc() || r.ptr != digits.data() + digits.size()) fail("'" + fill + "' takes a decimal seed: random(7)");
  return seed;
}

bool is_random(const std::string& fill) {
  return fill == "random" || (fill.rfind("random(", 0) == 0 && fill.back() == ')');
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    std::size_t at = s.find(sep, start);
    out.push_back(s.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) break;
    start = at + 1;
  }
  return out;
}

RunArgument make_buffer(const Value* p, const std::string& spec, std::size_t position) {
  RunArgument a;
  a.shown = true;
  const std::size_t colon = spec.find(':');
  if (colon == std::string::npos) refuse(p, spec, "is not ELEMENT[N]:FILL (f32[16]:random, i8:1,2,3, bytes[64]:zeros)");
  std::string head = spec.substr(0, colon);
  const std::string fill = spec.substr(colon + 1);
  if (head == "file") {
    std::ifstream in(fill, std::ios::binary);
    if (!in) refuse(p, spec, "names a file that cannot be read");
    auto s = std::make_shared<Storage>();
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (char c : bytes) s->bytes.push_back(static_cast<std::byte>(c));
    a.value = RtValue::buffer(std::move(s));
    a.element = Scalar::I8;
    return a;
  }
  std::optional<std::size_t> count;
  if (const std::size_t open = head.find('['); open != std::string::npos) {
    if (head.back() != ']') refuse(p, spec, "has an unclosed '['");
    std::size_t n = 0;
    const std::string digits = head.substr(open + 1, head.size() - open - 2);
    auto r = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (r.ec != std::errc() || r.ptr != digits.data() + digits.size() || n > (std::size_t{1} << 30))
      refuse(p, spec, "gives no element count up to 2^30 in [...]");
    count = n;
    head = head.substr(0, open);
  }
  bool raw = head == "bytes";
  Scalar element = Scalar::I8;
  if (!raw) {
    auto s = scalar_from_name(head);
    if (!s || is_address(*s)) refuse(p, spec, "names no element type (f32, i8, ..., or bytes)");
    element = *s;
  }
  a.element = element;
  const std::size_t size = static_cast<std::size_t>(scalar_bytes(element));
  std::vector<std::uint64_t> values;
  if (fill == "zeros" || fill == "iota" || is_random(fill)) {
    if (!count) refuse(p, spec, "needs an element count: " + head + "[N]:" + fill);
    Random r{is_random(fill) ? seed_of(fill, position) : 0};
    for (std::size_t i = 0; i < *count; ++i) {
      if (fill == "zeros") values.push_back(0);
      else if (fill == "iota") values.push_back(is_float(element) ? float_bits(static_cast<double>(i), element) : detail::mask_bits(i, scalar_bits(element)));
      else values.push_back(random_element(r, element));
    }
  } else {
    for (const std::string& lit : split(fill, ',')) values.push_back(parse_literal(lit, element));
    if (count && *count != values.size())
      refuse(p, spec, "lists " + std::to_string(values.size()) + " values for " + std::to_string(*count) + " elements");
  }
  auto s = std::make_shared<Storage>();
  s->bytes.resize(values.size() * size);
  for (std::size_t i = 0; i < values.size(); ++i) detail::write_scalar(*s, i * size, element, values[i]);
  a.value = RtValue::buffer(std::move(s));
  return a;
}

RunArgument make_tensor(const Value* p, const std::string& spec, std::size_t position, const std::vector<RunArgument>& earlier,
                        const std::vector<const Value*>& params) {
  const Type& t = p->type;
  Int count = 1;
  for (const Extent& e : t.dims()) {
    std::int64_t n = e.size;
    if (e.dynamic()) {
      bool found = false;
      for (std::size_t i = 0; i < earlier.size(); ++i)
        if (params[i] == e.value) {
          n = static_cast<std::int64_t>(earlier[i].value.bits);
          found = true;
        }
      if (!found) refuse(p, spec, "needs " + ref(e.value) + " bound by an earlier parameter");
    }
    if (n < 0 || n > (std::int64_t{1} << 30)) refuse(p, spec, "binds the extent " + std::to_string(n));
    count *= n;
    if (count > (Int(1) << 30)) refuse(p, spec, "would hold more than 2^30 elements");
  }
  if (spec != "zeros" && !is_random(spec)) refuse(p, spec, "is not zeros, random or random(SEED)");
  Random r{is_random(spec) ? seed_of(spec, position) : 0};
  auto s = std::make_shared<Storage>();
  const auto& q = t.attachment().encoding;
  if (!q) {
    const auto size = static_cast<std::size_t>(scalar_bytes(t.element()));
    s->bytes.resize(static_cast<std::size_t>(count) * size);
    if (spec != "zeros")
      for (std::size_t i = 0; i < static_cast<std::size_t>(count); ++i) detail::write_scalar(*s, i * size, t.element(), random_element(r, t.element()));
  } else {
    if (t.dims().empty() || count % q->block != 0) refuse(p, spec, "has extents that are not whole blocks of " + std::to_string(q->block));
    const auto blocks = static_cast<std::size_t>(count / q->block);
    const auto block_bytes = static_cast<std::size_t>(q->block_bytes());
    s->bytes.resize(blocks * block_bytes);
    if (spec != "zeros")
      for (std::size_t b = 0; b < blocks; ++b) {
        // A finite scale in [2^-8, 1), so every decoded element is finite.
        detail::write_scalar(*s, b * block_bytes, q->scale, float_bits(std::ldexp(0.5 + 0.5 * r.uniform(), -static_cast<int>(r.next() % 8)), q->scale));
        for (std::size_t i = static_cast<std::size_t>(scalar_bytes(q->scale)); i < block_bytes; ++i)
          s->bytes[b * block_bytes + i] = static_cast<std::byte>(r.next() & 0xFF);
      }
  }
  RunArgument a;
  a.value = RtValue::buffer(std::move(s));
  a.element = t.element();
  return a;
}

}  // namespace

std::vector<const Value*> run_parameters(const Op& fn) {
  std::vector<const Value*> params;
  if (fn.name() == "func.def") {
    for (const auto& a : fn.regions[0]->block.args) params.push_back(a.get());
  } else {
    for (const auto& r : fn.regions)
      for (const auto& a : r->block.args) params.push_back(a.get());
  }
  return params;
}

std::vector<RunArgument> make_run_arguments(const Module& m, const std::string& symbol, const std::vector<std::string>& specs) {
  const Op* fn = m.lookup(symbol);
  if (!fn) fail(m.file + ": no func.def or kernel.def named @" + symbol);
  const auto params = run_parameters(*fn);
  if (specs.size() != params.size())
    fail("@" + symbol + " takes " + counted(params.size(), "argument") + ", but " + std::to_string(specs.size()) + (specs.size() == 1 ? " is" : " are") + " given");
  std::vector<RunArgument> args;
  for (std::size_t i = 0; i < params.size(); ++i) {
    const Value* p = params[i];
    const std::string& spec = specs[i];
    if (p->type.is_scalar()) {
      RunArgument a;
      try {
        a.value = RtValue::scalar(parse_literal(spec, p->type.element()));
      } catch (const Error& e) {
        refuse(p, spec, std::string("is not a literal of its type: ") + e.what());
      }
      args.push_back(std::move(a));
    } else if (p->type.is_buffer()) {
      args.push_back(make_buffer(p, spec, i));
    } else if (p->type.is_tensor()) {
      args.push_back(make_tensor(p, spec, i, args, params));
    } else if (p->type.is_vector() && !p->type.dims()[0].dynamic()) {
      RunArgument a;
      a.value.kind = RtValue::Kind::Vector;
      for (const std::string& lit : split(spec, ',')) a.value.lanes.push_back(parse_literal(lit, p->type.element()));
      if (a.value.lanes.size() != static_cast<std::size_t>(p->type.dims()[0].size))
        refuse(p, spec, "lists " + std::to_string(a.value.lanes.size()) + " lanes");
      args.push_back(std::move(a));
    } else {
      refuse(p, spec, "cannot be given from the command line");
    }
  }
  return args;
}

std::string print_run_buffers(const Op& fn, const std::vector<RunArgument>& args) {
  const auto params = run_parameters(fn);
  std::string out;
  for (std::size_t i = 0; i < args.size() && i < params.size(); ++i) {
    if (!args[i].shown) continue;
    const Storage& s = *args[i].value.storage;
    const Scalar e = args[i].element;
    const std::size_t size = static_cast<std::size_t>(scalar_bytes(e));
    const std::size_t n = s.bytes.size() / size;
    out += ref(params[i]) + " = " + std::string(scalar_name(e)) + "[" + std::to_string(n) + "]:";
    for (std::size_t k = 0; k < n; ++k) out += (k ? ", " : " ") + print_literal(detail::read_scalar(s, k * size, e), e);
    out += "\n";
  }
  return out;
}

}  // namespace loam::loom
