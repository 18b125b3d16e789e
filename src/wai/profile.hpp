// Profiles (wai-ops/1 §7) and the accelerator subset (§9.2): what a node needs to fit acc32 or
// acc64, its parameter conditions, its npu flags, and the first failure of a profile (§8.5).
#pragma once

#include "wai/bounds.hpp"
#include "wai/whg1.hpp"

#include <optional>
#include <string>
#include <vector>

namespace loam::wai {

enum class Profile : std::uint8_t { acc32, acc64 };

std::string_view profile_name(Profile p);  // "acc32", "acc64"
std::optional<Profile> parse_profile(std::string_view name);

// The width in bits that class `c` must fit under profile `p` (§7.1).
unsigned class_width(Profile p, WidthClass c);

// The parameter conditions of §7.2 that operator `op` fails, as keys in that table's order.
std::vector<std::string> acc32_params(const Whg1Graph& g, const Operator& op);

// The node's flags of §9.2, in ascending order.
std::vector<std::string> npu_flags(const Whg1Graph& g, const Operator& op);

// The reasons of §8.5 this operator alone puts a graph outside wai-ops/1-npu ("op:<name>",
// "conv_groups", "crop_scalar"); "acc32" is the verdict's, not a node's.
std::vector<std::string> npu_op_reasons(const Whg1Graph& g, const Operator& op);

// Why a node, input or scalar does not meet a profile (§8.5 "First failure").
struct Failure {
  std::string graph;               // the graph's role
  std::string where;               // "input", "scalar" or "node"
  std::size_t index = 0;
  std::string key;                 // "range", "saturated", an interval key, "out.<k>", a parameter key, "policy.check"
  std::optional<unsigned> bits;    // interval keys only
};

// The failure of a node under profile `p`, or nullopt when the node fits `p` (§8.5 "What a node
// fits"). `params` is acc32_params of the node.
std::optional<Failure> node_failure(const Whg1Graph& g, const Operator& op, const NodeBounds& nb,
                                    Profile p, const std::vector<std::string>& params);

}  // namespace loam::wai
