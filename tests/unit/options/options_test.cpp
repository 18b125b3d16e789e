#include "options/options.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "support/error.hpp"

namespace loam {
namespace {

TEST(Options, ReadsEveryKey) {
  Options o = parse_options(R"J({
    "architecture": "llama",
    "layout": [
      {"graph": "then_branch", "pattern": "mask", "axes": ["Seq", "Total"]},
      {"pattern": "*.q_proj.weight", "axes": ["Hidden", "Hidden"]},
      {"pattern": "fc1.weight", "axes": ["Hidden", "(C H W)"]},
      {"pattern": "scalar", "axes": []}
    ],
    "dims": {"batch": 1, "sequence_length": 128},
    "outputs": ["logits", "present.0"],
    "inline_weights": true,
    "checkpoints": ["model.safetensors", "/abs/other.safetensors"],
    "webgpu": false
  })J", "opts.json");
  ASSERT_EQ(o.layout.size(), 4u);
  EXPECT_EQ(o.layout[0].graph, std::optional<std::string>("then_branch"));
  EXPECT_EQ(o.layout[0].pattern, "mask");
  EXPECT_EQ(o.layout[0].axes, (std::vector<std::string>{"Seq", "Total"}));
  EXPECT_EQ(o.layout[1].graph, std::nullopt);
  EXPECT_EQ(o.layout[2].axes, (std::vector<std::string>{"Hidden", "(C H W)"}));
  EXPECT_TRUE(o.layout[3].axes.empty());
  EXPECT_EQ(o.architecture, std::optional<std::string>("llama"));
  EXPECT_EQ(o.dims, (std::map<std::string, int64_t>{{"batch", 1}, {"sequence_length", 128}}));
  EXPECT_EQ(o.outputs, (std::optional<std::vector<std::string>>{{"logits", "present.0"}}));
  EXPECT_TRUE(o.inline_weights);
  EXPECT_FALSE(o.webgpu);
  EXPECT_EQ(o.checkpoints, (std::vector<std::string>{"model.safetensors", "/abs/other.safetensors"}));
}

TEST(Options, EmptyObjectIsAllDefaults) {
  Options o = parse_options("{}", "opts.json");
  EXPECT_EQ(o, Options{});
  EXPECT_EQ(canonical_options_json(o),
            R"J({"architecture":null,"checkpoints":[],"dims":{},"inline_weights":false,"input_shapes":{},"layout":[],"outputs":null,"ranges":{},"values":{},"webgpu":false})J");
}

TEST(Options, InputShapesRestateLengthsAndNames) {
  Options o = parse_options(R"J({"input_shapes": {"attention_mask": ["batch", "past + seq"], "x": [1, "?", 0]}})J", "opts.json");
  using Dim = std::variant<int64_t, std::string>;
  EXPECT_EQ(o.input_shapes.at("attention_mask"), (std::vector<Dim>{std::string("batch"), std::string("past + seq")}));
  EXPECT_EQ(o.input_shapes.at("x"), (std::vector<Dim>{int64_t{1}, std::string("?"), int64_t{0}}));
  EXPECT_EQ(canonical_options_json(o).find(R"J("input_shapes":{"attention_mask":["batch","past + seq"],"x":[1,"?",0]})J") != std::string::npos,
            true);
  for (const char* bad : {R"J({"input_shapes": {"x": 3}})J", R"J({"input_shapes": {"x": [-1]}})J", R"J({"input_shapes": {"x": [""]}})J",
                          R"J({"input_shapes": {"x": [1.5]}})J", R"J({"input_shapes": []})J"})
    EXPECT_THROW(parse_options(bad, "opts.json"), Error) << bad;
}

TEST(Options, ValuesKeepIntegersExactAndRefuseWhatIsNoNumber) {
  Options o = parse_options(R"J({"values": {"sr": 16000, "big": [9007199254740993, -1], "t": [0.5, 2]}})J", "opts.json");
  EXPECT_EQ(o.values.at("sr").integers, (std::vector<int64_t>{16000}));
  EXPECT_FALSE(o.values.at("sr").real);
  EXPECT_EQ(o.values.at("big").integers, (std::vector<int64_t>{9007199254740993, -1}));  // past double's 2^53
  EXPECT_TRUE(o.values.at("t").real);
  EXPECT_EQ(o.values.at("t").reals, (std::vector<double>{0.5, 2.0}));
  EXPECT_NE(canonical_options_json(o).find(R"J("values":{"big":[9007199254740993,-1],"sr":[16000],"t":[0.5,2.0]})J"), std::string::npos)
      << canonical_options_json(o);
  for (const char* bad : {R"J({"values": {"sr": "16000"}})J", R"J({"values": [1]})J", R"J({"values": {"x": [1, true]}})J",
                          R"J({"values": {"x": 18446744073709551615}})J"}) {
    try {
      parse_options(bad, "opts.json");
      ADD_FAILURE() << "accepted " << bad;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("key 'values"), std::string::npos) << e.what();
    }
  }
}

