#!/usr/bin/env python3
"""Writes the float16 and bfloat16 cases beside this script, in ONNX's backend-test layout
(model.onnx + test_data_set_0/input_*.pb, output_*.pb).

The kernels hold float16 and bfloat16 in float and round a result once to its format. The oracle
computes the same way with no code of ours: ONNX's reference evaluator runs the graph with every
half tensor widened to float, and numpy rounds each output back to the half format. Each graph
holds the kernels that are not generated elementwise code (windows, the transposed convolution,
the normalisations, Hardmax, LSTM, MatMul; of them, bfloat16 only where opset 17 defines it), so a
half operand refused, or read as the wrong format, fails.

    python3 tests/conformance/halves/make_cases.py      # needs numpy, onnx (ml_dtypes for bfloat16)
"""
import os

import ml_dtypes
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20261207)
FORMATS = {"float16": (TensorProto.FLOAT16, np.float16), "bfloat16": (TensorProto.BFLOAT16, ml_dtypes.bfloat16)}


def half_tensor(array, name, elem):
    if elem == TensorProto.FLOAT16:
        return numpy_helper.from_array(array.astype(np.float16), name)
    bits = array.astype(ml_dtypes.bfloat16).view(np.uint16)
    t = helper.make_tensor(name, TensorProto.BFLOAT16, array.shape, bits.tobytes(), raw=True)
    return t


def as_float(model):
    """The same graph over float: every half type, initializer and Cast target widened."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    for v in list(m.graph.input) + list(m.graph.output) + list(m.graph.value_info):
        if v.type.tensor_type.elem_type in (TensorProto.FLOAT16, TensorProto.BFLOAT16):
            v.type.tensor_type.elem_type = TensorProto.FLOAT
    for i, t in enumerate(m.graph.initializer):
        if t.data_type in (TensorProto.FLOAT16, TensorProto.BFLOAT16):
            m.graph.initializer[i].CopyFrom(numpy_helper.from_array(numpy_helper.to_array(t).astype(np.float32), t.name))
    return m


def write_case(name, graph, inputs, elem):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="make_cases.py")
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    d = os.path.join(HERE, name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    onnx.save(model, os.path.join(d, "model.onnx"))
    widened = [x.astype(np.float32) for x in inputs]
    outs = ReferenceEvaluator(as_float(model)).run(None, {i.name: x for i, x in zip(graph.input, widened)})
    for k, (i, x) in enumerate(zip(graph.input, inputs)):
        with open(os.path.join(d, "test_data_set_0", f"input_{k}.pb"), "wb") as f:
            f.write(half_tensor(x.astype(np.float32), i.name, elem).SerializeToString())
    for k, (o, y) in enumerate(zip(graph.output, outs)):
        with open(os.path.join(d, "test_data_set_0", f"output_{k}.pb"), "wb") as f:
            f.write(half_tensor(np.asarray(y, dtype=np.float32), o.name, elem).SerializeToString())


def graph_of(elem):
    def vi(name, shape):
        return helper.make_tensor_value_info(name, elem, list(shape))

    def weight(name, *shape):
        return half_tensor(rng.uniform(-0.5, 0.5, size=shape).astype(np.float32), name, elem)

    nodes = [
        helper.make_node("MaxPool", ["x"], ["max_pooled"], kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("AveragePool", ["x"], ["average_pooled"], kernel_shape=[2, 2]),
        helper.make_node("ConvTranspose", ["x", "w_up"], ["upsampled"], strides=[2, 2], pads=[1, 1, 1, 1]),
        helper.make_node("LRN", ["x"], ["lrn"], size=3),
        helper.make_node("InstanceNormalization", ["x", "scale", "bias"], ["instance_normed"]),
        helper.make_node("Hardmax", ["rows"], ["hardmax"]),
        helper.make_node("MatMul", ["rows", "w_mm"], ["product"]),
        helper.make_node("LSTM", ["sequence", "w_lstm", "r_lstm", "b_lstm"], ["lstm_y", "lstm_h"], hidden_size=3),
    ]
    inputs = [vi("x", [1, 2, 6, 6]), vi("rows", [4, 7]), vi("sequence", [5, 2, 4])]
    outputs = [vi("max_pooled", [1, 2, 3, 3]), vi("average_pooled", [1, 2, 5, 5]), vi("upsampled", [1, 3, 11, 11]),
               vi("lrn", [1, 2, 6, 6]), vi("instance_normed", [1, 2, 6, 6]),
               vi("hardmax", [4, 7]), vi("product", [4, 3]), vi("lstm_y", [5, 1, 2, 3]), vi("lstm_h", [1, 2, 3])]
    weights = [weight("w_up", 2, 3, 3, 3), weight("scale", 2), weight("bias", 2), weight("w_mm", 7, 3),
               weight("w_lstm", 1, 12, 4), weight("r_lstm", 1, 12, 3), weight("b_lstm", 1, 24)]
    if elem == TensorProto.BFLOAT16:
        # At opset 17 ONNX defines only these of them on bfloat16.
        keep = {"Hardmax", "MatMul"}
        nodes = [n for n in nodes if n.op_type in keep]
        inputs = [i for i in inputs if i.name == "rows"]
        outputs = [o for o in outputs if o.name in ("hardmax", "product")]
        weights = [w for w in weights if w.name == "w_mm"]
    return helper.make_graph(nodes, "halves", inputs, outputs, weights)


for fmt, (elem, dtype) in FORMATS.items():
    # Inputs already of the format, so widening them loses nothing.
    data = {name: rng.uniform(-2, 2, size=s).astype(dtype).astype(np.float32)
            for name, s in (("x", (1, 2, 6, 6)), ("rows", (4, 7)), ("sequence", (5, 2, 4)))}
    graph = graph_of(elem)
    write_case(fmt, graph, [data[i.name] for i in graph.input], elem)
