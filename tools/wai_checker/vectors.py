"""Rewrites the conformance vector files of wai-ops/1 §14.1, §14.2 and §14.5 from the graph bytes
and the inputs alone: `load`, `profiles` and every `expect`, and npu.jsonl; and the stage-operator
vectors (§14.1) from each vector's `in` and `modes`.

  vectors.py ROOT OUT    reads ROOT/vectors/*.jsonl, ROOT/graphs/*.jsonl and ROOT/stage/*.jsonl,
                         writes the same files under OUT, and OUT/npu.jsonl; and for each set that
                         ROOT/certificates/sets.jsonl names (its bytes in ROOT/sets/), lowers it and
                         writes its certificate, its lowered graphs and its line again (§14.3)
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import canon  # noqa: E402
import certificate  # noqa: E402
import ops  # noqa: E402
import stage  # noqa: E402
import lower_int_synth  # noqa: E402
import hashlib  # noqa: E402
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


def recompute_stage(vec):
    return {'expect': stage.expect(vec['op'], vec['in'], vec['modes']), 'id': vec['id'], 'in': vec['in'],
            'modes': vec['modes'], 'op': vec['op']}


def write(dest, rel, lines):
    os.makedirs(os.path.dirname(os.path.join(dest, rel)), exist_ok=True)
    with open(os.path.join(dest, rel), 'w', newline='\n') as f:
        f.write(''.join(lines))


LOWERINGS = {'wai.neural.int_synth': lower_int_synth}


def certificates(root, dest):
    index = os.path.join(root, 'certificates', 'sets.jsonl')
    if not os.path.exists(index):
        return
    lines = []
    for line in open(index):
        entry = json.loads(line)
        cap, name, pin = entry['capability'], entry['name'], entry['ops_profile']
        rel = 'sets/%s/%s.json' % (cap, name)
        with open(os.path.join(root, rel), 'rb') as f:
            set_bytes = f.read()
        os.makedirs(os.path.dirname(os.path.join(dest, rel)), exist_ok=True)
        with open(os.path.join(dest, rel), 'wb') as f:
            f.write(set_bytes)
        digest = hashlib.sha256(set_bytes).hexdigest()
        low = LOWERINGS[cap]
        outcome = 'ok'
        try:
            graphs, cert = low.lower_graphs(set_bytes)
            d = os.path.join(dest, 'certificates', cap)
            os.makedirs(os.path.join(d, digest), exist_ok=True)
            with open(os.path.join(d, digest + '.json'), 'w', newline='') as f:
                f.write(canon.dumps(cert))
            for role, b in graphs:
                with open(os.path.join(d, digest, role + '.whg1'), 'wb') as f:
                    f.write(b)
            v = cert['verdict']
            if not v['acc64']:
                outcome = 'payload_malformed'  # §13.1: the certificate meets acc64
            elif pin is not None and not v[pin]:
                outcome = 'payload_malformed'  # §8.6 with int_synth's one code (§4)
        except low.LowerRefuse as r:
            outcome = r.code
        lines.append(canon.dumps({'capability': cap, 'name': name, 'ops_profile': pin, 'outcome': outcome,
                                  'set_sha256': digest}) + '\n')
    write(dest, 'certificates/sets.jsonl', lines)


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
        write(dest, rel, lines)
    sd = os.path.join(root, 'stage')
    for name in sorted(os.listdir(sd)) if os.path.isdir(sd) else []:
        if name.endswith('.jsonl'):
            with open(os.path.join(sd, name)) as f:
                write(dest, 'stage/' + name, [canon.dumps(recompute_stage(json.loads(line))) + '\n' for line in f])
    certificates(root, dest)
    with open(os.path.join(dest, 'npu.jsonl'), 'w', newline='\n') as f:
        f.write(''.join(npu))


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
