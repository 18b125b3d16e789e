#!/usr/bin/env bash
# Large weights stay out of the compiler: a model of 64 MiB of weights (large_weights/make_model.py)
# built with its weights embedded puts them in a file beside the header, which the assembler reads in
# (.incbin), so the header is the split build's plus less than 1 MiB; the two modules (embedded, and
# loading the checkpoint) give the same bits. Prints how long the embedded build and its compile took.
# Usage: large_weights.sh LOAM CXX SOURCE_DIR WORK_DIR
set -euo pipefail
loam=$1 cxx=$2 source=$3 work=$4
here=$source/tests/unit/emit/large_weights
rm -rf "$work" && mkdir -p "$work"
python3 "$here/make_model.py" "$work"
layout='"layout": [{"pattern": "x", "axes": ["One", "K"]}, {"pattern": "w", "axes": ["K", "N"]}]'
echo "{$layout, \"inline_weights\": true}" > "$work/embedded.json"
echo "{$layout}" > "$work/split.json"
start=$(date +%s.%N)
"$loam" build "$work/model.onnxtext" --checkpoint "$work/model.safetensors" --options "$work/embedded.json" --name big_embedded -o "$work/big_embedded.hpp"
built=$(date +%s.%N)
"$cxx" -std=c++23 -O1 -I"$work" -DMODULE_HEADER='"big_embedded.hpp"' -DMODULE_NS=big_embedded "$here/caller.cpp" -o "$work/embedded"
compiled=$(date +%s.%N)
"$loam" build "$work/model.onnxtext" --checkpoint "$work/model.safetensors" --options "$work/split.json" --name big_split -o "$work/big_split.hpp"
"$cxx" -std=c++23 -O1 -I"$work" -DMODULE_HEADER='"big_split.hpp"' -DMODULE_NS=big_split "$here/caller.cpp" -o "$work/split"
payload=$(stat -c %s "$work/big_embedded.hpp.weights")
grow=$(( $(stat -c %s "$work/big_embedded.hpp") - $(stat -c %s "$work/big_split.hpp") ))
(( payload == 64 * 1024 * 1024 )) || { echo "FAIL: the weights' file holds $payload bytes"; exit 1; }
(( grow < 1024 * 1024 )) || { echo "FAIL: embedding grew the header by $grow bytes"; exit 1; }
"$work/embedded" > "$work/embedded.out"
"$work/split" "$work/model.safetensors" > "$work/split.out"
[[ $(wc -l < "$work/embedded.out") == 8192 ]] || { echo "FAIL: y has $(wc -l < "$work/embedded.out") values"; exit 1; }
cmp "$work/embedded.out" "$work/split.out" || { echo "FAIL: the embedded and the loaded weights give different outputs"; exit 1; }
# A weights' file that is not the one the module was built with is refused, not read past its end.
truncate -s 1024 "$work/big_embedded.hpp.weights"
"$cxx" -std=c++23 -O1 -I"$work" -DMODULE_HEADER='"big_embedded.hpp"' -DMODULE_NS=big_embedded "$here/caller.cpp" -o "$work/truncated"
if ("$work/truncated" > /dev/null 2> "$work/truncated.err"); then echo "FAIL: a truncated weights' file was read"; exit 1; fi
grep -q "the weights' file holds 1024 bytes, not the 67108864 this module was built with" "$work/truncated.err" ||
  { echo "FAIL: $(cat "$work/truncated.err")"; exit 1; }
printf 'embedded 64 MiB of weights: header %+d bytes beside the split build; loam build %.1f s, compile %.1f s; outputs equal\n' \
  "$grow" "$(awk "BEGIN { print $built - $start }")" "$(awk "BEGIN { print $compiled - $built }")"
