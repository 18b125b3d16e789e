#include "emit/names.hpp"

#include "support/error.hpp"
#include "support/spelling.hpp"

namespace loam::emit {

std::string identifier_spelling(const std::string& name) {
  // No double underscore and no leading underscore: both belong to the implementation.
  std::string out = word_spelling(name);
  if (out.empty() || (out[0] >= '0' && out[0] <= '9')) out = "t" + out;
  return out;
}

bool NameMinter::taken(const std::string& ident) const {
  return reserved_.contains(ident) || used_.count(ident) != 0;
}

const std::string& NameMinter::claim_axis(const std::string& axis, const std::string& where) {
  if (auto it = axes_.find(axis); it != axes_.end()) return it->second;
  if (!is_plain_identifier(axis))
    fail(where + ": axis '" + axis +
         "' is not a C++ identifier (letters, digits and single underscores, starting with a "
         "letter); rename it in the layout");
  if (reserved_.contains(axis))
    fail(where + ": axis '" + axis + "' is " + reserved_.why(axis) +
         "; rename it in the layout");
  if (used_.count(axis))
    fail(where + ": axis '" + axis + "' is already a name in this module; rename it in the layout");
  used_.insert(axis);
  return axes_.emplace(axis, axis).first->second;
}

const std::string& NameMinter::mint(const std::string& graph_name) {
  if (auto it = tensors_.find(graph_name); it != tensors_.end()) return it->second;
  std::string id = identifier_spelling(graph_name);
  while (taken(id)) id += '_';
  used_.insert(id);
  return tensors_.emplace(graph_name, id).first->second;
}

std::string NameMinter::fresh(const std::string& hint) {
  std::string id = identifier_spelling(hint);
  while (taken(id)) id += '_';
  used_.insert(id);
  return id;
}

}  // namespace loam::emit
