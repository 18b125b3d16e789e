#!/usr/bin/env bash
# loam tokenize as a script uses it: text to ids and back for both kinds, and a refusal of text
# that is not UTF-8 naming the byte. Usage: cli_test.sh LOAM SOURCE_DIR
set -euo pipefail
loam=$1
data=$2/data/tokenizers
bpe=(--bpe "$data/gpt2/encoder.json" "$data/gpt2/vocab.bpe")
wordpiece=(--wordpiece "$data/bert-base-uncased/vocab.txt")
check() {  # what, got, want
  if [[ "$2" != "$3" ]]; then echo "FAIL: $1: got '$2', want '$3'"; exit 1; fi
}
check "bpe encode" "$(printf 'Hello world' | "$loam" tokenize "${bpe[@]}")" "15496 995"
check "bpe decode" "$(printf '15496 995 0' | "$loam" tokenize "${bpe[@]}" --decode)" "Hello world!"
check "bpe round trip" "$(printf 'caf\xc3\xa9  \t\xf0\x9f\x9a\x80' | "$loam" tokenize "${bpe[@]}" | "$loam" tokenize "${bpe[@]}" --decode | od -An -tx1 | tr -d ' \n')" \
  "636166c3a9202009f09f9a80"
check "wordpiece uncased" "$(printf "Hello, World! Don't go." | "$loam" tokenize "${wordpiece[@]}" --lowercase)" "7592 1010 2088 999 2123 1005 1056 2175 1012"
check "wordpiece cased" "$(printf 'Hello world' | "$loam" tokenize "${wordpiece[@]}")" "100 2088"
check "wordpiece decode" "$(printf '7592 1010 2088 999' | "$loam" tokenize "${wordpiece[@]}" --decode)" "hello, world!"
if out=$(printf 'ab\xff' | "$loam" tokenize "${bpe[@]}" 2>&1); then echo "FAIL: invalid UTF-8 was taken"; exit 1; fi
check "invalid utf-8" "$out" "error: standard input: the text is not UTF-8: byte 2 starts no sequence (an overlong form or past U+10FFFF)"
if out=$(printf '15496 x' | "$loam" tokenize "${bpe[@]}" --decode 2>&1); then echo "FAIL: a word was taken for an id"; exit 1; fi
check "bad id" "$out" "error: standard input: id 1 'x' is not a token id"
echo "loam tokenize: all checks pass"
