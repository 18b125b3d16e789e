// libFuzzer target: the safetensors header reader, the shard index reader and the graph check.
// Any loam::Error is a refusal and fine; anything else escaping, a crash, a sanitizer report, or a
// broken property below is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "checkpoint/checkpoint.hpp"
#include "checkpoint/safetensors.hpp"
#include "support/error.hpp"

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
