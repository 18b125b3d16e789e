#include "graph/attributes.hpp"

#include "support/error.hpp"

namespace loam {

const Attribute* NodeAttributes::find(std::string_view name, Attribute::Kind kind) const {
  const Attribute* a = node_.attr(name);
  if (!a) return nullptr;
  if (a->kind != kind) {
    refuse_(std::string("attribute '") + std::string(name) + "' is a " + attribute_kind_name(a->kind) + ", expected " +
            attribute_kind_name(kind));
    fail("attribute '" + std::string(name) + "' has the wrong kind");  // refuse_ does not return
  }
  return a;
}

int64_t NodeAttributes::integer(std::string_view name, int64_t fallback) const {
  const Attribute* a = find(name, Attribute::Kind::Int);
  return a ? a->i : fallback;
}

std::optional<int64_t> NodeAttributes::integer(std::string_view name) const {
  const Attribute* a = find(name, Attribute::Kind::Int);
  if (!a) return std::nullopt;
  return a->i;
}

float NodeAttributes::real(std::string_view name, float fallback) const {
  const Attribute* a = find(name, Attribute::Kind::Float);
  return a ? a->f : fallback;
}

std::string NodeAttributes::text(std::string_view name, const std::string& fallback) const {
  const Attribute* a = find(name, Attribute::Kind::String);
  return a ? a->s : fallback;
}

std::optional<std::vector<int64_t>> NodeAttributes::integers(std::string_view name) const {
  const Attribute* a = find(name, Attribute::Kind::Ints);
  if (!a) return std::nullopt;
  return a->ints;
}

std::size_t NodeAttributes::axis(int64_t a, std::size_t rank, const std::string& what) const {
  const int64_t r = static_cast<int64_t>(rank);
  if (a < -r || a >= r) {
    refuse_(what + " " + std::to_string(a) + " is outside [" + std::to_string(-r) + ", " + std::to_string(r) + ") for rank " +
            std::to_string(rank));
    fail(what + " outside the rank");  // refuse_ does not return
  }
  return static_cast<std::size_t>(a < 0 ? a + r : a);
}

}  // namespace loam
