"""The bounds certificate of wai-ops/1 §8.5, the verdicts, and the accelerator subset (§9.2)."""
import hashlib

import bounds
import whg1
from bounds import CLASS, WIDTH, bits, fits

I32 = (-(1 << 31), (1 << 31) - 1)
NPU_NO = ('igdn', 'layernorm_c', 'l2norm', 'softmax', 'sigmoid', 'elu', 'gram', 'apply')
RQ_OPS = ('conv', 'conv_transpose', 'rescale', 'mul', 'gram', 'apply')


def in32(v):
    return I32[0] <= v <= I32[1]


def acc32_params(op):
    n, p = op['op'], op['p']
    keys = []
    if n in RQ_OPS:
        rq = p['rq']
        if rq['m_kind'] and not all(in32(m) for m in rq['mult']): keys.append('rq.mult')
        if any(s > 63 for s in rq['shift']): keys.append('rq.shift')
        if rq['bias'] == 'post' and not all(in32(b) for b in rq['bvals']): keys.append('rq.post_bias')
    if n in ('conv', 'conv_transpose') and not all(in32(w) for w in p['w']): keys.append('weights')
    if n == 'chscale':
        if not all(in32(m) for m in p['M']): keys.append('chscale.m')
        if p['s'] > 63: keys.append('chscale.s')
    if n == 'igdn':
        if not all(in32(x) for x in p['gamma']): keys.append('igdn.gamma')
        if p['gf'] > 63 or p['frac'] > 63: keys.append('igdn.shift')
    if n == 'leaky' and not in32(p['a']): keys.append('leaky.a')
    return keys


def node_flags(g, op):
    n, p = op['op'], op['p']
    f = set()
    if n == 'lut16': f.add('lut16')
    if n == 'chscale': f.add('chscale')
    if n in ('add', 'chunk_add'):
        state = {i['tensor'] for i in g['inputs'] if i['kind'] == 'state'}
        if any(t in state for t in op['ins']): f.add('state_add')
    if n in RQ_OPS or n == 'chscale':
        if n == 'chscale':
            rnd, has_m, mults, shifts, post = p['round'], True, p['M'], [p['s']], False
        else:
            rq = p['rq']
            rnd, has_m, mults, shifts, post = rq['round'], rq['m_kind'] != 0, rq['mult'], rq['shift'], rq['bias'] == 'post'
        if rnd == 'half_even': f.add('rq_half_even')
        if rnd == 'floor' and has_m: f.add('rq_floor_mult')
        if post: f.add('rq_post_bias')
        if any(m < 0 for m in mults): f.add('rq_neg_mult')
        if any(s > 31 for s in shifts): f.add('rq_shift_range')
    return sorted(f)


def npu_reasons_of(g, op):
    n, p = op['op'], op['p']
    r = set()
    if n in NPU_NO: r.add('op:' + n)
    if n == 'conv':
        cin = g['tensors'][op['ins'][0]]['ch']
        gr = p['groups']
        if gr != 1 and gr != cin: r.add('conv_groups')
        elif gr == cin and gr > 1 and p['cout'] != cin: r.add('conv_groups')
    if n == 'crop' and any(p[k][0] == 1 for k in ('y0', 'x0', 'h', 'w')): r.add('crop_scalar')
    return r


def iv_obj(iv):
    return {'bits': bits(*iv), 'hi': iv[1], 'lo': iv[0]}


def node_values(node):
    """(key, class, interval) of every recorded intermediate and producer result."""
    vals = [(k, CLASS[k], v) for k, v in node['im'].items()]
    vals += [('out.%d' % k, 'tensor', o['result']) for k, o in enumerate(node['outs'])]
    return vals


def node_failure(node, prof, params):
    """None if the node fits `prof`, else the failure (key, bits or None)."""
    if node['saturated']:
        return ('saturated', None)
    w = WIDTH[prof]
    bad = [(bits(*v), k) for k, c, v in node_values(node) if not fits(v, w[c])]
    if bad:
        b = max(x[0] for x in bad)
        return (min(k for bb, k in bad if bb == b), b)
    if prof == 'acc32':
        if params:
            return (params[0], None)
        if any(o['policy'] == 'check' for o in node['outs']):
            return ('policy.check', None)
    return None


