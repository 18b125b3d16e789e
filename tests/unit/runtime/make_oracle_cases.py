#!/usr/bin/env python3
"""Writes oracle_cases.inc: inputs and onnxruntime's outputs for the runtime's kernel tests.

Each case is one small ONNX model of one operator, run by onnxruntime (CPU, one thread) on inputs
drawn from a fixed seed. The C++ test runs the runtime kernel on the same inputs and compares.
Run: python3 tests/unit/runtime/make_oracle_cases.py  (needs numpy, onnx, onnxruntime; dev-time only)
"""
import os
import numpy as np
import onnx
from onnx import helper, TensorProto
import onnxruntime as ort

rng = np.random.default_rng(20261129)
cases = []  # (case name, [(tensor name, array)])

DT = {np.float32: TensorProto.FLOAT, np.int64: TensorProto.INT64, np.bool_: TensorProto.BOOL}


def run(name, op, inputs, attrs=None, opset=17, const_inputs=(), n_out=1):
    """inputs: list of (name, array); const_inputs: names fed as initializers (still recorded)."""
    attrs = attrs or {}
    in_vi, inits, feeds = [], [], {}
    for n, a in inputs:
        if n in const_inputs:
            inits.append(onnx.numpy_helper.from_array(a, n))
        else:
            in_vi.append(helper.make_tensor_value_info(n, DT[a.dtype.type], a.shape))
            feeds[n] = a
    outs = [f"out{i}" for i in range(n_out)]
    node = helper.make_node(op, [n for n, _ in inputs], outs, **attrs)
    out_vi = [onnx.ValueInfoProto(name=o) for o in outs]
    g = helper.make_graph([node], name, in_vi, out_vi, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    s = ort.InferenceSession(m.SerializeToString(), so, providers=["CPUExecutionProvider"])
    res = s.run(None, feeds)
    cases.append((name, list(inputs) + [(o, r) for o, r in zip(outs, res)]))


def f(*shape):
    return rng.standard_normal(shape).astype(np.float32)


# Conv
run("conv2d_pads", "Conv", [("x", f(1, 2, 5, 5)), ("w", f(3, 2, 3, 3)), ("b", f(3))], {"pads": [1, 1, 1, 1]})
run("conv2d_stride_dilation", "Conv", [("x", f(1, 3, 9, 8)), ("w", f(4, 3, 3, 2))],
    {"strides": [2, 1], "dilations": [2, 3], "pads": [0, 1, 2, 0]})
run("conv2d_groups", "Conv", [("x", f(2, 4, 6, 6)), ("w", f(6, 2, 3, 3)), ("b", f(6))], {"group": 2, "strides": [1, 2]})
run("conv2d_depthwise", "Conv", [("x", f(1, 5, 7, 7)), ("w", f(5, 1, 3, 3))], {"group": 5, "pads": [1, 1, 1, 1]})
run("conv1d", "Conv", [("x", f(1, 3, 10)), ("w", f(2, 3, 3)), ("b", f(2))], {"strides": [2], "pads": [1, 2], "dilations": [2]})
run("conv3d", "Conv", [("x", f(1, 2, 4, 5, 3)), ("w", f(3, 2, 2, 3, 2))], {"pads": [1, 0, 1, 0, 1, 1]})
run("conv2d_same_upper", "Conv", [("x", f(1, 1, 8, 8)), ("w", f(4, 1, 5, 5)), ("b", f(4))], {"auto_pad": "SAME_UPPER"})
run("conv2d_same_lower_stride", "Conv", [("x", f(1, 2, 7, 7)), ("w", f(3, 2, 4, 4))], {"auto_pad": "SAME_LOWER", "strides": [2, 2]})
run("conv2d_pointwise", "Conv", [("x", f(2, 5, 3, 3)), ("w", f(7, 5, 1, 1)), ("b", f(7))])
run("conv2d_deep", "Conv", [("x", f(1, 32, 6, 6)), ("w", f(21, 32, 3, 3)), ("b", f(21))], {"pads": [1, 1, 1, 1]})

# Pools
run("maxpool2d_ceil", "MaxPool", [("x", f(1, 2, 7, 7))], {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1], "ceil_mode": 1})
run("maxpool2d_dilation", "MaxPool", [("x", f(1, 1, 8, 8))], {"kernel_shape": [2, 3], "dilations": [2, 2], "pads": [0, 1, 1, 0]})
run("maxpool1d", "MaxPool", [("x", f(2, 3, 11))], {"kernel_shape": [3], "strides": [3]})
run("maxpool3d", "MaxPool", [("x", f(1, 2, 5, 4, 6))], {"kernel_shape": [2, 2, 3], "strides": [1, 2, 2], "pads": [1, 0, 1, 0, 1, 1]})
run("avgpool_exclude_pad", "AveragePool", [("x", f(1, 2, 6, 5))], {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]})
run("avgpool_include_pad", "AveragePool", [("x", f(1, 2, 6, 5))],
    {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1], "count_include_pad": 1})
