#!/usr/bin/env python3
"""Writes the seed corpora of fuzz_whg1 and fuzz_wai_decode from the WHG1 graphs of the
conformance vectors (tests/wai/vectors, tests/wai/graphs): one seed per distinct graph.
A decode seed is the graph's length (u32 LE), the graph, then fixed bytes that choose input sizes
and values. Run from the repository root."""
import glob, hashlib, json, os, struct

root = os.getcwd()
graphs = {}
for f in sorted(glob.glob('tests/wai/vectors/*.jsonl') + glob.glob('tests/wai/graphs/*.jsonl')):
    for line in open(f):
        v = json.loads(line)
        g = bytes.fromhex(v['graph'])
        if len(g) <= 65536 - 64:
            graphs.setdefault(hashlib.sha256(g).hexdigest()[:16], g)
tail = bytes([3, 3] + [(i * 37 + 11) % 256 for i in range(48)])
for name, g in graphs.items():
    os.makedirs('tests/fuzz/seeds/whg1', exist_ok=True)
    os.makedirs('tests/fuzz/seeds/wai_decode', exist_ok=True)
    open(f'tests/fuzz/seeds/whg1/{name}', 'wb').write(g)
    open(f'tests/fuzz/seeds/wai_decode/{name}', 'wb').write(struct.pack('<I', len(g)) + g + tail)
print(len(graphs), 'graphs')
