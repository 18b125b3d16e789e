#!/usr/bin/env python3
"""Writes newer_schemas.inc: the signatures of the default ONNX domain's operators in the opsets
past those of the ONNX library Loam links (Debian's libonnx 1.12 knows opsets up to 17).

For every operator version ONNX defines from opset FIRST to LAST, one entry: the operator, the
opset it was defined in, its input and output counts, its attributes with their kinds and whether
each is required, and whether ONNX deprecated it (its checker refuses such a node). The schema check reads a node of a newer model against the newest entry
at or below the model's opset, and against the library's schema when its operator changed in none
of them. Read from the `onnx` package's own schemas (bench/models/requirements.txt's version):

    python3 src/onnx/make_newer_schemas.py > src/onnx/newer_schemas.inc
"""
import sys

import onnx
import onnx.defs

FIRST, LAST = 18, 28

KINDS = {
    "FLOAT": "FLOAT", "INT": "INT", "STRING": "STRING", "TENSOR": "TENSOR", "GRAPH": "GRAPH",
    "FLOATS": "FLOATS", "INTS": "INTS", "STRINGS": "STRINGS", "TENSORS": "TENSORS", "GRAPHS": "GRAPHS",
    "SPARSE_TENSOR": "SPARSE_TENSOR", "SPARSE_TENSORS": "SPARSE_TENSORS", "TYPE_PROTO": "TYPE_PROTO",
    "TYPE_PROTOS": "TYPE_PROTOS",
}


def main() -> None:
    if onnx.defs.onnx_opset_version() < LAST:
        sys.exit(f"the onnx package {onnx.__version__} defines opsets up to {onnx.defs.onnx_opset_version()}, not {LAST}")
    schemas = [s for s in onnx.defs.get_all_schemas_with_history()
               if s.domain == "" and FIRST <= s.since_version <= LAST]
    schemas.sort(key=lambda s: (s.name, s.since_version))
    out = [f"// Written by make_newer_schemas.py from the onnx package {onnx.__version__}'s schemas: the default",
           f"// domain's operator versions of opsets {FIRST} to {LAST}. Do not edit.",
           f"constexpr int kFirstNewerOpset = {FIRST};",
           f"constexpr int kLastNewerOpset = {LAST};"]
    for i, s in enumerate(schemas):
        attrs = sorted(s.attributes.items())
        rows = ", ".join(f'{{"{name}", A::{KINDS[str(a.type).split(".")[-1]]}, {str(a.required).lower()}}}'
                         for name, a in attrs)
        out.append(f"constexpr NewerAttribute kAttributes{i}[] = {{{rows}}};" if attrs else
                   f"constexpr std::span<const NewerAttribute> kAttributes{i};")
    out.append("constexpr NewerSchema kNewerSchemas[] = {")
    for i, s in enumerate(schemas):
        out.append(f'    {{"{s.name}", {s.since_version}, {s.min_input}, {s.max_input}, {s.min_output}, '
                   f'{s.max_output}, kAttributes{i}, {str(s.deprecated).lower()}}},')
    out.append("};")
    print("\n".join(out))


if __name__ == "__main__":
    main()
