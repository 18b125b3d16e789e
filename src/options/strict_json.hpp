// JSON as Loam reads untrusted JSON (options files, safetensors headers, shard indexes): nlohmann's
// parser, plus two refusals it does not make by itself. A key given twice in one object is refused,
// since which value wins would be the parser's choice rather than the writer's; nesting deeper than
// `max_depth` is refused, since no file Loam reads needs it and a reader must stay bounded.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace loam {

// Throws loam::Error "<where>: invalid JSON at byte N: ..." or "<where>: key 'k' appears twice in
// one object". Byte offsets count from the start of `text`, plus `byte_base` (a header read from
// inside a file names the file's byte).
nlohmann::json parse_strict_json(std::string_view text, const std::string& where,
                                 std::size_t byte_base = 0, std::size_t max_depth = 64);

// A key path for messages: "layout[2].axes[0]". Keys that are not identifiers are quoted as JSON
// strings so the path stays unambiguous: `dims["a.b"]`.
std::string json_key_path_join(const std::string& parent, const std::string& key);
std::string json_key_path_index(const std::string& parent, std::size_t index);

}  // namespace loam
