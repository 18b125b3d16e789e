// The operator set the typed-module path covers: a backend-test case whose every node (If branches
// included) is one of these is in scope for the conformance run; any other is counted out of scope.
#pragma once

#include <set>
#include <string>

#include "graph/graph.hpp"

namespace loam::testcase {

const std::set<std::string>& operators_in_scope();

// The first operator of `graph` (or a subgraph) outside the set, as "domain.Op" or "Op"; "" if none.
std::string first_out_of_scope(const Graph& graph);

}  // namespace loam::testcase
