// The verifier's rules that text cannot break (the parser refuses first) but a generator building
// IR in code can: a use its definition does not dominate, operands of two types where an op takes
// one, a negative extent, a dimension bound to a value out of scope, a wrong result count.
#include <gtest/gtest.h>

#include "loom/builder.hpp"
#include "loom/op_def.hpp"
#include "loom/verifier.hpp"
#include "support/error.hpp"

namespace {

using namespace loam::loom;

std::string verify_error(const Module& m) {
  try {
    verify_module(m);
  } catch (const loam::Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(LoomVerifier, RefusesAUseItsDefinitionDoesNotDominate) {
  Module m;
  m.file = "built";
  Builder b(m);
  Op& f = b.func("f", {{"c", Type::scalar(Scalar::I1)}}, {});
  Value* c = f.regions[0]->block.args[0].get();
  Op& branch = b.op("scf.if", {c});
  b.region(branch);
  Value* inside = b.index(1, "inside");
  b.region(branch);
  b.set_insertion(f.regions[0]->block);
  b.value("index.add", {inside, inside}, "outside", Type::index());
  b.op("func.return", {});
  EXPECT_EQ(verify_error(m), "built: index.add: %inside does not dominate this use");
}

TEST(LoomVerifier, RefusesOperandsOfTwoTypesWhereTheOpTakesOne) {
  Module m;
  m.file = "built";
  Builder b(m);
  b.func("f", {}, {});
  Value* i = b.index(1, "i");
  Value* o = b.offset(2, "o");
  b.value("index.add", {i, o}, "sum", Type::index());
  b.op("func.return", {});
  EXPECT_EQ(verify_error(m), "built: index.add: %i is index and %o is offset, but index.add takes them at one type (there is no implicit cast)");
}

TEST(LoomVerifier, RefusesANegativeExtent) {
  Module m;
  m.file = "built";
  Builder b(m);
  b.func("f", {{"v", Type::shaped(TypeKind::View, {Extent::of(-4)}, Scalar::F32)}}, {});
  b.op("func.return", {});
  EXPECT_EQ(verify_error(m), "built: func.def: %v has the negative dimension -4 in view<-4xf32>");
}

TEST(LoomVerifier, RefusesADimensionBoundToAValueOutOfScope) {
  Module m;
  m.file = "built";
  Builder b(m);
  Op& g = b.func("g", {{"n", Type::index()}}, {});
  b.op("func.return", {});
  Value* n_of_g = g.regions[0]->block.args[0].get();
  b.func("f", {{"v", Type::shaped(TypeKind::View, {Extent::bound_to(n_of_g)}, Scalar::F32)}}, {});
  b.op("func.return", {});
  EXPECT_EQ(verify_error(m), "built: func.def: the dimension [%n] of %v names a value not in scope there");
}

TEST(LoomVerifier, RefusesAWrongResultCount) {
  Module m;
  m.file = "built";
  Builder b(m);
  b.func("f", {}, {});
  b.op("index.constant", {}, {{"a", Type::index()}, {"b", Type::index()}});
  b.op("func.return", {});
  EXPECT_EQ(verify_error(m), "built: index.constant: gives 1 result, not 2");
}

TEST(LoomVerifier, AcceptsWhatItShould) {
  Module m;
  m.file = "built";
  Builder b(m);
  Op& f = b.func("f", {{"n", Type::index()}}, {Type::index()});
  Value* n = f.regions[0]->block.args[0].get();
  Value* one = b.index(1, "one");
  Value* r = b.value("index.add", {n, one}, "r", Type::index());
  b.op("func.return", {r});
  EXPECT_EQ(verify_error(m), "(no error)");
}

}  // namespace
