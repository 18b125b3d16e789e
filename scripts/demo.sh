#!/usr/bin/env bash
# Sets up a fresh machine, builds Loam, and runs the main job: the real MNIST-12 model, compiled by
# `loam` into one typed C++ header at build time (examples/mnist, through loam_add_model), classifying
# the digits bundled beside it.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup-deps.sh
cmake --preset default >/dev/null
cmake --build --preset default -j "$(nproc)" --target loam mnist_classify
echo "== loam inspect models/mnist-12/model.onnx"
build/default/tools/loam/loam inspect models/mnist-12/model.onnx
echo "== examples/mnist: the generated module classifies the bundled digits"
build/default/examples/mnist/mnist_classify
