// What a build's output depends on in its checkpoints, as a stamp file CMake keys regeneration on.
//
// A module is a function of each checkpoint's header (names, dtypes, shapes, offsets), not of its
// payload, unless `inline_weights` embeds the payload. So the stamp holds a SHA-256 of the header
// bytes of each checkpoint (8-byte length plus JSON), of the whole file under inline_weights, and of
// the canonical options; `loam probe` rewrites the stamp only when that text changes, so a
// payload-only change leaves its mtime alone and nothing downstream reruns.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "options/options.hpp"

namespace loam {

// Hex SHA-256 of `bytes`, lower case.
std::string sha256_hex(std::string_view bytes);
// Hex SHA-256 of a whole file, read in blocks (a checkpoint may be gigabytes).
std::string sha256_file_hex(const std::filesystem::path& file);

// The stamp's text. `options` may be null (no options file). A checkpoint ending in `.json` is a
// sharded index: its whole text and every shard it names are stamped. Every header is read and
// checked, so a malformed checkpoint fails here with the reader's error.
std::string probe_stamp_text(const std::vector<std::filesystem::path>& checkpoints, const Options* options);

// Writes `text` to `stamp` unless the file already holds exactly it. Returns whether it wrote.
// The write goes through a temporary file and a rename, so a reader never sees half a stamp.
bool write_stamp_if_changed(const std::filesystem::path& stamp, const std::string& text);

}  // namespace loam
