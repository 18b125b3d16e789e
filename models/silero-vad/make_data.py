"""Writes the data sets of Silero's voice-activity detector as the package runs it (see PROVENANCE.md).

The package's OnnxWrapper feeds one chunk at a time: 512 samples of 16 kHz audio after the 64 that
ended the previous chunk ([1, 576]), the state [2, 1, 128] the previous call returned, and the rate
as an int64 scalar. Each data set here is one such call on the synthetic audio of
../silero-vad-16k-sequence/make_data.py (the same generator, imported from there), at a chunk where
the speech probability is low and one where it is high, each from the state the calls before it
left. The expected outputs are onnxruntime's (CPU, default options).
Needs numpy, onnx and onnxruntime. Run from this directory: python3 make_data.py
"""
import importlib.util
import os

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("sequence_data", os.path.join(here, "..", "silero-vad-16k-sequence", "make_data.py"))
sequence_data = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sequence_data)
CHUNK, CONTEXT = sequence_data.CHUNK, sequence_data.CONTEXT


def main():
    session = ort.InferenceSession(os.path.join(here, "model.onnx"), providers=["CPUExecutionProvider"])
    x = sequence_data.audio(0.9, 1)
    padded = np.concatenate([np.zeros(CONTEXT, np.float32), x])
    state = np.zeros((2, 1, 128), np.float32)
    sr = np.array(16000, dtype=np.int64)
    # Chunk 3 lies in the leading silence, chunk 12 in a burst.
    keep = {3: 0, 12: 1}
    for k in range(max(keep) + 1):
        chunk = padded[k * CHUNK:k * CHUNK + CONTEXT + CHUNK][None, :]
        feeds = {"input": chunk, "state": state, "sr": sr}
        prob, next_state = session.run(None, feeds)
        if k in keep:
            d = os.path.join(here, f"test_data_set_{keep[k]}")
            os.makedirs(d, exist_ok=True)
            for j, name in enumerate(["input", "state", "sr"]):
                with open(os.path.join(d, f"input_{j}.pb"), "wb") as f:
                    f.write(numpy_helper.from_array(feeds[name], name).SerializeToString())
            for j, (name, y) in enumerate([("output", prob), ("stateN", next_state)]):
                with open(os.path.join(d, f"output_{j}.pb"), "wb") as f:
                    f.write(numpy_helper.from_array(y, name).SerializeToString())
            print(f"chunk {k}: speech probability {prob[0, 0]:.4f}")
        state = next_state


if __name__ == "__main__":
    main()
