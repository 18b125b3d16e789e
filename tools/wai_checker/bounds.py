"""The bounds pass of wai-ops/1 §8: saturating interval arithmetic and the §8.3 rules.

Python integers are exact, so every primitive result is computed exactly and then saturated,
which is what §8.1 asks of a 512-bit implementation.
"""
from whg1 import Refuse, rq_mult, rq_shift, rq_pre, rq_post

LIM = 1 << 255

# §7.1 classes of every named intermediate.
CLASS = {
    'conv.term': 'acc', 'conv.acc': 'acc', 'convT.term': 'acc', 'convT.acc': 'acc',
    'rq.t': 'acc', 'rq.p': 'product', 'rq.q': 'acc', 'rq.y': 'acc', 'mul.p': 'acc',
    'gram.term': 'acc', 'gram.acc': 'acc', 'apply.term': 'acc', 'apply.acc': 'acc',
    'leaky.p': 'acc',
    'igdn.x2': 'wide', 'igdn.gx2': 'product', 'igdn.term': 'wide', 'igdn.N': 'wide',
    'igdn.r': 'acc', 'igdn.xr': 'wide',
    'ln.S': 'wide', 'ln.m': 'wide', 'ln.d': 'acc', 'ln.T': 'wide', 'ln.v': 'wide',
    'rsq.num': 'acc', 'ln.k': 'acc', 'ln.dk': 'wide', 'ln.n': 'acc', 'ln.ng': 'wide',
    'l2.T': 'wide', 'l2.k': 'acc', 'l2.vk': 'wide',
    'sm.diff': 'acc', 'exp.negx': 'acc', 'exp.nl': 'acc', 'exp.t2': 'acc', 'exp.c': 'acc',
    'sm.sum': 'acc', 'sm.num': 'acc', 'sig.num': 'acc', 'elu.p': 'wide',
}
WIDTH = {'acc64': {'tensor': 64, 'acc': 64, 'wide': 128, 'product': 128},
         'acc32': {'tensor': 32, 'acc': 32, 'wide': 32, 'product': 64}}


def bits(lo, hi):
    n = 1
    while not (-(1 << (n - 1)) <= lo and hi <= (1 << (n - 1)) - 1):
        n += 1
    return n


def fits(iv, n):
    return -(1 << (n - 1)) <= iv[0] and iv[1] <= (1 << (n - 1)) - 1


