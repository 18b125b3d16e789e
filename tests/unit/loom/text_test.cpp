// The text form: every kernel under tests/loom/ prints back as written (comments aside), printing
// is a fixed point, literals round-trip in every scalar type, built IR prints as the same text the
// chapter gives, and every op Loom declares is exercised by some kernel.
#include <gtest/gtest.h>

#include <set>

#include "kernel_files.hpp"
#include "loom/builder.hpp"
#include "loom/op_def.hpp"
#include "loom/syntax.hpp"
#include "loom/verifier.hpp"
#include "support/error.hpp"

namespace {

using namespace loam::loom;

class KernelText : public ::testing::TestWithParam<loom_test::KernelFile> {};

TEST_P(KernelText, PrintsBackAsWritten) {
  const auto& k = GetParam();
  Module m = parse_module(k.text, k.path.filename().string());
  const std::string printed = print_module(m);
  EXPECT_EQ(printed, loom_test::without_comments(k.text));
  EXPECT_EQ(print_module(parse_module(printed, "printed")), printed);
}

INSTANTIATE_TEST_SUITE_P(Kernels, KernelText, ::testing::ValuesIn(loom_test::kernel_files()),
                         [](const ::testing::TestParamInfo<loom_test::KernelFile>& i) { return i.param.name; });

void collect(const Block& b, std::set<std::string>& used) {
  for (const auto& op : b.ops) {
    used.insert(std::string(op->name()));
    for (const auto& r : op->regions) collect(r->block, used);
  }
}

TEST(LoomOps, EveryOpIsExercisedByAKernel) {
  std::set<std::string> used;
  for (const auto& k : loom_test::kernel_files()) {
    Module m = parse_module(k.text, k.name);
    for (const auto& op : m.ops) {
      used.insert(std::string(op->name()));
      for (const auto& r : op->regions) collect(r->block, used);
    }
  }
  std::string missing;
  for (const auto& d : op_table().all())
    if (!used.count(std::string(d->name))) missing += " " + std::string(d->name);
  EXPECT_EQ(missing, "") << "no kernel under tests/loom/ uses these ops";
}

TEST(LoomOps, TheReferenceInDocsIsTheTable) {
  EXPECT_EQ(loam::read_whole_file(std::filesystem::path(LOAM_SOURCE_DIR) / "docs/loom-ops.md"), op_reference_markdown())
      << "regenerate it: loam loom ops > docs/loom-ops.md";
}

TEST(LoomLiterals, EveryScalarTypeRoundTrips) {
  const Scalar types[] = {Scalar::Index, Scalar::Offset, Scalar::I1, Scalar::I8, Scalar::I16, Scalar::I32, Scalar::I64,
                          Scalar::F8E4M3, Scalar::F8E5M2, Scalar::F16, Scalar::BF16, Scalar::F32, Scalar::F64};
  std::uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state;
  };
  for (Scalar t : types) {
    const int bits = is_address(t) ? 64 : scalar_bits(t);
    for (int i = 0; i < 2000; ++i) {
      std::uint64_t b = next() >> (i % 7) * 8;
      if (bits < 64) b &= (std::uint64_t{1} << bits) - 1;
      const std::string text = print_literal(b, t);
      ASSERT_EQ(parse_literal(text, t), b) << scalar_name(t) << " " << text;
    }
  }
  EXPECT_EQ(print_literal(0, Scalar::F32), "0.0");
  EXPECT_EQ(print_literal(0x80000000u, Scalar::F32), "-0.0");
  EXPECT_EQ(print_literal(0x3DCCCCCDu, Scalar::F32), "0.1");
  EXPECT_EQ(print_literal(0x7F800000u, Scalar::F32), "inf");
  EXPECT_EQ(print_literal(0x7FC00001u, Scalar::F32), "0x7FC00001");
  EXPECT_EQ(print_literal(0xFF, Scalar::I8), "-1");
  EXPECT_EQ(print_literal(0x3C00, Scalar::F16), "1.0");
  EXPECT_EQ(print_literal(0x2E66, Scalar::F16), "0.1");  // f16's nearest to 0.1 reads back from "0.1"
}

