#!/usr/bin/env bash
# run-all.sh BUILD_DIR SECONDS: runs every fuzz_* binary in BUILD_DIR/tests/fuzz for SECONDS each,
# starting from a scratch copy of its committed seed corpus (seeds/<name>/), as many at once as
# there are cores. Any crash, sanitizer report, leak or timeout fails the run.
set -euo pipefail
build=${1:?build dir}
seconds=${2:-45}
here=$(cd "$(dirname "$0")" && pwd)
parallel=$(nproc)

run_one() {
  local bin=$1 name work status=0
  name=$(basename "$bin"); name=${name#fuzz_}
  work=$(mktemp -d)
  [ -d "$here/seeds/$name" ] && cp -r "$here/seeds/$name/." "$work/"
  if "$bin" "$work" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -max_len=65536 \
       -print_final_stats=1 -artifact_prefix="$work/" >"$work.log" 2>&1; then
    echo "-- fuzz $name: ok (${seconds}s, $(grep -o 'stat::number_of_executed_units: [0-9]*' "$work.log" | grep -o '[0-9]*$') inputs)"
  else
    echo "-- fuzz $name: FAILED"; tail -40 "$work.log"; status=1
  fi
  rm -rf "$work" "$work.log"
  return $status
}

bins=()
for bin in "$build"/tests/fuzz/fuzz_*; do [ -x "$bin" ] && bins+=("$bin"); done
status=0
pids=()
for bin in "${bins[@]}"; do
  run_one "$bin" & pids+=($!)
  if ((${#pids[@]} >= parallel)); then
    wait "${pids[0]}" || status=1
    pids=("${pids[@]:1}")
  fi
done
for p in "${pids[@]}"; do wait "$p" || status=1; done
echo "fuzz targets run: ${#bins[@]}"
exit $status
