#!/usr/bin/env bash
# The CMake package as a user gets it: install this build to a scratch prefix, then configure,
# build and run an application that only finds Loam there. Usage: consumer_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
source=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$source/tests/package/consumer" -B "$work/build" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/build" >/dev/null
out=$("$work/build/app" "$source/data/tokenizers/gpt2/encoder.json" "$source/data/tokenizers/gpt2/vocab.bpe")
[[ "$out" == "15496 995 12520 248 222 " ]] || { echo "FAIL: got '$out'"; exit 1; }
echo "the installed package builds and runs a consumer: $out"
