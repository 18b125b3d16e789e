#!/usr/bin/env bash
# probe_cli_test.sh LOAM DATA_DIR: `loam probe` end to end. The stamp is written once, left alone
# (mtime included) by a rerun and by a payload-only change, rewritten by a header change, by an
# options change, and under inline_weights by a payload change.
set -euo pipefail
loam=$1
data=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$data/handmade.safetensors" "$work/w.safetensors"   # 213 bytes; payload is bytes 202..213
stamp=$work/model.stamp
mtime() { stat -c %y "$stamp"; }
fail() { echo "FAIL: $*"; exit 1; }
flip() { # flip one byte of $1 at offset $2 (xor 0x5a)
  local b
  b=$(od -An -tu1 -j"$2" -N1 "$1" | tr -d ' ')
  printf "$(printf '\\%03o' $((b ^ 90)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

"$loam" probe "$work/w.safetensors" --stamp "$stamp"
[ -f "$stamp" ] || fail "no stamp written"
head -n 1 "$stamp" | grep -qx "loam-probe 1" || fail "stamp has no version line"
t0=$(mtime); sleep 1.1
"$loam" probe "$work/w.safetensors" --stamp "$stamp"
[ "$(mtime)" = "$t0" ] || fail "a rerun rewrote the stamp"

flip "$work/w.safetensors" 205
"$loam" probe "$work/w.safetensors" --stamp "$stamp"
[ "$(mtime)" = "$t0" ] || fail "a payload-only change rewrote the stamp"

at=$(grep -abo '"hand"' "$work/w.safetensors" | cut -d: -f1)
flip "$work/w.safetensors" $((at + 4))   # "hand" -> "han>", still valid JSON, same length
"$loam" probe "$work/w.safetensors" --stamp "$stamp"
[ "$(mtime)" != "$t0" ] || fail "a header change left the stamp alone"
t1=$(mtime); sleep 1.1

# Options: the checkpoint is named relative to the options file's directory.
mkdir "$work/sub"
printf '{"checkpoints": ["../w.safetensors"], "dims": {"n": 1}}' > "$work/sub/opts.json"
"$loam" probe --options "$work/sub/opts.json" --stamp "$stamp"
grep -q "header sha256:.* $work/w.safetensors\$" "$stamp" || fail "options checkpoint not probed: $(cat "$stamp")"
t2=$(mtime); sleep 1.1
printf '{ "dims": {"n": 1}, "checkpoints": ["../w.safetensors"] }\n' > "$work/sub/opts.json"
"$loam" probe --options "$work/sub/opts.json" --stamp "$stamp"
[ "$(mtime)" = "$t2" ] || fail "reformatting the options rewrote the stamp"
printf '{"checkpoints": ["../w.safetensors"], "dims": {"n": 2}}' > "$work/sub/opts.json"
"$loam" probe --options "$work/sub/opts.json" --stamp "$stamp"
[ "$(mtime)" != "$t2" ] || fail "an options change left the stamp alone"

# inline_weights: the payload is the module's, so a payload change must rewrite the stamp.
printf '{"checkpoints": ["../w.safetensors"], "inline_weights": true}' > "$work/sub/opts.json"
"$loam" probe --options "$work/sub/opts.json" --stamp "$stamp"
t3=$(mtime); sleep 1.1
flip "$work/w.safetensors" 205
"$loam" probe --options "$work/sub/opts.json" --stamp "$stamp"
[ "$(mtime)" != "$t3" ] || fail "under inline_weights a payload change left the stamp alone"

# A malformed checkpoint stops the probe with the reader's message and leaves no stamp behind.
printf 'abc' > "$work/bad.safetensors"
if "$loam" probe "$work/bad.safetensors" --stamp "$work/other.stamp" 2> "$work/err"; then fail "bad checkpoint accepted"; fi
grep -qx "error: $work/bad.safetensors: file is 3 bytes, shorter than the 8-byte header length at its start" "$work/err" \
  || fail "unexpected message: $(cat "$work/err")"
[ ! -e "$work/other.stamp" ] || fail "a failed probe wrote a stamp"
echo "probe_cli: ok"
