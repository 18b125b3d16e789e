// The differential test of the certifier: seeded random graphs (tools/wai_checker/randgraph.py,
// fixed seed), certified here and by the independent checker (tools/wai_checker/batch.py, written
// from the spec text alone); every certificate and every refusal code must agree byte for byte.
#include "wai/admissible.hpp"
#include "wai/certificate.hpp"
#include "wai/whg1_plan.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include <unistd.h>

namespace loam::wai {
namespace {

namespace fs = std::filesystem;

std::vector<std::uint8_t> read_all(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}

TEST(CertificateDifferential, SeededRandomGraphsAgreeWithTheIndependentChecker) {
  const fs::path src = LOAM_SOURCE_DIR;
  const fs::path checker = src / "tools" / "wai_checker";
  const fs::path dir = fs::temp_directory_path() / ("loam_wai_diff_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "g");
  constexpr int kSeed = 20261129, kCount = 2500;
  const std::string gen = "python3 " + (checker / "randgraph.py").string() + " --seed " + std::to_string(kSeed) +
                          " --count " + std::to_string(kCount) + " --out " + (dir / "g").string();
  ASSERT_EQ(std::system(gen.c_str()), 0) << gen;

  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir / "g")) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  ASSERT_EQ(files.size(), static_cast<std::size_t>(kCount));

