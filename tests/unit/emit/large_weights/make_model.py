#!/usr/bin/env python3
"""Writes a model of 64 MiB of weights into DIR (python3's standard library only): model.onnxtext,
x float[1, 2048] times W float[2048, 8192] (the weights carry no values in the graph), and
model.safetensors holding W: the floats of a pattern 8191 long (prime, so no row of 8192 repeats
another), repeated.

    make_model.py DIR
"""
import json
import os
import struct
import sys

K, N, PERIOD = 2048, 8192, 8191


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "model.onnxtext"), "w") as f:
        f.write('<ir_version: 8, opset_import: ["" : 17]>\n'
                f"big (float[1, {K}] x) => (float[1, {N}] y)\n"
                f"<float[{K}, {N}] w = {{}}>\n"
                "{\n  y = MatMul (x, w)\n}\n")
    pattern = struct.pack(f"<{PERIOD}f", *[((i * 7919) % 2003) / 2003.0 - 0.5 for i in range(PERIOD)])
    size = K * N * 4
    payload = (pattern * (size // len(pattern) + 1))[:size]
    header = json.dumps({"w": {"dtype": "F32", "shape": [K, N], "data_offsets": [0, size]}}).encode()
    header += b" " * (-len(header) % 8)
    with open(os.path.join(out, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(header)) + header + payload)


if __name__ == "__main__":
    main()
