"""Rewrites the conformance vector files of wai-ops/1 §14.1, §14.2 and §14.5 from the graph bytes
and the inputs alone: `load`, `profiles` and every `expect`, and npu.jsonl.

  vectors.py ROOT OUT    reads ROOT/vectors/*.jsonl and ROOT/graphs/*.jsonl, writes the same
                         files under OUT, and OUT/npu.jsonl
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import canon  # noqa: E402
import certificate  # noqa: E402
import ops  # noqa: E402
import whg1  # noqa: E402


def ints(v):
    return [int(x) for x in v]


def tensor_obj(t):
    return {'data': list(t[3]), 'shape': [t[0], t[1], t[2]]}


def recompute(vec):
    """Returns (vector object, npu entry or None)."""
    b = bytes.fromhex(vec['graph'])
    out = {'graph': vec['graph'], 'id': vec['id']}
    try:
        g = whg1.parse(b)
        cert = certificate.certificate([('graph', b)])
        load = 'ok' if cert['verdict']['acc64'] else 'model_mismatch'
    except whg1.Refuse as r:
        load, cert = r.code, None
    out['load'] = load
    if load != 'ok':
        out['profiles'] = ['acc32', 'acc64']
        out['decodes'] = []
        return out, None
    v = cert['verdict']
    out['profiles'] = [p for p in ('acc32', 'acc64') if v[p]]
    seq = ops.Sequence(g)
    decodes = []
    for d in vec['decodes']:
        ins = [(int(t['shape'][0]), int(t['shape'][1]), int(t['shape'][2]), ints(t['data'])) for t in d['inputs']]
        scalars = ints(d['scalars'])
        try:
            res = seq.decode(ins, scalars)
            expect = {'outputs': [tensor_obj(t) for t in res]}
        except whg1.Refuse as r:
            expect = {'refuse': r.code}
        decodes.append({'expect': expect, 'inputs': d['inputs'], 'scalars': d['scalars']})
    out['decodes'] = decodes
    return out, {'npu': v['npu'], 'npu_flags': v['npu_flags'], 'npu_reasons': v['npu_reasons']}


def main(root, dest):
    npu = []
    files = []
    for sub in ('graphs', 'vectors'):
        d = os.path.join(root, sub)
        if os.path.isdir(d):
            files += [sub + '/' + f for f in os.listdir(d) if f.endswith('.jsonl')]
    files.sort(key=lambda p: p.encode('ascii'))
    for rel in files:
        lines = []
        with open(os.path.join(root, rel)) as f:
            for line in f:
                vec, entry = recompute(json.loads(line))
                lines.append(canon.dumps(vec) + '\n')
                if entry is not None:
                    entry.update({'file': rel, 'id': vec['id']})
                    npu.append(canon.dumps(entry) + '\n')
        os.makedirs(os.path.dirname(os.path.join(dest, rel)), exist_ok=True)
        with open(os.path.join(dest, rel), 'w', newline='\n') as f:
            f.write(''.join(lines))
    with open(os.path.join(dest, 'npu.jsonl'), 'w', newline='\n') as f:
        f.write(''.join(npu))


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