  const auto start = std::chrono::steady_clock::now();
  std::vector<std::string> ours;
  for (const fs::path& p : files) {
    const std::vector<std::uint8_t> b = read_all(p);
    try {
      ours.push_back(certify_graph(p.stem().string(), b).json);
    } catch (const RefusalError& e) {
      ours.push_back("refused: " + std::string(e.refusal().code_name()));
    }
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
#if !defined(__SANITIZE_ADDRESS__)
  // The budget holds for an optimised build; under the sanitizers (-O0, every access checked) the
  // same work takes several times longer and says nothing about the certifier's speed.
  EXPECT_LT(secs, 30.0) << "certifying " << kCount << " small graphs";
#else
  (void)secs;
#endif

  {
    std::ofstream list(dir / "files.txt");
    for (const fs::path& p : files) list << p.string() << "\n";
  }
  const std::string chk = "python3 " + (checker / "batch.py").string() + " --list " + (dir / "files.txt").string() +
                          " > " + (dir / "theirs.txt").string();
  ASSERT_EQ(std::system(chk.c_str()), 0) << chk;
  std::ifstream in(dir / "theirs.txt");
  std::string line;
  std::size_t i = 0, loaded = 0, saturated = 0;
  while (std::getline(in, line)) {
    ASSERT_LT(i, ours.size());
    EXPECT_EQ(ours[i], line) << files[i];
    if (line.rfind("refused", 0) != 0) ++loaded;
    if (line.find("\"saturated\":true") != std::string::npos) ++saturated;
    ++i;
  }
  EXPECT_EQ(i, ours.size());
  // The corpus exercises what it is meant to: most graphs load, and some saturate.
  EXPECT_GT(loaded, static_cast<std::size_t>(kCount / 2));
  EXPECT_GT(saturated, 0u);
  fs::remove_all(dir);
}

// Admissible ranges (§8.4) of every tensor of 300 seeded random graphs, under both profiles.
TEST(CertificateDifferential, AdmissibleRangesAgreeWithTheIndependentChecker) {
  const fs::path src = LOAM_SOURCE_DIR;
  const fs::path checker = src / "tools" / "wai_checker";
  const fs::path dir = fs::temp_directory_path() / ("loam_wai_adm_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  constexpr int kSeed = 20261130, kCount = 300;
  const std::string gen = "python3 " + (checker / "randgraph.py").string() + " --seed " + std::to_string(kSeed) +
                          " --count " + std::to_string(kCount) + " --out " + dir.string();
  ASSERT_EQ(std::system(gen.c_str()), 0) << gen;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::vector<std::string> ours;
  std::size_t ranges = 0;
  for (const fs::path& p : files) {
    const std::vector<std::uint8_t> b = read_all(p);
    try {
      const Whg1Graph g = read_whg1(b);
      const auto shapes = plan_at_load(g, p.string());
      const GraphBounds gb = bounds_pass(g, shapes);
      std::string line;
      for (std::uint32_t t = 0; t < g.tensors.size(); ++t)
        for (Profile prof : {Profile::acc32, Profile::acc64}) {
          const auto r = admissible_range(g, shapes, gb, t, prof);
          if (!line.empty()) line += ' ';
          line += std::to_string(t) + ":" + std::string(profile_name(prof)) + "=" +
                  (r ? "[" + std::to_string(r->lo) + "," + std::to_string(r->hi) + "]" : std::string("none"));
          ++ranges;
        }
      ours.push_back(line);
    } catch (const RefusalError& e) {
      ours.push_back("refused: " + std::string(e.refusal().code_name()));
    }
  }
  EXPECT_GT(ranges, 500u);
  {
    std::ofstream list(dir / "files.txt");
    for (const fs::path& p : files) list << p.string() << "\n";
  }
  const std::string chk = "python3 " + (checker / "batch.py").string() + " --admissible --list " +
                          (dir / "files.txt").string() + " > " + (dir / "theirs.txt").string();
  ASSERT_EQ(std::system(chk.c_str()), 0) << chk;
  std::ifstream in(dir / "theirs.txt");
  std::string line;
  std::size_t i = 0;
  while (std::getline(in, line)) {
    ASSERT_LT(i, ours.size());
    EXPECT_EQ(ours[i], line) << files[i];
    ++i;
  }
  EXPECT_EQ(i, ours.size());
  fs::remove_all(dir);
}

// Every committed vector's graph (tests/wai) certified on its own: the full certificate, not only
// the members the vector files carry, must agree with the checker's.
TEST(CertificateDifferential, CommittedVectorGraphsAgreeWithTheIndependentChecker) {
  const fs::path src = LOAM_SOURCE_DIR;
  const fs::path dir = fs::temp_directory_path() / ("loam_wai_vec_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::vector<fs::path> files;
  std::vector<std::string> ours;
  for (const char* sub : {"graphs", "vectors"}) {
    std::vector<fs::path> jsonl;
    for (const auto& e : fs::directory_iterator(src / "tests" / "wai" / sub)) jsonl.push_back(e.path());
    std::sort(jsonl.begin(), jsonl.end());
    for (const fs::path& p : jsonl) {
      std::ifstream in(p);
      std::string line;
      while (std::getline(in, line)) {
        const nlohmann::json v = nlohmann::json::parse(line);
        const std::string hex = v["graph"];
        std::vector<std::uint8_t> b(hex.size() / 2);
        for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<std::uint8_t>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
        const std::string role = p.stem().string() + "." + std::string(v["id"]);
        const fs::path g = dir / (role + ".whg1");
        std::ofstream(g, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
        files.push_back(g);
        try {
          ours.push_back(certify_graph(role, b).json);
        } catch (const RefusalError& e) {
          ours.push_back("refused: " + std::string(e.refusal().code_name()));
        }
      }
    }
  }
  ASSERT_GT(files.size(), 50u);
  {
    std::ofstream list(dir / "files.txt");
    for (const fs::path& p : files) list << p.string() << "\n";
  }
  const std::string chk = "python3 " + (src / "tools" / "wai_checker" / "batch.py").string() + " --list " +
                          (dir / "files.txt").string() + " > " + (dir / "theirs.txt").string();
  ASSERT_EQ(std::system(chk.c_str()), 0) << chk;
  std::ifstream in(dir / "theirs.txt");
  std::string line;
  std::size_t i = 0;
  while (std::getline(in, line)) {
    ASSERT_LT(i, ours.size());
    EXPECT_EQ(ours[i], line) << files[i];
    ++i;
  }
  EXPECT_EQ(i, ours.size());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace loam::wai
