#!/usr/bin/env python3
"""Times onnxruntime (CPU, one thread) on the models bench_kernels.cpp runs, for a side-by-side.

MNIST-12 is the real model (../../examples/mnist or the shared copy, passed as argv[1]); the MLP
784 -> 512 -> 512 -> 10 (MatMul + Add + Relu), single MNIST conv layers and UltraFace's depthwise
and dense Conv layers are built here with random weights, as bench_kernels.cpp builds them. Prints microseconds per run (median of repeats).
"""
import sys
import time
import numpy as np
import onnx
from onnx import helper, TensorProto, numpy_helper
import onnxruntime as ort

ort.set_default_logger_severity(3)


def session(model_bytes):
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    return ort.InferenceSession(model_bytes, so, providers=["CPUExecutionProvider"])


def timed(sess, feeds, min_time=1.0):
    for _ in range(20):
        sess.run(None, feeds)
    samples = []
    start = time.process_time()
    while time.process_time() - start < min_time or len(samples) < 30:
        t0 = time.process_time_ns()
        for _ in range(10):
            sess.run(None, feeds)
        samples.append((time.process_time_ns() - t0) / 10 / 1000)
    return float(np.median(samples))


rng = np.random.default_rng(0)


def mlp_model():
    dims = [784, 512, 512, 10]
    nodes, inits = [], []
    prev = "x"
    for i in range(3):
        w = numpy_helper.from_array(rng.uniform(-1, 1, (dims[i], dims[i + 1])).astype(np.float32), f"w{i}")
        b = numpy_helper.from_array(rng.uniform(-1, 1, (dims[i + 1],)).astype(np.float32), f"b{i}")
        inits += [w, b]
        nodes.append(helper.make_node("MatMul", [prev, f"w{i}"], [f"m{i}"]))
        nodes.append(helper.make_node("Add", [f"m{i}", f"b{i}"], [f"a{i}"]))
        prev = f"a{i}"
        if i < 2:
            nodes.append(helper.make_node("Relu", [prev], [f"r{i}"]))
            prev = f"r{i}"
    g = helper.make_graph(nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 784])],
                          [helper.make_tensor_value_info(prev, TensorProto.FLOAT, ["N", 10])], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()


def conv_model(cin, cout, hw):
    w = numpy_helper.from_array(rng.uniform(-1, 1, (cout, cin, 5, 5)).astype(np.float32), "w")
    b = numpy_helper.from_array(rng.uniform(-1, 1, (cout,)).astype(np.float32), "b")
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], auto_pad="SAME_UPPER", kernel_shape=[5, 5]),
             helper.make_node("Relu", ["c"], ["y"])]
    g = helper.make_graph(nodes, "conv", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", cin, hw, hw])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [w, b])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()


def depthwise_model(c, stride):
    w = numpy_helper.from_array(rng.uniform(-1, 1, (c, 1, 3, 3)).astype(np.float32), "w")
    b = numpy_helper.from_array(rng.uniform(-1, 1, (c,)).astype(np.float32), "b")
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], group=c, kernel_shape=[3, 3], pads=[1, 1, 1, 1], strides=[stride, stride]),
             helper.make_node("Relu", ["c"], ["y"])]
    g = helper.make_graph(nodes, "depthwise", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, c, "H", "W"])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [w, b])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()

def dense_conv_model(cin, cout, k, stride):
    w = numpy_helper.from_array(rng.uniform(-1, 1, (cout, cin, k, k)).astype(np.float32), "w")
    b = numpy_helper.from_array(rng.uniform(-1, 1, (cout,)).astype(np.float32), "b")
    pad = k // 2
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], kernel_shape=[k, k], pads=[pad] * 4, strides=[stride, stride]),
             helper.make_node("Relu", ["c"], ["y"])]
    g = helper.make_graph(nodes, "conv", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, cin, "H", "W"])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [w, b])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()


mnist_path = sys.argv[1] if len(sys.argv) > 1 else "/work/shared/models/mnist-12/model.onnx"
mnist = onnx.load(mnist_path)
mnist_in = mnist.graph.input[0].name
# The shipped model fixes the batch at 1; make it symbolic to time batch 64 too.
mnist.graph.input[0].type.tensor_type.shape.dim[0].dim_param = "N"
mnist.graph.output[0].type.tensor_type.shape.dim[0].dim_param = "N"
del mnist.graph.value_info[:]  # intermediate shapes fixed at batch 1
# Its Reshape target [1, 256] is a constant; make it [-1, 256].
for init in mnist.graph.initializer:
    if init.name == "Pooling160_Output_0_reshape0_shape":
        init.CopyFrom(numpy_helper.from_array(np.array([-1, 256], dtype=np.int64), init.name))
mnist_sess = session(mnist.SerializeToString())
mlp_sess = session(mlp_model())
for batch in (1, 64):
    x = rng.uniform(0, 1, (batch, 1, 28, 28)).astype(np.float32)
    print(f"onnxruntime MNIST-12 batch {batch}: {timed(mnist_sess, {mnist_in: x}):.1f} us")
    x = rng.uniform(-1, 1, (batch, 784)).astype(np.float32)
    print(f"onnxruntime MLP 784-512-512-10 batch {batch}: {timed(mlp_sess, {'x': x}):.1f} us")
for batch, cin, cout, hw in ((1, 1, 8, 28), (1, 8, 16, 14), (64, 1, 8, 28), (64, 8, 16, 14)):
    s = session(conv_model(cin, cout, hw))
    x = rng.uniform(-1, 1, (batch, cin, hw, hw)).astype(np.float32)
    print(f"onnxruntime Conv+Relu {batch}x{cin}x{hw}x{hw} -> {cout}: {timed(s, {'x': x}, 0.5):.1f} us")
for c, h, w, stride in ((16, 120, 160, 1), (32, 120, 160, 2), (64, 30, 40, 1), (128, 15, 20, 2), (256, 8, 10, 1)):
    s = session(depthwise_model(c, stride))
    x = rng.uniform(-1, 1, (1, c, h, w)).astype(np.float32)
    print(f"onnxruntime depthwise Conv+Relu {c}x{h}x{w} stride {stride}: {timed(s, {'x': x}, 0.5):.1f} us")
for cin, cout, h, w, k, stride in ((3, 16, 240, 320, 3, 2), (16, 32, 120, 160, 1, 1), (32, 32, 60, 80, 1, 1), (64, 64, 30, 40, 1, 1),
                                  (128, 128, 15, 20, 1, 1), (256, 256, 8, 10, 1, 1), (8, 16, 30, 40, 3, 1), (16, 16, 30, 40, 3, 1)):
    s = session(dense_conv_model(cin, cout, k, stride))
    x = rng.uniform(-1, 1, (1, cin, h, w)).astype(np.float32)
    print(f"onnxruntime UltraFace Conv+Relu {cin}x{h}x{w} -> {cout} {k}x{k} stride {stride}: {timed(s, {'x': x}, 0.5):.1f} us")
