// A checkpoint as the build sees it: the headers of one or more safetensors files, each tensor in
// exactly one of them, and the check of those headers against the graph's initializers.
//
// A large model ships sharded: model-00001-of-00003.safetensors and its siblings, beside a
// model.safetensors.index.json whose `weight_map` says which shard holds each tensor. The build
// reads the index and every shard's header, and no shard's payload.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "checkpoint/safetensors.hpp"
#include "graph/graph.hpp"

namespace loam {

struct Checkpoint {
  std::vector<SafetensorsHeader> shards;

  struct Entry {
    std::size_t shard = 0;
    const SafetensorsTensor* tensor = nullptr;
  };
  // The shard holding `name` and its header entry; nullopt if no shard has it.
  std::optional<Entry> find(std::string_view name) const;
  // "a.safetensors" or "a.safetensors, b.safetensors": what a message names as the checkpoint.
  std::string origins() const;

  std::map<std::string, std::pair<std::size_t, std::size_t>, std::less<>> index_;  // name -> (shard, tensor)
};

// Joins shard headers into one checkpoint; refuses a tensor that two shards both hold.
Checkpoint assemble_checkpoint(std::vector<SafetensorsHeader> shards);

// model.safetensors.index.json: `weight_map` (tensor name -> shard file name) is read; any other
// key (`metadata` carries `total_size`) is accepted and ignored. Shard names must be plain file
// names beside the index: an index is untrusted and may not point elsewhere on the disk.
struct SafetensorsIndex {
  std::string origin;
  std::map<std::string, std::string> weight_map;
  // The shard file names, each once, sorted.
  std::vector<std::string> shard_names() const;
};
SafetensorsIndex parse_safetensors_index(std::string_view json_text, const std::string& origin);

// Reads the index, then each shard's header beside it. Refuses a weight_map entry whose shard does
// not exist (naming the shard and the tensor), a tensor the map places in a shard that lacks it,
// and a shard tensor the map does not list or places elsewhere.
Checkpoint load_sharded_checkpoint(const std::filesystem::path& index_file);

// `files` without repeats: one file named twice (say on the command line and in the options file,
// spelled differently) is one checkpoint, not two shards holding the same tensors. Order is kept.
std::vector<std::filesystem::path> distinct_checkpoint_files(const std::vector<std::filesystem::path>& files);

// Reads every distinct file: a `.json` as a sharded index, anything else as one safetensors file.
Checkpoint load_checkpoint(const std::vector<std::filesystem::path>& files);

// Every initializer the graph (and any subgraph) holds without data must be in the checkpoint,
// with the same element type, the same rank and every extent equal. The first disagreement stops
// the build, naming the checkpoint file, the tensor, and, for an extent, the axis index and both
// lengths. Tensors the checkpoint holds and the graph never names are not an error.
void check_checkpoint_against_graph(const Checkpoint& checkpoint, const Graph& graph,
                                    const std::string& graph_origin);
void check_checkpoint_against_graph(const SafetensorsHeader& header, const Graph& graph,
                                    const std::string& graph_origin);

// The payloads of every initializer the graph lacks data for, read from the checkpoint's shards:
// what `inline_weights` embeds in a module.
std::map<std::string, std::vector<std::byte>> read_missing_payloads(const Checkpoint& checkpoint, const Graph& graph);

}  // namespace loam
