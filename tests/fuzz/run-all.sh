#!/usr/bin/env bash
# run-all.sh BUILD_DIR SECONDS: runs every fuzz_* binary in BUILD_DIR/tests/fuzz for SECONDS each,
# starting from a scratch copy of its committed seed corpus (seeds/<name>/). Any crash, sanitizer
# report, leak or timeout fails the run.
set -euo pipefail
build=${1:?build dir}
seconds=${2:-60}
here=$(cd "$(dirname "$0")" && pwd)
status=0
count=0
for bin in "$build"/tests/fuzz/fuzz_*; do
  [ -x "$bin" ] || continue
  name=$(basename "$bin"); name=${name#fuzz_}
  work=$(mktemp -d)
  [ -d "$here/seeds/$name" ] && cp -r "$here/seeds/$name/." "$work/"
  echo "-- fuzz $name (${seconds}s, $(ls "$work" | wc -l) seeds)"
  if ! "$bin" "$work" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -max_len=65536 \
       -print_final_stats=1 -artifact_prefix="$work/" >"$work.log" 2>&1; then
    echo "fuzz $name FAILED"; tail -40 "$work.log"; status=1
  else
    grep -E "stat::number_of_executed_units|Done " "$work.log" | head -2 || true
  fi
  count=$((count + 1))
  rm -rf "$work" "$work.log"
done
echo "fuzz targets run: $count"
exit $status
