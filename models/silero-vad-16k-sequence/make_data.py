"""Writes the data sets of Silero's voice-activity detector (see PROVENANCE.md).

Each input is a run of 16 kHz audio framed as the model reads it: every row is 576 samples, the
64 that end the previous chunk followed by the chunk's 512. The audio is made here: silence with a
little noise, then voiced bursts (a fundamental between 110 and 220 Hz with its harmonics under a
syllable-like envelope), seeded. The second set starts from the states the first one ended in, as
a stream does. The expected outputs are onnxruntime's (CPU, default options): the probability of
speech per chunk and the LSTM's last states.
Needs numpy, onnx and onnxruntime. Run from this directory: python3 make_data.py
"""
import os

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper

RATE, CHUNK, CONTEXT = 16000, 512, 64


def audio(seconds, seed):
    rng = np.random.default_rng(seed)
    n = int(seconds * RATE)
    t = np.arange(n) / RATE
    x = rng.normal(0, 0.003, n)
    start = int(0.25 * RATE)
    while start < n - RATE // 10:
        length = int(rng.uniform(0.12, 0.3) * RATE)
        f0 = rng.uniform(110, 220)
        seg = t[: min(length, n - start)]
        envelope = np.sin(np.pi * seg / seg[-1]) ** 2
        voiced = sum(np.sin(2 * np.pi * f0 * k * seg + rng.uniform(0, 6)) / k for k in range(1, 8))
        x[start:start + len(seg)] += 0.3 * envelope * voiced
        start += length + int(rng.uniform(0.05, 0.2) * RATE)
    return x.astype(np.float32)


def frames(x):
    chunks = len(x) // CHUNK
    padded = np.concatenate([np.zeros(CONTEXT, np.float32), x])
    return np.stack([padded[k * CHUNK:k * CHUNK + CONTEXT + CHUNK] for k in range(chunks)])


def main():
    model = onnx.load("model.onnx")
    session = ort.InferenceSession("model.onnx", providers=["CPUExecutionProvider"])
    names = [i.name for i in model.graph.input]
    h = np.zeros((1, 1, 128), np.float32)
    c = np.zeros((1, 1, 128), np.float32)
    for k, (seconds, seed) in enumerate([(0.9, 1), (0.5, 2)]):
        x = frames(audio(seconds, seed))
        feeds = dict(zip(names, [x, h, c]))
        outs = session.run(None, feeds)
        d = f"test_data_set_{k}"
        os.makedirs(d, exist_ok=True)
        for j, name in enumerate(names):
            with open(os.path.join(d, f"input_{j}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(feeds[name], name).SerializeToString())
        for j, (o, y) in enumerate(zip(model.graph.output, outs)):
            with open(os.path.join(d, f"output_{j}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(y, o.name).SerializeToString())
        print(d, x.shape, np.round(outs[0], 3))
        h, c = outs[1], outs[2]  # the stream goes on from where this set ended


if __name__ == "__main__":
    main()
