#!/bin/sh
# Regenerates the two lists a node-suite guard reads, from a run of ONNX's node suite:
#   onnx_node_passing.txt  every case of the node suite that passes through a generated module;
#   onnx_node_guard.txt    the subset `ctest -R conformance_onnx_node_guard` runs. For each operator
#                          the passing cases use: the passing case using it with the fewest nodes,
#                          and the one with the most graph inputs and outputs (so optional inputs and
#                          outputs are exercised); ties go to the first name. Plus the cases pinned in
#                          PINNED below (each one a fix made pass).
# With SUITE=newer, the same for the cases of opsets 18 to 28 that the onnx package 1.23 defines
# (tests/fixtures/onnx_node_newer/make_cases.py writes them to a directory, NODE): the lists
# onnx_node_newer_passing.txt and onnx_node_newer_guard.txt, and the guard's cases are then written
# into tests/fixtures/onnx_node_newer, which `ctest -R conformance_onnx_node_newer_guard` reads.
#
# Usage: tests/conformance/update_node_passing.sh LOAM [LOG]
#   LOAM  the loam binary (e.g. build/dev/tools/loam/loam)
#   LOG   the output of `loam test-case --suite $NODE`; without it the suite is run first, writing
#         node-suite.log here (about 45 minutes on two cores; 13 for the newer cases).
# Needs python3 with the `onnx` package (to read each case's operators); CI needs neither: it reads
# the committed lists.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
SUITE=${SUITE:-}
if [ "$SUITE" = newer ]; then
  NODE=${NODE:?set NODE to the directory make_cases.py wrote}
  lists=onnx_node_newer
  described="the onnx package's node suite at opsets 18 to 28 (tests/fixtures/onnx_node_newer/make_cases.py)"
  PINNED="test_mod_float32_mixed_sign_fmod_0 test_mod_float_edge_cases_fmod_0_float32 test_resize_downsample_scales_linear_half_pixel_symmetric test_resize_upsample_scales_linear_half_pixel_symmetric test_spacetodepth_crd_mode_example test_reduce_max_bool_inputs test_reduce_min_empty_set test_constantofshape_int_zeros test_constantofshape_int_shape_zero test_attention_causal_boolmask_nan_robustness_expanded test_group_normalization_example test_group_normalization_epsilon_expanded test_constant_pad_axes test_resize_downsample_sizes_nearest_not_larger test_resize_upsample_sizes_nearest_not_smaller test_rms_normalization_default_axis test_rms_normalization_4d_axis1 test_rotary_embedding_no_position_ids_interleaved test_rotary_embedding_with_rotary_dim test_attention_3d_gqa_with_past_and_present test_attention_4d_attn_mask_bool_4d test_attention_4d_gqa_causal_nonpad_decode test_attention_4d_with_past_and_present_qk_matmul_bias_4d_mask_causal test_attention_local_window_ext_cache_rank3_head_mask test_attention_3d_with_past_and_present_qk_matmul_softcap test_attention_24_fullymasked_qk_matmul_output_mode3_zero test_attention_4d_causal_fp16"
else
  NODE=${NODE:-/usr/share/libonnx-testdata/data/node}
  lists=onnx_node
  described="ONNX's node suite ($NODE)"
  PINNED="test_mod_int64_fmod test_pow_types_int64_float32 test_maxpool_with_argmax_2d_precomputed_strides test_layer_normalization_4d_axis_negative_2 test_clip_splitbounds test_constantofshape_int_zeros test_constantofshape_int_shape_zero test_constant_pad test_cast_DOUBLE_to_FLOAT16 test_mod_mixed_sign_float64"
fi
loam=$1
log=${2:-}
if [ -z "$log" ]; then
  log=node-suite.log
  "$loam" test-case --suite "$NODE" --batch 32 > "$log" || true
fi
tail -n 1 "$log"

{
  echo "# Cases of $described that pass through a generated module."
  echo "# Written by tests/conformance/update_node_passing.sh from a full suite run; do not edit by hand."
  sed -n 's/^\(test_[A-Za-z0-9_]*\): PASS$/\1/p' "$log" | LC_ALL=C sort -u
} > "$here/${lists}_passing.txt"

python3 - "$NODE" "$here/${lists}_passing.txt" "$here/${lists}_guard.txt" "$PINNED" "$lists" <<'EOF'
import os, sys
import onnx

node_dir, passing_file, guard_file, pinned, lists = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(), sys.argv[5]
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
    f.write(f"# The node-suite cases `ctest -R conformance_{lists}_guard` runs (a subset of\n")
    f.write(f"# {lists}_passing.txt). Written by tests/conformance/update_node_passing.sh.\n")
    for c in sorted(chosen):
        f.write(c + '\n')
print(len(cases), 'passing,', len(chosen), 'in the guard')
EOF
if [ "$SUITE" = newer ]; then
  fixtures=$here/../fixtures/onnx_node_newer
  find "$fixtures" -mindepth 1 -maxdepth 1 -type d -exec rm -r {} +
  python3 "$fixtures/make_cases.py" "$fixtures" --cases "$here/${lists}_guard.txt"
fi
