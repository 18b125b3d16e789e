#!/usr/bin/env python3
"""Writes the fused-contraction conformance cases beside this script, in ONNX's backend-test layout
(model.onnx + test_data_set_0/input_*.pb, output_*.pb), with outputs computed by onnxruntime.

Each graph holds contractions whose bias Add and Relu the lowering computes inside the kernel,
elementwise chains and Softmax rows computed as one generated kernel, next to forms it must leave alone (a bias that varies along a spatial axis, a Conv result the graph also
returns), so a wrong fusion decision or a wrong fused kernel disagrees with onnxruntime.

    python3 tests/conformance/fusion/make_cases.py      # needs numpy, onnx, onnxruntime
"""
import os

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20261129)


def rand(*shape):
    return rng.uniform(-1.0, 1.0, size=shape).astype(np.float32)


def write_case(name, graph, inputs, opset=17):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="make_cases.py")
    model.ir_version = 8
    onnx.checker.check_model(model)
    d = os.path.join(HERE, name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    onnx.save(model, os.path.join(d, "model.onnx"))
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])
    feeds = {i.name: x for i, x in zip(graph.input, inputs)}
    outs = sess.run(None, feeds)
    for k, (i, x) in enumerate(zip(graph.input, inputs)):
        with open(os.path.join(d, "test_data_set_0", f"input_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(x, i.name).SerializeToString())
    for k, (o, y) in enumerate(zip(graph.output, outs)):
        with open(os.path.join(d, "test_data_set_0", f"output_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(y, o.name).SerializeToString())


def init(name, array):
    return numpy_helper.from_array(array, name)


def vi(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


# 2-D convolutions: a grouped, strided Conv (im2col path) + Add [C,1,1] + Relu; then a dilated
# stride-1 Conv (implicit path) + Add [1,C,1,1] + Relu; beside them a Conv whose Add varies along W
# (not a channel bias) and a Conv + Relu whose Conv result the graph also returns.
conv2d = helper.make_graph(
    [
        helper.make_node("Conv", ["x", "w1"], ["c1"], group=2, pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("Add", ["c1", "b1"], ["s1"]),
        helper.make_node("Relu", ["s1"], ["r1"]),
        helper.make_node("Conv", ["r1", "w2"], ["c2"], pads=[2, 2, 2, 2], dilations=[2, 2]),
        helper.make_node("Add", ["b2", "c2"], ["s2"]),
        helper.make_node("Relu", ["s2"], ["y"]),
        helper.make_node("Conv", ["x", "w3"], ["c3"], pads=[1, 1, 1, 1]),
        helper.make_node("Add", ["c3", "b3"], ["z"]),
        helper.make_node("Conv", ["x", "w4"], ["c4"]),
        helper.make_node("Relu", ["c4"], ["u"]),
    ],
    "conv2d",
    [vi("x", [2, 4, 7, 7])],
    [vi("y", [2, 5, 4, 4]), vi("z", [2, 3, 7, 7]), vi("c4", [2, 2, 5, 5]), vi("u", [2, 2, 5, 5])],
    [
        init("w1", rand(6, 2, 3, 3)), init("b1", rand(6, 1, 1)),
        init("w2", rand(5, 6, 3, 3)), init("b2", rand(1, 5, 1, 1)),
        init("w3", rand(3, 4, 3, 3)), init("b3", rand(1, 1, 7)),
        init("w4", rand(2, 4, 3, 3)),
    ],
)
write_case("conv2d", conv2d, [rand(2, 4, 7, 7)])

# 1-D and 3-D convolutions: a Conv with its own bias input + Relu; a 3-D Conv + Add [C,1,1,1] + Relu.
conv_nd = helper.make_graph(
    [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1]),
        helper.make_node("Relu", ["c1"], ["y"]),
        helper.make_node("Conv", ["v", "w2"], ["c2"], pads=[0, 1, 0, 1, 0, 1]),
        helper.make_node("Add", ["c2", "b2"], ["s2"]),
        helper.make_node("Relu", ["s2"], ["z"]),
    ],
    "conv_nd",
    [vi("x", [2, 3, 9]), vi("v", [1, 2, 4, 4, 4])],
    [vi("y", [2, 4, 9]), vi("z", [1, 3, 4, 4, 4])],
    [init("w1", rand(4, 3, 3)), init("b1", rand(4)), init("w2", rand(3, 2, 2, 2, 2)), init("b2", rand(3, 1, 1, 1))],
)
write_case("conv_nd", conv_nd, [rand(2, 3, 9), rand(1, 2, 4, 4, 4)])

# Products: MatMul of a weight read through a Reshape + Add [1, N] + Relu; Gemm with transB and
# C + Relu; Gemm without C, alpha 0.5, + Add [N]; a MatMul whose bias Add result is read twice
# (the Add fuses, the Relu does not).
products = helper.make_graph(
    [
        helper.make_node("Reshape", ["w1", "shape1"], ["w1r"]),
        helper.make_node("MatMul", ["x", "w1r"], ["m1"]),
        helper.make_node("Add", ["m1", "b1"], ["s1"]),
        helper.make_node("Relu", ["s1"], ["r1"]),
        helper.make_node("Gemm", ["r1", "w2", "c2"], ["g2"], transB=1),
        helper.make_node("Relu", ["g2"], ["r2"]),
        helper.make_node("Gemm", ["r2", "w3"], ["g3"], alpha=0.5),
        helper.make_node("Add", ["g3", "b3"], ["y"]),
        helper.make_node("MatMul", ["x", "w4"], ["m4"]),
        helper.make_node("Add", ["m4", "b4"], ["s4"]),
        helper.make_node("Relu", ["s4"], ["p"]),
        helper.make_node("Neg", ["s4"], ["q"]),
    ],
    "products",
    [vi("x", [5, 12])],
    [vi("y", [5, 3]), vi("p", [5, 7]), vi("q", [5, 7])],
    [
        init("w1", rand(3, 4, 8)), numpy_helper.from_array(np.array([12, 8], dtype=np.int64), "shape1"),
        init("b1", rand(1, 8)),
        init("w2", rand(6, 8)), init("c2", rand(6)),
        init("w3", rand(6, 3)), init("b3", rand(3)),
        init("w4", rand(12, 7)), init("b4", rand(7)),
    ],
)
write_case("products", products, [rand(5, 12)])

# A Conv whose result only a pool reads: the pool runs on each image's product in the Conv's kernel.
# Windows that tile (2x2 at 2, 3x3 at 3, leaving rows no window reaches), a padded ceil-mode window
# that overlaps, a grouped Conv, and beside them the forms that store the Conv's result first (a
# strided Conv, a pointwise Conv) or keep the pool a node of its own (a MaxPool whose Indices the
# graph returns).
conv_pool = helper.make_graph(
    [
        helper.make_node("Conv", ["x", "w1"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("Add", ["c1", "b1"], ["s1"]),
        helper.make_node("Relu", ["s1"], ["r1"]),
        helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "w2", "b2"], ["c2"], pads=[1, 1, 1, 1]),
        helper.make_node("MaxPool", ["c2"], ["y"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1),
        helper.make_node("Conv", ["x", "w3"], ["c3"]),
        helper.make_node("AveragePool", ["c3"], ["z"], kernel_shape=[3, 3], strides=[3, 3]),
        helper.make_node("Conv", ["x", "w4"], ["c4"], strides=[2, 2], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c4"], ["r4"]),
        helper.make_node("AveragePool", ["r4"], ["u"], kernel_shape=[2, 2], pads=[1, 1, 0, 0], count_include_pad=1),
        helper.make_node("Conv", ["x", "w5"], ["c5"]),
        helper.make_node("MaxPool", ["c5"], ["v"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["x", "w6"], ["c6"], pads=[1, 1, 1, 1]),
        helper.make_node("MaxPool", ["c6"], ["q", "qi"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["x", "w7"], ["c7"], group=3, pads=[2, 2, 2, 2], dilations=[2, 2]),
        helper.make_node("Relu", ["c7"], ["r7"]),
        helper.make_node("AveragePool", ["r7"], ["g"], kernel_shape=[2, 2], strides=[2, 2]),
    ],
    "conv_pool",
    [vi("x", [2, 3, 11, 10])],
    [vi("y", [2, 5, 3, 3]), vi("z", [2, 3, 3, 2]), vi("u", [2, 2, 6, 5]), vi("v", [2, 2, 5, 5]), vi("q", [2, 3, 5, 5]),
     helper.make_tensor_value_info("qi", TensorProto.INT64, [2, 3, 5, 5]), vi("g", [2, 6, 5, 5])],
    [
        init("w1", rand(4, 3, 3, 3)), init("b1", rand(4, 1, 1)),
        init("w2", rand(5, 4, 3, 3)), init("b2", rand(5)),
        init("w3", rand(3, 3, 3, 3)),
        init("w4", rand(2, 3, 3, 3)),
        init("w5", rand(2, 3, 1, 1)),
        init("w6", rand(3, 3, 3, 3)),
        init("w7", rand(6, 1, 3, 3)),
    ],
)
write_case("conv_pool", conv_pool, [rand(2, 3, 11, 10)])

# A Conv followed by an inference BatchNormalization whose parameters are constants: folded into
# the packed weight and a bias at load, with a Relu (and a pool) after it fused too; a Conv with
# its own bias; a depthwise Conv; an epsilon of its own. Beside them a normalisation whose mean the
# run supplies and one whose input the graph also returns, which stay nodes of their own.
def bn_params(c, prefix):
    return [init(prefix + "_s", rand(c)), init(prefix + "_b", rand(c)), init(prefix + "_m", rand(c)),
            init(prefix + "_v", rng.uniform(0.5, 1.5, size=(c,)).astype(np.float32))]


def bn(x, prefix, y, **kw):
    return helper.make_node("BatchNormalization", [x, prefix + "_s", prefix + "_b", prefix + "_m", prefix + "_v"], [y], **kw)


conv_bn = helper.make_graph(
    [
        helper.make_node("Conv", ["x", "w1"], ["c1"], pads=[1, 1, 1, 1]),
        bn("c1", "n1", "s1"),
        helper.make_node("Relu", ["s1"], ["r1"]),
        helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"], group=4, pads=[1, 1, 1, 1], strides=[2, 2]),
        bn("c2", "n2", "s2", epsilon=1e-3),
        helper.make_node("Relu", ["s2"], ["y"]),
        helper.make_node("Conv", ["x", "w3", "b3"], ["c3"]),
        bn("c3", "n3", "s3"),
        helper.make_node("MaxPool", ["s3"], ["z"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["x", "w4"], ["c4"], pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["c4", "n4_s", "n4_b", "m4", "n4_v"], ["u"]),
        helper.make_node("Conv", ["x", "w5"], ["c5"]),
        bn("c5", "n5", "v"),
    ],
    "conv_bn",
    [vi("x", [2, 3, 9, 8]), vi("m4", [2])],
    [vi("y", [2, 4, 5, 4]), vi("z", [2, 5, 3, 3]), vi("u", [2, 2, 9, 8]), vi("v", [2, 3, 7, 6]), vi("c5", [2, 3, 7, 6])],
    [init("w1", rand(4, 3, 3, 3))] + bn_params(4, "n1")
    + [init("w2", rand(4, 1, 3, 3)), init("b2", rand(4))] + bn_params(4, "n2")
    + [init("w3", rand(5, 3, 3, 3)), init("b3", rand(5))] + bn_params(5, "n3")
    + [init("w4", rand(2, 3, 3, 3))] + [p for p in bn_params(2, "n4") if p.name != "n4_m"]
    + [init("w5", rand(3, 3, 3, 3))] + bn_params(3, "n5"),
)
write_case("conv_bn", conv_bn, [rand(2, 3, 9, 8), rand(2)])


# Elementwise chains, each one generated kernel: GELU as exporters write it (with Erf, and the
# tanh form with Pow), SiLU (x read by two nodes of the chain), a comparison whose bool goes through
# Casts into a Where, an int64 chain, a Clip whose bound the run supplies; beside them the forms
# that materialise a value between: a sum the graph also returns, a sum its reader broadcasts to
# more elements, a value two nodes read. The batch is symbolic, so the kernels take it at run time.
def const(name, value, dtype=np.float32):
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(np.array(value, dtype=dtype), name + "_v"))


elementwise = helper.make_graph(
    [
        const("sqrt2", 1.4142135), const("one", 1.0), const("half", 0.5), const("three", 3.0),
        const("k0", 0.044715), const("k1", 0.7978846), const("seven", 7, np.int64),
        # GELU, erf form
        helper.make_node("Div", ["x", "sqrt2"], ["ge_d"]),
        helper.make_node("Erf", ["ge_d"], ["ge_e"]),
        helper.make_node("Add", ["ge_e", "one"], ["ge_p"]),
        helper.make_node("Mul", ["x", "ge_p"], ["ge_m"]),
        helper.make_node("Mul", ["ge_m", "half"], ["gelu"]),
        # GELU, tanh form (gelu_new)
        helper.make_node("Pow", ["x", "three"], ["gt_c"]),
        helper.make_node("Mul", ["gt_c", "k0"], ["gt_a"]),
        helper.make_node("Add", ["x", "gt_a"], ["gt_s"]),
        helper.make_node("Mul", ["gt_s", "k1"], ["gt_i"]),
        helper.make_node("Tanh", ["gt_i"], ["gt_t"]),
        helper.make_node("Add", ["gt_t", "one"], ["gt_p"]),
        helper.make_node("Mul", ["half", "x"], ["gt_h"]),
        helper.make_node("Mul", ["gt_h", "gt_p"], ["gelu_new"]),
        # SiLU
        helper.make_node("Sigmoid", ["x"], ["si_s"]),
        helper.make_node("Mul", ["x", "si_s"], ["silu"]),
        # a comparison through Casts into a Where
        helper.make_node("Less", ["x", "z"], ["wh_l"]),
        helper.make_node("Cast", ["wh_l"], ["wh_i"], to=TensorProto.INT64),
        helper.make_node("Cast", ["wh_i"], ["wh_b"], to=TensorProto.BOOL),
        helper.make_node("Where", ["wh_b", "x", "z"], ["picked"]),
        # int64
        helper.make_node("Mul", ["p", "q"], ["in_m"]),
        helper.make_node("Mod", ["in_m", "seven"], ["in_r"]),
        helper.make_node("Sub", ["in_r", "q"], ["ints"]),
        # a Clip whose maximum the run supplies
        helper.make_node("Abs", ["z"], ["cl_a"]),
        helper.make_node("Clip", ["cl_a", "", "bound"], ["clipped"]),
        # a sum the graph returns and a Relu of it
        helper.make_node("Add", ["x", "z"], ["sum"]),
        helper.make_node("Relu", ["sum"], ["sum_relu"]),
        # a sum the reader broadcasts, then a chain after the broadcast
        helper.make_node("Add", ["u", "v"], ["uv"]),
        helper.make_node("Mul", ["x", "uv"], ["bm"]),
        helper.make_node("Tanh", ["bm"], ["broadcast"]),
        # a value two nodes read
        helper.make_node("Exp", ["z"], ["tw_e"]),
        helper.make_node("Neg", ["tw_e"], ["twice_a"]),
        helper.make_node("Log", ["tw_e"], ["twice_b"]),
    ],
    "elementwise",
    [vi("x", ["N", 37]), vi("z", ["N", 37]), vi("u", [37]), vi("v", [37]), vi("bound", []),
     helper.make_tensor_value_info("p", TensorProto.INT64, ["N", 37]),
     helper.make_tensor_value_info("q", TensorProto.INT64, ["N", 37])],
    [vi("gelu", ["N", 37]), vi("gelu_new", ["N", 37]), vi("silu", ["N", 37]), vi("picked", ["N", 37]),
     helper.make_tensor_value_info("ints", TensorProto.INT64, ["N", 37]), vi("clipped", ["N", 37]),
     vi("sum", ["N", 37]), vi("sum_relu", ["N", 37]), vi("broadcast", ["N", 37]), vi("twice_a", ["N", 37]),
     vi("twice_b", ["N", 37])],
    [],
)
write_case("elementwise", elementwise,
           [rng.uniform(-4.0, 4.0, size=(3, 37)).astype(np.float32), rand(3, 37), rand(37), rand(37),
            np.array(0.5, dtype=np.float32), rng.integers(-1000, 1000, size=(3, 37)),
            rng.integers(1, 50, size=(3, 37))])


# Softmax and LogSoftmax over the last axis, one generated kernel each with the elementwise work
# before them: attention scores scaled and masked as exporters write them (the mask broadcast over
# batch and heads, masked positions at float's lowest), rows of 37 (vectors and a tail), 64 (whole
# vectors) and 1; a LogSoftmax after a Relu; the scores the graph also returns; and a Softmax over
# the first axis, which stays the runtime's kernel.
def lowest_mask(rows, cols):
    keep = np.tril(np.ones((rows, cols), dtype=bool), k=cols - rows)
    return np.where(keep, 0.0, np.finfo(np.float32).min).astype(np.float32).reshape(1, 1, rows, cols)


softmax = helper.make_graph(
    [
        const("scale", 2.828427),
        helper.make_node("MatMul", ["q", "k"], ["sm_qk"]),
        helper.make_node("Div", ["sm_qk", "scale"], ["scores"]),
        helper.make_node("Add", ["scores", "mask"], ["sm_masked"]),
        helper.make_node("Softmax", ["sm_masked"], ["attn"], axis=-1),
        helper.make_node("Relu", ["x"], ["ls_r"]),
        helper.make_node("LogSoftmax", ["ls_r"], ["logp"], axis=1),
        helper.make_node("Softmax", ["w"], ["whole"]),
        helper.make_node("Softmax", ["one"], ["ones"], axis=2),
        helper.make_node("Softmax", ["x"], ["first_axis"], axis=0),
    ],
    "softmax",
    [vi("q", ["N", 2, 7, 8]), vi("k", ["N", 2, 8, 37]), vi("mask", [1, 1, 7, 37]), vi("x", ["N", 37]),
     vi("w", ["N", 64]), vi("one", ["N", 3, 1])],
    [vi("attn", ["N", 2, 7, 37]), vi("scores", ["N", 2, 7, 37]), vi("logp", ["N", 37]), vi("whole", ["N", 64]),
     vi("ones", ["N", 3, 1]), vi("first_axis", ["N", 37])],
    [],
)
write_case("softmax", softmax,
           [rand(3, 2, 7, 8) * 3, rand(3, 2, 8, 37) * 3, lowest_mask(7, 37), rng.uniform(-4.0, 4.0, size=(3, 37)).astype(np.float32),
            rand(3, 64) * 5, rand(3, 3, 1)])


# The same before opset 13, where Softmax reads its input as a matrix [prod(axes before axis),
# prod(the rest)]: axis 1 of a rank-2 input and axis -1 of a rank-3 one normalise the last axis
# (one generated kernel each); axis 1 of a rank-3 input normalises two axes at once (the runtime's).
softmax_opset11 = helper.make_graph(
    [
        helper.make_node("Mul", ["x", "x"], ["sq"]),
        helper.make_node("Softmax", ["sq"], ["rows"]),
        helper.make_node("LogSoftmax", ["t"], ["last"], axis=-1),
        helper.make_node("Softmax", ["t"], ["block"], axis=1),
    ],
    "softmax_opset11",
    [vi("x", [3, 37]), vi("t", [2, 3, 19])],
    [vi("rows", [3, 37]), vi("last", [2, 3, 19]), vi("block", [2, 3, 19])],
    [],
)
write_case("softmax_opset11", softmax_opset11, [rand(3, 37) * 2, rand(2, 3, 19) * 3], opset=11)


# Reductions along the row, each kernel with them one generated kernel: a LayerNorm as torch exports
# it before opset 17 (ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul, Add; x - mean read by
# two nodes), rows of 40 (vectors and a tail) with a symbolic batch; LayerNormalization itself, over
# rows of 7 (no vector) and without a bias; an RMSNorm (Pow, ReduceMean, Add, Sqrt, Reciprocal,
# Mul, Mul); a softmax written out (x - ReduceMax, Exp, ReduceSum, Div); beside them a mean the
# graph also returns (materialised, the rest still fused) and a ReduceSum over the first axis (the
# runtime's reduction).
rows = helper.make_graph(
    [
        const("two", 2.0), const("eps", 1e-5), const("eps6", 1e-6), const("minus_one", [-1], np.int64),
        const("zero", [0], np.int64),
        # LayerNorm, decomposed
        helper.make_node("ReduceMean", ["x"], ["ln_mean"], axes=[-1]),
        helper.make_node("Sub", ["x", "ln_mean"], ["ln_d"]),
        helper.make_node("Pow", ["ln_d", "two"], ["ln_sq"]),
        helper.make_node("ReduceMean", ["ln_sq"], ["ln_var"], axes=[-1]),
        helper.make_node("Add", ["ln_var", "eps"], ["ln_ve"]),
        helper.make_node("Sqrt", ["ln_ve"], ["ln_std"]),
        helper.make_node("Div", ["ln_d", "ln_std"], ["ln_n"]),
        helper.make_node("Mul", ["ln_n", "gamma"], ["ln_g"]),
        helper.make_node("Add", ["ln_g", "beta"], ["layer_norm"]),
        # LayerNormalization
        helper.make_node("LayerNormalization", ["s", "gamma7", "beta7"], ["layer_normalization"], epsilon=1e-3),
        helper.make_node("LayerNormalization", ["x", "gamma"], ["no_bias"], axis=1),
        # RMSNorm
        helper.make_node("Pow", ["x", "two"], ["rms_sq"]),
        helper.make_node("ReduceMean", ["rms_sq"], ["rms_ms"], axes=[1]),
        helper.make_node("Add", ["rms_ms", "eps6"], ["rms_e"]),
        helper.make_node("Sqrt", ["rms_e"], ["rms_r"]),
        helper.make_node("Reciprocal", ["rms_r"], ["rms_i"]),
        helper.make_node("Mul", ["x", "rms_i"], ["rms_n"]),
        helper.make_node("Mul", ["rms_n", "gamma"], ["rms_norm"]),
        # a softmax written out
        helper.make_node("ReduceMax", ["z"], ["so_max"], axes=[-1]),
        helper.make_node("Sub", ["z", "so_max"], ["so_d"]),
        helper.make_node("Exp", ["so_d"], ["so_e"]),
        helper.make_node("ReduceSum", ["so_e", "minus_one"], ["so_sum"]),
        helper.make_node("Div", ["so_e", "so_sum"], ["written_softmax"]),
        # a mean the graph returns
        helper.make_node("ReduceMean", ["z"], ["z_mean"], axes=[-1]),
        helper.make_node("Sub", ["z", "z_mean"], ["centred"]),
        # across the batch
        helper.make_node("ReduceSum", ["z", "zero"], ["column_sum"]),
        helper.make_node("Mul", ["z", "column_sum"], ["scaled"]),
    ],
    "rows",
    [vi("x", ["N", 40]), vi("s", ["M", 3, 7]), vi("z", ["N", 40])],
    [vi("layer_norm", ["N", 40]), vi("layer_normalization", ["M", 3, 7]), vi("no_bias", ["N", 40]),
     vi("rms_norm", ["N", 40]), vi("written_softmax", ["N", 40]), vi("z_mean", ["N", 1]), vi("centred", ["N", 40]),
     vi("scaled", ["N", 40])],
    [init("gamma", rand(40) + 1.5), init("beta", rand(40)), init("gamma7", rand(7) + 1.5), init("beta7", rand(7))],
)
write_case("rows", rows, [rand(5, 40) * 3 + 0.5, rand(2, 3, 7) * 2, rand(5, 40) * 4])



# A Softmax whose readers are one elementwise kernel is computed in it, as its two reductions:
# scaled_dot_product_attention's guard Where(IsNaN(p), 0, p) after a mask that hides every position
# of one row (that row's Softmax is NaN, the guard's answer 0); a LogSoftmax scaled by a tensor.
softmax_epilogue = helper.make_graph(
    [
        const("zero", 0.0),
        helper.make_node("Add", ["s", "mask"], ["masked"]),
        helper.make_node("Softmax", ["masked"], ["p"], axis=-1),
        helper.make_node("IsNaN", ["p"], ["nan"]),
        helper.make_node("Where", ["nan", "zero", "p"], ["guarded"]),
        helper.make_node("LogSoftmax", ["x"], ["lp"], axis=-1),
        helper.make_node("Mul", ["lp", "w"], ["weighted"]),
    ],
    "softmax_epilogue",
    [vi("s", ["N", 2, 5, 19]), vi("mask", [1, 1, 5, 19]), vi("x", ["N", 37]), vi("w", ["N", 37])],
    [vi("guarded", ["N", 2, 5, 19]), vi("weighted", ["N", 37])],
    [],
)
hidden = np.zeros((1, 1, 5, 19), dtype=np.float32)
hidden[0, 0, 1, :] = -np.inf
hidden[0, 0, 3, 7:] = -np.inf
write_case("softmax_epilogue", softmax_epilogue, [rand(3, 2, 5, 19) * 4, hidden, rand(3, 37) * 3, rand(3, 37)])


# Epilogues: the elementwise work reading a product's result, run by the product on each run of
# rows it finishes. GELU (erf form) after a MatMul with a packed weight; scale, mask and Softmax
# after a batched MatMul of two activations; a residual Add and LayerNormalization after a Gemm
# (transB) read through Reshapes; HardSwish as paddle2onnx writes it (HardSigmoid, Mul) after a
# Conv with its own bias (the implicit path); a depthwise Conv's residual Add and Clip; a strided
# Conv (im2col) scaled per channel after a Sigmoid; a Softmax along a 1-D Conv's row. Beside them,
# forms it must leave alone: a product the graph also returns, and a Conv whose reader varies along
# one spatial axis only.
epilogues = helper.make_graph(
    [
        const("sqrt2", np.sqrt(2.0)),
        const("one", 1.0),
        const("half", 0.5),
        const("quarter", 0.25),
        const("zero", 0.0),
        const("six", 6.0),
        const("flat", np.array([-1, 16], dtype=np.int64), np.int64),
        const("back", np.array([-1, 6, 16], dtype=np.int64), np.int64),
        # GELU after a MatMul with a packed weight
        helper.make_node("MatMul", ["x", "w1"], ["m1"]),
        helper.make_node("Div", ["m1", "sqrt2"], ["g_d"]),
        helper.make_node("Erf", ["g_d"], ["g_e"]),
        helper.make_node("Add", ["g_e", "one"], ["g_a"]),
        helper.make_node("Mul", ["m1", "g_a"], ["g_m"]),
        helper.make_node("Mul", ["g_m", "half"], ["gelu"]),
        # attention's scores: scale, mask, Softmax
        helper.make_node("Transpose", ["x"], ["xt"], perm=[0, 2, 1]),
        helper.make_node("MatMul", ["x", "xt"], ["scores"]),
        helper.make_node("Mul", ["scores", "quarter"], ["scaled"]),
        helper.make_node("Add", ["scaled", "mask"], ["masked"]),
        helper.make_node("Softmax", ["masked"], ["attention"], axis=-1),
        # Gemm through Reshapes, a residual Add and LayerNormalization
        helper.make_node("Reshape", ["x", "flat"], ["x2"]),
        helper.make_node("Gemm", ["x2", "w3", "c3"], ["g3"], transB=1),
        helper.make_node("Reshape", ["g3", "back"], ["g3r"]),
        helper.make_node("Add", ["g3r", "x"], ["residual"]),
        helper.make_node("LayerNormalization", ["residual", "gamma", "beta"], ["normalised"], epsilon=1e-5),
        # HardSwish after a Conv with its own bias
        helper.make_node("Conv", ["img", "wc", "bc"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("HardSigmoid", ["c"], ["hs"], alpha=1.0 / 6.0, beta=0.5),
        helper.make_node("Mul", ["c", "hs"], ["hard_swish"]),
        # a depthwise Conv's residual Add and Clip
        helper.make_node("Conv", ["img2", "wd"], ["d"], group=4, pads=[1, 1, 1, 1]),
        helper.make_node("Add", ["d", "img2"], ["dr"]),
        helper.make_node("Clip", ["dr", "zero", "six"], ["clipped"]),
        # a strided Conv, scaled per channel after a Sigmoid
        helper.make_node("Conv", ["img", "we"], ["e"], strides=[2, 2]),
        helper.make_node("Sigmoid", ["e"], ["es"]),
        helper.make_node("Mul", ["es", "sc"], ["gated"]),
        # a Softmax along a 1-D Conv's row
        helper.make_node("Conv", ["sig", "wf"], ["f"], pads=[1, 1]),
        helper.make_node("Softmax", ["f"], ["conv_softmax"], axis=-1),
        # left alone: a product the graph returns, and a reader varying along W only
        helper.make_node("MatMul", ["x", "w8"], ["m8"]),
        helper.make_node("Tanh", ["m8"], ["t8"]),
        helper.make_node("Conv", ["img", "w9"], ["c9"], pads=[1, 1, 1, 1]),
        helper.make_node("Add", ["c9", "along_w"], ["c9w"]),
    ],
    "epilogues",
    [vi("x", ["N", 6, 16]), vi("mask", [1, 6, 6]), vi("img", [2, 3, 10, 10]), vi("img2", [1, 4, 9, 9]), vi("sig", [2, 3, 12])],
    [vi("gelu", ["N", 6, 24]), vi("attention", ["N", 6, 6]), vi("normalised", ["N", 6, 16]), vi("hard_swish", [2, 4, 10, 10]),
     vi("clipped", [1, 4, 9, 9]), vi("gated", [2, 5, 4, 4]), vi("conv_softmax", [2, 4, 12]), vi("m8", ["N", 6, 7]),
     vi("t8", ["N", 6, 7]), vi("c9w", [2, 2, 10, 10])],
    [
        init("w1", rand(16, 24)), init("w3", rand(16, 16)), init("c3", rand(16)), init("gamma", rand(16) + 1.5),
        init("beta", rand(16)), init("wc", rand(4, 3, 3, 3)), init("bc", rand(4)), init("wd", rand(4, 1, 3, 3)),
        init("we", rand(5, 3, 3, 3)), init("sc", rand(5, 1, 1)), init("wf", rand(4, 3, 3)), init("w8", rand(16, 7)),
        init("w9", rand(2, 3, 3, 3)), init("along_w", rand(10)),
    ],
)
write_case("epilogues", epilogues,
           [rand(3, 6, 16) * 2, np.triu(np.full((1, 6, 6), -1e9, dtype=np.float32), 1), rand(2, 3, 10, 10) * 2,
            rand(1, 4, 9, 9) * 4, rand(2, 3, 12) * 2])


# Pow by a constant the build knows, in the generated kernel: 2 and 3 as products, -1 as a
# reciprocal, 0.5 as a square root that keeps pow's answers where sqrt's differ (-0 and -inf);
# the inputs hold the special values beside ordinary ones, and the exponents also as one Pow
# each reading the same x.
pow_constants = helper.make_graph(
    [
        const("e_two", 2.0), const("e_three", 3.0), const("e_minus_one", -1.0), const("e_half", 0.5),
        helper.make_node("Pow", ["x", "e_two"], ["squared"]),
        helper.make_node("Pow", ["x", "e_three"], ["cubed"]),
        helper.make_node("Pow", ["x", "e_minus_one"], ["reciprocal"]),
        helper.make_node("Pow", ["x", "e_half"], ["root"]),
        # inside a chain: an RMS as exporters write it, x / (mean(x^2) + eps)^0.5
        helper.make_node("Add", ["squared", "eps"], ["sq_eps"]),
        helper.make_node("Pow", ["sq_eps", "e_half"], ["rms"]),
        helper.make_node("Pow", ["rms", "e_minus_one"], ["inv_rms"]),
        helper.make_node("Mul", ["x", "inv_rms"], ["scaled"]),
    ],
    "pow_constants",
    [vi("x", ["N", 19])],
    [vi("squared", ["N", 19]), vi("cubed", ["N", 19]), vi("reciprocal", ["N", 19]), vi("root", ["N", 19]),
     vi("scaled", ["N", 19])],
    [init("eps", np.array(1e-6, dtype=np.float32))],
)
special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, -4.0, 1.0, 4.0, 1e-30, 3e38, -3e38, 0.25,
                    -0.25, 2.0, 9.0, 1e-42, -1e-42, 7.0], dtype=np.float32)
write_case("pow_constants", pow_constants, [np.stack([special, rng.uniform(-8.0, 8.0, size=19).astype(np.float32),
                                                      rng.uniform(0.0, 100.0, size=19).astype(np.float32)])])
