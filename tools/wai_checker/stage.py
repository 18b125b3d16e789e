"""The stage operators of wai-ops/1 §5E (E2-E13) on §14.1's stage-vector form, from the text alone.

E1 rans64_decode is defined in integer-payloads §2, which this text does not carry: it is not
recomputed here.

  expect(op, in_obj, modes) -> the vector's `expect` object: the result, or {"at", "refuse"}.
"""
from ops import R

I32 = (-(1 << 31), (1 << 31) - 1)
I64 = (-(1 << 63), (1 << 63) - 1)


class StageRefuse(Exception):
    def __init__(self, code, at):
        Exception.__init__(self, code)
        self.code = code
        self.at = at


def cond(ok, code='model_mismatch'):
    """A condition on an operand, mode or table: refused before any symbol or element (at -1)."""
    if not ok:
        raise StageRefuse(code, -1)


def num(v):
    if isinstance(v, bool) or not isinstance(v, (int, str)):
        raise ValueError('not an integer: %r' % (v,))
    return int(v)


def nums(v):
    return [num(x) for x in v]


def tensor(t):
    c, h, w = nums(t['shape'])
    data = nums(t['data'])
    if c < 0 or h < 0 or w < 0 or len(data) != c * h * w:
        raise ValueError('a tensor whose data does not match its shape')
    return c, h, w, data


def tensor_obj(c, h, w, data):
    return {'data': list(data), 'shape': [c, h, w]}


def clamp(v, lo, hi):
    return min(max(v, lo), hi)


def fits(v, rng):
    return rng[0] <= v <= rng[1]


def wrap16(a):
    return ((a + (1 << 15)) % (1 << 16)) - (1 << 15)


# E2
def dequantize(i):
    sym, f, base = num(i['sym']), num(i['f']), num(i['base'])
    if f > 62 or f < 0:
        raise StageRefuse('field_range', 0)
    v = sym * (1 << f) + base
    if not fits(v, I64):
        raise StageRefuse('field_range', 0)
    return {'value': v}


# E3
def bucket(i, modes):
    sigma, e = num(i['sigma']), nums(i['edges'])
    rule = modes['bucket']
    if rule == 'ceil':
        n = len(e)
        cond(n >= 1)
        s2 = max(sigma, e[0])
        return {'index': (n - 1) - sum(1 for k in range(n - 1) if s2 <= e[k])}
    if rule == 'floor':
        cond(len(e) >= 1)
        cond(all(e[k] <= e[k + 1] for k in range(len(e) - 1)))
        return {'index': sum(1 for x in e if x <= sigma)}
    raise ValueError('bucket rule %r' % rule)


# E5
def scale_index(i):
    v, s, n = num(i['v']), num(i['s']), num(i['n'])
    cond(0 <= s <= 127 and n >= 1)
    return {'index': clamp(R(v, s, 'half_up'), 0, n - 1)}


# E6
def block_stat(i):
    c, h, w, x = tensor(i['x'])
    b, s, lo, hi = num(i['b']), num(i['s']), num(i['lo']), num(i['hi'])
    cond(b >= 1 and 0 <= s <= 127 and lo <= hi)
    out = [0] * len(x)
    for ch in range(c):
        for by in range(0, h, b):
            for bx in range(0, w, b):
                cells = [(ch * h + y) * w + xx for y in range(by, min(by + b, h)) for xx in range(bx, min(bx + b, w))]
                v = clamp(R(sum(x[k] for k in cells), s, 'half_up'), lo, hi)
                for k in cells:
                    out[k] = v
    return {'out': tensor_obj(c, h, w, out)}


# E7
def band_lookup(i):
    v, e, row = num(i['v']), nums(i['edges']), num(i['row'])
    table = [nums(r) for r in i['table']]
    cond(0 <= row < len(table))
    cond(len(table[row]) == len(e) + 1)
    return {'value': table[row][sum(1 for x in e if v >= x)]}


