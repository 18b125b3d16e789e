// loam wai load|run|stage: the wai-ops/1 front end (spec wai-ops-1.md).
//   loam wai load G.whg1 [--profile P]     the load verdict (§10.5 steps 1-7; with --profile acc32,
//                                          acc64 or npu, step 8 too): "ok" and the graph's SHA-256,
//                                          or the refusal code (message on stderr)
//   loam wai run G.whg1 --decodes D.json   one sequence of decodes (§14.1's decode form); one line
//                                          of canonical JSON per decode: outputs or the refusal
//   loam wai stage OP --in X.json          a stage operator (§5E) on a §14.1 stage vector, or on
//                                          its bare "in" object with --modes
//   loam wai certify G.whg1 [--profile P]  the bounds certificate (§8.5) of the graph certified on
//                                          its own; with --profile, the verdict, exit 5 if it fails
//   loam wai admissible G.whg1 T --profile P  the admissible range of tensor T (§8.4), or "none"
// Exit status: 0 done (every given expect matched), 3 the load refused, 4 an expect differed,
// 1 a usage or file error.
//
// Each action below registers itself in `wai_actions()`; adding one edits nothing else.
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "subcommand.hpp"
#include "support/error.hpp"
#include "wai/admissible.hpp"
#include "wai/certificate.hpp"
#include "wai/decode.hpp"
#include "wai/decode_json.hpp"
#include "wai/whg1.hpp"

namespace {

using loam::cli::Run;
using WaiAction = std::function<Run(CLI::App& wai)>;

std::vector<WaiAction>& wai_actions() {
  static std::vector<WaiAction> actions;
  return actions;
}

struct WaiActionRegistration {
  explicit WaiActionRegistration(WaiAction a) { wai_actions().push_back(std::move(a)); }
};

std::vector<std::uint8_t> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) loam::fail(path + ": cannot open");
  return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(f), {});
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream f(path);
  if (!f) loam::fail(path + ": cannot open");
  try {
    return nlohmann::json::parse(f);
  } catch (const nlohmann::json::exception& e) {
    loam::fail(path + ": " + e.what());
  }
}

constexpr int kRefused = 3;
constexpr int kDiffers = 4;

// The loaded graph, or the printed refusal.
std::optional<loam::wai::Whg1Graph> load(const std::string& path) {
  const auto bytes = read_bytes(path);
  loam::wai::ReadOptions opts;
  opts.source = path;
  auto r = loam::wai::try_read_whg1(bytes, opts);
  if (auto* ref = std::get_if<loam::wai::Refusal>(&r)) {
    std::printf("%s\n", std::string(ref->code_name()).c_str());
    std::fprintf(stderr, "%s\n", ref->message.c_str());
    return std::nullopt;
  }
  return std::get<loam::wai::Whg1Graph>(std::move(r));
}

