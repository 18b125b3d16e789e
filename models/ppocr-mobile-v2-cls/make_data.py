"""Writes the data sets of the PaddleOCR text-direction classifier (see PROVENANCE.md).

Each input is a drawn text line, normalised as PaddleOCR's classifier preprocesses it
((pixel / 255 - 0.5) / 0.5, CHW); the expected outputs are onnxruntime's (CPU, default options).
Needs numpy, onnx and onnxruntime. Run from this directory: python3 make_data.py
"""
import os

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper


def text_line(height, width, seed, upside_down):
    """Dark strokes on a light, slightly noisy page: vertical bars of varying heights resting on a
    baseline near the bottom (ascenders go up), like a line of text; flipped when upside_down."""
    rng = np.random.default_rng(seed)
    img = np.full((height, width, 3), 235.0) + rng.normal(0, 6, (height, width, 3))
    x = 4
    base = int(height * 0.78)
    while x < width - 6:
        w = int(rng.integers(2, 5))
        top = base - int(rng.choice([10, 14, 26]))
        img[top:base, x:x + w, :] = 30 + rng.normal(0, 4, (base - top, w, 3))
        x += w + int(rng.integers(2, 7))
    if upside_down:
        img = img[::-1, ::-1, :]
    img = np.clip(img, 0, 255) / 255.0
    return ((img - 0.5) / 0.5).transpose(2, 0, 1).astype(np.float32)


def main():
    model = onnx.load("model.onnx")
    session = ort.InferenceSession("model.onnx", providers=["CPUExecutionProvider"])
    name = model.graph.input[0].name
    sets = [
        [text_line(48, 192, 1, False)],
        [text_line(48, 160, 2, True), text_line(48, 160, 3, False)],
    ]
    for k, images in enumerate(sets):
        x = np.stack(images)
        (y,) = session.run(None, {name: x})
        d = f"test_data_set_{k}"
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "input_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(x, name).SerializeToString())
        with open(os.path.join(d, "output_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(y, model.graph.output[0].name).SerializeToString())
        print(d, x.shape, y.tolist())


if __name__ == "__main__":
    main()
