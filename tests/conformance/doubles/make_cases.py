#!/usr/bin/env python3
"""Writes the double-precision elementwise cases beside this script, in ONNX's backend-test layout
(model.onnx + test_data_set_0/input_*.pb, output_*.pb).

`doubles` holds operators onnxruntime computes on doubles, its outputs from onnxruntime;
`doubles_reference` the ones it does not (Erf, the inverse and hyperbolic trigonometry, the
activations ONNX defines on double), its outputs from ONNX's reference evaluator, which computes
them in numpy's double. Every unary result goes through (r + C1) - C2 with C1 = 1e9 + 0.5: in
double that is r + 0.5 to about 1e-7, in float (whose spacing at 1e9 is 64) it is off by tens, so
a kernel that computed any step in float fails the comparison.

    python3 tests/conformance/doubles/make_cases.py      # needs numpy, onnx, onnxruntime
"""
import os

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20261207)
ROWS, COLS = 3, 37  # a row of two 16-lane vectors and a tail


def write_case(name, graph, inputs, oracle):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="make_cases.py")
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    d = os.path.join(HERE, name)
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    onnx.save(model, os.path.join(d, "model.onnx"))
    feeds = {i.name: x for i, x in zip(graph.input, inputs)}
    if oracle == "onnxruntime":
        opts = ort.SessionOptions()
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        outs = ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"]).run(None, feeds)
    else:
        outs = ReferenceEvaluator(model).run(None, feeds)
    for k, (i, x) in enumerate(zip(graph.input, inputs)):
        with open(os.path.join(d, "test_data_set_0", f"input_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(x, i.name).SerializeToString())
    for k, (o, y) in enumerate(zip(graph.output, outs)):
        with open(os.path.join(d, "test_data_set_0", f"output_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(np.asarray(y), o.name).SerializeToString())


def vi(name, elem=TensorProto.DOUBLE, shape=(ROWS, COLS)):
    return helper.make_tensor_value_info(name, elem, list(shape))


def scalar(name, value):
    return numpy_helper.from_array(np.array(value, dtype=np.float64), name)


def unary_cases(ops):
    """Each (op, input, attributes) as op(input) + C1 - C2, one output each."""
    nodes, outputs = [], []
    for op, x, attrs in ops:
        r = f"{op.lower()}_of_{x}"
        nodes += [helper.make_node(op, [x], [r], **attrs),
                  helper.make_node("Add", [r, "c1"], [r + "_up"]),
                  helper.make_node("Sub", [r + "_up", "c2"], [r + "_out"])]
        outputs.append(vi(r + "_out"))
    return nodes, outputs


constants = [scalar("c1", 1e9 + 0.5), scalar("c2", 1e9)]
x = rng.uniform(-0.95, 0.95, size=(ROWS, COLS))
y = rng.uniform(1.05, 3.0, size=(ROWS, COLS))  # Acosh and Log defined
ints = rng.integers(-300, 300, size=(COLS,), dtype=np.int64)

# onnxruntime's double kernels: math, activations, the binary operators (a broadcast operand among
# them), comparisons and Where, and casts to and from double.
nodes, outputs = unary_cases([
    ("Exp", "x", {}), ("Tanh", "x", {}), ("Sigmoid", "x", {}), ("Sin", "x", {}), ("Cos", "x", {}),
    ("Floor", "y", {}), ("Ceil", "y", {}), ("Round", "y", {}), ("Abs", "x", {}), ("Neg", "x", {}),
    ("Reciprocal", "y", {}), ("Sqrt", "y", {}), ("Log", "y", {}), ("Relu", "x", {}), ("Sign", "x", {}),
    ("LeakyRelu", "x", {"alpha": 0.3}),
])
nodes += [
    helper.make_node("Add", ["x", "bias"], ["sum"]),
    helper.make_node("Mul", ["sum", "y"], ["product"]),
    helper.make_node("Div", ["product", "y2"], ["quotient"]),
    helper.make_node("Sub", ["quotient", "c2"], ["difference"]),
    helper.make_node("Pow", ["y", "x"], ["power"]),
    helper.make_node("Mod", ["x", "y"], ["remainder"], fmod=1),
    helper.make_node("Max", ["x", "y", "bias"], ["largest"]),
    helper.make_node("Min", ["x", "y", "bias"], ["smallest"]),
    helper.make_node("Less", ["x", "bias"], ["below"]),
    helper.make_node("Where", ["below", "x", "y"], ["chosen"]),
    # x * 1000 toward zero as int64 and back, and an int64 operand as double beside x
    helper.make_node("Mul", ["x", "thousand"], ["scaled"]),
    helper.make_node("Cast", ["scaled"], ["truncated"], to=TensorProto.INT64),
    helper.make_node("Cast", ["ints"], ["ints_real"], to=TensorProto.DOUBLE),
    helper.make_node("Add", ["ints_real", "x"], ["mixed"]),
    helper.make_node("Cast", ["x"], ["narrowed"], to=TensorProto.FLOAT),
    helper.make_node("Cast", ["narrowed"], ["widened"], to=TensorProto.DOUBLE),
    helper.make_node("Sub", ["x", "widened"], ["rounding"]),
    # an int64 base to a double exponent: computed in double, toward zero back to int64
    helper.make_node("Abs", ["ints"], ["bases"]),
    helper.make_node("Pow", ["bases", "y"], ["int_power"]),
    # a double Constant node, whose value float would round to 1e9
    helper.make_node("Constant", [], ["k"], value=numpy_helper.from_array(np.array(1e9 + 0.25), "k")),
    helper.make_node("Add", ["x", "k"], ["x_up"]),
    helper.make_node("Sub", ["x_up", "c2"], ["constant_sum"]),
]
outputs += [vi("difference"), vi("power"), vi("remainder"), vi("largest"), vi("smallest"), vi("chosen"),
            vi("truncated", TensorProto.INT64), vi("mixed"), vi("narrowed", TensorProto.FLOAT), vi("rounding"),
            vi("constant_sum"), vi("int_power", TensorProto.INT64)]
doubles = helper.make_graph(
    nodes, "doubles",
    [vi("x"), vi("y"), helper.make_tensor_value_info("ints", TensorProto.INT64, [COLS])], outputs,
    constants + [numpy_helper.from_array(rng.uniform(-0.5, 0.5, size=(COLS,)), "bias"),
                 numpy_helper.from_array(rng.uniform(1.0, 2.0, size=(ROWS, 1)), "y2"),
                 scalar("thousand", 1000.0)],
)
write_case("doubles", doubles, [x, y, ints], "onnxruntime")

# The operators onnxruntime has no double kernel of, against ONNX's reference evaluator.
nodes, outputs = unary_cases([
    ("Erf", "x", {}), ("Tan", "x", {}), ("Asin", "x", {}), ("Acos", "x", {}), ("Atan", "x", {}),
    ("Sinh", "x", {}), ("Cosh", "x", {}), ("Asinh", "x", {}), ("Acosh", "y", {}), ("Atanh", "x", {}),
    ("Softplus", "x", {}), ("Softsign", "x", {}), ("Elu", "x", {"alpha": 0.7}), ("Selu", "x", {}),
    ("HardSigmoid", "x", {"alpha": 0.3, "beta": 0.4}), ("HardSwish", "y", {}),
    ("ThresholdedRelu", "x", {"alpha": 0.2}), ("Shrink", "x", {"bias": 0.25, "lambd": 0.3}),
])
reference = helper.make_graph(nodes, "doubles_reference", [vi("x"), vi("y")], outputs, constants)
write_case("doubles_reference", reference, [x, y], "reference")
