#include "checkpoint/probe.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <thread>

#include "test_util.hpp"

namespace loam {
namespace {

using test::fixture;

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void flip_byte(const std::filesystem::path& p, std::uint64_t offset) {
  std::fstream f(p, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(static_cast<std::streamoff>(offset));
  char c = 0;
  f.read(&c, 1);
  c = static_cast<char>(c ^ 0x5a);
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(&c, 1);
}

TEST(Sha256, KnownAnswers) {
  // FIPS 180-2 examples.
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Probe, StampTextNamesHeaderDigests) {
  test::ScratchDir dir("probe_text");
  auto ckpt = dir.path / "handmade.safetensors";
  std::filesystem::copy_file(fixture("handmade.safetensors"), ckpt);
  std::string text = probe_stamp_text({ckpt}, nullptr);
  // The header is the first 213 - 11 = 202 bytes of the 213-byte file (11 bytes of payload).
  std::string bytes = read_text(ckpt);
  std::string expected = "loam-probe 1\noptions none\nheader sha256:" + sha256_hex(bytes.substr(0, 202)) + " " +
                         ckpt.string() + "\n";
  EXPECT_EQ(text, expected);
}

TEST(Probe, PayloadChangeLeavesTheStampAloneHeaderChangeDoesNot) {
  test::ScratchDir dir("probe_stamp");
  auto ckpt = dir.path / "handmade.safetensors";
  auto stamp = dir.path / "model.stamp";
  std::filesystem::copy_file(fixture("handmade.safetensors"), ckpt);

  EXPECT_TRUE(write_stamp_if_changed(stamp, probe_stamp_text({ckpt}, nullptr)));
  auto first = std::filesystem::last_write_time(stamp);
  std::string first_text = read_text(stamp);

  flip_byte(ckpt, 205);  // inside the payload (payload starts at byte 202)
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(write_stamp_if_changed(stamp, probe_stamp_text({ckpt}, nullptr)));
  EXPECT_EQ(std::filesystem::last_write_time(stamp), first);
  EXPECT_EQ(read_text(stamp), first_text);

  // Under inline_weights the payload is part of the module, so the same change is seen.
  Options inline_opts;
  inline_opts.inline_weights = true;
  std::string inline_text = probe_stamp_text({ckpt}, &inline_opts);
  EXPECT_NE(inline_text.find("file sha256:" + sha256_hex(read_text(ckpt))), std::string::npos);
  flip_byte(ckpt, 205);
  EXPECT_NE(probe_stamp_text({ckpt}, &inline_opts), inline_text);

  // A header change: the metadata value "hand" becomes "hanD" (same length, still valid JSON).
  std::string bytes = read_text(ckpt);
  auto at = bytes.find("\"hand\"");
  ASSERT_NE(at, std::string::npos);
  flip_byte(ckpt, at + 4);  // 'd' ^ 0x5a is '>', a valid string character
  EXPECT_TRUE(write_stamp_if_changed(stamp, probe_stamp_text({ckpt}, nullptr)));
  EXPECT_NE(read_text(stamp), first_text);
}

TEST(Probe, OptionsEnterByTheirCanonicalForm) {
  test::ScratchDir dir("probe_opts");
  auto ckpt = dir.path / "h.safetensors";
  std::filesystem::copy_file(fixture("handmade.safetensors"), ckpt);
  Options a = parse_options(R"({"dims": {"n": 2, "m": 3}})", "a.json");
  Options b = parse_options("{ \"dims\" : { \"m\" : 3 , \"n\" : 2 } }", "b.json");
  Options c = parse_options(R"({"dims": {"n": 2, "m": 4}})", "c.json");
  EXPECT_EQ(probe_stamp_text({ckpt}, &a), probe_stamp_text({ckpt}, &b));
  EXPECT_NE(probe_stamp_text({ckpt}, &a), probe_stamp_text({ckpt}, &c));
  EXPECT_NE(probe_stamp_text({ckpt}, &a).find("options sha256:" + sha256_hex(canonical_options_json(a))),
            std::string::npos);
}

TEST(Probe, ShardedIndexStampsIndexAndEveryShardHeader) {
  auto index = fixture("sharded/model.safetensors.index.json");
  std::string text = probe_stamp_text({index}, nullptr);
  EXPECT_NE(text.find("index sha256:" + sha256_hex(read_text(index))), std::string::npos);
  EXPECT_NE(text.find(fixture("sharded/model-00001-of-00002.safetensors").string()), std::string::npos);
  EXPECT_NE(text.find(fixture("sharded/model-00002-of-00002.safetensors").string()), std::string::npos);
}

}  // namespace
}  // namespace loam
