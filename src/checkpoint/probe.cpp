#include "checkpoint/probe.hpp"

#include <openssl/evp.h>

#include <array>
#include <fstream>
#include <memory>
#include <sstream>

#include "checkpoint/checkpoint.hpp"
#include "checkpoint/safetensors.hpp"
#include "support/error.hpp"
#include "support/file.hpp"

namespace loam {

namespace {

struct MdCtxDeleter {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};

class Sha256 {
 public:
  Sha256() : ctx_(EVP_MD_CTX_new()) {
    if (!ctx_ || EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) != 1) fail("SHA-256: cannot initialise");
  }
  void update(const void* data, std::size_t n) {
    if (EVP_DigestUpdate(ctx_.get(), data, n) != 1) fail("SHA-256: update failed");
  }
  std::string hex() {
    std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
    unsigned int len = 0;
    if (EVP_DigestFinal_ex(ctx_.get(), md.data(), &len) != 1) fail("SHA-256: final failed");
    static const char* digits = "0123456789abcdef";
    std::string s;
    for (unsigned i = 0; i < len; ++i) {
      s += digits[md[i] >> 4];
      s += digits[md[i] & 15];
    }
    return s;
  }

 private:
  std::unique_ptr<EVP_MD_CTX, MdCtxDeleter> ctx_;
};

std::string header_digest(const SafetensorsHeader& h) {
  Sha256 d;
  d.update(h.header_bytes.data(), h.header_bytes.size());
  return d.hex();
}

// One line per safetensors file: its header digest, or the whole file's under inline_weights.
void stamp_safetensors(std::ostringstream& out, const SafetensorsHeader& h, const std::filesystem::path& file,
                       bool whole) {
  if (whole)
    out << "file sha256:" << sha256_file_hex(file) << " " << file.string() << "\n";
  else
    out << "header sha256:" << header_digest(h) << " " << file.string() << "\n";
}

}  // namespace

std::string sha256_hex(std::string_view bytes) {
  Sha256 d;
  d.update(bytes.data(), bytes.size());
  return d.hex();
}

std::string sha256_file_hex(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) fail(file.string() + ": cannot open the file");
  Sha256 d;
  std::vector<char> block(1 << 20);
  while (in) {
    in.read(block.data(), static_cast<std::streamsize>(block.size()));
    if (in.gcount() > 0) d.update(block.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) fail(file.string() + ": cannot read the file");
  return d.hex();
}

std::string probe_stamp_text(const std::vector<std::filesystem::path>& checkpoints, const Options* options) {
  std::ostringstream out;
  out << "loam-probe 1\n";
  if (options)
    out << "options sha256:" << sha256_hex(canonical_options_json(*options)) << "\n";
  else
    out << "options none\n";
  const bool whole = options && options->inline_weights;
  for (const auto& file : distinct_checkpoint_files(checkpoints)) {
    if (file.extension() == ".json") {
      // The index is schema through and through, so all of it is stamped; then each shard, after
      // the index and the shards' headers are checked against each other.
      out << "index sha256:" << sha256_hex(read_whole_file(file)) << " " << file.string() << "\n";
      Checkpoint sharded = load_sharded_checkpoint(file);
      for (const auto& h : sharded.shards) stamp_safetensors(out, h, h.origin, whole);
    } else {
      stamp_safetensors(out, read_safetensors_header_file(file), file, whole);
    }
  }
  return out.str();
}

bool write_stamp_if_changed(const std::filesystem::path& stamp, const std::string& text) {
  std::error_code ec;
  if (std::filesystem::exists(stamp, ec)) {
    std::ifstream in(stamp, std::ios::binary);
    std::ostringstream old;
    old << in.rdbuf();
    if (in && old.str() == text) return false;
  }
  std::filesystem::path tmp = stamp;
  tmp += ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) fail(stamp.string() + ": cannot write the stamp");
    out << text;
    if (!out.flush()) fail(stamp.string() + ": cannot write the stamp");
  }
  std::filesystem::rename(tmp, stamp, ec);
  if (ec) fail(stamp.string() + ": cannot replace the stamp (" + ec.message() + ")");
  return true;
}

}  // namespace loam
