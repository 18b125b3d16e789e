#!/usr/bin/env bash
# Sets up a fresh machine, builds Loam, and runs every test: the unit and conformance tests, the
# same tests under ASan+UBSan, and each libFuzzer target for a short while over its seed corpus.
# LOAM_FUZZ_SECONDS (default 45) bounds each fuzz target; LOAM_SKIP_SANITIZE=1 skips the sanitizer pass.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each stage reports its wall time as it ends, and the run ends with the list.
started=$(date +%s)
stage_start=$started
stage_name="setup"
timings=""
stage() {
  local now
  now=$(date +%s)
  timings="$timings  $stage_name: $((now - stage_start)) s\n"
  echo "-- $stage_name took $((now - stage_start)) s"
  stage_name=$1
  stage_start=$now
  [ "$1" = done ] || echo "== $1"
}

bash scripts/setup-deps.sh
jobs=$(nproc)

stage "build (default)"
cmake --preset default >/dev/null
cmake --build --preset default -j "$jobs"
stage "test (default)"
# The ONNX backend-data suites (label onnx-backend) compile one module per case, about 45 minutes
# on 2 cores, and report coverage rather than pass/fail: run them with LOAM_ONNX_SUITES=1.
if [ "${LOAM_ONNX_SUITES:-0}" = 1 ]; then
  ctest --preset default -j "$jobs"
else
  ctest --preset default -j "$jobs" -LE onnx-backend
fi

if [ "${LOAM_SKIP_SANITIZE:-0}" != 1 ]; then
  stage "build (asan)"
  cmake --preset asan >/dev/null
  cmake --build --preset asan -j "$jobs"
  stage "test (asan)"
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --preset asan -j "$jobs" -LE slow
fi

if [ -f tests/fuzz/CMakeLists.txt ]; then
  stage "build (fuzz)"
  cmake --preset fuzz >/dev/null
  cmake --build --preset fuzz -j "$jobs"
  stage "fuzz"
  bash tests/fuzz/run-all.sh build/fuzz "${LOAM_FUZZ_SECONDS:-45}"
fi
stage done
printf "== stage times\n%b  total: %s s\n" "$timings" "$(($(date +%s) - started))"
echo "== all tests passed"
