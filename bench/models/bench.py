#!/usr/bin/env python3
"""Times a Loam-generated module's forward against onnxruntime's session.run, interleaved.

For each case (model, batch): build the same input for both sides, check the outputs agree, then
for ROUNDS rounds time a sample of N forwards on Loam, then a sample of N session.run calls on
onnxruntime (A B A B ...). N is chosen per side so that one sample lasts about --sample-ms. Prints,
per case, the median time per call on each side and the median of the per-round ratios
(onnxruntime / Loam: above 1 means the generated code is faster). Each round also times the same
model built with --no-fuse (one kernel per node), where run.sh built it: the ratio unfused / fused
(above 1 means fusion pays) comes from the same interleaved rounds.

Both sides run on the same number of threads, each count of --threads in turn (default 1 and 2):
onnxruntime with intra_op_num_threads=T, inter_op_num_threads=1, ORT_SEQUENTIAL and its default
graph optimisations (ORT_ENABLE_ALL); Loam's forward on Cpu(T). Each row's % of peak is of T cores'
peak (T times the one-core peak measured), and a last table gives each side's T-thread speed-up over
its own one-thread time. The Loam time is measured
inside the library around the forward calls; the onnxruntime time around the Python loop of
session.run calls, so it includes the Python binding's per-call cost (numpy in, numpy out) --
visible at the tiny sizes (MLP), negligible at MNIST's.

With IREE's tools installed (PyPI iree-base-compiler and iree-base-runtime), each row also times
IREE on the same model and inputs, compiled for this CPU and run by its own iree-benchmark-module,
one sample a round beside the others (IreeSide): ratio IREE / Loam above 1 means Loam is faster.

usage: bench.py WORKDIR [--rounds R] [--sample-ms MS] [--threads 1,2] [--no-iree]
WORKDIR holds what run.sh built: libmnist_b1.so, libmnist_b64.so, libmlp.so, libultraface.so, libppocr_cls.so, libppocr_det.so,
libgpt2_eager_opset14.so, libgpt2_sdpa_opset17.so, their *_unfused.so twins, mnist_b64.onnx, and fma_peak
(bench/fma_peak.cpp: one core's FMA peak, measured at the start and the end; the GFLOP/s columns are
reported as fractions of the start's).
"""
import argparse
import ctypes
import json
import os
import statistics
import struct
import subprocess
import sys
import time

import numpy as np
import onnx
import onnxruntime as ort

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def read_safetensors(path):
    raw = open(path, "rb").read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8 : 8 + n])
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        assert info["dtype"] == "F32", name
        a, b = info["data_offsets"]
        out[name] = np.frombuffer(raw[8 + n + a : 8 + n + b], dtype="<f4").reshape(info["shape"])
    return out


def mlp_model_bytes():
    """The MLP graph with its checkpoint's weights as initializers (as make_mlp.py's oracle does)."""
    text = open(os.path.join(REPO, "examples/mlp/mlp.onnxtext")).read()
    model = onnx.parser.parse_model(text)
    del model.graph.initializer[:]
    for name, arr in read_safetensors(os.path.join(REPO, "examples/mlp/mlp.safetensors")).items():
        model.graph.initializer.append(onnx.numpy_helper.from_array(np.ascontiguousarray(arr), name))
    return model.SerializeToString()


def without_initializer_inputs(path):
    """The model with the initializers it also lists as graph inputs (as old exporters did) dropped
    from the inputs: onnxruntime then folds them as constants (BatchNormalization into Conv), as a
    deployment would, and as Loam reads them (weights, not forward arguments)."""
    model = onnx.load(path)
    inits = {t.name for t in model.graph.initializer}
    keep = [i for i in model.graph.input if i.name not in inits]
    del model.graph.input[:]
    model.graph.input.extend(keep)
    return model.SerializeToString()


def with_input_shape(path, shape):
    """The model with its first input's dimensions set to `shape` (for shape inference)."""
    model = onnx.load(path)
    dims = model.graph.input[0].type.tensor_type.shape.dim
    for d, n in zip(dims, shape):
        d.Clear()
        d.dim_value = n
    return model.SerializeToString()


