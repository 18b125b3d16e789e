// The semantics cases (tests/fixtures/stage0/make_semantics_cases.py): for each case, stage 0's
// symbolic output extents, evaluated at the lengths of each test_data_set, must be the shapes
// onnxruntime computed there; and every owed condition must hold at those lengths, since onnxruntime
// ran them. The extents' values are computed as forward computes them (stage0::evaluate).
#include <gtest/gtest.h>

#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>

#include "case_names.hpp"
#include "onnx/reader.hpp"
#include "stage0/stage0.hpp"
#include "support/error.hpp"
#include "ops/operator.hpp"

namespace fs = std::filesystem;

namespace loam::stage0 {
namespace {

fs::path cases_dir() { return fs::path(LOAM_SOURCE_DIR) / "tests/fixtures/stage0/semantics"; }

std::vector<int64_t> dims_of(const fs::path& pb) {
  std::ifstream in(pb, std::ios::binary);
  onnx::TensorProto t;
  if (!t.ParseFromIstream(&in)) throw Error("cannot read " + pb.string());
  return {t.dims().begin(), t.dims().end()};
}

class Semantics : public ::testing::TestWithParam<std::string> {};

TEST_P(Semantics, ExtentsAtTwoLengthsAreOnnxruntimeShapes) {
  fs::path dir = cases_dir() / GetParam();
  Model m = read_model_file(dir / "model.onnx");
  Stage0Result r = run_stage0(m, {.operators = &loam::ops::operators()});
  int sets = 0;
  for (int k = 0; fs::exists(dir / ("test_data_set_" + std::to_string(k))); ++k, ++sets) {
    fs::path ds = dir / ("test_data_set_" + std::to_string(k));
    std::map<std::string, std::vector<int64_t>> input_dims;
    for (std::size_t i = 0; i < m.graph.inputs.size(); ++i)
      input_dims[m.graph.inputs[i].name] = dims_of(ds / ("input_" + std::to_string(i) + ".pb"));
    // Bind each symbol as forward does: alone from its axis, else read back from a linear spelling.
    std::map<std::string, int64_t> values;
    for (const auto& b : r.bindings) {
      int64_t len = input_dims.at(b.input).at(b.axis);
      if (b.alone) {
        values[b.symbol] = len;
        continue;
      }
      auto at = [&](int64_t v) {
        auto vs = values;
        vs[b.symbol] = v;
        return *evaluate(b.spelling, vs);
      };
      int64_t c0 = at(0), c1 = at(1);
      values[b.symbol] = (len - c0) / (c1 - c0);
    }
    for (std::size_t i = 0; i < r.outputs.size(); ++i) {
      std::vector<int64_t> want = dims_of(ds / ("output_" + std::to_string(i) + ".pb"));
      const auto& got = r.value(r.outputs[i]).dims;
      ASSERT_EQ(got.size(), want.size()) << r.outputs[i];
      for (std::size_t a = 0; a < got.size(); ++a) {
        auto v = evaluate(got[a], values);
        ASSERT_TRUE(v) << got[a].to_string();
        EXPECT_EQ(*v, want[a]) << GetParam() << " set " << k << " output " << r.outputs[i] << " axis " << a << ": "
                               << got[a].to_string();
      }
    }
    for (const auto& c : r.owed) {
      auto v = evaluate(c.slack, values);
      ASSERT_TRUE(v);
      EXPECT_GE(*v, 0) << c.to_string();
    }
  }
  EXPECT_EQ(sets, 2);
}

INSTANTIATE_TEST_SUITE_P(Cases, Semantics, ::testing::ValuesIn(loam_test::case_names(cases_dir())),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

TEST(Evaluate, DerivedSymbolsComputeByTheirDefinitions) {
  Extent n = Extent::symbol(input_symbol("N"));
  std::map<std::string, int64_t> at10{{"N", 10}}, at3{{"N", 3}};
  EXPECT_EQ(evaluate(min_of(n, Extent(8)), at10), 8);
  EXPECT_EQ(evaluate(min_of(n, Extent(8)), at3), 3);
  EXPECT_EQ(evaluate(ceil_div(n, 4), at10), 3);
  EXPECT_EQ(evaluate(floor_div(n - Extent(1), Extent(4)), at10), 2);
  EXPECT_EQ(evaluate(count_max0(n - Extent(5)), at3), 0);
  EXPECT_EQ(evaluate(from_end(Extent(4) - n, Extent(20)), at10), 14);
  EXPECT_FALSE(evaluate(n, {}));
}

}  // namespace
}  // namespace loam::stage0
