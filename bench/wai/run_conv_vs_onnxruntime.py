#!/usr/bin/env python3
"""Times a conv of 64->64 channels, 3x3, padding 1, on a 1x64x64x64 input: Loam's exact-integer
decode (bench_wai_conv, i8-range values, 64-bit storage, exact rq) against onnxruntime's float32
Conv on the same shape, single-threaded, interleaved round by round so that both see the same
machine load. Prints each side's median and the ratio wai / onnxruntime.

usage: run_conv_vs_onnxruntime.py BENCH_WAI_CONV [ROUNDS] [REPEATS]
Needs numpy, onnx and onnxruntime (dev-time only)."""
import statistics, subprocess, sys, time

import numpy as np
import onnx
from onnx import TensorProto, helper
import onnxruntime as ort

exe = sys.argv[1]
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 20

C, S = 64, 64
rng = np.random.default_rng(0)
w = rng.integers(-128, 128, size=(C, C, 3, 3)).astype(np.float32)
x = rng.integers(-128, 128, size=(1, C, S, S)).astype(np.float32)
graph = helper.make_graph(
    [helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1], kernel_shape=[3, 3])],
    "conv", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, C, S, S])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    [helper.make_tensor("w", TensorProto.FLOAT, w.shape, w.flatten().tolist())])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
opts = ort.SessionOptions()
opts.intra_op_num_threads = 1
opts.inter_op_num_threads = 1
sess = ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])

def time_ort():
    for _ in range(2):
        sess.run(None, {"x": x})
    ms = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        sess.run(None, {"x": x})
        ms.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(ms)

def time_wai():
    out = subprocess.run([exe, str(repeats)], capture_output=True, text=True, check=True).stdout.split()
    return float(out[0])

ort_ms, wai_ms = [], []
for r in range(rounds):
    ort_ms.append(time_ort())
    wai_ms.append(time_wai())
    print(f"round {r}: onnxruntime {ort_ms[-1]:.3f} ms, wai {wai_ms[-1]:.3f} ms", flush=True)
o, wv = statistics.median(ort_ms), statistics.median(wai_ms)
print(f"median: onnxruntime float conv {o:.3f} ms, wai exact conv decode {wv:.3f} ms, ratio {wv / o:.2f}")