run("avgpool_ceil", "AveragePool", [("x", f(1, 1, 7, 7))], {"kernel_shape": [2, 2], "strides": [2, 2], "ceil_mode": 1})
run("global_average_pool", "GlobalAveragePool", [("x", f(2, 3, 4, 5))])

# Products
run("gemm_trans_c_row", "Gemm", [("a", f(4, 3)), ("b", f(5, 4)), ("c", f(5))], {"transA": 1, "transB": 1, "alpha": 0.5, "beta": 2.0})
run("gemm_c_column", "Gemm", [("a", f(3, 6)), ("b", f(6, 30)), ("c", f(3, 1))], {"beta": -1.0})
run("gemm_c_full", "Gemm", [("a", f(7, 5)), ("b", f(5, 2)), ("c", f(7, 2))], {"alpha": 1.5})
run("matmul_batch_stretch", "MatMul", [("a", f(2, 1, 3, 4)), ("b", f(3, 4, 5))])
run("matmul_vector_left", "MatMul", [("a", f(4)), ("b", f(2, 4, 3))])
run("matmul_vector_right", "MatMul", [("a", f(2, 3, 4)), ("b", f(4))])
run("matmul_large", "MatMul", [("a", f(13, 260)), ("b", f(260, 29))])
run("matmul_batched_weight", "MatMul", [("a", f(2, 5, 33)), ("b", f(33, 26))])

# Softmax, reductions, normalisation
run("softmax13_axis1", "Softmax", [("x", f(2, 3, 4))], {"axis": 1}, opset=13)
run("softmax11_flattened", "Softmax", [("x", f(2, 3, 4))], {"axis": 1}, opset=11)
run("logsoftmax13_last", "LogSoftmax", [("x", f(3, 5))], {"axis": -1}, opset=13)
run("reduce_mean_02", "ReduceMean", [("x", f(3, 4, 5))], {"axes": [0, 2], "keepdims": 0}, opset=13)
run("reduce_sum_neg_keep", "ReduceSum", [("x", f(3, 4, 5)), ("axes", np.array([-1], dtype=np.int64))], {"keepdims": 1}, opset=13,
    const_inputs=("axes",))
run("layer_norm", "LayerNormalization", [("x", f(2, 3, 4)), ("s", f(4)), ("b", f(4))], {"axis": -1, "epsilon": 1e-5})
run("batch_norm", "BatchNormalization", [("x", f(2, 3, 2, 2)), ("s", f(3)), ("b", f(3)), ("m", f(3)),
                                          ("v", np.abs(f(3)) + 0.5)], {"epsilon": 1e-3})

# Elementwise
run("add_broadcast", "Add", [("a", f(2, 3, 4)), ("b", f(4))])
run("mul_stretch_both", "Mul", [("a", f(2, 1, 4)), ("b", f(3, 1))])
run("pow", "Pow", [("a", np.abs(f(2, 3)) + 0.1), ("b", f(3))])
run("erf", "Erf", [("x", f(10))])
run("sigmoid", "Sigmoid", [("x", f(10) * 5)])
run("tanh", "Tanh", [("x", f(10) * 2)])
run("clip", "Clip", [("x", f(10)), ("lo", np.array(-0.5, dtype=np.float32)), ("hi", np.array(0.7, dtype=np.float32))],
    opset=13, const_inputs=("lo", "hi"))
