"""Writes the data sets of the PaddleOCR text detector (see PROVENANCE.md).

Each input is a drawn page: a few lines of dark strokes on a light, slightly noisy background,
normalised as PaddleOCR's detector preprocesses it ((pixel / 255 - mean) / std with ImageNet's mean
and std, CHW), at sides that are multiples of 32 as its resizing makes them. The expected outputs
are onnxruntime's (CPU, default options): the map of text probability at every pixel.
Needs numpy, onnx and onnxruntime. Run from this directory: python3 make_data.py
"""
import os

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper

MEAN = np.array([0.485, 0.456, 0.406])
STD = np.array([0.229, 0.224, 0.225])


def page(height, width, seed):
    """Lines of vertical bars of varying heights on baselines, like lines of text."""
    rng = np.random.default_rng(seed)
    img = np.full((height, width, 3), 235.0) + rng.normal(0, 6, (height, width, 3))
    for base in range(24, height - 4, 30):
        x = int(rng.integers(4, 20))
        end = width - int(rng.integers(6, width // 3))
        while x < end:
            w = int(rng.integers(2, 5))
            top = base - int(rng.choice([8, 11, 18]))
            img[top:base, x:x + w, :] = 30 + rng.normal(0, 4, (base - top, w, 3))
            x += w + int(rng.integers(2, 7))
    img = np.clip(img, 0, 255) / 255.0
    return ((img - MEAN) / STD).transpose(2, 0, 1).astype(np.float32)


def main():
    model = onnx.load("model.onnx")
    session = ort.InferenceSession("model.onnx", providers=["CPUExecutionProvider"])
    name = model.graph.input[0].name
    sets = [[page(96, 160, 1)], [page(64, 128, 2), page(64, 128, 3)]]
    for k, images in enumerate(sets):
        x = np.stack(images)
        (y,) = session.run(None, {name: x})
        d = f"test_data_set_{k}"
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "input_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(x, name).SerializeToString())
        with open(os.path.join(d, "output_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(y, model.graph.output[0].name).SerializeToString())
        print(d, x.shape, y.shape, float(y.min()), float(y.max()), float((y > 0.3).mean()))


if __name__ == "__main__":
    main()
