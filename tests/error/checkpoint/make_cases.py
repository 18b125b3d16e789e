#!/usr/bin/env python3
"""Writes one directory per checkpoint refusal under cases/, each holding the input files and
expected.txt, the exact message the build must stop with (committed; rerun only to change them).

Files are written byte by byte from the published safetensors layout (8-byte little-endian header
length, JSON header, payload) so each case breaks exactly one rule. The messages are written here by
hand; the byte positions in them are computed from the bytes this script lays down.

A case directory holds: input.safetensors (one file), or several *.safetensors (read together as
shards), or model.safetensors.index.json (a sharded checkpoint); graph.txt, when present, lists the
graph's initializers without data, one per line: `name element_type dim...`.
"""
import json
import os
import shutil
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")


def header_text(header) -> bytes:
    return json.dumps(header, separators=(",", ":")).encode() if isinstance(header, dict) else header


def st(header, payload=b"", length=None) -> bytes:
    text = header_text(header)
    return struct.pack("<Q", len(text) if length is None else length) + text + payload


def base(header) -> int:
    """The file offset the payload starts at."""
    return 8 + len(header_text(header))


def case(name, files, expected):
    d = os.path.join(CASES, name)
    os.makedirs(d)
    for fname, content in files.items():
        with open(os.path.join(d, fname), "wb") as f:
            f.write(content if isinstance(content, bytes) else content.encode())
    with open(os.path.join(d, "expected.txt"), "w") as f:
        f.write(expected + "\n")


def one(name, header, payload, expected, length=None):
    case(name, {"input.safetensors": st(header, payload, length)}, "input.safetensors: " + expected)


def u8(offsets, shape=None):
    n = offsets[1] - offsets[0]
    return {"dtype": "U8", "shape": [n] if shape is None else shape, "data_offsets": offsets}


