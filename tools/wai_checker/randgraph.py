"""Seeded random WHG1 graphs for the differential test (C++ certifier against this checker).

The graphs are inputs only: nothing here computes an expectation. Most plan and load; some are
meant to saturate, to fail a profile, or to be refused."""
import random
import struct

import build

I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1


def value(r):
    k = r.random()
    if k < 0.35:
        return r.randint(-8, 8)
    if k < 0.55:
        return r.randint(-300, 300)
    if k < 0.7:
        return r.choice([(1 << 31) - 1, -(1 << 31), 1 << 31, -(1 << 31) - 1, 1 << 15, -(1 << 15)])
    if k < 0.85:
        return r.randint(-(1 << r.randint(1, 62)), 1 << r.randint(1, 62))
    return r.choice([I64_MIN, I64_MAX, I64_MIN + 1, I64_MAX - 1, r.randint(I64_MIN, I64_MAX)])


def rng_range(r):
    a, b = value(r), value(r)
    return (min(a, b), max(a, b))


def weights(r, n):
    k = r.random()
    if k < 0.6:
        return [r.randint(-127, 127) for _ in range(n)]
    if k < 0.8:
        return [r.randint(-40000, 40000) for _ in range(n)]
    return [value(r) for _ in range(n)]


def rq_block(r, C, allow_bias=True, allow_mult=True, one_shift=False):
    rnd = r.randrange(3)
    bias = r.randrange(3) if allow_bias else 0
    mult = None
    per = False
    if allow_mult and r.random() < 0.6:
        per = r.random() < 0.5
        mult = [value(r) if r.random() < 0.3 else r.randint(-70000, 70000) for _ in range(C if per else 1)]
    ns = 1 if (one_shift or r.random() < 0.5) else C
    shift = tuple(r.choice([0, 1, 2, 7, 16, 31, 32, 62, 63, 64, 127]) if r.random() < 0.5 else r.randint(0, 20)
                  for _ in range(ns))
    bvals = [value(r) for _ in range(C)] if bias else []
    return build.rq(round=rnd, bias=bias, mult=mult, m_per=per, shift=shift, bvals=bvals)


def policy(r):
    k = r.random()
    if k < 0.75:
        return (0, 0, 0)
    lo, hi = rng_range(r)
    return (1 if k < 0.88 else 2, lo, hi)


