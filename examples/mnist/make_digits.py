"""Writes digits/digit_K.f32 (784 little-endian float32 pixels, 0..255, row-major 28x28) and
digits/labels.txt from the six test data sets shipped with MNIST-12 (see PROVENANCE.md): the label
of each is the argmax of the logits ONNX's test data records for it. Dev-time only (numpy, onnx)."""
import glob
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper

src = sys.argv[1] if len(sys.argv) > 1 else "../../../shared/models/mnist-12"
labels = []
for k, d in enumerate(sorted(glob.glob(os.path.join(src, "test_data_set_*")))):
    x = numpy_helper.to_array(onnx.load_tensor(os.path.join(d, "input_0.pb"))).astype("<f4")
    y = numpy_helper.to_array(onnx.load_tensor(os.path.join(d, "output_0.pb")))
    assert x.shape == (1, 1, 28, 28), x.shape
    x.tofile(f"digits/digit_{k}.f32")
    labels.append(int(np.argmax(y)))
open("digits/labels.txt", "w").write(" ".join(map(str, labels)) + "\n")
print(labels)