const WaiActionRegistration load_action([](CLI::App& wai) -> Run {
  struct Args {
    std::string graph, profile;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = wai.add_subcommand("load", "Load a WHG1 graph: print ok and its SHA-256, or the refusal code");
  sub->add_option("graph", args->graph, "the .whg1 file")->required();
  sub->add_option("--profile", args->profile,
                  "acc32, acc64 or npu: also run load step 8 (§10.5), refusing a graph whose certificate "
                  "does not meet the profile, or (npu) is outside wai-ops/1-npu")
      ->check(CLI::IsMember({"acc32", "acc64", "npu"}));
  return [args]() -> int {
    const auto bytes = read_bytes(args->graph);
    if (args->profile.empty()) {
      if (!load(args->graph)) return kRefused;
    } else {
      try {
        if (args->profile == "npu") loam::wai::load_in_npu_subset(bytes, args->graph);
        else loam::wai::load_with_profile(bytes, *loam::wai::parse_profile(args->profile), args->graph);
      } catch (const loam::wai::RefusalError& e) {
        std::printf("%s\n", std::string(e.refusal().code_name()).c_str());
        std::fprintf(stderr, "%s\n", e.refusal().message.c_str());
        return kRefused;
      }
    }
    std::printf("ok\nsha256 %s\n", loam::wai::to_hex(loam::wai::sha256(bytes)).c_str());
    return 0;
  };
});

const WaiActionRegistration run_action([](CLI::App& wai) -> Run {
  struct Args {
    std::string graph, decodes;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = wai.add_subcommand("run", "Decode a sequence through a WHG1 graph; print each decode's outputs or refusal");
  sub->add_option("graph", args->graph, "the .whg1 file")->required();
  sub->add_option("--decodes", args->decodes, "JSON: an array of decodes, or a vector with \"decodes\"")->required();
  return [args]() -> int {
    auto g = load(args->graph);
    if (!g) return kRefused;
    const auto requests = loam::wai::parse_decodes(read_json(args->decodes));
    loam::wai::Decoder decoder(std::move(*g));
    int status = 0;
    for (std::size_t k = 0; k < requests.size(); ++k) {
      const auto outcome = decoder.decode(requests[k].inputs, requests[k].scalars);
      const auto j = loam::wai::outcome_json(outcome);
      std::printf("%s\n", j.dump().c_str());
      if (!outcome.completed()) std::fprintf(stderr, "decode %zu: %s\n", k, outcome.refusal->message.c_str());
      if (requests[k].expect && *requests[k].expect != j) {
        std::fprintf(stderr, "decode %zu: differs from its expect\n", k);
        status = kDiffers;
      }
    }
    return status;
  };
});

const WaiActionRegistration stage_action([](CLI::App& wai) -> Run {
  struct Args {
    std::string op, in, modes;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = wai.add_subcommand("stage", "Run a stage operator (§5E) on a stage vector's in/modes");
  sub->add_option("op", args->op, "the operator: dequantize, bucket, coded, scale_index, block_stat, band_lookup, "
                                  "mans_decode, residual_step, mc_predict, up2_predict, rate_predict, coding_order")->required();
  sub->add_option("--in", args->in, "JSON: a stage vector ({\"in\", \"modes\", \"expect\"}), or its bare in object")->required();
  sub->add_option("--modes", args->modes, "JSON modes for a bare in object, e.g. {\"bucket\":\"ceil\"}");
  return [args]() -> int {
    const nlohmann::json doc = read_json(args->in);
    const bool vector = doc.is_object() && doc.contains("in");
    nlohmann::json modes = nlohmann::json::object();
    if (vector && doc.contains("modes")) modes = doc.at("modes");
    if (!args->modes.empty()) {
      try {
        modes = nlohmann::json::parse(args->modes);
      } catch (const nlohmann::json::exception& e) {
        loam::fail(std::string("--modes: ") + e.what());
      }
    }
    const auto result = loam::wai::run_stage_json(args->op, vector ? doc.at("in") : doc, modes);
    std::printf("%s\n", result.dump().c_str());
    if (vector && doc.contains("expect") && doc.at("expect") != result) {
      std::fprintf(stderr, "differs from its expect\n");
      return kDiffers;
    }
    return 0;
  };
});

// The role a graph certified on its own is named by: --role, or the file name without ".whg1".
std::string role_of(const std::string& path, const std::string& role) {
  if (!role.empty()) return role;
  std::string base = path.substr(path.find_last_of('/') + 1);
  if (base.size() > 5 && base.compare(base.size() - 5, 5, ".whg1") == 0) base.resize(base.size() - 5);
  return base;
}

constexpr int kProfileFails = 5;

const WaiActionRegistration certify_action([](CLI::App& wai) -> Run {
  struct Args {
    std::string graph, role, profile;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = wai.add_subcommand("certify", "Print the bounds certificate of a WHG1 graph (lowering \"whg1\")");
  sub->add_option("graph", args->graph, "the .whg1 file")->required();
  sub->add_option("--role", args->role, "the graph's role (default: the file name without .whg1)");
  sub->add_option("--profile", args->profile, "acc32 or acc64: print the verdict, exit 5 if it fails")
      ->check(CLI::IsMember({"acc32", "acc64"}));
  return [args]() -> int {
    const auto bytes = read_bytes(args->graph);
    try {
      const auto cert = loam::wai::certify_graph(role_of(args->graph, args->role), bytes);
      if (args->profile.empty()) {
        std::fwrite(cert.json.data(), 1, cert.json.size(), stdout);
        return 0;
      }
      std::printf("%s\n", loam::wai::verdict_json(cert.verdict).dump().c_str());
      return cert.verdict.meets(*loam::wai::parse_profile(args->profile)) ? 0 : kProfileFails;
    } catch (const loam::wai::RefusalError& e) {
      std::printf("%s\n", std::string(e.refusal().code_name()).c_str());
      std::fprintf(stderr, "%s\n", e.refusal().message.c_str());
      return kRefused;
    }
  };
});

const WaiActionRegistration admissible_action([](CLI::App& wai) -> Run {
  struct Args {
    std::string graph, profile;
    std::uint32_t tensor = 0;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = wai.add_subcommand("admissible", "Print a tensor's admissible range for a profile (§8.4)");
  sub->add_option("graph", args->graph, "the .whg1 file")->required();
  sub->add_option("tensor", args->tensor, "the tensor's index")->required();
  sub->add_option("--profile", args->profile, "acc32 or acc64")->required()->check(CLI::IsMember({"acc32", "acc64"}));
  return [args]() -> int {
    const auto bytes = read_bytes(args->graph);
    try {
      const auto r = loam::wai::admissible_range(bytes, args->tensor, *loam::wai::parse_profile(args->profile),
                                                 args->graph);
      if (r) std::printf("[%lld, %lld]\n", static_cast<long long>(r->lo), static_cast<long long>(r->hi));
      else std::printf("none\n");
      return 0;
    } catch (const loam::wai::RefusalError& e) {
      std::printf("%s\n", std::string(e.refusal().code_name()).c_str());
      std::fprintf(stderr, "%s\n", e.refusal().message.c_str());
      return kRefused;
    }
  };
});

const loam::cli::SubcommandRegistration wai_registration([](CLI::App& app) -> Run {
  CLI::App* wai = app.add_subcommand("wai", "wai-ops/1: load WHG1 graphs, decode through them, run stage operators");
  wai->require_subcommand(1);
  auto runs = std::make_shared<std::vector<std::pair<CLI::App*, Run>>>();
  for (auto& action : wai_actions()) {
    const std::size_t before = wai->get_subcommands({}).size();
    Run run = action(*wai);
    const auto subs = wai->get_subcommands({});
    if (subs.size() > before) runs->emplace_back(subs.back(), std::move(run));
  }
  return [runs]() -> int {
    for (auto& [sub, run] : *runs)
      if (sub->parsed()) return run();
    return 1;
  };
});

}  // namespace
