"""The operators of wai-ops/1 §5 and the decode of §4 and §10.3, from the text alone.

A tensor is (C, H, W, data) with data a list in CHW order (§3)."""
import whg1
from bounds import isqrt
from whg1 import Refuse, rq_mult, rq_shift, rq_pre, rq_post

CAP = 1 << 26


def R(p, s, rnd):
    """R_floor, R_half_up and R_half_even of §2."""
    if s == 0:
        return p
    if rnd == 'floor':
        return p >> s
    if rnd == 'half_up':
        return (p + (1 << (s - 1))) >> s
    q = p >> s
    r = p - (q << s)
    h = 1 << (s - 1)
    return q + 1 if (r > h or (r == h and q % 2 == 1)) else q


def rq_apply(rq, o, v):
    t = v + rq_pre(rq, o)
    return R(t * rq_mult(rq, o), rq_shift(rq, o), rq['round']) + rq_post(rq, o)


def exp_neg_q16(x):
    u = -x
    n = u // 45426
    r = x + 45426 * n
    t = r + 88670
    q = (t * t) >> 16
    y = ((23495 * q) >> 16) + 22544
    return 0 if n >= 63 else y >> n


def rsqrt_q16(v):
    r = isqrt(v)
    return 0 if r == 0 else (1 << 32) // r


