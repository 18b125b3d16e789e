// libFuzzer target: the safetensors header reader, the shard index reader, the graph check and the
// binding of a published checkpoint's names (an architecture table's prefix and transposed weights).
// Any loam::Error is a refusal and fine; anything else escaping, a crash, a sanitizer report, or a
// broken property below is a bug.
#include <cstddef>
#include <cstdint>
#include <cctype>
#include <cstdlib>
#include <string>
#include <string_view>

#include "checkpoint/checkpoint.hpp"
#include "axes/architecture.hpp"
#include "checkpoint/safetensors.hpp"
#include "driver/bind_checkpoint.hpp"
#include "support/error.hpp"

namespace {

// A name an exporter's module path round-trips: dotted words ending in ".weight".
bool module_parameter(const std::string& name) {
  if (name.size() < 8 || name.compare(name.size() - 7, 7, ".weight") != 0 || name[0] == '.') return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.')) return false;
    if (c == '.' && i + 1 < name.size() && name[i + 1] == '.') return false;
  }
  return true;
}

// The header as a published GPT-2 checkpoint of an exported graph: each float tensor held under
// the graph's `transformer.` prefix, and each 2-D one a second time transposed under a name torch
// makes, read by a MatMul named from its module path. Binding through the gpt2 table must reach
// every one of them, and the bound graph must agree with the checkpoint.
void bind_as_published(const loam::SafetensorsHeader& h) {
  loam::Graph g;
  g.name = "fuzz";
  int made = 0;
  for (const auto& t : h.tensors) {
    if (t.dtype != loam::SafetensorsDtype::F32 || !module_parameter(t.name) || h.find("transformer." + t.name)) continue;
    loam::TensorData d;
    d.name = "transformer." + t.name;
    d.elem = loam::ElementType::F32;
    d.dims = t.shape;
    d.has_data = false;
    g.initializers.push_back(d);
    loam::Node read;
    read.name = "/read/" + std::to_string(made);
    read.op_type = "Identity";
    read.inputs = {d.name};
    read.outputs = {"/read/" + std::to_string(made) + "/out"};
    g.nodes.push_back(read);
    if (t.shape.size() != 2) continue;
    loam::TensorData tr = d;
    tr.name = "onnx::MatMul_" + std::to_string(made);
    tr.dims = {t.shape[1], t.shape[0]};
    g.initializers.push_back(tr);
    std::string path = t.name.substr(0, t.name.size() - 7);
    for (auto& c : path)
      if (c == '.') c = '/';
    loam::Node mm;
    mm.name = "/" + path + "/MatMul";
    mm.op_type = "MatMul";
    mm.inputs = {"/x", tr.name};
    mm.outputs = {"/mm/" + std::to_string(made)};
    g.nodes.push_back(mm);
    ++made;
  }
  if (g.initializers.empty()) return;
  loam::Model model;
  model.graph = g;
  try {
    const loam::Checkpoint ck = loam::assemble_checkpoint({h});
    const auto bound = loam::driver::bind_checkpoint_names(model, ck, loam::axes::find_architecture("gpt2", "fuzz"), "fuzz.onnxtext");
    if (!bound) std::abort();
    loam::check_checkpoint_against_graph(ck, bound->graph, "fuzz.onnxtext");
  } catch (const loam::Error&) {
    std::abort();  // every tensor was put where the table finds it: a refusal is a bug
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  try {
    loam::SafetensorsHeader h = loam::read_safetensors_header(bytes, "fuzz.safetensors");
    // Reading only the header prefix, told the file's size, must give the same answer.
    loam::SafetensorsHeader p = loam::read_safetensors_header(h.header_bytes, "fuzz.safetensors", size);
    if (p.tensors != h.tensors || p.metadata != h.metadata) std::abort();
    // A graph declaring exactly the header's tensors agrees with it.
    loam::Graph g;
    for (const auto& t : h.tensors) {
      auto elem = loam::safetensors_dtype_to_element(t.dtype);
      if (!elem) continue;
      loam::TensorData d;
      d.name = t.name;
      d.elem = *elem;
      d.dims = t.shape;
      d.has_data = false;
      g.initializers.push_back(d);
    }
    loam::check_checkpoint_against_graph(h, g, "fuzz.onnxtext");
    bind_as_published(h);
  } catch (const loam::Error&) {
  }
  try {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    loam::SafetensorsIndex index = loam::parse_safetensors_index(text, "fuzz.index.json");
    for (const auto& shard : index.shard_names())
      if (shard.find('/') != std::string::npos || shard == "..") std::abort();
  } catch (const loam::Error&) {
  }
  return 0;
}