run("leaky_relu", "LeakyRelu", [("x", f(10))], {"alpha": 0.1})
run("prelu", "PRelu", [("x", f(2, 3, 2)), ("slope", f(3, 1))])

# Moving elements
run("pad_reflect", "Pad", [("x", f(2, 4)), ("pads", np.array([1, 2, 1, 3], dtype=np.int64))], {"mode": "reflect"},
    opset=13, const_inputs=("pads",))
run("pad_edge", "Pad", [("x", f(2, 3)), ("pads", np.array([0, 2, 2, 1], dtype=np.int64))], {"mode": "edge"},
    opset=13, const_inputs=("pads",))
run("pad_constant_crop", "Pad", [("x", f(3, 4)), ("pads", np.array([1, -1, 0, 2], dtype=np.int64)),
                                 ("v", np.array(2.5, dtype=np.float32))], {"mode": "constant"}, opset=13, const_inputs=("pads", "v"))
run("gather_axis1_negative", "Gather", [("x", f(3, 4, 2)), ("i", np.array([[0, -1], [2, 1], [-4, 3]], dtype=np.int64))], {"axis": 1})
run("slice_negative_step", "Slice", [("x", f(5, 6)), ("st", np.array([-1, 1], dtype=np.int64)), ("en", np.array([-100, 100], dtype=np.int64)),
                                     ("ax", np.array([0, 1], dtype=np.int64)), ("sp", np.array([-2, 2], dtype=np.int64))],
    opset=13, const_inputs=("st", "en", "ax", "sp"))
run("tile", "Tile", [("x", f(2, 3)), ("r", np.array([2, 2], dtype=np.int64))], opset=13, const_inputs=("r",))
run("expand", "Expand", [("x", f(3, 1)), ("s", np.array([2, 1, 4], dtype=np.int64))], opset=13, const_inputs=("s",))
run("transpose", "Transpose", [("x", f(2, 3, 4))], {"perm": [2, 0, 1]})
run("argmax_last_index", "ArgMax", [("x", np.array([[1, 3, 3, 0], [5, 5, 2, 5], [0, 1, 2, 3]], dtype=np.float32))],
    {"axis": 1, "keepdims": 0, "select_last_index": 1}, opset=13)
run("concat_axis1", "Concat", [("a", f(2, 1, 3)), ("b", f(2, 2, 3))], {"axis": 1})
# Stride-1 2-D convolutions take the shifted-plane path: dilations, asymmetric pads, groups, batch.
run("conv2d_stride1_dilated_groups", "Conv", [("x", f(3, 4, 9, 7)), ("w", f(6, 2, 3, 2)), ("b", f(6))],
    {"group": 2, "dilations": [2, 3], "pads": [2, 0, 1, 3]})
run("add_per_channel", "Add", [("a", f(2, 3, 4, 5)), ("b", f(3, 1, 1))])
# Windows that tile the input at their own stride (no pad or dilation) take the direct path; the
# extents leave rows and columns no window reaches.
run("maxpool2d_tiled2", "MaxPool", [("x", f(2, 3, 7, 9))], {"kernel_shape": [2, 2], "strides": [2, 2]})
run("maxpool2d_tiled3", "MaxPool", [("x", f(1, 2, 14, 14))], {"kernel_shape": [3, 3], "strides": [3, 3]})
run("avgpool_tiled2", "AveragePool", [("x", f(2, 2, 6, 5))], {"kernel_shape": [2, 2], "strides": [2, 2]})
run("avgpool_tiled3", "AveragePool", [("x", f(1, 1, 9, 7))], {"kernel_shape": [3, 3], "strides": [3, 3]})
# Depthwise convolutions (one input channel per group) run the direct kernel: two output channels
# per group, strides, dilations, asymmetric pads, a bias, a batch.
run("conv2d_depthwise_strided", "Conv", [("x", f(2, 4, 9, 8)), ("w", f(8, 1, 3, 3)), ("b", f(8))],
    {"group": 4, "strides": [2, 1], "pads": [1, 0, 1, 2], "dilations": [1, 2]})
