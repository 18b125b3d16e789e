#!/usr/bin/env python3
"""Writes the refusal cases under cases/ that ONNX's text form cannot state: a .onnx model each,
built with onnx's helper and broken on purpose by one field. (The .onnxtext cases beside them are
written by hand.) Run with a Python that has the onnx package; the outputs are committed."""
import os

import onnx
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")


def main():
    # An initializer carrying its data twice: raw_data and float_data.
    w = helper.make_tensor("w", TensorProto.FLOAT, [2], [1.0, 2.0])
    w.raw_data = b"\0" * 8
    graph = helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])], [w])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    with open(os.path.join(CASES, "raw_and_typed_data.onnx"), "wb") as f:
        f.write(model.SerializeToString())


if __name__ == "__main__":
    main()