def isqrt(n):
    if n <= 0:
        return 0
    x = 1 << ((n.bit_length() + 1) // 2)
    while True:
        y = (x + n // x) // 2
        if y >= x:
            return x
        x = y


class Sat:
    """The primitive operations of §8.1, each followed by sat; `saturated` records a change."""

    def __init__(self):
        self.saturated = False

    def s(self, v):
        if v > LIM:
            self.saturated = True
            return LIM
        if v < -LIM:
            self.saturated = True
            return -LIM
        return v

    def add(self, a, b): return self.s(a + b)
    def sub(self, a, b): return self.s(a - b)
    def mul(self, a, b): return self.s(a * b)
    def fdiv(self, a, b): return self.s(a // b)
    def neg(self, a): return self.s(-a)
    def isqrt(self, a): return self.s(isqrt(a))

    def isqrt_ceil(self, n):
        r = isqrt(n)
        return self.s(r if r * r >= n else r + 1)

    def ceil_div(self, a, b):  # ⌈a/b⌉ = −⌊−a/b⌋
        return self.neg(self.fdiv(self.neg(a), b))

    def R(self, p, s, rnd):
        if rnd == 'floor' or s == 0:
            return self.fdiv(p, 1 << s)
        if rnd == 'half_up':
            return self.fdiv(self.add(p, 1 << (s - 1)), 1 << s)
        q = self.fdiv(p, 1 << s)
        r = self.sub(p, self.mul(q, 1 << s))
        h = 1 << (s - 1)
        if r > h or (r == h and q % 2 == 1):
            return self.add(q, 1)
        return q

    def corner(self, a, b):
        c = [self.mul(a[0], b[0]), self.mul(a[0], b[1]), self.mul(a[1], b[0]), self.mul(a[1], b[1])]
        return (min(c), max(c))

    def term(self, w, iv):
        x, y = self.mul(w, iv[0]), self.mul(w, iv[1])
        return (min(x, y), max(x, y))

    def A(self, terms, b):
        """Partial-sum interval A(K, b) of §8.2, left folds in index order."""
        lo, hi = min(0, b), max(0, b)
        for t in terms:
            lo = self.add(lo, min(0, t[0]))
            hi = self.add(hi, max(0, t[1]))
        return (lo, hi)


def hull(ivs):
    ivs = list(ivs)
    return (min(i[0] for i in ivs), max(i[1] for i in ivs))


def rq_channel(S, t, m, s, rnd, post):
    """§8.3's rq.p, rq.q and rq.y for one channel. Returns (p, q, y)."""
    a, b = S.mul(t[0], m), S.mul(t[1], m)
    P = (min(a, b), max(a, b))
    add = (1 << (s - 1)) if rnd != 'floor' and s >= 1 else 0
    p = (P[0], S.add(P[1], add))
    q = (S.R(P[0], s, rnd), S.R(P[1], s, rnd))
    y = (S.add(q[0], post), S.add(q[1], post))
    return p, q, y


def rq_rules(S, rq, ts, im):
    """Per-channel rq rules over channel rq.t intervals `ts`; records hulls into `im`."""
    ps, qs, ys = [], [], []
    for o, t in enumerate(ts):
        p, q, y = rq_channel(S, t, rq_mult(rq, o), rq_shift(rq, o), rq['round'], rq_post(rq, o))
        ps.append(p); qs.append(q); ys.append(y)
    im['rq.t'] = hull(ts)
    im['rq.p'] = hull(ps)
    im['rq.q'] = hull(qs)
    im['rq.y'] = hull(ys)
    return [im['rq.y']]


def exp_rule(S, u, im):
    im['exp.negx'] = u
    im['exp.nl'] = (S.mul(45426, S.fdiv(u[0], 45426)), S.mul(45426, S.fdiv(u[1], 45426)))
    im['exp.t2'] = (S.mul(43245, 43245), S.mul(88670, 88670))
    im['exp.c'] = (0, S.mul(23495, S.fdiv(S.mul(88670, 88670), 1 << 16)))


def abs_image(S, iv):
    l, h = iv
    if l >= 0:
        return (l, h)
    if h <= 0:
        return (S.neg(h), S.neg(l))
    return (0, max(S.neg(l), h))


def node_rule(g, op, shapes, iv, S):
    """Returns (intermediates dict in definition order, producer results list)."""
    n, p = op['op'], op['p']
    ins = [iv[t] for t in op['ins']]
    l, h = ins[0]
    im = {}
    T = g['tensors']
    if n == 'conv':
        cin = T[op['ins'][0]]['ch']
        cg = cin // p['groups']
        per = cg * p['kh'] * p['kw']
        w = p['w']
        terms_all, accs = [], []
        for o in range(p['cout']):
            terms = [S.term(wt, (l, h)) for wt in w[o * per:(o + 1) * per]]
            terms_all.append(hull(terms))
            accs.append(S.A(terms, rq_pre(p['rq'], o)))
        im['conv.term'] = hull(terms_all)
        im['conv.acc'] = hull(accs)
        return im, rq_rules(S, p['rq'], accs, im)
    if n == 'conv_transpose':
        cin = T[op['ins'][0]]['ch']
        co, kh, kw, sh, sw = p['cout'], p['kh'], p['kw'], p['sh'], p['sw']
        w = p['w']
        terms_all, accs = [], []
        for o in range(co):
            taps = {}
            tl = []
            for ci in range(cin):
                for i in range(kh):
                    for j in range(kw):
                        t = S.term(w[((ci * co + o) * kh + i) * kw + j], (l, h))
                        tl.append(t)
                        taps.setdefault((i % sh, j % sw), []).append(t)
            terms_all.append(hull(tl))
            b = rq_pre(p['rq'], o)
            # One output position reads the taps of one residue; a residue with no taps gives
            # A(∅, b). Residues are visited in (ρy, ρx) order.
            res = [S.A(taps[k], b) for k in sorted(taps)]
            if len(taps) < sh * sw:
                res.append(S.A([], b))
            accs.append(hull(res))
        im['convT.term'] = hull(terms_all)
        im['convT.acc'] = hull(accs)
        return im, rq_rules(S, p['rq'], accs, im)
    if n == 'rescale':
        ts = [(S.add(l, rq_pre(p['rq'], c)), S.add(h, rq_pre(p['rq'], c))) for c in range(T[op['ins'][0]]['ch'])]
        return im, rq_rules(S, p['rq'], ts, im)
    if n == 'chscale':
        C = T[op['ins'][0]]['ch']
        slo, shi = g['scalars'][p['scalar']]
        ps, qs = [], []
        for c in range(C):
            for r in range(slo, shi + 1):
                pp, q, _ = rq_channel(S, (l, h), p['M'][r * C + c], p['s'], p['round'], 0)
                ps.append(pp); qs.append(q)
        im['rq.t'] = (l, h)
        im['rq.p'] = hull(ps)
        im['rq.q'] = hull(qs)
        im['rq.y'] = im['rq.q']
        return im, [im['rq.y']]
    if n == 'mul':
        mp = S.corner(ins[0], ins[1])
        im['mul.p'] = mp
        return im, rq_rules(S, p['rq'], [mp] * T[op['ins'][0]]['ch'], im)
    if n in ('gram', 'apply'):
        term = S.corner(ins[0], ins[1])
        C = T[op['ins'][0]]['ch']
        if n == 'gram':
            L = shapes[op['ins'][0]][1] * shapes[op['ins'][0]][2]
        else:
            L = C // p['groups']
        acc = (S.mul(L, min(0, term[0])), S.mul(L, max(0, term[1])))
        im[n + '.term'] = term
        im[n + '.acc'] = acc
        return im, rq_rules(S, p['rq'], [acc] * C, im)
    if n == 'add':
        return im, [(S.add(ins[0][0], ins[1][0]), S.add(ins[0][1], ins[1][1]))]
    if n == 'chunk_add':
        return im, [(S.mul(2, l), S.mul(2, h))]
    if n == 'clamp':
        lo, hi = p['lo'], p['hi']
        return im, [(min(max(l, lo), hi), min(max(h, lo), hi))]
    if n == 'relu':
        return im, [(max(l, 0), max(h, 0))]
    if n == 'abs':
        return im, [abs_image(S, (l, h))]
    if n == 'leaky':
        parts = []
        if l < 0:
            lp = S.corner((l, min(h, -1)), (p['a'], p['a']))
            im['leaky.p'] = lp
            parts.append((S.fdiv(lp[0], 1 << p['f']), S.fdiv(lp[1], 1 << p['f'])))
        else:
            im['leaky.p'] = (0, 0)
        if h >= 0:
            parts.append((max(l, 0), h))
        return im, [hull(parts)]
    if n == 'lut16':
        if l < -32767 or h > 32767:
            raise Refuse('model_mismatch', 'operator %d (lut16): input range [%d, %d] outside [-32767, 32767]' % (op['index'], l, h))
        vals = p['T'][l + 32768:h + 32769]
        return im, [(min(vals), max(vals))]
    if n == 'igdn':
        C = T[op['ins'][0]]['ch']
        l2_, h2_ = S.mul(l, l), S.mul(h, h)
        x2 = (0, max(l2_, h2_)) if l <= 0 <= h else (min(l2_, h2_), max(l2_, h2_))
        im['igdn.x2'] = x2
        gx2s, terms_all, Ns, rs, xrs, outs = [], [], [], [], [], []
        gf, frac = p['gf'], p['frac']
        for i in range(C):
            terms = []
            for j in range(C):
                gm = p['gamma'][i * C + j]
                gx2 = S.corner((gm, gm), x2)
                gx2s.append(gx2)
                terms.append((S.fdiv(gx2[0], 1 << gf), S.fdiv(gx2[1], 1 << gf)))
            terms_all.extend(terms)
            beta = p['beta'][i]
            Ns.append(S.A(terms, beta))
            nlo = nhi = beta
            for t in terms:
                nlo = S.add(nlo, t[0])
            for t in terms:
                nhi = S.add(nhi, t[1])
            r = (S.isqrt(max(0, nlo)), S.isqrt(max(0, nhi)))
            rs.append(r)
            xr = S.corner((l, h), r)
            xrs.append(xr)
            outs.append((S.fdiv(xr[0], 1 << frac), S.fdiv(xr[1], 1 << frac)))
        im['igdn.gx2'] = hull(gx2s)
        im['igdn.term'] = hull(terms_all)
        im['igdn.N'] = hull(Ns)
        im['igdn.r'] = hull(rs)
        im['igdn.xr'] = hull(xrs)
        return im, [hull(outs)]
    if n == 'layernorm_c':
        C = T[op['ins'][0]]['ch']
        eps = p['eps']
        half = S.fdiv(C, 2)
        im['ln.S'] = (S.mul(C, min(0, l)), S.mul(C, max(0, h)))
        im['ln.m'] = (S.sub(S.mul(C, l), half), S.add(S.mul(C, h), half))
        hl = S.sub(h, l)
        im['ln.d'] = (S.sub(l, h), hl)
        sq = S.mul(hl, hl)
        im['ln.T'] = (0, S.mul(C, sq))
        im['ln.v'] = (eps, S.add(sq, eps))
        im['rsq.num'] = (1 << 32, 1 << 32)
        r0 = S.isqrt(eps)
        k = S.fdiv(1 << 32, r0)
        im['ln.k'] = (0, k)
        ic = S.isqrt_ceil(C)
        D = min(S.mul(hl, k), S.ceil_div(S.mul(S.mul(ic, 1 << 32), S.add(r0, 1)), r0))
        im['ln.dk'] = (S.neg(D), D)
        nmax = S.add(S.fdiv(S.mul(S.mul(ic, 1 << 16), S.add(r0, 1)), r0), 1)
        N = min(S.add(S.fdiv(S.mul(hl, k), 1 << 16), 1), nmax)
        im['ln.n'] = (S.neg(N), N)
        ngs, outs = [], []
        for c in range(C):
            gm = p['gamma'][c]
            ng = S.corner(im['ln.n'], (gm, gm))
            ngs.append(ng)
            outs.append((S.add(S.fdiv(ng[0], 1 << 16), p['beta'][c]), S.add(S.fdiv(ng[1], 1 << 16), p['beta'][c])))
        im['ln.ng'] = hull(ngs)
        return im, [hull(outs)]
    if n == 'l2norm':
        sh = shapes[op['ins'][0]]
        L = sh[1] * sh[2]
        X = max(abs(l), abs(h))
        im['l2.T'] = (0, S.add(S.mul(L, S.mul(X, X)), p['eps']))
        im['rsq.num'] = (1 << 32, 1 << 32)
        im['l2.k'] = (0, S.fdiv(1 << 32, S.isqrt(p['eps'])))
        im['l2.vk'] = (-(1 << 32), 1 << 32)
        return im, [(-(1 << 16), 1 << 16)]
    if n == 'softmax':
        Wm = shapes[op['ins'][0]][2]
        im['sm.diff'] = (S.sub(l, h), 0)
        exp_rule(S, (0, S.sub(h, l)), im)
        im['sm.sum'] = (0, S.mul(Wm, 65553))
        im['sm.num'] = (0, S.add(S.mul(65553, 1 << 16), S.fdiv(S.mul(Wm, 65553), 2)))
        return im, [(0, 1 << 16)]
    if n == 'sigmoid':
        exp_rule(S, abs_image(S, (l, h)), im)
        im['sig.num'] = (0, S.mul(65553, 1 << 16))
        return im, [(0, 1 << 16)]
    if n == 'elu':
        exp_rule(S, (max(0, S.neg(h)), max(0, S.neg(l))), im)
        a = p['alpha']
        ep = S.corner((a, a), (-(1 << 16), 17))
        im['elu.p'] = ep
        parts = []
        if h > 0:
            parts.append((max(l, 1), h))
        if l <= 0:
            parts.append((S.fdiv(ep[0], 1 << 16), S.fdiv(ep[1], 1 << 16)))
        return im, [hull(parts)]
    # movement
    if n in ('concat', 'subpos_merge'):
        return im, [hull(ins)]
    if n == 'subpos_split':
        return im, [(l, h)] * 4
    if n == 'fill':
        if p['kind'] == 0:
            return im, [(p['value'], p['value'])]
        return im, [g['scalars'][p['value']]]
    return im, [(l, h)]  # split, pixel_shuffle, pixel_unshuffle, pad_rep, crop_to, crop


def apply_policy(t, res):
    a, b = res
    if t['policy'] == 'derived':
        return (a, b)
    lo, hi = t['lo'], t['hi']
    if t['policy'] == 'clamp':
        return (min(max(a, lo), hi), min(max(b, lo), hi))
    return (max(a, lo), min(b, hi))


def run(g, shapes, override=None):
    """The pass over the graph. Returns per-node records and tensor intervals.

    `override`: (tensor, interval) to use wherever an operator reads that tensor (§8.4)."""
    T = g['tensors']
    iv = [None] * len(T)
    for i in g['inputs']:
        iv[i['tensor']] = (T[i['tensor']]['lo'], T[i['tensor']]['hi'])
    nodes = []
    for op in g['ops']:
        S = Sat()
        read = iv
        if override is not None and override[0] in op['ins']:
            read = list(iv)
            read[override[0]] = override[1]
        im, results = node_rule(g, op, shapes, read, S)
        outs = []
        for k, (t, res) in enumerate(zip(op['outs'], results)):
            after = apply_policy(T[t], res)
            if T[t]['policy'] == 'check' and after[0] > after[1]:
                raise Refuse('model_mismatch', 'operator %d: tensor %d check range [%d, %d] holds no value the producer gives [%d, %d]' % (op['index'], t, T[t]['lo'], T[t]['hi'], res[0], res[1]))
            iv[t] = after
            outs.append({'tensor': t, 'result': res, 'iv': after, 'policy': T[t]['policy']})
        nodes.append({'op': op, 'im': im, 'outs': outs, 'saturated': S.saturated})
    return nodes, iv