run("conv2d_depthwise_stride2", "Conv", [("x", f(1, 3, 8, 9)), ("w", f(3, 1, 3, 3))], {"group": 3, "strides": [2, 2], "pads": [1, 1, 1, 1]})
run("conv2d_depthwise_5x4", "Conv", [("x", f(1, 2, 7, 9)), ("w", f(4, 1, 5, 4)), ("b", f(4))],
    {"group": 2, "strides": [1, 3], "pads": [2, 1, 2, 1]})

# Resampling: Resize's cubic under align_corners over a non-square grid, linear downsampling under
# half_pixel, nearest round_prefer_ceil by sizes; and ConvTranspose with groups, strides, dilations,
# pads, output_padding and a bias.
run("resize_cubic_align_corners", "Resize", [("x", f(1, 2, 4, 5)), ("roi", np.zeros([0], np.float32)),
    ("scales", np.array([1, 1, 1.75, 0.8], np.float32))], {"mode": "cubic", "coordinate_transformation_mode": "align_corners"},
    opset=13, const_inputs=("roi", "scales"))
run("resize_linear_down", "Resize", [("x", f(2, 1, 7, 6)), ("roi", np.zeros([0], np.float32)),
    ("scales", np.array([1, 1, 0.5, 0.7], np.float32))], {"mode": "linear"}, opset=13, const_inputs=("roi", "scales"))
run("resize_nearest_sizes", "Resize", [("x", f(1, 3, 3, 4)), ("roi", np.zeros([0], np.float32)),
    ("scales", np.zeros([0], np.float32)), ("sizes", np.array([1, 3, 7, 5], np.int64))],
    {"mode": "nearest", "nearest_mode": "round_prefer_ceil"}, opset=13, const_inputs=("roi", "scales", "sizes"))
run("conv_transpose_grouped", "ConvTranspose", [("x", f(2, 4, 3, 4)), ("w", f(4, 2, 3, 2)), ("b", f(4))],
    {"group": 2, "strides": [2, 3], "dilations": [2, 1], "pads": [1, 0, 0, 1], "output_padding": [1, 0]})

# The depthwise kernel's vector paths: rows wider than its 16-column blocks with a ragged tail,
# output rows not a multiple of the four it computes together, stride 2 with no left pad (the even
# columns first) and with an even column dilation (every tap in one half), a batch.
run("conv2d_depthwise_wide", "Conv", [("x", f(2, 3, 11, 45)), ("w", f(3, 1, 3, 3)), ("b", f(3))],
    {"group": 3, "pads": [1, 1, 1, 1]})
run("conv2d_depthwise_stride2_wide", "Conv", [("x", f(1, 2, 13, 70)), ("w", f(2, 1, 3, 3)), ("b", f(2))],
    {"group": 2, "strides": [2, 2], "pads": [0, 0, 1, 1]})
run("conv2d_depthwise_stride2_dilated", "Conv", [("x", f(1, 2, 9, 41)), ("w", f(4, 1, 3, 3))],
    {"group": 2, "strides": [2, 2], "pads": [2, 2, 2, 1], "dilations": [1, 2]})


def fmt(a):
    a = np.asarray(a)
    if a.dtype == np.float32:
        # The shortest decimal that reads back as the same float32.
        vals = ", ".join(np.format_float_scientific(v, unique=True, trim="-") + "f" for v in a.reshape(-1))
        return "float", vals
    if a.dtype == np.int64:
        return "std::int64_t", ", ".join(str(int(v)) for v in a.reshape(-1))
    if a.dtype == np.bool_:
        return "bool", ", ".join("true" if v else "false" for v in a.reshape(-1))
    raise TypeError(a.dtype)


here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "oracle_cases.inc"), "w") as out:
    out.write("// Generated by make_oracle_cases.py from onnxruntime " + ort.__version__ + "; do not edit.\n")
    for name, tensors in cases:
        out.write(f"namespace {name} {{\n")
        for tname, arr in tensors:
            t, vals = fmt(arr)
            shape = ", ".join(str(d) for d in np.asarray(arr).shape)
            out.write(f"inline const OracleTensor<{t}> {tname}{{{{{shape}}}, {{{vals}}}}};\n")
        out.write(f"}}  // namespace {name}\n")
print(len(cases), "cases")
