#!/usr/bin/env python3
"""Writes the seed corpora of fuzz_whg1 and fuzz_wai_decode from the WHG1 graphs of the
conformance vectors (tests/wai/vectors, tests/wai/graphs): one seed per distinct graph.
A decode seed is the graph's length (u32 LE), the graph, then fixed bytes that choose input sizes
and values. And the corpus of fuzz_wai_json: byte 0 then each stage vector's {"in", "modes", "op"}
(tests/wai/stage), and byte 1 then each int_synth.json set (tests/wai/sets).
Run from the repository root."""
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

os.makedirs('tests/fuzz/seeds/wai_json', exist_ok=True)
seeds = 0
for f in sorted(glob.glob('tests/wai/stage/*.jsonl')):
    for line in open(f):
        v = json.loads(line)
        doc = json.dumps({'in': v['in'], 'modes': v['modes'], 'op': v['op']}, separators=(',', ':')).encode()
        if len(doc) < 65536:
            open('tests/fuzz/seeds/wai_json/stage_%s' % hashlib.sha256(doc).hexdigest()[:16], 'wb').write(b'\x00' + doc)
            seeds += 1
for f in sorted(glob.glob('tests/wai/sets/*/*.json')):
    b = open(f, 'rb').read()
    open('tests/fuzz/seeds/wai_json/set_%s' % hashlib.sha256(b).hexdigest()[:16], 'wb').write(b'\x01' + b)
    seeds += 1
print(seeds, 'json seeds')