TEST(LoomLiterals, RefusesWhatTheTypeCannotHold) {
  EXPECT_THROW(parse_literal("300", Scalar::I8), loam::Error);
  EXPECT_THROW(parse_literal("1.5", Scalar::I32), loam::Error);
  EXPECT_THROW(parse_literal("-1", Scalar::Offset), loam::Error);
  EXPECT_THROW(parse_literal("0x1FF", Scalar::I8), loam::Error);
  EXPECT_THROW(parse_literal("2", Scalar::I1), loam::Error);
  EXPECT_EQ(parse_literal("255", Scalar::I8), 0xFFu);
  EXPECT_EQ(parse_literal("-128", Scalar::I8), 0x80u);
}

// The chapter's kernel built in code, not read: it must print as the chapter's text.
TEST(LoomBuilder, BuildsTheChapterKernel) {
  Module m;
  m.file = "built";
  Builder b(m);
  Op& k = b.kernel("elementwise_transform_f32", {{"element_count", Type::index()}});
  Value* count = k.regions[0]->block.args[0].get();
  Value* unit = b.index(1, "unit");
  Value* size = b.value("target.subgroup.size", {}, "workgroup_size", Type::index());
  Value* rounding = b.value("index.sub", {size, unit}, "rounding", Type::index());
  Value* rounded = b.value("index.add", {count, rounding}, "rounded_count", Type::index());
  Value* groups = b.value("index.div", {rounded, size}, "workgroups", Type::index());
  b.op("kernel.launch.config", {groups, unit, unit, size, unit, unit});
  Block& body = b.launch(k, {{"element_count", Type::index()}, {"input", Type::buffer()}, {"output", Type::buffer()}});
  Value* n = body.args[0].get();
  auto dim = [](std::string_view which) {
    return [which](Op& o) { o.attr("dim").i = which == "x" ? 0 : which == "y" ? 1 : 2; };
  };
  Value* group = b.value("kernel.workgroup.id", {}, "workgroup", Type::index(), dim("x"));
  Value* lane = b.value("kernel.workitem.id", {}, "lane", Type::index(), dim("x"));
  Value* gsize = b.value("kernel.workgroup.size", {}, "workgroup_size", Type::index(), dim("x"));
  Value* element = b.value("index.madd", {group, gsize, lane}, "element_index", Type::index());
  Op& noalias = b.op("buffer.assume.noalias", {body.args[1].get(), body.args[2].get()}, {{"input_noalias", {}}, {"output_noalias", {}}});
  Value* base = b.offset(0, "base");
  const Type view = Type::shaped(TypeKind::View, {Extent::bound_to(n)}, Scalar::F32);
  Value* in_view = b.value("buffer.view", {noalias.result(0), base}, "input_view", view);
  Value* out_view = b.value("buffer.view", {noalias.result(1), base}, "output_view", view);
  Value* in_bounds = b.value("index.cmp", {element, n}, "in_bounds", {}, [](Op& o) { o.attr("predicate").i = 6; });
  Op& guard = b.op("scf.if", {in_bounds});
  Block& then = b.region(guard);
  Value* value = b.value("view.load", {in_view, element}, "value", Type::scalar(Scalar::F32));
  Value* result = b.value("func.apply", {value}, "result", Type::scalar(Scalar::F32),
                          [](Op& o) { o.attr("contract").text = "guide.elementwise_transform"; });
  b.op("view.store", {result, out_view, element});
  b.region(guard);
  b.set_insertion(body);
  (void)then;
  b.op("kernel.return", {});
  verify_module(m);
  const auto files = loom_test::kernel_files();
  auto chapter = std::find_if(files.begin(), files.end(), [](const auto& f) { return f.name == "elementwise_transform"; });
  ASSERT_NE(chapter, files.end());
  std::string expected = loom_test::without_comments(chapter->text);
  // The chapter's file carries a provider for its runs after the kernel; the built module has only the kernel.
  expected = expected.substr(0, expected.find("\n\nfunc.def") + 1);
  EXPECT_EQ(print_module(m), expected);
}

}  // namespace