TEST(Options, RangesAreLengthsInOrder) {
  Options o = parse_options(R"J({"ranges": {"batch": [1, 64], "seq": [0, 2147483647]}})J", "opts.json");
  EXPECT_EQ(o.ranges.at("batch"), (std::pair<int64_t, int64_t>{1, 64}));
  EXPECT_EQ(o.ranges.at("seq"), (std::pair<int64_t, int64_t>{0, 2147483647}));
  EXPECT_NE(canonical_options_json(o).find(R"J("ranges":{"batch":[1,64],"seq":[0,2147483647]})J"), std::string::npos);
  for (const char* bad : {R"J({"ranges": {"b": [2, 1]}})J", R"J({"ranges": {"b": [-1, 4]}})J", R"J({"ranges": {"b": [0, 2147483648]}})J",
                          R"J({"ranges": {"b": [1]}})J", R"J({"ranges": {"b": [1, 2.5]}})J", R"J({"ranges": {"": [1, 2]}})J",
                          R"J({"ranges": [1, 2]})J", R"J({"ranges": {"b": [1, 2]}, "dims": {"b": 1}})J"}) {
    try {
      parse_options(bad, "opts.json");
      ADD_FAILURE() << "accepted " << bad;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("key 'ranges"), std::string::npos) << e.what();
    }
  }
}

TEST(Options, CanonicalFormIsSortedCompactAndSpelledOnce) {
  const char* a = R"J({"dims": {"seq": 8, "batch": 2}, "layout": [{"axes": ["N", "( C  H W )"], "pattern": "x"}]})J";
  const char* b = "{\n  \"layout\": [ { \"pattern\": \"x\", \"axes\": [\"N\", \"(C H W)\"], \"graph\": null } ],\n"
                  "  \"dims\": { \"batch\": 2, \"seq\": 8 }, \"inline_weights\": false }\n";
  const std::string expected =
      R"J({"architecture":null,"checkpoints":[],"dims":{"batch":2,"seq":8},"inline_weights":false,"input_shapes":{},)J"
      R"J("layout":[{"axes":["N","(C H W)"],"graph":null,"pattern":"x"}],"outputs":null,"ranges":{},"values":{},"webgpu":false})J";
  EXPECT_EQ(canonical_options_json(parse_options(a, "a.json")), expected);
  EXPECT_EQ(canonical_options_json(parse_options(b, "b.json")), expected);
}

TEST(Options, CanonicalFormReadsBackEqual) {
  Options o;
  o.layout = {{std::string("g"), "h.*.w", {"A", "(B C)"}}, {std::nullopt, "[ab]?", {}}};
  o.architecture = "gpt2";
  o.dims = {{"n", 0}, {"m", 9223372036854775807}};
  o.ranges = {{"batch", {1, 64}}, {"seq", {0, 2147483647}}};
  o.outputs = std::vector<std::string>{"y"};
  o.inline_weights = true;
  o.checkpoints = {"w.safetensors"};
  o.webgpu = true;
  std::string canon = canonical_options_json(o);
  EXPECT_EQ(parse_options(canon, "canon.json"), o);
  EXPECT_EQ(canonical_options_json(parse_options(canon, "canon.json")), canon);
}

TEST(Options, OrderOfLayoutRulesIsMeaning) {
  auto x = parse_options(R"J({"layout":[{"pattern":"a","axes":["X"]},{"pattern":"*","axes":["Y"]}]})J", "x.json");
  auto y = parse_options(R"J({"layout":[{"pattern":"*","axes":["Y"]},{"pattern":"a","axes":["X"]}]})J", "y.json");
  EXPECT_NE(canonical_options_json(x), canonical_options_json(y));
}

TEST(Options, CheckpointPathsAreRelativeToTheOptionsFile) {
  Options o;
  o.checkpoints = {"model.safetensors", "../shared/w.safetensors", "/abs/x.safetensors"};
  auto paths = resolve_checkpoint_paths(o, "/proj/models/opts.json");
  ASSERT_EQ(paths.size(), 3u);
  EXPECT_EQ(paths[0], std::filesystem::path("/proj/models/model.safetensors"));
  EXPECT_EQ(paths[1], std::filesystem::path("/proj/shared/w.safetensors"));
  EXPECT_EQ(paths[2], std::filesystem::path("/abs/x.safetensors"));
  EXPECT_EQ(resolve_checkpoint_paths(o, "opts.json")[0], std::filesystem::path("model.safetensors"));
}

TEST(Options, LoadNamesTheFile) {
  auto dir = std::filesystem::temp_directory_path() / ("loam_options_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto file = dir / "opts.json";
  {
    std::ofstream(file) << R"J({"dims": {"n": 3}})J";
  }
  EXPECT_EQ(load_options(file).dims.at("n"), 3);
  {
    std::ofstream(file) << R"J({"dims": {"n": -3}})J";
  }
  try {
    load_options(file);
    ADD_FAILURE() << "a negative extent was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), file.string() + ": key 'dims.n': expected a non-negative integer");
  }
  try {
    load_options(dir / "missing.json");
    ADD_FAILURE() << "a missing file was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), (dir / "missing.json").string() + ": cannot open the options file");
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace loam