def trunc_div(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def at(t, c, y, x):
    return t[3][(c * t[1] + y) * t[2] + x]


def plan_run(g, op, shapes, scalars):
    """§4 run step 3 for one operator: formed sizes (too_large), then the shape rule
    (geometry_mismatch). Returns the output shapes."""
    n, p = op['op'], op['p']
    if n == 'crop':
        C, H, W = shapes[0]
        vals = {}
        for k in ('y0', 'x0', 'h', 'w'):
            kind, v = p[k]
            vals[k] = v if kind == 0 else scalars[v]
        if vals['y0'] < 0 or vals['x0'] < 0 or vals['h'] < 1 or vals['w'] < 1 or \
                vals['y0'] + vals['h'] > H or vals['x0'] + vals['w'] > W:
            raise Refuse('geometry_mismatch', 'operator %d (crop) does not fit' % op['index'])
        return [(C, vals['h'], vals['w'])]
    try:
        return whg1.plan_op(g, op, shapes, True)
    except Refuse as r:
        if r.code == 'model_mismatch':
            raise Refuse('geometry_mismatch', str(r))
        raise


def evaluate(g, op, ins, scalars, out_shapes):
    n, p = op['op'], op['p']
    x = ins[0]
    C, H, W, X = x
    if n == 'conv':
        co, kh, kw, sh, sw, ph, pw, gr = (p[k] for k in ('cout', 'kh', 'kw', 'sh', 'sw', 'ph', 'pw', 'groups'))
        _, Ho, Wo = out_shapes[0]
        cg, og = C // gr, co // gr
        w = p['w']
        out = []
        for o in range(co):
            base = (o // og) * cg
            for y in range(Ho):
                for xx in range(Wo):
                    acc = 0
                    for ci in range(cg):
                        for i in range(kh):
                            u = y * sh + i - ph
                            if not 0 <= u < H:
                                continue
                            for j in range(kw):
                                v = xx * sw + j - pw
                                if 0 <= v < W:
                                    acc += w[((o * cg + ci) * kh + i) * kw + j] * X[((base + ci) * H + u) * W + v]
                    out.append(rq_apply(p['rq'], o, acc))
        return [(co, Ho, Wo, out)]
    if n == 'conv_transpose':
        co, kh, kw, sh, sw, ph, pw = (p[k] for k in ('cout', 'kh', 'kw', 'sh', 'sw', 'ph', 'pw'))
        _, Ho, Wo = out_shapes[0]
        uh, uw = (H - 1) * sh + kh + p['oph'], (W - 1) * sw + kw + p['opw']
        w = p['w']
        acc = [0] * (co * uh * uw)
        for ci in range(C):
            for u in range(H):
                for v in range(W):
                    xv = X[(ci * H + u) * W + v]
                    if xv == 0:
                        continue
                    for o in range(co):
                        for i in range(kh):
                            for j in range(kw):
                                acc[(o * uh + u * sh + i) * uw + v * sw + j] += w[((ci * co + o) * kh + i) * kw + j] * xv
        out = [rq_apply(p['rq'], o, acc[(o * uh + y + ph) * uw + xx + pw])
               for o in range(co) for y in range(Ho) for xx in range(Wo)]
        return [(co, Ho, Wo, out)]
    if n == 'rescale':
        return [(C, H, W, [rq_apply(p['rq'], k // (H * W), v) for k, v in enumerate(X)])]
    if n == 'chscale':
        r = scalars[p['scalar']]
        return [(C, H, W, [R(v * p['M'][r * C + k // (H * W)], p['s'], p['round']) for k, v in enumerate(X)])]
    if n == 'mul':
        b = ins[1]
        hw = H * W
        return [(C, H, W, [rq_apply(p['rq'], k // hw, v * b[3][(k if b[0] == C else k % hw)]) for k, v in enumerate(X)])]
    if n == 'lut16':
        return [(C, H, W, [p['T'][v + 32768] for v in X])]
    if n == 'add':
        return [(C, H, W, [a + b for a, b in zip(X, ins[1][3])])]
    if n == 'chunk_add':
        half = (C // 2) * H * W
        return [(C // 2, H, W, [X[k] + X[k + half] for k in range(half)])]
    if n == 'clamp':
        return [(C, H, W, [min(max(v, p['lo']), p['hi']) for v in X])]
    if n == 'relu':
        return [(C, H, W, [max(v, 0) for v in X])]
    if n == 'abs':
        return [(C, H, W, [abs(v) for v in X])]
    if n == 'leaky':
        return [(C, H, W, [v if v >= 0 else (v * p['a']) >> p['f'] for v in X])]
    if n == 'igdn':
        hw = H * W
        out = [0] * len(X)
        for pos in range(hw):
            xs = [X[j * hw + pos] for j in range(C)]
            for i in range(C):
                N = p['beta'][i] + sum((p['gamma'][i * C + j] * xs[j] * xs[j]) >> p['gf'] for j in range(C))
                r = isqrt(max(0, N))
                out[i * hw + pos] = (xs[i] * r) >> p['frac']
        return [(C, H, W, out)]
    if n == 'layernorm_c':
        hw = H * W
        out = [0] * len(X)
        for pos in range(hw):
            xs = [X[c * hw + pos] for c in range(C)]
            S = sum(xs)
            M = S + (C // 2) * ((S > 0) - (S < 0))
            m = trunc_div(M, C)
            d = [v - m for v in xs]
            T = sum(v * v for v in d)
            k = rsqrt_q16(T // C + p['eps'])
            for c in range(C):
                nc = (d[c] * k) >> 16
                out[c * hw + pos] = ((nc * p['gamma'][c]) >> 16) + p['beta'][c]
        return [(C, H, W, out)]
    if n == 'l2norm':
        hw = H * W
        out = []
        for c in range(C):
            vs = X[c * hw:(c + 1) * hw]
            k = rsqrt_q16(sum(v * v for v in vs) + p['eps'])
            out.extend((v * k) >> 16 for v in vs)
        return [(C, H, W, out)]
    if n == 'softmax':
        out = []
        for row in range(C * H):
            vs = X[row * W:(row + 1) * W]
            m = max(vs)
            es = [exp_neg_q16(v - m) for v in vs]
            s = sum(es)
            out.extend((e * 65536 + s // 2) // s for e in es)
        return [(C, H, W, out)]
    if n == 'sigmoid':
        def sig(v):
            if v >= 0:
                return (1 << 32) // (65536 + exp_neg_q16(-v))
            e = exp_neg_q16(v)
            return (e * 65536) // (65536 + e)
        return [(C, H, W, [sig(v) for v in X])]
    if n == 'elu':
        a = p['alpha']
        return [(C, H, W, [v if v > 0 else (a * (exp_neg_q16(v) - 65536)) >> 16 for v in X])]
    if n == 'gram':
        d = C // p['groups']
        B = ins[1][3]
        hw = H * W
        out = []
        for c in range(C):
            g0 = (c // d) * d
            for j in range(d):
                s = sum(X[c * hw + k] * B[(g0 + j) * hw + k] for k in range(hw))
                out.append(rq_apply(p['rq'], c, s))
        return [(C, 1, d, out)]
    if n == 'apply':
        _, VH, VW, V = ins[1]
        d = C // p['groups']
        hw = VH * VW
        out = []
        for c in range(C):
            g0 = (c // d) * d
            for k in range(hw):
                s = sum(X[c * d + j] * V[(g0 + j) * hw + k] for j in range(d))
                out.append(rq_apply(p['rq'], c, s))
        return [(C, VH, VW, out)]
    if n == 'concat':
        data = []
        for t in ins:
            data.extend(t[3])
        return [(sum(t[0] for t in ins), H, W, data)]
    if n == 'split':
        hw = H * W
        return [(p['count'], H, W, X[p['start'] * hw:(p['start'] + p['count']) * hw])]
    if n == 'pixel_shuffle':
        r = p['r']
        Co, Ho, Wo = C // (r * r), H * r, W * r
        out = [0] * (Co * Ho * Wo)
        for c in range(Co):
            for h in range(H):
                for w in range(W):
                    for i in range(r):
                        for j in range(r):
                            out[(c * Ho + h * r + i) * Wo + w * r + j] = X[((c * r * r + i * r + j) * H + h) * W + w]
        return [(Co, Ho, Wo, out)]
    if n == 'pixel_unshuffle':
        r = p['r']
        Co, Ho, Wo = C * r * r, H // r, W // r
        out = [0] * (Co * Ho * Wo)
        for c in range(C):
            for h in range(Ho):
                for w in range(Wo):
                    for i in range(r):
                        for j in range(r):
                            out[((c * r * r + i * r + j) * Ho + h) * Wo + w] = X[(c * H + h * r + i) * W + w * r + j]
        return [(Co, Ho, Wo, out)]
    if n == 'pad_rep':
        _, Ho, Wo = out_shapes[0]
        return [(C, Ho, Wo, [X[(c * H + min(y, H - 1)) * W + min(xx, W - 1)]
                             for c in range(C) for y in range(Ho) for xx in range(Wo)])]
    if n in ('crop_to', 'crop'):
        _, Ho, Wo = out_shapes[0]
        y0 = x0 = 0
        if n == 'crop':
            vals = [v if kind == 0 else scalars[v] for kind, v in (p['y0'], p['x0'])]
            y0, x0 = vals
        return [(C, Ho, Wo, [X[(c * H + y0 + y) * W + x0 + xx] for c in range(C) for y in range(Ho) for xx in range(Wo)])]
    if n == 'subpos_split':
        outs = []
        for k in range(4):
            a, b = divmod(p['order'][k], 2)
            outs.append((C, H // 2, W // 2, [X[(c * H + 2 * y + a) * W + 2 * xx + b]
                                              for c in range(C) for y in range(H // 2) for xx in range(W // 2)]))
        return outs
    if n == 'subpos_merge':
        out = [0] * (C * 4 * H * W)
        for k in range(4):
            a, b = divmod(p['order'][k], 2)
            src = ins[k][3]
            for c in range(C):
                for y in range(H):
                    for xx in range(W):
                        out[(c * 2 * H + 2 * y + a) * 2 * W + 2 * xx + b] = src[(c * H + y) * W + xx]
        return [(C, 2 * H, 2 * W, out)]
    if n == 'fill':
        v = p['value'] if p['kind'] == 0 else scalars[p['value']]
        Co = g['tensors'][op['outs'][0]]['ch']
        return [(Co, H, W, [v] * (Co * H * W))]
    raise AssertionError(n)


def policy(t, data, what):
    if t['policy'] == 'clamp':
        return [min(max(v, t['lo']), t['hi']) for v in data]
    if t['policy'] == 'check':
        for v in data:
            if not t['lo'] <= v <= t['hi']:
                raise Refuse('field_range', '%s: %d outside [%d, %d]' % (what, v, t['lo'], t['hi']))
    return data


class Sequence:
    """One sequence of decodes through a loaded graph (§4 run, §10.3 state)."""

    def __init__(self, g):
        self.g = g
        self.state = {}  # input index -> tensor, once a decode has completed

    def decode(self, data_inputs, scalars):
        """data_inputs: [(C, H, W, data)] for the data inputs in table order. Returns the outputs
        [(C, H, W, data)] or raises Refuse."""
        g = self.g
        T = g['tensors']
        it = iter(data_inputs)
        ins = []
        for k, i in enumerate(g['inputs']):
            if i['kind'] == 'data':
                ins.append(next(it))
            elif k in self.state:
                ins.append(self.state[k])
            else:
                ch = T[i['tensor']]['ch']
                H0, W0 = ins[0][1], ins[0][2]
                ins.append((ch, H0, W0, [i['init']] * (ch * H0 * W0)))
        # run step 1
        for k, (i, t) in enumerate(zip(g['inputs'], ins)):
            if t[0] != T[i['tensor']]['ch'] or t[1] < 1 or t[2] < 1:
                raise Refuse('model_mismatch', 'input %d shape' % k)
            if (i['max_h'] and (t[1] > i['max_h'] or t[2] > i['max_w'])) or t[0] * t[1] * t[2] > g['max_elems']:
                raise Refuse('too_large', 'input %d size' % k)
        # run step 2
        for k, ((lo, hi), v) in enumerate(zip(g['scalars'], scalars)):
            if not lo <= v <= hi:
                raise Refuse('field_range', 'scalar %d' % k)
        # run step 3
        shapes = {}
        for i, t in zip(g['inputs'], ins):
            shapes[i['tensor']] = t[:3]
        plans = []
        for op in g['ops']:
            outs = plan_run(g, op, [shapes[t] for t in op['ins']], scalars)
            for t, s in zip(op['outs'], outs):
                if s[0] * s[1] * s[2] > g['max_elems']:
                    raise Refuse('too_large', 'operator %d output' % op['index'])
                shapes[t] = s
            plans.append(outs)
        # run step 4
        vals = {}
        for k, (i, t) in enumerate(zip(g['inputs'], ins)):
            vals[i['tensor']] = (t[0], t[1], t[2], policy(T[i['tensor']], t[3], 'input %d' % k))
        for op, outs in zip(g['ops'], plans):
            res = evaluate(g, op, [vals[t] for t in op['ins']], scalars, outs)
            for t, r in zip(op['outs'], res):
                vals[t] = (r[0], r[1], r[2], policy(T[t], r[3], 'tensor %d' % t))
        outputs = [vals[t] for t in g['outputs']]
        for k, i in enumerate(g['inputs']):
            if i['kind'] == 'state':
                self.state[k] = vals[g['outputs'][i['src']]]
        return outputs