def main():
    shutil.rmtree(CASES, ignore_errors=True)
    os.makedirs(CASES)

    # --- the 8-byte length
    case("too_short", {"input.safetensors": b"\x01\x02\x03\x04\x05"},
         "input.safetensors: file is 5 bytes, shorter than the 8-byte header length at its start")
    case("header_past_file", {"input.safetensors": struct.pack("<Q", 1000) + b"{}" + b" " * 18},
         "input.safetensors: header length 1000 (bytes 0..8) runs past the end of the file (28 bytes)")
    case("header_absurd", {"input.safetensors": struct.pack("<Q", 1 << 40) + b"{}"},
         "input.safetensors: header length 1099511627776 (bytes 0..8) is over the limit of 104857600 bytes")

    # --- the JSON
    one("invalid_json", b'{"a":}', b"",
        "invalid JSON at byte 13: syntax error while parsing value - unexpected '}'; "
        "expected '[', '{', or a literal")
    one("not_object", b"[1,2]", b"", "the header is JSON but not an object")
    # The reference reader parses the header with serde_json: no byte order mark, no NUL padding
    # (its writer pads with spaces).
    one("byte_order_mark", b"\xef\xbb\xbf{}", b"",
        "the header starts with a UTF-8 byte order mark (bytes 8..11), which a safetensors header does not carry")
    one("nul_padding", b"{}\0\0", b"", "byte 10 of the header is NUL; a header is JSON, padded only with spaces")
    one("duplicate_key", b'{"w":' + header_text(u8([0, 1])) + b',"w":' + header_text(u8([0, 1])) + b"}",
        b"\0", 'key "w" appears twice in one object')
    one("deep_nesting", b'{"__metadata__":' + b"[" * 100 + b"]" * 100 + b"}", b"",
        "JSON nests deeper than 64 levels")
    one("metadata_not_string", {"__metadata__": {"k": 1}}, b"", '__metadata__: value of "k" is not a string')

    # --- one tensor entry
    one("unknown_dtype", {"w": {"dtype": "F7", "shape": [1], "data_offsets": [0, 4]}}, b"\0" * 4,
        "tensor 'w': unknown dtype \"F7\"")
    one("control_bytes_in_name", {"a\nb": {"dtype": "X", "shape": [], "data_offsets": [0, 0]}}, b"",
        "tensor 'a\\x0ab': unknown dtype \"X\"")
    one("missing_offsets", {"w": {"dtype": "U8", "shape": [1]}}, b"\0", "tensor 'w': missing 'data_offsets'")
    one("unknown_tensor_key", {"w": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1], "extra": 1}}, b"\0",
        "tensor 'w': unknown key \"extra\" (a tensor entry has dtype, shape and data_offsets)")
    one("negative_extent", {"w": {"dtype": "U8", "shape": [-1], "data_offsets": [0, 0]}}, b"",
        "tensor 'w': shape[0] is -1, not a non-negative integer")
    h = {"w": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 20]}}
    one("size_mismatch", h, b"\0" * 20,
        f"tensor 'w': data_offsets [0, 20] (file bytes {base(h)}..{base(h) + 20}) hold 20 bytes, "
        "but shape [2, 3] of F32 needs 24")
    one("element_count_overflow", {"w": {"dtype": "F32", "shape": [1 << 62, 8], "data_offsets": [0, 0]}}, b"",
        "tensor 'w': shape [4611686018427387904, 8] has more elements than 64 bits count")
    one("byte_count_overflow", {"w": {"dtype": "F32", "shape": [1 << 62], "data_offsets": [0, 0]}}, b"",
        "tensor 'w': shape [4611686018427387904] of F32 needs more bytes than 64 bits count")
    one("partial_byte", {"w": {"dtype": "F4", "shape": [3], "data_offsets": [0, 2]}}, b"\0\0",
        "tensor 'w': shape [3] of F4 does not fill a whole number of bytes")
    h = {"w": {"dtype": "U8", "shape": [0], "data_offsets": [8, 4]}}
    one("offsets_reversed", h, b"\0" * 8,
        f"tensor 'w': data_offsets [8, 4] (file bytes {base(h) + 8}..{base(h) + 4}) end before they begin")

    # --- tensors against the payload and each other
    h = {"w": u8([0, 4])}
    one("offsets_past_payload", h, b"\0\0",
        f"tensor 'w': data_offsets [0, 4] (file bytes {base(h)}..{base(h) + 4}) end past the payload, "
        "which holds 2 bytes")
    h = {"a": u8([0, 4]), "b": u8([2, 6])}
    one("overlap", h, b"\0" * 6,
        f"tensor 'b': data_offsets [2, 6] (file bytes {base(h) + 2}..{base(h) + 6}) overlap tensor 'a' at "
        f"data_offsets [0, 4] (file bytes {base(h)}..{base(h) + 4})")
    h = {"a": u8([0, 4]), "b": u8([6, 10])}
    one("gap", h, b"\0" * 10,
        f"tensor 'b': data_offsets [6, 10] (file bytes {base(h) + 6}..{base(h) + 10}) leave payload bytes "
        "4..6 unused: tensors must be contiguous")
    h = {"a": u8([0, 4])}
    one("trailing_bytes", h, b"\0" * 6,
        f"the payload holds 6 bytes, but its tensors cover 4 (file bytes {base(h) + 4}..{base(h) + 6} "
        "belong to no tensor)")

    # --- shards
    w = st({"w": u8([0, 2])}, b"\0\0")
    case("tensor_in_two_shards", {"a.safetensors": w, "b.safetensors": w},
         "b.safetensors: tensor 'w' is also in a.safetensors; a tensor belongs to one shard")
    s1 = "model-00001-of-00002.safetensors"
    s2 = "model-00002-of-00002.safetensors"
    case("index_missing_shard",
         {s1: w, "model.safetensors.index.json": json.dumps({"weight_map": {"w": s1, "v": s2}})},
         f"model.safetensors.index.json: weight_map places tensor 'v' in shard '{s2}', which does not exist "
         f"(looked for {s2})")
    case("index_wrong_shard",
         {s1: w, s2: st({"u": u8([0, 1])}, b"\0"),
          "model.safetensors.index.json": json.dumps({"weight_map": {"w": s1, "u": s1}})},
         f"model.safetensors.index.json: weight_map places tensor 'u' in shard '{s1}', whose header has no "
         "tensor of that name")
    case("index_unlisted_tensor",
         {s1: st({"w": u8([0, 2]), "x": u8([2, 3])}, b"\0" * 3),
          "model.safetensors.index.json": json.dumps({"weight_map": {"w": s1}})},
         f"{s1}: tensor 'x' is not in the weight_map of model.safetensors.index.json")
    case("index_shard_outside",
         {"model.safetensors.index.json": json.dumps({"weight_map": {"w": "../x.safetensors"}})},
         "model.safetensors.index.json: weight_map: tensor 'w': shard '../x.safetensors' is not a file name "
         "beside the index")
    case("index_without_weight_map",
         {"model.safetensors.index.json": json.dumps({"metadata": {"total_size": 0}})},
         "model.safetensors.index.json: missing 'weight_map'")

    # --- against the graph
    ckpt = st({"fc.weight": {"dtype": "F32", "shape": [4, 3], "data_offsets": [0, 48]},
               "fc.bias": {"dtype": "F32", "shape": [4], "data_offsets": [48, 64]}}, b"\0" * 64)
    case("graph_tensor_missing", {"input.safetensors": ckpt, "graph.txt": "fc.weight float 4 3\nproj.weight float 3 3\n"},
         "graph.txt: initializer 'proj.weight' has no data in the graph, and the checkpoint (input.safetensors) "
         "has no tensor of that name")
    case("graph_dtype_mismatch", {"input.safetensors": ckpt, "graph.txt": "fc.weight float16 4 3\n"},
         "input.safetensors: tensor 'fc.weight' is F32, but the graph (graph.txt) declares it float16")
    case("graph_rank_mismatch", {"input.safetensors": ckpt, "graph.txt": "fc.weight float 4 3\nfc.bias float 1 4\n"},
         "input.safetensors: tensor 'fc.bias' has shape [4] (rank 1), but the graph (graph.txt) declares [1, 4] "
         "(rank 2)")
    case("graph_extent_mismatch", {"input.safetensors": ckpt, "graph.txt": "fc.weight float 4 8\n"},
         "input.safetensors: tensor 'fc.weight': axis 1 has extent 3, but the graph (graph.txt) declares 8 "
         "(checkpoint shape [4, 3], graph shape [4, 8])")
    case("graph_dtype_without_element_type",
         {"input.safetensors": st({"q": {"dtype": "F8_E4M3", "shape": [2], "data_offsets": [0, 2]}}, b"\0\0"),
          "graph.txt": "q float 2\n"},
         "input.safetensors: tensor 'q' is F8_E4M3, but the graph (graph.txt) declares it float")


if __name__ == "__main__":
    main()
