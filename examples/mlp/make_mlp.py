"""Writes the MLP example: mlp.onnxtext (graph, float initializers without values), mlp.safetensors
(the weights, under the graph's names), and expected.json (onnxruntime's output for a fixed input).
Run once; the outputs are committed. Needs numpy, onnx and onnxruntime (dev-time only)."""
import json
import struct

import numpy as np
import onnx
from onnx import TensorProto, helper
import onnxruntime as ort

rng = np.random.default_rng(7)
IN, HIDDEN, OUT = 16, 32, 4
w1 = rng.standard_normal((IN, HIDDEN), dtype=np.float32) * 0.3
b1 = rng.standard_normal((HIDDEN,), dtype=np.float32) * 0.1
w2 = rng.standard_normal((HIDDEN, OUT), dtype=np.float32) * 0.3
b2 = rng.standard_normal((OUT,), dtype=np.float32) * 0.1
weights = {"fc1_weight": w1, "fc1_bias": b1, "fc2_weight": w2, "fc2_bias": b2}

text = f"""<ir_version: 8, opset_import: ["" : 17]>
mlp (float[batch, {IN}] x) => (float[batch, {OUT}] logits)
<float[{IN}, {HIDDEN}] fc1_weight = {{}}, float[{HIDDEN}] fc1_bias = {{}}, float[{HIDDEN}, {OUT}] fc2_weight = {{}}, float[{OUT}] fc2_bias = {{}}>
{{
  h0 = MatMul(x, fc1_weight)
  h1 = Add(h0, fc1_bias)
  h2 = Relu(h1)
  h3 = MatMul(h2, fc2_weight)
  logits = Add(h3, fc2_bias)
}}
"""
open("mlp.onnxtext", "w").write(text)

# safetensors: 8-byte length, JSON header, payload in header order.
header, payload, offset = {}, b"", 0
for name, arr in weights.items():
    data = arr.astype("<f4").tobytes()
    header[name] = {"dtype": "F32", "shape": list(arr.shape), "data_offsets": [offset, offset + len(data)]}
    payload += data
    offset += len(data)
hjson = json.dumps(header, separators=(",", ":")).encode()
hjson += b" " * ((8 - len(hjson) % 8) % 8)
open("mlp.safetensors", "wb").write(struct.pack("<Q", len(hjson)) + hjson + payload)

# The oracle: the same graph with its weights as initializers, run by onnxruntime.
model = onnx.parser.parse_model(text)
del model.graph.initializer[:]
for name, arr in weights.items():
    model.graph.initializer.append(onnx.numpy_helper.from_array(arr, name))
x = (np.arange(3 * IN, dtype=np.float32).reshape(3, IN) / 10.0 - 2.0).astype(np.float32)
sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
(y,) = sess.run(None, {"x": x})
json.dump({"input": x.tolist(), "logits": y.tolist()}, open("expected.json", "w"), indent=1)
print("logits", y)
