// Building Loom IR in code: what a generator (Loam's lowering) uses instead of text. A Builder
// appends ops at an insertion point; every op is checked against its definition as it is made
// (operand count, result types inferred where the op infers them), and the module as a whole by
// verify_module. Value names are minted unique from hints, so the printed module reads back.
#pragma once

#include <functional>
#include <string>
#include <unordered_set>
#include <vector>

#include "loom/ir.hpp"

namespace loam::loom {

class Builder {
 public:
  explicit Builder(Module& m) : module_(m) {}

  // A func.def or kernel.def at the end of the module; params are (name hint, type), and a type
  // may bind a dimension to an earlier parameter. The insertion point moves into its body (a
  // kernel's configuration region; launch() moves to its launch region).
  Op& func(const std::string& symbol, const std::vector<std::pair<std::string, Type>>& params, std::vector<Type> results);
  Op& kernel(const std::string& symbol, const std::vector<std::pair<std::string, Type>>& config_params);
  // The kernel's launch region, with its parameters; the insertion point moves there.
  Block& launch(Op& kernel, const std::vector<std::pair<std::string, Type>>& params);

  // Appends op `name` with these operands; `results` are (name hint, type) and may leave a type
  // empty (Type{}) for the op to infer. `attrs` sets attributes before inference.
  Op& op(std::string_view name, std::vector<Value*> operands, std::vector<std::pair<std::string, Type>> results = {},
         const std::function<void(Op&)>& attrs = {});
  // The same, giving the op's first result.
  Value* value(std::string_view name, std::vector<Value*> operands, const std::string& hint, Type type = {},
               const std::function<void(Op&)>& attrs = {});

  Value* index(std::int64_t v, const std::string& hint = "c");
  Value* offset(std::uint64_t v, const std::string& hint = "c");
  Value* constant(Scalar type, std::uint64_t bits, const std::string& hint = "c");

  // Regions: add one to `op`, with block arguments, and make it the insertion point; restore with
  // the returned block of the previous point.
  Block& region(Op& op, const std::vector<std::pair<std::string, Type>>& args = {});
  Block* insertion() const { return at_; }
  void set_insertion(Block& b) { at_ = &b; }

  // A value name unique in the function being built.
  std::string mint(const std::string& hint);

 private:
  Module& module_;
  Block* at_ = nullptr;
  std::unordered_set<std::string> names_;
};

}  // namespace loam::loom