def product_flops(model_bytes):
    """2 x the multiply-adds of every Conv, MatMul and Gemm, from the shapes ONNX's shape inference
    gives (bias adds, activations, normalisation and pooling not counted)."""
    model = onnx.shape_inference.infer_shapes(onnx.load_from_string(model_bytes))
    g = model.graph
    shapes = {}
    for v in list(g.input) + list(g.value_info) + list(g.output):
        shapes[v.name] = [d.dim_value for d in v.type.tensor_type.shape.dim]
    for t in g.initializer:
        shapes[t.name] = list(t.dims)
    total = 0
    for n in g.node:
        if n.op_type == "Conv":
            w, y = shapes[n.input[1]], shapes[n.output[0]]
            total += int(np.prod(y)) * int(np.prod(w[1:]))
        elif n.op_type == "MatMul":
            # K from B, whose shape a weight always gives (A's may come from a Reshape to a target
            # computed at run time, which shape inference leaves open).
            b, y = shapes[n.input[1]], shapes[n.output[0]]
            total += int(np.prod(y)) * (b[-2] if len(b) >= 2 else b[0])
        elif n.op_type == "Gemm":
            a, y = shapes[n.input[0]], shapes[n.output[0]]
            trans_a = any(at.name == "transA" and at.i for at in n.attribute)
            k = a[-2] if trans_a else a[-1]
            total += int(np.prod(y)) * k
    return 2 * total


def ort_session(model, threads):
    so = ort.SessionOptions()
    so.log_severity_level = 3
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    return ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])


class LoamSide:
    """x: the one input (its batch sizes it), or a list of every input of forward, in order."""

    def __init__(self, lib_path, x, checkpoint, out_shape, threads):
        self.lib = ctypes.CDLL(lib_path)
        self.lib.loam_bench_threads.argtypes = [ctypes.c_int]
        self.lib.loam_bench_threads(threads)
        self.lib.loam_bench_init.argtypes = [ctypes.c_void_p, ctypes.c_int64, ctypes.c_char_p]
        self.lib.loam_bench_init.restype = ctypes.c_int
        self.lib.loam_bench_init_inputs.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_int64), ctypes.c_char_p]
        self.lib.loam_bench_init_inputs.restype = ctypes.c_int
        self.lib.loam_bench_run.argtypes = [ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64]
        self.lib.loam_bench_run.restype = ctypes.c_double
        ck = checkpoint.encode() if checkpoint else None
        if isinstance(x, list):
            self.xs = [np.ascontiguousarray(a) for a in x]
            data = (ctypes.c_void_p * len(self.xs))(*[a.ctypes.data for a in self.xs])
            extents = np.array([d for a in self.xs for d in a.shape], dtype=np.int64)
            ok = self.lib.loam_bench_init_inputs(data, extents.ctypes.data_as(ctypes.POINTER(ctypes.c_int64)), ck)
        else:
            self.x = np.ascontiguousarray(x)
            ok = self.lib.loam_bench_init(self.x.ctypes.data, self.x.shape[0], ck)
        if ok != 0:
            raise SystemExit(f"{lib_path}: init failed")
        self.out = np.zeros(out_shape, dtype=np.float32)

    def sample(self, n):
        ns = self.lib.loam_bench_run(n, self.out.ctypes.data, self.out.size)
        if ns < 0:
            raise SystemExit("forward failed")
        return ns / n


class OrtSide:
    """session.run on numpy feeds: x is the one input, or a dict of every input."""

    def __init__(self, model, input_name, x, threads):
        self.sess = ort_session(model, threads)
        self.feed = {k: np.ascontiguousarray(v) for k, v in x.items()} if isinstance(x, dict) else {input_name: np.ascontiguousarray(x)}

    def result(self):
        return self.sess.run(None, self.feed)[0]

    def sample(self, n):
        run, feed = self.sess.run, self.feed
        t0 = time.perf_counter_ns()
        for _ in range(n):
            run(None, feed)
        return (time.perf_counter_ns() - t0) / n


