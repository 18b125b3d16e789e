// The reference generator of the conformance vectors (wai-ops/1 §14.1, §14.2, §14.5): for every
// case of the shared corpus it loads the graph, certifies it (load, profiles), decodes each input
// through the interpreter (expect), and writes canonical JSON Lines. Usage:
//   wai_vectors OUT_DIR     writes OUT_DIR/vectors/*.jsonl, OUT_DIR/graphs/*.jsonl, OUT_DIR/npu.jsonl
#include "vector_cases.hpp"

#include "wai/certificate.hpp"
#include "wai/decode.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

using namespace loam::wai;

namespace {

CanonJson tensor_json(const Tensor& t) {
  CanonJson data = CanonJson::array();
  for (std::int64_t v : t.data) data.push(CanonJson::integer(v));
  CanonJson shape = CanonJson::array();
  shape.push(CanonJson::integer(t.shape.c)).push(CanonJson::integer(t.shape.h)).push(CanonJson::integer(t.shape.w));
  CanonJson o = CanonJson::object();
  o.set("data", std::move(data));
  o.set("shape", std::move(shape));
  return o;
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
            for (const Tensor& t : r.outputs) outs.push(tensor_json(t));
            expect.set("outputs", std::move(outs));
          }
          CanonJson ins = CanonJson::array();
          for (const Tensor& t : d.inputs) ins.push(tensor_json(t));
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
