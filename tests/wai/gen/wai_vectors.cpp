// The reference generator of the conformance vectors (wai-ops/1 §14.1, §14.2, §14.3, §14.5): for
// every case of the shared corpus it loads the graph, certifies it (load, profiles), decodes each
// input through the interpreter (expect), and writes canonical JSON Lines; it runs each stage
// operator on its `in`; and it lowers each parameter set of the certificate corpus. Usage:
//   wai_vectors OUT_DIR     writes OUT_DIR/vectors/*.jsonl, OUT_DIR/graphs/*.jsonl, OUT_DIR/npu.jsonl,
//                           OUT_DIR/stage/*.jsonl, OUT_DIR/sets/<capability>/<name>.json and
//                           OUT_DIR/certificates/ (<capability>/<set digest>.json, beside it
//                           <set digest>/<role>.whg1, and sets.jsonl: each set's outcome)
#include "stage_cases.hpp"
#include "vector_cases.hpp"

#include "wai/certificate.hpp"
#include "wai/decode.hpp"
#include "wai/decode_json.hpp"
#include "wai/lowering_int_synth.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <stdexcept>

using namespace loam::wai;

namespace {

CanonJson canon_tensor(const Tensor& t) {
  CanonJson data = CanonJson::array();
  for (std::int64_t v : t.data) data.push(CanonJson::integer(v));
  CanonJson shape = CanonJson::array();
  shape.push(CanonJson::integer(t.shape.c)).push(CanonJson::integer(t.shape.h)).push(CanonJson::integer(t.shape.w));
  CanonJson o = CanonJson::object();
  o.set("data", std::move(data));
  o.set("shape", std::move(shape));
  return o;
}

// A stage vector's `in`, `modes` and `expect` in canonical form: every integer is already a decimal
// string, so a JSON number here is a corpus error.
CanonJson canon(const nlohmann::json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::string: return CanonJson::string(v.get<std::string>());
    case nlohmann::json::value_t::boolean: return CanonJson::boolean(v.get<bool>());
    case nlohmann::json::value_t::array: {
      CanonJson a = CanonJson::array();
      for (const auto& x : v) a.push(canon(x));
      return a;
    }
    case nlohmann::json::value_t::object: {
      CanonJson o = CanonJson::object();
      for (const auto& [k, x] : v.items()) o.set(k, canon(x));
      return o;
    }
    default: throw std::runtime_error("stage corpus: a value that is not a string, boolean, array or object: " + v.dump());
  }
}

