// An application built against the installed package alone: it finds Loam, links
// Loam::tokenizers, and round-trips a text through GPT-2's BPE.
#include <loam/tokenizers.hpp>

#include <cstdio>
#include <string>

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  const auto gpt2 = loam::tokenizers::BytePairEncoding::from_files(argv[1], argv[2]);
  const std::string text = "Hello world \xF0\x9F\x9A\x80";
  const auto ids = gpt2.encode(text);
  for (auto id : ids) std::printf("%d ", id);
  std::printf("\n");
  return gpt2.decode(ids) == text ? 0 : 1;
}
