// The pattern half of `layout`: which rule reaches a tensor. A rule's pattern is a shell wildcard
// over the tensor's name (options/layout_syntax.hpp: `*`, `?`, `[...]` as fnmatch(3) reads them, so
// `*` also crosses `.` and `/`); the first rule that matches wins, and a rule naming a `graph`
// reaches only that graph's tensors. The grammar of patterns and axis specs ("Batch", "(C H W)")
// is in options/layout_syntax.hpp, since the options reader checks it; it is included here.
#pragma once

#include <string_view>
#include <vector>

#include "options/layout_syntax.hpp"
#include "options/options.hpp"

namespace loam {

// The first rule whose pattern matches `tensor_name` and whose `graph`, if it names one, is
// `graph_name`; nullptr if none does.
const LayoutRule* match_layout(const std::vector<LayoutRule>& rules, std::string_view tensor_name,
                               std::string_view graph_name);

}  // namespace loam