def graph(seed):
    r = random.Random(seed)
    g = build.Graph()
    sized = r.random() < 0.8
    H, W = (r.randint(1, 5), r.randint(1, 5)) if sized else (0, 0)
    avail = []  # (tensor, C, H, W)
    nin = r.randint(1, 2)
    for k in range(nin):
        C = r.randint(1, 4)
        lo, hi = rng_range(r) if r.random() < 0.5 else (r.randint(-300, 0), r.randint(0, 300))
        t = g.input(C, lo, hi, policy=r.choice([1, 2]), max_h=H, max_w=W)
        avail.append((t, C, H, W))
    if r.random() < 0.3:
        g.scalar(*sorted((r.randint(0, 3), r.randint(0, 3))))
    nops = r.randint(1, 8)
    for _ in range(nops):
        # Chains of operators on the newest tensor reach large intervals, and saturation.
        t, C, h, w = avail[-1] if r.random() < 0.5 else r.choice(avail)
        name = r.choice(['conv', 'conv', 'conv_transpose', 'conv_transpose', 'rescale', 'chscale', 'mul',
                         'add', 'concat', 'chunk_add', 'split', 'pixel_shuffle', 'clamp', 'relu', 'leaky',
                         'abs', 'lut16', 'igdn', 'layernorm_c', 'l2norm', 'softmax', 'sigmoid', 'elu',
                         'gram', 'apply', 'crop', 'subpos_split', 'fill', 'pad_rep'])
        pol, plo, phi = policy(r)
        out = None
        if name == 'conv':
            groups = r.choice([1, C]) if r.random() < 0.8 else 1
            cout = groups * r.randint(1, 3)
            k = r.randint(1, 3)
            n = cout * (C // groups) * k * k
            p = build.conv(cout, k, k, r.randint(1, 2), r.randint(1, 2), r.randint(0, 1), r.randint(0, 1), groups,
                           weights(r, n), rq_block(r, cout))
            out = (g.op('conv', [t], cout, p, pol, plo, phi), cout, 0, 0)
        elif name == 'conv_transpose':
            cout = r.randint(1, 3)
            kh, kw = r.randint(1, 4), r.randint(1, 4)
            sh, sw = r.randint(1, 3), r.randint(1, 3)
            p = build.conv_transpose(cout, kh, kw, sh, sw, 0, 0, r.randint(0, 1), r.randint(0, 1),
                                     weights(r, C * cout * kh * kw), rq_block(r, cout))
            out = (g.op('conv_transpose', [t], cout, p, pol, plo, phi), cout, 0, 0)
        elif name == 'rescale':
            out = (g.op('rescale', [t], C, rq_block(r, C), pol, plo, phi), C, h, w)
        elif name == 'chscale':
            if not g.scalars:
                continue
            nrows = 4
            M = [value(r) if r.random() < 0.2 else r.randint(-1000, 1000) for _ in range(nrows * C)]
            mb = build.width_for(M, (4, 8))
            p = struct.pack('<IIBBBx', 0, nrows, r.randrange(3), mb, r.choice([0, 1, 5, 31, 63, 64])) + build.ints(mb, M)
            out = (g.op('chscale', [t], C, p, pol, plo, phi), C, h, w)
        elif name in ('mul', 'add'):
            cands = [a for a in avail if (a[1] == C or (name == 'mul' and a[1] == 1))]
            b = r.choice(cands)
            if name == 'add' and b[1] != C:
                continue
            p = rq_block(r, C, allow_bias=False) if name == 'mul' else b''
            out = (g.op(name, [t, b[0]], C, p, pol, plo, phi), C, h, w)
        elif name == 'concat':
            b = r.choice(avail)
            out = (g.op('concat', [t, b[0]], C + b[1], b'', pol, plo, phi), C + b[1], h, w)
        elif name == 'chunk_add':
            if C % 2:
                continue
            out = (g.op('chunk_add', [t], C // 2, b'', pol, plo, phi), C // 2, h, w)
        elif name == 'split':
            s = r.randrange(C)
            cnt = r.randint(1, C - s)
            out = (g.op('split', [t], cnt, struct.pack('<II', s, cnt), pol, plo, phi), cnt, h, w)
        elif name == 'pixel_shuffle':
            if C % 4:
                continue
            out = (g.op('pixel_shuffle', [t], C // 4, struct.pack('<I', 2), pol, plo, phi), C // 4, 0, 0)
        elif name == 'clamp':
            lo, hi = rng_range(r)
            out = (g.op('clamp', [t], C, struct.pack('<qq', lo, hi), pol, plo, phi), C, h, w)
        elif name in ('relu', 'abs', 'sigmoid', 'softmax'):
            out = (g.op(name, [t], C, b'', pol, plo, phi), C, h, w)
        elif name == 'leaky':
            out = (g.op('leaky', [t], C, struct.pack('<qI', value(r), r.randint(0, 63)), pol, plo, phi), C, h, w)
        elif name == 'lut16':
            a, c = r.randrange(1, 65536, 2), r.randrange(65536)
            T = [0] + [((i * a + c) % 65536) - 32768 for i in range(1, 65536)]
            out = (g.op('lut16', [t], C, struct.pack('<bb2x', -128, -128) + build.ints(2, T), pol, plo, phi), C, h, w)
        elif name == 'igdn':
            gm = [r.randint(-1000, 1000) if r.random() < 0.8 else value(r) for _ in range(C * C)]
            gb = build.width_for(gm, (4, 8))
            p = struct.pack('<IIB7x', r.randint(0, 20), r.randint(0, 20), gb) + build.ints(gb, gm) + \
                build.ints(8, [value(r) for _ in range(C)])
            out = (g.op('igdn', [t], C, p, pol, plo, phi), C, h, w)
        elif name == 'layernorm_c':
            gm = [r.randint(-70000, 70000) for _ in range(C)]
            eps = r.choice([1, 42949, (1 << 64) - 1, r.randint(1, 1 << 40)])
            p = struct.pack('<QB7x', eps, 4) + build.ints(4, gm) + build.ints(8, [r.randint(-100, 100) for _ in range(C)])
            out = (g.op('layernorm_c', [t], C, p, pol, plo, phi), C, h, w)
        elif name == 'l2norm':
            out = (g.op('l2norm', [t], C, struct.pack('<Q', r.choice([1, 42949, (1 << 64) - 1])), pol, plo, phi), C, h, w)
        elif name == 'elu':
            out = (g.op('elu', [t], C, struct.pack('<q', value(r)), pol, plo, phi), C, h, w)
        elif name == 'gram':
            groups = r.choice([d for d in range(1, C + 1) if C % d == 0])
            p = struct.pack('<I', groups) + rq_block(r, C, allow_bias=False, allow_mult=False, one_shift=True)
            out = (g.op('gram', [t, t], C, p, pol, plo, phi), C, 0, 0)
        elif name == 'apply':
            # A [C, 1, d] from a gram of t, applied to t.
            groups = r.choice([d for d in range(1, C + 1) if C % d == 0])
            p = struct.pack('<I', groups) + rq_block(r, C, allow_bias=False, allow_mult=False, one_shift=True)
            a = g.op('gram', [t, t], C, p)
            p2 = struct.pack('<I', groups) + rq_block(r, C, allow_bias=False, allow_mult=False, one_shift=True)
            out = (g.op('apply', [a, t], C, p2, pol, plo, phi), C, h, w)
        elif name == 'crop':
            if not sized:
                continue
            p = struct.pack('<B3xI', 0, 0) * 2 + struct.pack('<B3xI', 0, 1) * 2
            out = (g.op('crop', [t], C, p, pol, plo, phi), C, 1, 1)
        elif name == 'subpos_split':
            outs = g.op('subpos_split', [t], C, bytes([0, 3, 1, 2]), n_out=4)
            out = (outs[0], C, 0, 0)
        elif name == 'fill':
            ch = r.randint(1, 3)
            if g.scalars and r.random() < 0.5:
                p = struct.pack('<B7xq', 1, 0)
            else:
                p = struct.pack('<B7xq', 0, value(r))
            out = (g.op('fill', [t], ch, p, pol, plo, phi), ch, h, w)
        elif name == 'pad_rep':
            out = (g.op('pad_rep', [t], C, struct.pack('<I', 2), pol, plo, phi), C, 0, 0)
        if out is not None:
            avail.append(out)
    if not g.ops:
        g.op('relu', [avail[0][0]], avail[0][1])
    return g.bytes()


if __name__ == '__main__':
    import argparse
    import os
    ap = argparse.ArgumentParser(description='Write seeded random WHG1 graphs g<seed>.whg1 into a directory.')
    ap.add_argument('--seed', type=int, default=0)
    ap.add_argument('--count', type=int, required=True)
    ap.add_argument('--out', required=True)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    for s in range(a.seed, a.seed + a.count):
        with open(os.path.join(a.out, 'g%06d.whg1' % s), 'wb') as f:
            f.write(graph(s))
