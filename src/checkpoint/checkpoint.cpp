#include "checkpoint/checkpoint.hpp"

#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "options/strict_json.hpp"
#include "support/error.hpp"
#include "support/file.hpp"

namespace loam {

namespace {


std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

bool is_plain_file_name(const std::string& name) {
  if (name.empty() || name == "." || name == "..") return false;
  for (char c : name)
    if (c == '/' || c == '\\' || c == '\0') return false;
  return true;
}

void check_initializers(const Checkpoint& checkpoint, const Graph& graph, const std::string& graph_origin) {
  for (const TensorData& init : graph.initializers) {
    if (init.has_data) continue;
    auto entry = checkpoint.find(init.name);
    if (!entry)
      fail(graph_origin + ": initializer " + quote_tensor_name(init.name) +
           " has no data in the graph, and the checkpoint (" + checkpoint.origins() +
           ") has no tensor of that name");
    const SafetensorsHeader& shard = checkpoint.shards[entry->shard];
    const SafetensorsTensor& t = *entry->tensor;
    const std::string where = shard.origin + ": tensor " + quote_tensor_name(t.name);
    auto elem = safetensors_dtype_to_element(t.dtype);
    if (!elem || *elem != init.elem)
      fail(where + " is " + safetensors_dtype_name(t.dtype) + ", but the graph (" + graph_origin +
           ") declares it " + element_type_name(init.elem));
    if (t.shape.size() != init.dims.size())
      fail(where + " has shape " + shape_text(t.shape) + " (rank " + std::to_string(t.shape.size()) +
           "), but the graph (" + graph_origin + ") declares " + shape_text(init.dims) + " (rank " +
           std::to_string(init.dims.size()) + ")");
    for (std::size_t axis = 0; axis < t.shape.size(); ++axis)
      if (t.shape[axis] != init.dims[axis])
        fail(where + ": axis " + std::to_string(axis) + " has extent " + std::to_string(t.shape[axis]) +
             ", but the graph (" + graph_origin + ") declares " + std::to_string(init.dims[axis]) +
             " (checkpoint shape " + shape_text(t.shape) + ", graph shape " + shape_text(init.dims) + ")");
  }
  // If branches (and any other graph attribute) carry initializers of their own.
  for (const Node& node : graph.nodes)
    for (const Attribute& a : node.attributes) {
      if (a.g) check_initializers(checkpoint, *a.g, graph_origin);
      for (const auto& g : a.graphs)
        if (g) check_initializers(checkpoint, *g, graph_origin);
    }
}

}  // namespace

std::optional<Checkpoint::Entry> Checkpoint::find(std::string_view name) const {
  auto it = index_.find(name);
  if (it == index_.end()) return std::nullopt;
  return Entry{it->second.first, &shards[it->second.first].tensors[it->second.second]};
}

std::string Checkpoint::origins() const {
  std::string s;
  for (const auto& h : shards) s += (s.empty() ? "" : ", ") + h.origin;
  return s.empty() ? std::string("no files") : s;
}

Checkpoint assemble_checkpoint(std::vector<SafetensorsHeader> shards) {
  Checkpoint c;
  c.shards = std::move(shards);
  for (std::size_t s = 0; s < c.shards.size(); ++s)
    for (std::size_t t = 0; t < c.shards[s].tensors.size(); ++t) {
      const std::string& name = c.shards[s].tensors[t].name;
      auto [it, fresh] = c.index_.emplace(name, std::make_pair(s, t));
      if (!fresh)
        fail(c.shards[s].origin + ": tensor " + quote_tensor_name(name) + " is also in " +
             c.shards[it->second.first].origin + "; a tensor belongs to one shard");
    }
  return c;
}

std::vector<std::string> SafetensorsIndex::shard_names() const {
  std::set<std::string> names;
  for (const auto& [tensor, shard] : weight_map) names.insert(shard);
  return {names.begin(), names.end()};
}

SafetensorsIndex parse_safetensors_index(std::string_view json_text, const std::string& origin) {
  nlohmann::json root = parse_strict_json(json_text, origin);
  if (!root.is_object()) fail(origin + ": expected a JSON object at the top level");
  auto wm = root.find("weight_map");
  if (wm == root.end()) fail(origin + ": missing 'weight_map'");
  if (!wm->is_object()) fail(origin + ": 'weight_map' is not an object mapping tensor names to shard files");
  SafetensorsIndex index;
  index.origin = origin;
  for (auto it = wm->begin(); it != wm->end(); ++it) {
    if (!it->is_string())
      fail(origin + ": weight_map: tensor " + quote_tensor_name(it.key()) + ": the shard is not a string");
    std::string shard = it->get<std::string>();
    if (!is_plain_file_name(shard))
      fail(origin + ": weight_map: tensor " + quote_tensor_name(it.key()) + ": shard " + quote_tensor_name(shard) +
           " is not a file name beside the index");
    index.weight_map.emplace(it.key(), std::move(shard));
  }
  return index;
}

Checkpoint load_sharded_checkpoint(const std::filesystem::path& index_file) {
  const std::string origin = index_file.string();
  SafetensorsIndex index = parse_safetensors_index(read_whole_file(index_file), origin);
  const std::filesystem::path dir = index_file.parent_path();
  std::vector<SafetensorsHeader> shards;
  std::map<std::string, std::size_t> shard_of_name;
  for (const std::string& name : index.shard_names()) {
    std::filesystem::path file = dir / name;
    std::error_code ec;
    if (!std::filesystem::exists(file, ec)) {
      std::string first_tensor;
      for (const auto& [tensor, shard] : index.weight_map)
        if (shard == name) {
          first_tensor = tensor;
          break;
        }
      fail(origin + ": weight_map places tensor " + quote_tensor_name(first_tensor) + " in shard " + quote_tensor_name(name) +
           ", which does not exist (looked for " + file.string() + ")");
    }
    shard_of_name.emplace(name, shards.size());
    shards.push_back(read_safetensors_header_file(file));
  }
  for (const auto& [tensor, shard] : index.weight_map)
    if (!shards[shard_of_name.at(shard)].find(tensor))
      fail(origin + ": weight_map places tensor " + quote_tensor_name(tensor) + " in shard " + quote_tensor_name(shard) +
           ", whose header has no tensor of that name");
  for (const auto& [name, s] : shard_of_name)
    for (const auto& t : shards[s].tensors) {
      auto it = index.weight_map.find(t.name);
      if (it == index.weight_map.end())
        fail(shards[s].origin + ": tensor " + quote_tensor_name(t.name) + " is not in the weight_map of " + origin);
      if (it->second != name)
        fail(shards[s].origin + ": tensor " + quote_tensor_name(t.name) + " is here, but the weight_map of " + origin +
             " places it in " + quote_tensor_name(it->second));
    }
  return assemble_checkpoint(std::move(shards));
}

std::vector<std::filesystem::path> distinct_checkpoint_files(const std::vector<std::filesystem::path>& files) {
  std::vector<std::filesystem::path> out;
  std::set<std::filesystem::path> seen;
  for (const auto& f : files) {
    std::error_code ec;
    std::filesystem::path key = std::filesystem::weakly_canonical(f, ec);
    if (ec) key = f.lexically_normal();
    if (seen.insert(key).second) out.push_back(f);
  }
  return out;
}

Checkpoint load_checkpoint(const std::vector<std::filesystem::path>& files) {
  std::vector<SafetensorsHeader> shards;
  for (const auto& f : distinct_checkpoint_files(files)) {
    if (f.extension() == ".json") {
      Checkpoint part = load_sharded_checkpoint(f);
      for (auto& h : part.shards) shards.push_back(std::move(h));
    } else {
      shards.push_back(read_safetensors_header_file(f));
    }
  }
  return assemble_checkpoint(std::move(shards));
}

void check_checkpoint_against_graph(const Checkpoint& checkpoint, const Graph& graph,
                                    const std::string& graph_origin) {
  check_initializers(checkpoint, graph, graph_origin);
}

void check_checkpoint_against_graph(const SafetensorsHeader& header, const Graph& graph,
                                    const std::string& graph_origin) {
  check_checkpoint_against_graph(assemble_checkpoint({header}), graph, graph_origin);
}

std::map<std::string, std::vector<std::byte>> read_missing_payloads(const Checkpoint& checkpoint, const Graph& graph) {
  std::map<std::string, std::vector<std::byte>> payloads;
  for (const auto& init : graph.initializers) {
    if (init.has_data) continue;
    auto e = checkpoint.find(init.name);
    if (!e) continue;
    const auto& shard = checkpoint.shards.at(e->shard);
    std::ifstream in(shard.origin, std::ios::binary);
    if (!in) fail(shard.origin + ": cannot open for reading");
    std::vector<std::byte> bytes(e->tensor->end - e->tensor->begin);
    in.seekg(static_cast<std::streamoff>(shard.payload_offset() + e->tensor->begin));
    if (!in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size())))
      fail(shard.origin + ": tensor '" + init.name + "': cannot read its payload");
    payloads[init.name] = std::move(bytes);
  }
  return payloads;
}

}  // namespace loam