CanonJson profiles_json(bool acc32, bool acc64) {
  CanonJson a = CanonJson::array();
  if (acc32) a.push(CanonJson::string("acc32"));
  if (acc64) a.push(CanonJson::string("acc64"));
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: wai_vectors OUT_DIR\n";
    return 2;
  }
  namespace fs = std::filesystem;
  const fs::path out = argv[1];
  std::map<std::string, std::string> files;  // path -> lines, ordered by path bytes
  std::map<std::string, std::vector<std::string>> npu;
  try {
    for (const vectors::Case& c : vectors::all_cases()) {
      CanonJson v = CanonJson::object();
      v.set("graph", CanonJson::string(to_hex(c.bytes)));
      v.set("id", CanonJson::string(c.id));
      CanonJson decodes = CanonJson::array();
      std::optional<Certificate> cert;
      std::string load = "ok";
      try {
        cert = certify_graph("graph", c.bytes);
        if (!cert->verdict.acc64) load = "model_mismatch";
      } catch (const RefusalError& e) {
        load = std::string(e.refusal().code_name());
      }
      v.set("load", CanonJson::string(load));
      if (load != "ok") {
        v.set("profiles", profiles_json(true, true));
      } else {
        v.set("profiles", profiles_json(cert->verdict.acc32, cert->verdict.acc64));
        Decoder dec(read_whg1(c.bytes));
        for (const vectors::DecodeInput& d : c.decodes) {
          const DecodeOutcome r = dec.decode(d.inputs, d.scalars);
          CanonJson expect = CanonJson::object();
          if (r.refusal) {
            expect.set("refuse", CanonJson::string(std::string(r.refusal->code_name())));
          } else {
            CanonJson outs = CanonJson::array();
            for (const Tensor& t : r.outputs) outs.push(canon_tensor(t));
            expect.set("outputs", std::move(outs));
          }
          CanonJson ins = CanonJson::array();
          for (const Tensor& t : d.inputs) ins.push(canon_tensor(t));
          CanonJson sc = CanonJson::array();
          for (std::int64_t s : d.scalars) sc.push(CanonJson::integer(s));
          CanonJson dj = CanonJson::object();
          dj.set("expect", std::move(expect));
          dj.set("inputs", std::move(ins));
          dj.set("scalars", std::move(sc));
          decodes.push(std::move(dj));
        }
        CanonJson n = CanonJson::object();
        n.set("file", CanonJson::string(c.file));
        n.set("id", CanonJson::string(c.id));
        n.set("npu", CanonJson::boolean(cert->verdict.npu));
        CanonJson fl = CanonJson::array(), rs = CanonJson::array();
        for (const auto& s : cert->verdict.npu_flags) fl.push(CanonJson::string(s));
        for (const auto& s : cert->verdict.npu_reasons) rs.push(CanonJson::string(s));
        n.set("npu_flags", std::move(fl));
        n.set("npu_reasons", std::move(rs));
        npu[c.file].push_back(n.dump() + "\n");
      }
      v.set("decodes", std::move(decodes));
      files[c.file] += v.dump() + "\n";
    }
    // §14.1 stage-operator vectors: stage/<operator>.jsonl, {expect, id, in, modes, op}.
    for (const vectors::StageCase& c : vectors::stage_cases()) {
      CanonJson v = CanonJson::object();
      v.set("expect", canon(run_stage_json(c.op, c.in, c.modes)));
      v.set("id", CanonJson::string(c.id));
      v.set("in", canon(c.in));
      v.set("modes", canon(c.modes));
      v.set("op", CanonJson::string(c.op));
      files["stage/" + c.op + ".jsonl"] += v.dump() + "\n";
    }
    // §14.3: each set's bytes, its certificate and lowered graphs (when it lowers), and one line of
    // certificates/sets.jsonl with its outcome under the capability's profile and its pin's claim.
    std::string sets_index;
    for (const vectors::SetCase& c : vectors::set_cases()) {
      files["sets/" + c.capability + "/" + c.name + ".json"] = std::string(c.bytes.begin(), c.bytes.end());
      const std::string digest = to_hex(sha256(c.bytes));
      std::string outcome = "ok";
      try {
        const LoweredSet set = lower_int_synth_graphs(c.bytes);
        const std::string dir = "certificates/" + c.capability + "/";
        files[dir + digest + ".json"] = set.certificate.json;
        for (const RoleGraph& g : set.graphs)
          files[dir + digest + "/" + g.role + ".whg1"] = std::string(g.bytes.begin(), g.bytes.end());
        lower_int_synth(c.bytes, std::nullopt, c.pin_claim ? parse_profile(*c.pin_claim) : std::nullopt);
      } catch (const LoweringError& e) {
        outcome = e.code();
      }
      CanonJson line = CanonJson::object();
      line.set("capability", CanonJson::string(c.capability));
      line.set("name", CanonJson::string(c.name));
      line.set("ops_profile", c.pin_claim ? CanonJson::string(*c.pin_claim) : CanonJson());
      line.set("outcome", CanonJson::string(outcome));
      line.set("set_sha256", CanonJson::string(digest));
      sets_index += line.dump() + "\n";
    }
    files["certificates/sets.jsonl"] = sets_index;
    for (const auto& [path, text] : files) {
      fs::create_directories((out / path).parent_path());
      std::ofstream(out / path, std::ios::binary) << text;
    }
    std::ofstream n(out / "npu.jsonl", std::ios::binary);
    for (const auto& [path, lines] : npu)
      for (const std::string& l : lines) n << l;
  } catch (const std::exception& e) {
    std::cerr << "wai_vectors: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
