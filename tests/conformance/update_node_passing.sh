#!/bin/sh
# Regenerates the two lists the node-suite guard reads, from a run of ONNX's node suite:
#   onnx_node_passing.txt  every case of the node suite that passes through a generated module;
#   onnx_node_guard.txt    the subset `ctest -R conformance_onnx_node_guard` runs. For each operator
#                          the passing cases use: the passing case using it with the fewest nodes,
#                          and the one with the most graph inputs and outputs (so optional inputs and
#                          outputs are exercised); ties go to the first name. Plus the cases pinned in
#                          PINNED below (each one a fix made pass).
#
# Usage: tests/conformance/update_node_passing.sh LOAM [LOG]
#   LOAM  the loam binary (e.g. build/dev/tools/loam/loam)
#   LOG   the output of `loam test-case --suite $NODE`; without it the suite is run first, writing
#         node-suite.log here (about 45 minutes on two cores).
# Needs python3 with the `onnx` package (to read each case's operators); CI needs neither: it reads
# the committed lists.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
NODE=${NODE:-/usr/share/libonnx-testdata/data/node}
loam=$1
log=${2:-}
if [ -z "$log" ]; then
  log=node-suite.log
  "$loam" test-case --suite "$NODE" --batch 32 > "$log" || true
fi
tail -n 1 "$log"

PINNED="test_mod_int64_fmod test_pow_types_int64_float32 test_maxpool_with_argmax_2d_precomputed_strides test_layer_normalization_4d_axis_negative_2 test_clip_splitbounds"

{
  echo "# Cases of ONNX's node suite ($NODE) that pass through a generated module."
  echo "# Written by tests/conformance/update_node_passing.sh from a full suite run; do not edit by hand."
  sed -n 's/^\(test_[A-Za-z0-9_]*\): PASS$/\1/p' "$log" | LC_ALL=C sort -u
} > "$here/onnx_node_passing.txt"

python3 - "$NODE" "$here/onnx_node_passing.txt" "$here/onnx_node_guard.txt" "$PINNED" <<'EOF'
import os, sys
import onnx

node_dir, passing_file, guard_file, pinned = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split()
cases = [l.strip() for l in open(passing_file) if l.strip() and not l.startswith('#')]

def ops(graph, out):
    for n in graph.node:
        out.add((n.domain + '.' if n.domain else '') + n.op_type)
        for a in n.attribute:
            if a.HasField('g'):
                ops(a.g, out)
            for g in a.graphs:
                ops(g, out)
    return out

info = {}
for c in cases:
    m = onnx.load(os.path.join(node_dir, c, 'model.onnx'), load_external_data=False)
    info[c] = (ops(m.graph, set()), len(m.graph.node), len(m.graph.input) + len(m.graph.output))

chosen = set(c for c in pinned if c in info)
for op in sorted(set().union(*(v[0] for v in info.values()))):
    users = sorted(c for c in cases if op in info[c][0])
    chosen.add(min(users, key=lambda c: (info[c][1], c)))
    chosen.add(min(users, key=lambda c: (-info[c][2], c)))
with open(guard_file, 'w') as f:
    f.write("# The node-suite cases `ctest -R conformance_onnx_node_guard` runs (a subset of\n")
    f.write("# onnx_node_passing.txt). Written by tests/conformance/update_node_passing.sh.\n")
    for c in sorted(chosen):
        f.write(c + '\n')
print(len(cases), 'passing,', len(chosen), 'in the guard')
EOF
