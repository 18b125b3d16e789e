#!/usr/bin/env python3
"""Writes a copy of MNIST-12 whose batch is N instead of 1 (default 64).

MNIST-12 fixes its batch twice: the input Input3 is declared [1,1,28,28] (the output
Plus214_Output_0 [1,10]) and the Reshape before the classifier reads the constant initializer
Pooling160_Output_0_reshape0_shape = [1, 256]. This script changes exactly those three things --
input dim 0, output dim 0 and the reshape constant's first element -- to N, and drops the graph's
value_info (intermediate shapes recorded for batch 1; both Loam and onnxruntime infer them).
Weights, nodes and every other attribute are untouched.

usage: make_mnist_batch.py SRC.onnx DST.onnx [N]
"""
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def main() -> None:
    src, dst = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 64
    model = onnx.load(src)
    g = model.graph
    (inp,) = g.input
    (out,) = g.output
    assert inp.name == "Input3" and inp.type.tensor_type.shape.dim[0].dim_value == 1
    assert out.name == "Plus214_Output_0" and out.type.tensor_type.shape.dim[0].dim_value == 1
    inp.type.tensor_type.shape.dim[0].dim_value = n
    out.type.tensor_type.shape.dim[0].dim_value = n
    for i, t in enumerate(g.initializer):
        if t.name == "Pooling160_Output_0_reshape0_shape":
            shape = numpy_helper.to_array(t)
            assert list(shape) == [1, 256], shape
            g.initializer[i].CopyFrom(numpy_helper.from_array(np.array([n, 256], dtype=np.int64), t.name))
            break
    else:
        raise SystemExit("reshape constant not found")
    del g.value_info[:]
    onnx.checker.check_model(model)
    onnx.save(model, dst)


if __name__ == "__main__":
    main()