def certify_graph(name, b, g=None):
    """Certifies one graph (its WHG1 bytes). Returns (graph object, failure info per profile, npu info).

    Raises whg1.Refuse if the graph does not load (§10.5 steps 1-8, without a profile)."""
    if g is None:
        g = whg1.parse(b)
    shapes = whg1.plan(g)
    nodes, iv = bounds.run(g, shapes)
    T = g['tensors']
    inputs = []
    for i in g['inputs']:
        t = T[i['tensor']]
        o = {'hi': t['hi'], 'kind': i['kind'], 'lo': t['lo'], 'max_h': i['max_h'], 'max_w': i['max_w'],
             'policy': t['policy'], 'tensor': i['tensor']}
        if i['kind'] == 'state':
            o['init'] = i['init']; o['src'] = i['src']
        inputs.append(o)
    scalars = [{'hi': hi, 'index': k, 'lo': lo} for k, (lo, hi) in enumerate(g['scalars'])]
    nobjs = []
    fail = {'acc32': None, 'acc64': None}
    for k, i in enumerate(g['inputs']):
        t = T[i['tensor']]
        for prof in ('acc32', 'acc64'):
            if fail[prof] is None and not fits((t['lo'], t['hi']), WIDTH[prof]['tensor']):
                fail[prof] = {'bits': bits(t['lo'], t['hi']), 'graph': name, 'index': k, 'key': 'range', 'where': 'input'}
    for k, (lo, hi) in enumerate(g['scalars']):
        for prof in ('acc32', 'acc64'):
            if fail[prof] is None and not fits((lo, hi), WIDTH[prof]['tensor']):
                fail[prof] = {'bits': bits(lo, hi), 'graph': name, 'index': k, 'key': 'range', 'where': 'scalar'}
    flags, reasons = set(), set()
    for node in nodes:
        op = node['op']
        params = acc32_params(op)
        fitsp = []
        for prof in ('acc32', 'acc64'):
            f = node_failure(node, prof, params)
            if f is None:
                fitsp.append(prof)
            elif fail[prof] is None:
                fo = {'graph': name, 'index': op['index'], 'key': f[0], 'where': 'node'}
                if f[1] is not None:
                    fo['bits'] = f[1]
                fail[prof] = fo
        nf = node_flags(g, op)
        flags.update(nf)
        reasons.update(npu_reasons_of(g, op))
        no = {'acc32_params': params, 'fits': fitsp, 'index': op['index'],
              'intermediates': {k: iv_obj(v) for k, v in node['im'].items()},
              'npu_flags': nf, 'op': op['op'], 'saturated': node['saturated'],
              'out': [{'bits': bits(*o['iv']), 'hi': o['iv'][1], 'lo': o['iv'][0], 'policy': o['policy'],
                       'result': iv_obj(o['result']), 'tensor': o['tensor']} for o in node['outs']]}
        n = op['op']
        if n in ('conv', 'conv_transpose', 'igdn', 'gram', 'apply'):
            key = {'conv': 'conv.term', 'conv_transpose': 'convT.term', 'igdn': 'igdn.term',
                   'gram': 'gram.term', 'apply': 'apply.term'}[n]
            P = max(abs(node['im'][key][0]), abs(node['im'][key][1]))
            no['k_c'] = 'unbounded' if P == 0 else ((1 << 31) - 1) // P
        if n in ('conv', 'conv_transpose', 'chscale', 'mul', 'gram', 'apply'):
            mac = {'a_bits': [bits(*iv[t]) for t in op['ins']]}
            if n in ('conv', 'conv_transpose', 'chscale'):
                w = op['p']['w'] if n != 'chscale' else op['p']['M']
                mac['w_bits'] = bits(min(w), max(w))
            no['mac'] = mac
        nobjs.append(no)
    gobj = {'graph_sha256': hashlib.sha256(bytes(b)).hexdigest(), 'inputs': inputs, 'name': name,
            'nodes': nobjs, 'scalars': scalars}
    return gobj, fail, (flags, reasons)


def certificate(graphs, capability=None, lowering='whg1', set_sha256=None):
    """graphs: [(role, bytes)]. Returns the certificate object (see canon.dumps)."""
    gobjs, fail, flags, reasons = [], {'acc32': None, 'acc64': None}, set(), set()
    for name, b in graphs:
        gobj, f, (fl, rs) = certify_graph(name, b)
        gobjs.append(gobj)
        for prof in f:
            if fail[prof] is None:
                fail[prof] = f[prof]
        flags |= fl
        reasons |= rs
    verdict = {'acc32': fail['acc32'] is None, 'acc64': fail['acc64'] is None}
    for prof in ('acc32', 'acc64'):
        if fail[prof] is not None:
            verdict[prof + '_first_failure'] = fail[prof]
    if not verdict['acc32']:
        reasons.add('acc32')
    verdict['npu'] = not reasons
    verdict['npu_flags'] = sorted(flags)
    verdict['npu_reasons'] = sorted(reasons)
    return {'capability': capability, 'certificate': 'wai-ops/1 bounds', 'graphs': gobjs,
            'lowering': lowering, 'set_sha256': set_sha256, 'verdict': verdict}


def load(b, profile='acc64'):
    """The load outcome of §10.5 under `profile`: 'ok' or a refusal code."""
    try:
        cert = certificate([('graph', b)])
    except whg1.Refuse as r:
        return r.code
    return 'ok' if cert['verdict'][profile] else 'model_mismatch'