# E8
class Window:
    """The backward 64-bit bit window of E8. `at` is the position a refusal is charged to."""

    def __init__(self, stream):
        self.m = bytes(8) + stream
        self.at = 0
        self.p = len(stream)
        self.h = self.le64(self.p)
        if self.h == 0:
            raise StageRefuse('stream_exhausted', 0)
        self.b = self.h.bit_length() - 1
        self.h -= 1 << self.b
        self.s = [self.read(8), self.read(8)]
        self.flush()

    def le64(self, i):
        return int.from_bytes(self.m[i:i + 8], 'little')

    def read(self, k):
        if k > self.b:
            raise StageRefuse('stream_exhausted', self.at)
        self.b -= k
        r = self.h >> self.b
        self.h -= r << self.b
        return r

    def flush(self):
        d = 7 ^ (self.b // 8)
        if d > self.p:
            raise StageRefuse('stream_exhausted', self.at)
        self.p -= d
        self.h = self.le64(self.p) % (1 << (56 + self.b % 8))
        self.b = 56 + self.b % 8


def latent_table(p):
    c = [0]
    for x in p:
        c.append(c[-1] + x)
    f = [ck - ck // 2 for ck in c]
    g = [ck // 2 + 128 for ck in c]
    slots = [None] * 256
    for k in range(len(p)):
        if c[k] >= 256:
            break
        sym = k // 2 if k % 2 == 0 else -(k + 1) // 2
        for u in range(f[k], f[k + 1]):
            slots[u] = (sym, p[k] + (u - f[k]))
        for u in range(g[k], g[k + 1]):
            slots[u] = (sym, p[k] + (f[k + 1] - f[k]) + (u - g[k]))
    table = []
    for sym, nxt in slots:
        nb = 0
        while (nxt << nb) < 256:
            nb += 1
        base = (nxt << nb) ^ 256
        table.append((nb << 24) + (base << 16) + (sym % (1 << 16)))
    return table


def mans_sgm(stream, pmf, bounds, spans):
    cond(len(pmf) >= 1 and len(pmf[0]) >= 1)
    cond(all(len(r) == len(pmf[0]) and all(x >= 0 for x in r) and sum(r) == 256 for r in pmf))
    cond(all(0 <= b <= 255 for b in bounds))
    for mask, sig in spans:
        cond(len(mask) == len(sig))
        cond(all(0 <= s < len(pmf) and s < len(bounds) for s in sig))
    ty = [latent_table(r) for r in pmf]
    win = Window(stream)
    out = []
    pos = 0  # the number of the span's first position across every span

    def step_in(which, sym, sig, i):
        t = ty[sig[i]][win.s[which]]
        win.s[which] = ((t >> 16) | win.read(t >> 24)) % 256
        sym[i] = wrap16(t % (1 << 16))

    def step_out(sym, sig, i):
        beta = bounds[sig[i]]
        if sym[i] + beta == 0:
            f = win.read(1)
            v = win.read(3 if f == 1 else 16)
            sym[i] = wrap16(v // 2 + beta) if v % 2 == 0 else wrap16(-(v // 2) - beta)
            win.flush()

    for mask, sig in spans:
        n = len(mask)
        sym = [0] * n
        i = 0
        while n - i >= 4:
            for j in range(4):
                win.at = pos + i + j
                if mask[i + j]:
                    step_in(j % 2, sym, sig, i + j)
            win.flush()
            for j in range(4):
                win.at = pos + i + j
                if mask[i + j]:
                    step_out(sym, sig, i + j)
            i += 4
        if n - i >= 2:
            for j in range(2):
                win.at = pos + i + j
                if mask[i + j]:
                    step_in(j, sym, sig, i + j)
                    step_out(sym, sig, i + j)
            win.flush()
            i += 2
        if n - i == 1:
            win.at = pos + i
            if mask[i]:
                step_in(0, sym, sig, i)
                step_out(sym, sig, i)
            win.flush()
            i += 1
        out.append([sym[k] if mask[k] else 0 for k in range(n)])
        pos += n
    return out


def zp_table():
    zp = [0] * 512
    nb = 0
    for i in range(511, 0, -1):
        if (i << nb) < 256:
            nb += 1
        zp[i] = ((i << nb) ^ 256) + 256 * nb
    return zp


def mans_fac(stream, rows, lengths):
    cond(len(lengths) == len(rows))
    cond(all(n >= 0 for n in lengths))
    for r in rows:
        cond(len(r) == 63 and all(0 <= x <= 255 for x in r) and all(r[k] <= r[k + 1] for k in range(62)))
    zp = zp_table()
    tz = [0] * 256
    win = Window(stream)
    out = []
    pos = 0
    for r, n in zip(rows, lengths):
        prev = 0
        for a in range(63):
            k = r[a] - prev
            for j in range(prev, r[a]):
                tz[j] = zp[k + j - prev] * (1 << 16) + a
            prev = r[a]
        tz[255] = zp[1] * (1 << 16) + 63
        sym = [0] * n

        def step_in(which, i):
            t = tz[win.s[which]]
            win.s[which] = ((t >> 16) | win.read(t >> 24)) % 256
            sym[i] = t % 256

        def step_out(i):
            if sym[i] == 63:
                sym[i] = win.read(6)

        i = 0
        while n - i >= 4:
            for j in range(4):
                win.at = pos + i + j
                step_in(j % 2, i + j)
            for j in range(4):
                win.at = pos + i + j
                step_out(i + j)
            win.at = pos + i + 3
            win.flush()
            i += 4
        if n - i >= 2:
            for j in range(2):
                win.at = pos + i + j
                step_in(j, i + j)
                step_out(i + j)
            i += 2
        if n - i == 1:
            win.at = pos + i
            step_in(0, i)
            step_out(i)
            i += 1
        win.flush()  # charged to the last position whose in step ran
        out.append(sym)
        pos += n
    return out


def mans_decode(i):
    stream = bytes.fromhex(i['memory'])
    if i['mode'] == 'sgm':
        spans = [(list(s['mask']), nums(s['sigma'])) for s in i['spans']]
        for mask, _ in spans:
            if not all(isinstance(m, bool) for m in mask):
                raise ValueError('a mask of non-booleans')
        return {'symbols': mans_sgm(stream, [nums(r) for r in i['pmf']], nums(i['bounds']), spans)}
    if i['mode'] == 'fac':
        return {'symbols': mans_fac(stream, [nums(r) for r in i['rows']], nums(i['lengths']))}
    raise ValueError('mans_decode mode %r' % i['mode'])


# E9
def residual_step(i):
    pred, r, q, lo, hi = num(i['pred']), num(i['r']), num(i['q']), num(i['lo']), num(i['hi'])
    cond(lo < hi and lo <= pred <= hi and 1 <= q <= 65535 and fits(r, I32))
    return {'value': clamp(pred + r * q, lo, hi)}


def avg(a, b):
    return (a + b + 1) >> 1


def avg4(a, b, c, d):
    return (a + b + c + d + 2) >> 2


def half_pel(p, iy, fy, ix, fx):
    if fy == 0 and fx == 0:
        return p(iy, ix)
    if fy == 0:
        return avg(p(iy, ix), p(iy, ix + 1))
    if fx == 0:
        return avg(p(iy, ix), p(iy + 1, ix))
    return avg4(p(iy, ix), p(iy, ix + 1), p(iy + 1, ix), p(iy + 1, ix + 1))


# E10
def mc_predict(i):
    c3, h, w, frame = tensor(i['frame'])
    y, x, c = num(i['y']), num(i['x']), num(i['c'])
    dy, dx, prec = num(i['dy']), num(i['dx']), num(i['precision'])
    cond(c3 == 3 and h >= 1 and w >= 1 and 0 <= c <= 2 and prec in (1, 2) and 0 <= y < h and 0 <= x < w)

    def p(yy, xx):
        return frame[(c * h + clamp(yy, 0, h - 1)) * w + clamp(xx, 0, w - 1)]

    if prec == 1:
        return {'value': p(y + dy, x + dx)}
    return {'value': half_pel(p, y + (dy >> 1), dy & 1, x + (dx >> 1), dx & 1)}


# E11
def up2_predict(i):
    c, h2, w2, prev = tensor(i['prev'])
    d0, d1 = num(i['d0']), num(i['d1'])
    cond(d0 >= 1 and d1 >= 1, 'geometry_mismatch')
    cond(h2 == (d0 + 1) // 2 and w2 == (d1 + 1) // 2, 'geometry_mismatch')
    out = []
    for ch in range(c):
        def p(yy, xx):
            return prev[(ch * h2 + min(yy, h2 - 1)) * w2 + min(xx, w2 - 1)]
        for y in range(d0):
            for x in range(d1):
                out.append(half_pel(p, y >> 1, y & 1, x >> 1, x & 1))
    return {'out': tensor_obj(c, d0, d1, out)}


# E12
def rdiv(n, d):
    if d < 1:
        return 0
    sg = (n > 0) - (n < 0)
    return sg * ((2 * abs(n) + d) // (2 * d))


def rate_predict(i):
    c, one, n1, prev = tensor(i['prev'])
    rn, rd, d0 = num(i['rate_num']), num(i['rate_den']), num(i['d0'])
    cond(rn >= 1 and rd >= 1 and d0 >= 1, 'geometry_mismatch')
    cond(rn < (1 << 32) and rd < (1 << 32))
    cond(one == 1 and n1 >= 1 and d0 <= n1 * rn // rd, 'geometry_mismatch')
    cond(all(-(1 << 15) <= v < (1 << 15) for v in prev))
    out = []
    for ch in range(c):
        src = prev[ch * n1:(ch + 1) * n1]
        for k in range(d0):
            s = k * rd
            lo = s // rn
            rho = s % rn
            hi = min(lo + 1, n1 - 1)
            out.append(rdiv(src[lo] * rn + (src[hi] - src[lo]) * rho, rn))
    return {'out': tensor_obj(c, 1, d0, out)}


# E13
def coding_order(i):
    c, h, w = nums(i['shape'])
    cond(c >= 0 and h >= 0 and w >= 0)
    order = i['order']
    raster = [(ch, y, x) for ch in range(c) for y in range(h) for x in range(w)]
    if order == 'raster':
        pick = raster
    elif order == 'checkerboard':
        anchor = i['anchor']
        if not isinstance(anchor, bool):
            raise ValueError('anchor is not a boolean')
        pick = [e for e in raster if ((e[1] + e[2]) % 2 == 0) == anchor]
    else:
        raise ValueError('order %r' % order)
    return {'indices': [(ch * h + y) * w + x for ch, y, x in pick]}


def expect(op, i, modes):
    try:
        if op == 'dequantize':
            return dequantize(i)
        if op == 'bucket':
            return bucket(i, modes)
        if op == 'coded':
            return {'coded': num(i['v']) > num(i['thr'])}
        if op == 'scale_index':
            return scale_index(i)
        if op == 'block_stat':
            return block_stat(i)
        if op == 'band_lookup':
            return band_lookup(i)
        if op == 'mans_decode':
            return mans_decode(i)
        if op == 'residual_step':
            return residual_step(i)
        if op == 'mc_predict':
            return mc_predict(i)
        if op == 'up2_predict':
            return up2_predict(i)
        if op == 'rate_predict':
            return rate_predict(i)
        if op == 'coding_order':
            return coding_order(i)
    except StageRefuse as r:
        return {'at': r.at, 'refuse': r.code}
    raise ValueError('no stage operator %r in this checker' % op)