class OrtBoundSide:
    """run_with_iobinding with the inputs bound once as OrtValues and the outputs to the CPU: the
    least onnxruntime does per call from Python (no numpy conversion of the feeds)."""

    def __init__(self, session, feed):
        self.sess = session
        self.binding = session.io_binding()
        for k, v in feed.items():
            self.binding.bind_ortvalue_input(k, ort.OrtValue.ortvalue_from_numpy(v))
        for o in session.get_outputs():
            self.binding.bind_output(o.name, "cpu")

    def sample(self, n):
        run, binding = self.sess.run_with_iobinding, self.binding
        t0 = time.perf_counter_ns()
        for _ in range(n):
            run(binding)
        return (time.perf_counter_ns() - t0) / n


def iree_tool(name):
    """An IREE tool (PyPI iree-base-compiler, iree-base-runtime) beside this Python or on PATH."""
    for d in [os.path.dirname(sys.executable)] + os.environ.get("PATH", "").split(os.pathsep):
        p = os.path.join(d, name)
        if os.access(p, os.X_OK):
            return p
    return None


class IreeSide:
    """IREE, the third peer: the model with its inputs' shapes fixed to the case's (and what they
    settle folded), imported by iree-import-onnx, compiled for this CPU (llvm-cpu, --iree-llvmcpu-target-cpu=host) and timed by
    its own iree-benchmark-module on the same inputs (.npy files): a sample of n calls is one run of
    it with --benchmark_min_time=nx, its real time per call (process start and module load not
    counted). One thread is the local-sync device; T threads local-task with T workers. Unavailable
    (`error` says why) when the tools are missing or the model does not compile."""

    def __init__(self, w, tag, model, inputs, threads):
        self.error = None
        tools = {t: iree_tool(t) for t in ("iree-import-onnx", "iree-compile", "iree-benchmark-module", "iree-run-module")}
        if not all(tools.values()):
            self.error = "IREE's tools are not installed"
            return
        self.tools = tools
        base = os.path.join(w, f"iree_{tag}")
        m = onnx.load_from_string(model) if isinstance(model, bytes) else onnx.load(model)
        inits = {t.name for t in m.graph.initializer}
        graph_inputs = [i for i in m.graph.input if i.name not in inits]
        for gi, x in zip(graph_inputs, inputs):
            dims = gi.type.tensor_type.shape.dim
            for d, n in zip(dims, x.shape):
                d.Clear()
                d.dim_value = n
        onnx.save(m, base + "_static.onnx")
        # The lengths the fixed shapes settle (Shape, Gather, Concat into a Reshape's target) folded
        # by onnxruntime's basic optimisations (constant folding and dead-node removal, no fusion
        # into operators of its own), so IREE's import sees static shapes.
        so = ort.SessionOptions()
        so.log_severity_level = 3
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
        so.optimized_model_filepath = base + ".onnx"
        ort.InferenceSession(base + "_static.onnx", so, providers=["CPUExecutionProvider"])
        self.args = []
        for k, x in enumerate(inputs):
            np.save(f"{base}_in{k}.npy", np.ascontiguousarray(x))
            self.args.append(f"--input=@{base}_in{k}.npy")
        vmfb = base + ".vmfb"
        if not os.path.exists(vmfb):
            steps = [[tools["iree-import-onnx"], base + ".onnx", "-o", base + ".mlir"],
                     [tools["iree-compile"], base + ".mlir", "--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu",
                      "--iree-llvmcpu-target-cpu=host", "-o", vmfb]]
            for cmd in steps:
                r = subprocess.run(cmd, capture_output=True, text=True)
                if r.returncode != 0:
                    last = (r.stderr.strip().splitlines() or ["?"])[-1]
                    self.error = f"{os.path.basename(cmd[0])} failed: {last[:160]}"
                    return
        with open(base + ".mlir") as f:
            text = f.read()
        self.function = text.split("func.func @", 1)[1].split("(", 1)[0]
        self.device = ["--device=local-sync"] if threads == 1 else ["--device=local-task", f"--task_topology_group_count={threads}"]
        self.module = [f"--module={vmfb}", f"--function={self.function}"] + self.device + self.args
        self.out_path = base + "_out.npy"

    def result(self):
        r = subprocess.run([self.tools["iree-run-module"]] + self.module + [f"--output=@{self.out_path}"], capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit(f"iree-run-module failed: {r.stderr.strip()[-300:]}")
        return np.load(self.out_path)

    def sample(self, n):
        r = subprocess.run([self.tools["iree-benchmark-module"]] + self.module + [f"--benchmark_min_time={n}x", "--benchmark_format=json"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit(f"iree-benchmark-module failed: {r.stderr.strip()[-300:]}")
        b = json.loads(r.stdout)["benchmarks"][0]
        scale = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}[b.get("time_unit", "ns")]
        return b["real_time"] * scale


def agreement(sides, ref, what):
    """The largest difference of the sides' outputs from onnxruntime's (one forward each); refused
    above 1e-4 of the output's scale."""
    scale = float(np.max(np.abs(ref)))
    worst = 0.0
    for side in sides:
        side.sample(1)
        d = float(np.max(np.abs(side.out - ref)))
        if not d <= 1e-4 * max(1.0, scale):
            raise SystemExit(f"{what}: outputs disagree, max abs diff {d} (scale {scale})")
        worst = max(worst, d)
    return worst


def interleaved(sides, args):
    """Per side, args.rounds times per call: one sample of each side in turn per round."""
    n = {s: calibrate(s, args.sample_ms) for s in sides}
    t = {s: [] for s in sides}
    for _ in range(args.rounds):
        for s in sides:
            t[s].append(s.sample(n[s]))
    return t


def calibrate(side, sample_ms):
    """Calls per sample so that one sample lasts about sample_ms."""
    side.sample(3)  # warm: first-call allocations, caches
    n = 1
    while True:
        t = side.sample(n) * n
        if t >= sample_ms * 1e6 / 4 or n >= 1 << 22:
            return max(1, int(n * sample_ms * 1e6 / max(t, 1.0)))
        n *= 4


def memory_bandwidth_gbs():
    """Bytes read and written per second copying a 256 MiB array (numpy, one thread), best of 5."""
    a = np.ones(64 << 20, dtype=np.float32)
    b = np.empty_like(a)
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter_ns()
        np.copyto(b, a)
        best = min(best, time.perf_counter_ns() - t0)
    return 2 * a.nbytes / best


def scaling_table(rows, thread_counts):
    """Each side's speed-up on T threads over its own time on the first count (rows as main
    prints them: model, batch, threads, Loam µs, ort µs, ...)."""
    if len(thread_counts) < 2:
        return
    base = thread_counts[0]
    times = {(r[0], r[1], r[2]): (r[3], r[4]) for r in rows}
    print()
    print(f"| model | batch | threads | Loam speed-up over {base} | onnxruntime speed-up over {base} |")
    print("|---|---:|---:|---:|---:|")
    for (m, b, t), (l, o) in times.items():
        if t == base:
            continue
        l0, o0 = times[(m, b, base)]
        print(f"| {m} | {b} | {t} | {l0 / l:.2f} | {o0 / o:.2f} |")


def merged_decoder_model_bytes():
    """examples/gpt2's merged decoder: its graph with its checkpoint's weights as initializers."""
    model = onnx.parser.parse_model(open(os.path.join(REPO, "examples/gpt2/gpt2_tiny.onnxtext")).read())
    weights = read_safetensors(os.path.join(REPO, "examples/gpt2/gpt2_tiny.safetensors"))
    kept = [t for t in model.graph.initializer if t.name not in weights]
    del model.graph.initializer[:]
    model.graph.initializer.extend(kept)
    for name, arr in weights.items():
        model.graph.initializer.append(onnx.numpy_helper.from_array(np.ascontiguousarray(arr), name))
    return model.SerializeToString()


def decoder(args, w, rng, peak_bandwidth):
    """The merged GPT-2 decoder of examples/gpt2 (GPT-2's 50257-token vocabulary, two blocks of 8
    channels): the prompt pass (8 tokens, the branch without a past) and one decode step with a
    past of 32 (the branch with one). onnxruntime both ways: session.run on numpy feeds, and
    run_with_iobinding on inputs bound once; the difference is its per-call binding cost."""
    model = merged_decoder_model_bytes()
    checkpoint = os.path.join(REPO, "examples/gpt2/gpt2_tiny.safetensors")
    weight_bytes = os.path.getsize(checkpoint)
    heads, head_dim, vocab = 2, 4, 50257
    names = ["input_ids", "attention_mask", "position_ids"] + [f"past_key_values.{l}.{k}" for l in range(2) for k in ("key", "value")] + ["use_cache_branch"]

    def feeds(tokens, past):
        pasts = [rng.standard_normal((1, heads, max(past, 1), head_dim)).astype(np.float32) for _ in range(4)]
        values = [rng.integers(0, vocab, size=(1, tokens)).astype(np.int64), np.ones((1, past + tokens), np.int64),
                  np.arange(past, past + tokens, dtype=np.int64)[None, :]] + pasts + [np.array([past > 0])]
        return values

    rows = []
    steps = (("prompt pass, 8 tokens", 8, 0), ("decode step, past 32", 1, 32))
    values_of = {label: feeds(tokens, past) for label, tokens, past in steps}
    for threads, (label, tokens, past) in ((t, s) for t in args.thread_counts for s in steps):
        values = values_of[label]
        loam = LoamSide(os.path.join(w, "libgpt2_merged.so"), values, checkpoint, (1, tokens, vocab), threads)
        unfused = LoamSide(os.path.join(w, "libgpt2_merged_unfused.so"), values, checkpoint, (1, tokens, vocab), threads)
        orts = OrtSide(model, None, dict(zip(names, values)), threads)
        bound = OrtBoundSide(orts.sess, orts.feed)
        agreement((loam, unfused), orts.result(), f"gpt2 merged decoder, {label}")
        t = interleaved((loam, unfused, orts, bound), args)
        med = {s: statistics.median(v) for s, v in t.items()}
        ratio_run = statistics.median([o / l for o, l in zip(t[orts], t[loam])])
        ratio_bound = statistics.median([o / l for o, l in zip(t[bound], t[loam])])
        fusion = statistics.median([u / l for u, l in zip(t[unfused], t[loam])])
        rows.append((label, threads, med[loam] / 1e3, med[orts] / 1e3, med[bound] / 1e3, ratio_run, ratio_bound,
                     (med[orts] - med[bound]) / 1e3, weight_bytes / med[loam], 100.0 * weight_bytes / med[loam] / peak_bandwidth, fusion))
    print()
    print("| GPT-2 merged decoder | threads | Loam µs | ort run µs | ort bound µs | ratio ort run/Loam | ratio ort bound/Loam | "
          "ort binding cost µs | Loam weight GB/s | % of copy bandwidth | unfused/fused |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for label, t, l, o, b, r, rb, cost, gbs, pct, fu in rows:
        print(f"| {label} | {t} | {l:.2f} | {o:.2f} | {b:.2f} | **{r:.2f}** | **{rb:.2f}** | {cost:.2f} | {gbs:.2f} | {pct:.1f} % | {fu:.2f} |")


def encoder(args, w, rng, peak):
    """all-MiniLM-L6-v2 (six BERT layers of 384 channels, 12 heads, 1536 inner; weights loaded from
    its checkpoint) at sequence 128, batch 1 and 8, against onnxruntime's session.run on the .onnx it
    was split from. Needs MINILM=DIR (examples/embed/make_model.py LOAM --real --keep DIR)."""
    d = os.environ.get("MINILM")
    if not d:
        print("\n(encoder rows skipped: set MINILM=DIR, see examples/embed/make_model.py --real --keep DIR)")
        return
    checkpoint = os.path.join(d, "embed_model.safetensors")
    layers, hidden, inner, seq = 6, 384, 1536, 128
    rows = []
    ids_of = {batch: rng.integers(1000, 30000, size=(batch, seq)).astype(np.int64) for batch in (1, 8)}
    for threads, batch in ((t, b) for t in args.thread_counts for b in (1, 8)):
        ids = ids_of[batch]
        mask = np.ones((batch, seq), np.int64)
        types = np.zeros((batch, seq), np.int64)
        loam = LoamSide(os.path.join(w, "libminilm.so"), [ids, mask, types], checkpoint, (batch, seq, hidden), threads)
        unfused = LoamSide(os.path.join(w, "libminilm_unfused.so"), [ids, mask, types], checkpoint, (batch, seq, hidden), threads)
        orts = OrtSide(os.path.join(d, "embed_model.onnx"), None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": types},
                       threads)
        agreement((loam, unfused), orts.result(), f"minilm batch {batch}")
        t = interleaved((loam, unfused, orts), args)
        ml, mo = statistics.median(t[loam]), statistics.median(t[orts])
        # 2 flops a multiply-add: Q, K, V and the output projection, the two feed-forward products,
        # and attention's two products over the sequence.
        flops = 2 * batch * seq * layers * (4 * hidden * hidden + 2 * hidden * inner + 2 * seq * hidden)
        ratios = [o / l for o, l in zip(t[orts], t[loam])]
        rows.append((batch, threads, ml / 1e3, mo / 1e3, statistics.median(ratios), min(ratios), max(ratios), flops / ml,
                     100.0 * flops / ml / (peak * threads), flops / mo, statistics.median([u / l for u, l in zip(t[unfused], t[loam])])))
    print()
    print("| all-MiniLM-L6-v2, sequence 128 | batch | threads | Loam µs | ort µs | ratio ort/Loam | ratio range | Loam GFLOP/s | "
          "Loam % of peak | ort GFLOP/s | unfused/fused |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for b, t, l, o, r, rmin, rmax, g, p, go, fu in rows:
        print(f"| encoder | {b} | {t} | {l:.0f} | {o:.0f} | **{r:.2f}** | {rmin:.2f}–{rmax:.2f} | {g:.2f} | {p:.1f} % | {go:.2f} | {fu:.2f} |")


def fma_peak(w):
    """(GFLOP/s, float lanes) of one core's fused multiply-adds, measured by WORK/fma_peak."""
    gflops, lanes = subprocess.run([os.path.join(w, "fma_peak")], check=True, capture_output=True, text=True).stdout.split()
    return float(gflops), int(lanes)


def clock_ghz():
    mhz = [float(l.split(":")[1]) for l in open("/proc/cpuinfo") if l.startswith("cpu MHz")]
    return (statistics.median(mhz) / 1000.0) if mhz else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("workdir")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--sample-ms", type=float, default=60.0)
    ap.add_argument("--threads", default="1,2", help="thread counts, comma-separated: each row runs both sides on each (default 1,2)")
    ap.add_argument("--only", choices=["decoder", "encoder"],
                    help="time only the GPT-2 decoder's prompt pass and decode step, or only the encoder (MINILM=DIR)")
    ap.add_argument("--no-iree", action="store_true", help="leave IREE out (it is timed where iree-base-compiler and iree-base-runtime are installed)")
    args = ap.parse_args()
    args.thread_counts = [int(t) for t in args.threads.split(",")]
    w = args.workdir
    rng = np.random.default_rng(2026)

    # Flops per batch row, from the batch-1 graphs' shapes (2 per multiply-add): MNIST-12's two
    # convolutions (28x28 outputs x 8 channels x 5x5 taps; 14x14 x 16 x 8x5x5) and its 256x10
    # classifier; the MLP's 16x32 and 32x4 matmuls; UltraFace's 52 convolutions.
    mnist_onnx = os.path.join(REPO, "models/mnist-12/model.onnx")
    mnist_flops = product_flops(open(mnist_onnx, "rb").read())
    assert mnist_flops == 2 * (28 * 28 * 8 * 1 * 25 + 14 * 14 * 16 * 8 * 25 + 256 * 10), mnist_flops
    mlp_bytes = mlp_model_bytes()
    mlp_flops = 2 * (16 * 32 + 32 * 4)
    mlp_ck = os.path.join(REPO, "examples/mlp/mlp.safetensors")
    ultraface = without_initializer_inputs(os.path.join(REPO, "models/ultraface-rfb-320/model.onnx"))
    ultraface_flops = product_flops(ultraface)
    cases = [
        ("mnist-12", 1, "libmnist_b1.so", mnist_onnx, "Input3", (1, 1, 28, 28), None, (1, 10), mnist_flops),
        ("mnist-12", 64, "libmnist_b64.so", os.path.join(w, "mnist_b64.onnx"), "Input3", (64, 1, 28, 28), None, (64, 10), mnist_flops),
        ("mlp", 1, "libmlp.so", mlp_bytes, "x", (1, 16), mlp_ck, (1, 4), mlp_flops),
        ("mlp", 64, "libmlp.so", mlp_bytes, "x", (64, 16), mlp_ck, (64, 4), mlp_flops),
        ("ultraface-rfb-320", 1, "libultraface.so", ultraface, "input", (1, 3, 240, 320), None, (1, 4420, 2), ultraface_flops),
    ]
    # PaddleOCR's classifier as shipped (its -1 and "?" input dims fixed only for counting flops).
    cls = os.path.join(REPO, "models/ppocr-mobile-v2-cls/model.onnx")
    cases.append(("ppocr-mobile-v2-cls", 1, "libppocr_cls.so", cls, "x", (1, 3, 48, 192), None, (1, 2),
                  product_flops(with_input_shape(cls, (1, 3, 48, 192)))))
    # PaddleOCR's v4 detector as shipped, on a 256 x 256 page (its products' flops; the two
    # ConvTranspose layers are not counted).
    det = os.path.join(REPO, "models/ppocr-v4-det/model.onnx")
    cases.append(("ppocr-v4-det", 1, "libppocr_det.so", det, "x", (1, 3, 256, 256), None, (1, 1, 256, 256),
                  product_flops(with_input_shape(det, (1, 3, 256, 256)))))
    # The tiny GPT-2 of tests/fixtures/gpt2 (two blocks of 32 channels, 8 tokens), both exports.
    for export in ("eager_opset14", "sdpa_opset17"):
        path = os.path.join(REPO, "tests/fixtures/gpt2", export, "model.onnx")
        gpt2 = open(path, "rb").read()
        cases.append((f"gpt2 {export}", 1, f"libgpt2_{export}.so", gpt2, "input_ids", (1, 8), None, (1, 8, 96),
                      product_flops(gpt2)))
    # The FMA peak of one core, measured by bench/fma_peak.cpp (run.sh builds it beside the
    # modules) at the start; measured again at the end, so the drift over the run shows.
    peak, lanes = fma_peak(w)
    bandwidth = memory_bandwidth_gbs()
    print(f"onnxruntime {ort.__version__}, numpy {np.__version__}; clock {clock_ghz():.3f} GHz (/proc/cpuinfo), "
          f"one-core FMA peak {peak:.1f} GFLOP/s measured ({lanes} float lanes); copy bandwidth {bandwidth:.1f} GB/s (read + write, one thread); "
          f"{args.rounds} rounds, ~{args.sample_ms:g} ms per sample; load average {os.getloadavg()[0]:.2f}")
    if args.only is None:
        rows = []
        inputs = {}
        iree_notes = []
        for threads, (model, batch, lib, onnx_model, input_name, shape, ck, out_shape, flops) in (
                (t, c) for t in args.thread_counts for c in cases):
            if (model, batch) not in inputs:
                if model.startswith("gpt2"):
                    x = rng.integers(0, 96, size=shape).astype(np.int64)
                else:
                    x = rng.uniform(0.0, 255.0 if model == "mnist-12" else 2.0, size=shape).astype(np.float32)
                    if model != "mnist-12":
                        x -= 1.0
                inputs[(model, batch)] = x
            x = inputs[(model, batch)]
            loam = LoamSide(os.path.join(w, lib), x, ck, out_shape, threads)
            unfused_lib = os.path.join(w, lib.replace(".so", "_unfused.so"))
            unfused = LoamSide(unfused_lib, x, ck, out_shape, threads) if os.path.exists(unfused_lib) else None
            orts = OrtSide(onnx_model, input_name, x, threads)
            ref = orts.result()
            diff = agreement([loam] + ([unfused] if unfused else []), ref, f"{model} batch {batch}")
            iree = None
            if not args.no_iree:
                iree = IreeSide(w, f"{model.replace(' ', '_')}_b{batch}", onnx_model, [x], threads)
                if iree.error is None:
                    d = float(np.max(np.abs(iree.result().reshape(ref.shape) - ref)))
                    if not d <= 1e-3 * max(1.0, float(np.max(np.abs(ref)))):
                        iree.error = f"outputs disagree with onnxruntime's (max abs diff {d:.1e})"
                if iree.error is not None:
                    iree_notes.append(f"{model} batch {batch}, {threads} thread(s): {iree.error}")
                    iree = None
            n_loam = calibrate(loam, args.sample_ms)
            n_ort = calibrate(orts, args.sample_ms)
            n_unfused = calibrate(unfused, args.sample_ms) if unfused else 0
            n_iree = calibrate(iree, args.sample_ms) if iree else 0
            t_loam, t_ort, t_iree, ratios, iree_ratios, fusion = [], [], [], [], [], []
            for _ in range(args.rounds):
                a = loam.sample(n_loam)
                b = orts.sample(n_ort)
                t_loam.append(a)
                t_ort.append(b)
                ratios.append(b / a)
                if unfused:
                    fusion.append(unfused.sample(n_unfused) / a)
                if iree:
                    c = iree.sample(n_iree)
                    t_iree.append(c)
                    iree_ratios.append(c / a)
            ml, mo = statistics.median(t_loam), statistics.median(t_ort)
            gflops = flops * batch / ml
            rows.append((model, batch, threads, ml / 1e3, mo / 1e3, statistics.median(ratios), min(ratios), max(ratios),
                         gflops, 100.0 * gflops / (peak * threads), flops * batch / mo, diff,
                         f"{statistics.median(fusion):.2f}" if fusion else "–",
                         f"{statistics.median(t_iree) / 1e3:.2f}" if t_iree else "–",
                         f"**{statistics.median(iree_ratios):.2f}**" if iree_ratios else "–"))
            sys.stdout.flush()
        print(f"load average at the end {os.getloadavg()[0]:.2f}")
        print()
        print("| model | batch | threads | Loam µs/forward | onnxruntime µs/run | ratio ort/Loam (median) | ratio range | "
              "Loam GFLOP/s | Loam % of peak | ort GFLOP/s | max abs diff | unfused/fused | IREE µs/call | ratio IREE/Loam |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for m, b, t, l, o, r, rmin, rmax, g, p, go, d, fu, it, ir in rows:
            print(f"| {m} | {b} | {t} | {l:.2f} | {o:.2f} | **{r:.2f}** | {rmin:.2f}–{rmax:.2f} | {g:.2f} | {p:.1f} % | "
                  f"{go:.2f} | {d:.1e} | {fu} | {it} | {ir} |")
        for note in iree_notes:
            print(f"IREE: {note}")
        scaling_table(rows, args.thread_counts)
    if args.only in (None, "decoder"):
        decoder(args, w, rng, bandwidth)
    if args.only in (None, "encoder"):
        encoder(args, w, rng, peak)
    print(f"\none-core FMA peak at the end {fma_peak(w)[0]:.1f} GFLOP/s (at the start {peak:.1f}); the fractions of peak above are of the start's")


if __name__ == "__main__":
    main()
