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
    write("raw_and_typed_data", model)

    # What ONNX's checker refuses and Loam's own checks do not state, each naming its place.
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
    relu = helper.make_node("Relu", ["x"], ["y"])

    def relu_model(inputs=(x,), outputs=(y,), nodes=(relu,), ir_version=8, opset=17):
        graph = helper.make_graph(list(nodes), "g", list(inputs), list(outputs))
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=ir_version)

    # A graph input with an element type and no shape (a main graph's inputs need both).
    unshaped = onnx.ValueInfoProto(name="x")
    unshaped.type.tensor_type.elem_type = TensorProto.FLOAT
    write("input_without_shape", relu_model(inputs=[unshaped]))
    # The same at opset 18, past the schemas of the ONNX library Loam links: the checker still runs.
    write("input_without_shape_at_18", relu_model(inputs=[unshaped], opset=18))
    # A graph output with a shape and no element type.
    untyped = onnx.ValueInfoProto(name="y")
    untyped.type.tensor_type.shape.dim.add().dim_value = 2
    write("output_without_element_type", relu_model(outputs=[untyped]))
    # IR versions before 3 have no opset_import.
    write("opset_import_before_ir_3", relu_model(ir_version=2))
    # Two metadata entries under one key.
    twice = relu_model()
    twice.metadata_props.add(key="author", value="a")
    twice.metadata_props.add(key="author", value="b")
    write("metadata_key_twice", twice)
    # A node whose op_type is empty.
    nameless = helper.make_node("Relu", ["x"], ["y"])
    nameless.op_type = ""
    write("node_without_op_type", relu_model(nodes=[nameless]))
    # An attribute whose type is float that also carries an int.
    leaky = helper.make_node("LeakyRelu", ["x"], ["y"], alpha=0.5)
    leaky.attribute[0].i = 3
    write("attribute_two_values", relu_model(nodes=[leaky]))
    # The same on a node of an operator opset 18 redefined (ReduceMean): its form is still checked.
    mean = helper.make_node("ReduceMean", ["x"], ["y"], keepdims=1)
    mean.attribute[0].f = 0.5
    write("attribute_two_values_at_18", relu_model(nodes=[mean], opset=18))
    # A graph input whose element type is no code ONNX defines.
    unknown = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    unknown.type.tensor_type.elem_type = 99
    write("input_unknown_element_type", relu_model(inputs=[unknown]))


def write(name, model):
    with open(os.path.join(CASES, name + ".onnx"), "wb") as f:
        f.write(model.SerializeToString())


if __name__ == "__main__":
    main()
