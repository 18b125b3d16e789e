#!/usr/bin/env python3
"""Writes the safetensors fixtures the checkpoint unit tests read (committed; rerun only to change them).

Valid files come from the reference writer (`pip install safetensors numpy`), so the reader is tested
against what the format's own implementation produces. `handmade.safetensors` is written byte by
byte from the published layout (8-byte little-endian header length, JSON header, payload) so its
exact offsets are known without reading the file back; it carries a BF16 tensor, which numpy lacks.
"""
import json
import os
import struct

import numpy as np
from safetensors.numpy import save_file

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")


def raw_safetensors(header: dict, payload: bytes) -> bytes:
    text = json.dumps(header, separators=(",", ":")).encode()
    return struct.pack("<Q", len(text)) + text + payload


def main():
    os.makedirs(DATA, exist_ok=True)
    rng = np.random.default_rng(7)
    # A small MLP's weights in the dtypes a checkpoint carries.
    save_file(
        {
            "fc.weight": rng.standard_normal((4, 3)).astype(np.float32),
            "fc.bias": rng.standard_normal((4,)).astype(np.float32),
            "emb": rng.standard_normal((2, 2)).astype(np.float16),
            "ids": np.arange(3, dtype=np.int64),
            "mask": np.array([[True, False], [False, True]]),
            "scalar": np.array(2.5, dtype=np.float64),
            "empty": np.zeros((0, 5), dtype=np.float32),
        },
        os.path.join(DATA, "small.safetensors"),
        metadata={"format": "pt", "note": "fixture"},
    )
    save_file({}, os.path.join(DATA, "no_tensors.safetensors"))

    # handmade: a (BF16 [2]) at payload bytes 0..4, b (U8 [3]) at 4..7, then c (I32 [1]) at 7..11.
    header = {
        "__metadata__": {"source": "hand"},
        "a": {"dtype": "BF16", "shape": [2], "data_offsets": [0, 4]},
        "c": {"dtype": "I32", "shape": [1], "data_offsets": [7, 11]},
        "b": {"dtype": "U8", "shape": [3], "data_offsets": [4, 7]},
    }
    with open(os.path.join(DATA, "handmade.safetensors"), "wb") as f:
        f.write(raw_safetensors(header, bytes(range(11))))

    # A sharded checkpoint: two shards and the index that maps tensors to them.
    shard_dir = os.path.join(DATA, "sharded")
    os.makedirs(shard_dir, exist_ok=True)
    s1 = {"h.0.w": np.ones((2, 3), dtype=np.float32), "h.0.b": np.ones((3,), dtype=np.float32)}
    s2 = {"h.1.w": np.ones((3, 2), dtype=np.float32)}
    save_file(s1, os.path.join(shard_dir, "model-00001-of-00002.safetensors"))
    save_file(s2, os.path.join(shard_dir, "model-00002-of-00002.safetensors"))
    weight_map = {k: "model-00001-of-00002.safetensors" for k in s1}
    weight_map.update({k: "model-00002-of-00002.safetensors" for k in s2})
    with open(os.path.join(shard_dir, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": 60}, "weight_map": weight_map}, f, indent=2, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
