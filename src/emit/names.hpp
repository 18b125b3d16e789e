// Minting the identifiers of one generated module from the reserved set.
//
// The two kinds of name a graph brings are answered differently (WEP, "Every Name Is Minted From One
// Set"): an axis name is the schema's own word, so one that is not a plain identifier or is reserved
// stops the build naming it; a tensor name is any string from a model file, so it is spelled as an
// identifier and, where that is taken, gets a trailing `_` until it is free.
#pragma once

#include <map>
#include <set>
#include <string>

#include "emit/reserved.hpp"

namespace loam::emit {

class NameMinter {
 public:
  explicit NameMinter(const ReservedSet& reserved = ReservedSet::standard()) : reserved_(reserved) {}

  // Claims an axis marker name. `where` says where the name came from ("layout rule 2"). Throws
  // loam::Error if it is not a plain identifier or is reserved. Claiming the same axis twice is fine.
  const std::string& claim_axis(const std::string& axis, const std::string& where);

  // The identifier for a tensor (or any graph-brought name): non-identifier characters become `_`,
  // a leading digit gets a `t` in front, and a taken spelling gets `_` appended until free. The same
  // tensor name always mints the same identifier within one minter.
  const std::string& mint(const std::string& graph_name);

  // A fresh identifier for a module-internal local ("t" -> "t", "t_", ...), never a graph name.
  std::string fresh(const std::string& hint);

  bool taken(const std::string& ident) const;

 private:
  const ReservedSet& reserved_;
  std::set<std::string> used_;
  std::map<std::string, std::string> axes_;
  std::map<std::string, std::string> tensors_;
};

// `name` spelled as an identifier, before any collision handling ("onnx::Conv_3" -> "onnx_Conv_3",
// "214" -> "t214", "" -> "t").
std::string identifier_spelling(const std::string& name);

}  // namespace loam::emit
