"""WHG1 (wai-ops/1 §10): parse, load checks of §10.5 steps 1-7, and the plan on declared sizes.

Written from the specification text alone. A refusal raises Refuse(code, message).
"""
import struct

CAP = 1 << 26
I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1

OPS = {
    0x01: ('conv', 1, 1), 0x02: ('rescale', 1, 1), 0x03: ('chscale', 1, 1),
    0x04: ('lut16', 1, 1), 0x05: ('add', 2, 1), 0x06: ('concat', None, 1),
    0x07: ('chunk_add', 1, 1), 0x08: ('split', 1, 1), 0x09: ('pixel_shuffle', 1, 1),
    0x0A: ('pixel_unshuffle', 1, 1), 0x0B: ('clamp', 1, 1), 0x0C: ('relu', 1, 1),
    0x0D: ('leaky', 1, 1), 0x0E: ('pad_rep', 1, 1), 0x0F: ('crop_to', 2, 1),
    0x10: ('mul', 2, 1), 0x11: ('conv_transpose', 1, 1), 0x12: ('igdn', 1, 1),
    0x13: ('abs', 1, 1), 0x14: ('crop', 1, 1), 0x15: ('subpos_split', 1, 4),
    0x16: ('subpos_merge', 4, 1), 0x17: ('fill', 1, 1), 0x18: ('layernorm_c', 1, 1),
    0x19: ('l2norm', 1, 1), 0x1A: ('softmax', 1, 1), 0x1B: ('sigmoid', 1, 1),
    0x1C: ('elu', 1, 1), 0x1D: ('gram', 2, 1), 0x1E: ('apply', 2, 1),
}
POLICIES = ('derived', 'clamp', 'check')
ROUNDS = ('floor', 'half_up', 'half_even')


class Refuse(Exception):
    def __init__(self, code, msg):
        Exception.__init__(self, '%s: %s' % (code, msg))
        self.code = code


def mm(msg):
    raise Refuse('model_mismatch', msg)


class Reader:
    def __init__(self, b, off, end, what):
        self.b, self.o, self.end, self.what = b, off, end, what

    def take(self, n):
        if self.o + n > self.end:
            mm('%s: parameters end at byte %d, %d more needed' % (self.what, self.end, n))
        v = self.b[self.o:self.o + n]
        self.o += n
        return v

    def u8(self): return self.take(1)[0]
    def i8(self): return struct.unpack('<b', self.take(1))[0]
    def u16(self): return struct.unpack('<H', self.take(2))[0]
    def u32(self): return struct.unpack('<I', self.take(4))[0]
    def i64(self): return struct.unpack('<q', self.take(8))[0]
    def u64(self): return struct.unpack('<Q', self.take(8))[0]

    def ints(self, width, n):
        if width not in (1, 2, 4, 8):
            mm('%s: width %d' % (self.what, width))
        fmt = {1: 'b', 2: 'h', 4: 'i', 8: 'q'}[width]
        if n * width > self.end - self.o:
            mm('%s: %d values of %d bytes pass the parameter length' % (self.what, n, width))
        return list(struct.unpack('<%d%s' % (n, fmt), self.take(n * width)))

    def zero(self, n, field):
        if any(self.take(n)):
            mm('%s: reserved %s is not zero' % (self.what, field))


def read_rq(r, C, what):
    rnd, bias, mk, sk, mb, bb = (r.u8() for _ in range(6))
    r.zero(2, 'RQ reserved')
    if rnd > 2: mm('%s: RQ round %d' % (what, rnd))
    if bias > 2: mm('%s: RQ bias %d' % (what, bias))
    if mk > 2: mm('%s: RQ m_kind %d' % (what, mk))
    if sk not in (1, 2): mm('%s: RQ s_kind %d' % (what, sk))
    if (mk == 0 and mb != 0) or (mk != 0 and mb not in (4, 8)): mm('%s: RQ m_bytes %d' % (what, mb))
    if (bias == 0 and bb != 0) or (bias != 0 and bb not in (4, 8)): mm('%s: RQ b_bytes %d' % (what, bb))
    mult = r.ints(mb, {0: 0, 1: 1, 2: C}[mk]) if mk else []
    shift = list(r.take({1: 1, 2: C}[sk]))
    if any(s > 127 for s in shift): mm('%s: RQ shift above 127' % what)
    bvals = r.ints(bb, C) if bias else []
    return {'round': ROUNDS[rnd], 'bias': ('none', 'pre', 'post')[bias], 'm_kind': mk, 's_kind': sk,
            'mult': mult, 'shift': shift, 'bvals': bvals, 'C': C}


def rq_mult(rq, o): return 1 if rq['m_kind'] == 0 else rq['mult'][0 if rq['m_kind'] == 1 else o]
def rq_shift(rq, o): return rq['shift'][0 if rq['s_kind'] == 1 else o]
def rq_pre(rq, o): return rq['bvals'][o] if rq['bias'] == 'pre' else 0
def rq_post(rq, o): return rq['bvals'][o] if rq['bias'] == 'post' else 0


def parse_params(name, r, g, ins, what):
    """Step 5: parameter layout (§10.4) and ranges (§5). `ins` are the input tensor indices."""
    T = g['tensors']
    cin = T[ins[0]]['ch']
    p = {}
    if name == 'conv':
        cout, kh, kw, sh, sw, ph, pw, groups = (r.u32() for _ in range(8))
        wb = r.u8(); r.zero(3, 'conv reserved')
        if cout < 1 or kh < 1 or kw < 1 or sh < 1 or sw < 1 or groups < 1:
            mm('%s: conv parameter below 1' % what)
        if wb not in (1, 2, 4, 8): mm('%s: w_bytes %d' % (what, wb))
        if cin % groups or cout % groups:
            mm('%s: cin %d and cout %d are not multiples of groups %d' % (what, cin, cout, groups))
        p = dict(cout=cout, kh=kh, kw=kw, sh=sh, sw=sw, ph=ph, pw=pw, groups=groups)
        p['rq'] = read_rq(r, cout, what)
        p['w'] = r.ints(wb, cout * (cin // groups) * kh * kw)
    elif name == 'conv_transpose':
        cout, kh, kw, sh, sw, ph, pw, oph, opw = (r.u32() for _ in range(9))
        wb = r.u8(); r.zero(3, 'conv_transpose reserved')
        if cout < 1 or kh < 1 or kw < 1 or sh < 1 or sw < 1:
            mm('%s: conv_transpose parameter below 1' % what)
        if wb not in (1, 2, 4, 8): mm('%s: w_bytes %d' % (what, wb))
        p = dict(cout=cout, kh=kh, kw=kw, sh=sh, sw=sw, ph=ph, pw=pw, oph=oph, opw=opw)
        p['rq'] = read_rq(r, cout, what)
        p['w'] = r.ints(wb, cin * cout * kh * kw)
    elif name in ('rescale', 'mul'):
        p['rq'] = read_rq(r, cin, what)
        if name == 'mul' and p['rq']['bias'] != 'none': mm('%s: mul with a bias' % what)
    elif name == 'chscale':
        sc, nrows = r.u32(), r.u32()
        rnd, mb, sh = r.u8(), r.u8(), r.u8(); r.zero(1, 'chscale reserved')
        if sc >= len(g['scalars']): mm('%s: chscale scalar %d' % (what, sc))
        if nrows < 1: mm('%s: chscale n_rows 0' % what)
        if rnd > 2: mm('%s: chscale round %d' % (what, rnd))
        if mb not in (4, 8): mm('%s: chscale m_bytes %d' % (what, mb))
        if sh > 127: mm('%s: chscale shift %d' % (what, sh))
        slo, shi = g['scalars'][sc]
        if slo < 0 or shi > nrows - 1:
            mm('%s: chscale scalar range [%d, %d] outside [0, %d]' % (what, slo, shi, nrows - 1))
        p = dict(scalar=sc, n_rows=nrows, round=ROUNDS[rnd], s=sh, M=r.ints(mb, nrows * cin))
    elif name == 'lut16':
        p['e_in'], p['e_out'] = r.i8(), r.i8(); r.zero(2, 'lut16 reserved')
        p['T'] = r.ints(2, 65536)
        if p['T'][0] != 0: mm('%s: lut16 T[0] is not 0' % what)
    elif name == 'split':
        p['start'], p['count'] = r.u32(), r.u32()
        if p['count'] < 1: mm('%s: split count 0' % what)
    elif name in ('pixel_shuffle', 'pixel_unshuffle'):
        p['r'] = r.u32()
        if p['r'] < 1: mm('%s: r 0' % what)
    elif name == 'clamp':
        p['lo'], p['hi'] = r.i64(), r.i64()
        if p['lo'] > p['hi']: mm('%s: clamp lo > hi' % what)
    elif name == 'leaky':
        p['a'], p['f'] = r.i64(), r.u32()
        if p['f'] > 63: mm('%s: leaky f %d' % (what, p['f']))
    elif name == 'pad_rep':
        p['m'] = r.u32()
        if p['m'] < 1: mm('%s: pad_rep m 0' % what)
    elif name == 'crop':
        for k in ('y0', 'x0', 'h', 'w'):
            kind = r.u8(); r.zero(3, 'crop operand reserved'); val = r.u32()
            if kind > 1: mm('%s: crop operand kind %d' % (what, kind))
            if kind == 1 and val >= len(g['scalars']): mm('%s: crop scalar %d' % (what, val))
            p[k] = (kind, val)
    elif name in ('subpos_split', 'subpos_merge'):
        order = list(r.take(4))
        if sorted(order) != [0, 1, 2, 3]: mm('%s: order is not a permutation' % what)
        p['order'] = order
    elif name == 'fill':
        kind = r.u8(); r.zero(7, 'fill reserved'); val = r.i64()
        if kind > 1: mm('%s: fill kind %d' % (what, kind))
        if kind == 1 and not (0 <= val < len(g['scalars'])): mm('%s: fill scalar %d' % (what, val))
        p = dict(kind=kind, value=val)
    elif name == 'igdn':
        gf, frac = r.u32(), r.u32()
        gb = r.u8(); r.zero(7, 'igdn reserved')
        if gf > 127 or frac > 127: mm('%s: igdn shift above 127' % what)
        if gb not in (4, 8): mm('%s: g_bytes %d' % (what, gb))
        p = dict(gf=gf, frac=frac, gamma=r.ints(gb, cin * cin), beta=r.ints(8, cin))
    elif name == 'layernorm_c':
        eps = r.u64(); gb = r.u8(); r.zero(7, 'layernorm_c reserved')
        if eps < 1: mm('%s: epsilon 0' % what)
        if gb not in (4, 8): mm('%s: g_bytes %d' % (what, gb))
        p = dict(eps=eps, gamma=r.ints(gb, cin), beta=r.ints(8, cin))
    elif name == 'l2norm':
        p['eps'] = r.u64()
        if p['eps'] < 1: mm('%s: epsilon 0' % what)
    elif name == 'elu':
        p['alpha'] = r.i64()
    elif name in ('gram', 'apply'):
        p['groups'] = r.u32()
        if p['groups'] < 1: mm('%s: groups 0' % what)
        p['rq'] = read_rq(r, cin, what)
        if p['rq']['m_kind'] != 0 or p['rq']['bias'] != 'none' or p['rq']['s_kind'] != 1:
            mm('%s: %s RQ must have no multiplier, no bias and one shift' % (what, name))
    if r.o != r.end:
        mm('%s: parameter length %d, %d bytes used' % (what, r.end - r.o + (r.o - r.end), r.o))
    return p


def parse(b):
    """Steps 1-6 of §10.5. Returns the graph as a dict."""
    b = bytes(b)
    if len(b) < 32: mm('file of %d bytes is shorter than the header' % len(b))
    if b[0:4] != b'WHG1': mm('bad magic at byte 0')
    if b[4] != 1: mm('version %d at byte 4' % b[4])
    if b[5] != 1: mm('operator set %d at byte 5' % b[5])
    nt, nops, ni, no, ns = struct.unpack_from('<IIHHH', b, 8)
    maxe = struct.unpack_from('<I', b, 24)[0]
    # step 2: reserved fields
    if b[6:8] != b'\0\0' or b[22:24] != b'\0\0' or b[28:32] != b'\0\0\0\0':
        mm('header reserved field is not zero')
    if nt < 1 or nops < 1 or ni < 1 or no < 1: mm('a header count is 0')
    if not 1 <= maxe <= CAP: mm('max_elems %d outside 1..=2^26' % maxe)
    # step 3: counts against the length
    fixed = 32 + 16 * ns + 32 * ni + 4 * no + 24 * nt
    if fixed + 8 * nops > len(b): mm('counts need at least %d bytes, file has %d' % (fixed + 8 * nops, len(b)))
    # step 4: records
    g = {'max_elems': maxe, 'scalars': [], 'inputs': [], 'outputs': [], 'tensors': [], 'ops': []}
    o = 32
    for k in range(ns):
        lo, hi = struct.unpack_from('<qq', b, o); o += 16
        if lo > hi: mm('scalar %d: lo > hi' % k)
        g['scalars'].append((lo, hi))
    for k in range(ni):
        t, mh, mw, kind = struct.unpack_from('<IIIB', b, o)
        res1 = b[o + 13:o + 16]; src, res2, init = struct.unpack_from('<IIq', b, o + 16); o += 32
        if any(res1) or res2: mm('input %d: reserved field is not zero' % k)
        if t >= nt: mm('input %d: tensor %d out of range' % (k, t))
        if (mh == 0) != (mw == 0): mm('input %d: only one of max_h, max_w is 0' % k)
        if kind > 1: mm('input %d: kind %d' % (k, kind))
        if kind == 0 and (src or init): mm('input %d: data input with src or init' % k)
        g['inputs'].append({'tensor': t, 'max_h': mh, 'max_w': mw, 'kind': ('data', 'state')[kind],
                            'src': src, 'init': init})
    if len({i['max_h'] != 0 for i in g['inputs']}) > 1: mm('some inputs declare their sizes, some do not')
    for k in range(no):
        t = struct.unpack_from('<I', b, o)[0]; o += 4
        if t >= nt: mm('output %d: tensor %d out of range' % (k, t))
        g['outputs'].append(t)
    for k in range(nt):
        ch, ex, pol, res, lo, hi = struct.unpack_from('<IbBHqq', b, o); o += 24
        if ch < 1: mm('tensor %d: channels 0' % k)
        if pol > 2: mm('tensor %d: policy %d' % (k, pol))
        if res: mm('tensor %d: reserved field is not zero' % k)
        if pol == 0 and (lo or hi): mm('tensor %d: derived with a range' % k)
        if pol != 0 and lo > hi: mm('tensor %d: lo > hi' % k)
        g['tensors'].append({'ch': ch, 'exp': ex, 'policy': POLICIES[pol], 'lo': lo, 'hi': hi})
    # step 5: operators
    for k in range(nops):
        what = 'operator %d at byte %d' % (k, o)
        if o + 4 > len(b): mm('%s: record passes the end of the file' % what)
        code, nin, nout, res = b[o:o + 4]
        if code not in OPS: mm('%s: opcode 0x%02x' % (what, code))
        if res: mm('%s: reserved byte is not zero' % what)
        name, ain, aout = OPS[code]
        if (ain is None and nin < 2) or (ain is not None and nin != ain) or nout != aout:
            mm('%s: %s with %d inputs and %d outputs' % (what, name, nin, nout))
        need = 4 + 4 * (nin + nout) + 4
        if o + need > len(b): mm('%s: record passes the end of the file' % what)
        ins = list(struct.unpack_from('<%dI' % nin, b, o + 4))
        outs = list(struct.unpack_from('<%dI' % nout, b, o + 4 + 4 * nin))
        plen = struct.unpack_from('<I', b, o + 4 + 4 * (nin + nout))[0]
        ps = o + need
        if ps + plen > len(b): mm('%s: parameters pass the end of the file' % what)
        for t in ins + outs:
            if t >= nt: mm('%s: tensor %d out of range' % (what, t))
        p = parse_params(name, Reader(b, ps, ps + plen, what), g, ins, what)
        g['ops'].append({'index': k, 'code': code, 'op': name, 'ins': ins, 'outs': outs, 'p': p})
        o = ps + plen
    if o != len(b): mm('%d bytes follow the last operator' % (len(b) - o))
    graph_rules(g)
    return g


def graph_rules(g):
    """Step 6: §10.3's graph rules, state rules, and the exponent rules of §3 and §5.6."""
    T = g['tensors']
    defined = set()
    for k, i in enumerate(g['inputs']):
        if i['tensor'] in defined: mm('input %d: tensor %d is already an input' % (k, i['tensor']))
        defined.add(i['tensor'])
        if T[i['tensor']]['policy'] == 'derived': mm('input %d: policy derived' % k)
    if g['inputs'][0]['kind'] != 'data': mm('input 0 is of kind state')
    for op in g['ops']:
        for t in op['ins']:
            if t not in defined: mm('operator %d reads tensor %d before it is defined' % (op['index'], t))
        for t in op['outs']:
            if t in defined: mm('operator %d writes tensor %d, already defined' % (op['index'], t))
            defined.add(t)
    if len(defined) != len(T): mm('a tensor is neither an input nor an operator output')
    for k, i in enumerate(g['inputs']):
        if i['kind'] == 'state':
            if i['src'] >= len(g['outputs']): mm('input %d: state src %d out of range' % (k, i['src']))
            t = T[i['tensor']]
            if T[g['outputs'][i['src']]]['ch'] != t['ch']: mm('input %d: state channel count' % k)
            if not t['lo'] <= i['init'] <= t['hi']: mm('input %d: init outside its range' % k)
    for op in g['ops']:
        n = op['op']
        if n in ('add', 'concat', 'chunk_add'):
            es = {T[t]['exp'] for t in op['ins'] + op['outs']}
            if len(es) > 1: mm('operator %d: %s exponents differ' % (op['index'], n))
        if n == 'lut16':
            if op['p']['e_in'] != T[op['ins'][0]]['exp'] or op['p']['e_out'] != T[op['outs'][0]]['exp']:
                mm('operator %d: lut16 exponents' % op['index'])


def declares_sizes(g):
    return g['inputs'][0]['max_h'] != 0


def too_large(msg):
    raise Refuse('too_large', msg)


def plan(g):
    """Step 7: channel counts, and, when the inputs declare their sizes, every shape.

    Returns a list of shapes [C, H, W] per tensor (H, W None when sizes are not declared)."""
    T = g['tensors']
    sized = declares_sizes(g)
    shape = [None] * len(T)
    if not sized:
        for op in g['ops']:
            if op['op'] in ('gram', 'l2norm', 'softmax'):
                mm('operator %d: %s in a graph whose inputs do not declare their sizes' % (op['index'], op['op']))
    for k, i in enumerate(g['inputs']):
        t = i['tensor']
        shape[t] = (T[t]['ch'], i['max_h'] or None, i['max_w'] or None)
        if sized and shape[t][0] * shape[t][1] * shape[t][2] > g['max_elems']:
            too_large('input %d: %d elements pass max_elems' % (k, shape[t][0] * shape[t][1] * shape[t][2]))
    for op in g['ops']:
        outs = plan_op(g, op, [shape[t] for t in op['ins']], sized)
        for t, s in zip(op['outs'], outs):
            if s[0] != T[t]['ch']:
                mm('operator %d: output tensor %d has %d channels, the operator gives %d' % (op['index'], t, T[t]['ch'], s[0]))
            if sized and s[0] * s[1] * s[2] > g['max_elems']:
                too_large('operator %d: output tensor %d of %d elements' % (op['index'], t, s[0] * s[1] * s[2]))
            shape[t] = s
    return shape


def plan_op(g, op, ins, sized):
    n, p, k = op['op'], op['p'], op['index']
    C, H, W = ins[0]

    def bad(msg): mm('operator %d (%s): %s' % (k, n, msg))

    def cap(v, what):
        if v > CAP: too_large('operator %d (%s): %s %d passes 2^26' % (k, n, what, v))

    if n == 'conv':
        if sized:
            cap(H + 2 * p['ph'], 'padded height'); cap(W + 2 * p['pw'], 'padded width')
            if H + 2 * p['ph'] < p['kh'] or W + 2 * p['pw'] < p['kw']: bad('kernel larger than the padded input')
            return [(p['cout'], (H + 2 * p['ph'] - p['kh']) // p['sh'] + 1, (W + 2 * p['pw'] - p['kw']) // p['sw'] + 1)]
        return [(p['cout'], None, None)]
    if n == 'conv_transpose':
        if sized:
            uh = (H - 1) * p['sh'] + p['kh'] + p['oph']; uw = (W - 1) * p['sw'] + p['kw'] + p['opw']
            cap(uh, 'uncropped height'); cap(uw, 'uncropped width'); cap(p['cout'] * uh * uw, 'uncropped output')
            ho, wo = uh - 2 * p['ph'], uw - 2 * p['pw']
            if ho < 1 or wo < 1: bad('output side below 1')
            return [(p['cout'], ho, wo)]
        return [(p['cout'], None, None)]
    if n in ('rescale', 'chscale', 'lut16', 'clamp', 'relu', 'leaky', 'abs', 'igdn', 'layernorm_c',
             'l2norm', 'softmax', 'sigmoid', 'elu'):
        return [ins[0]]
    if n == 'mul':
        b = ins[1]
        if b[0] not in (C, 1): bad('b has %d channels' % b[0])
        if sized and (b[1], b[2]) != (H, W): bad('sizes differ')
        return [ins[0]]
    if n == 'add':
        if ins[1] != ins[0]: bad('shapes differ')
        return [ins[0]]
    if n == 'concat':
        for s in ins[1:]:
            if sized and (s[1], s[2]) != (H, W): bad('sizes differ')
        return [(sum(s[0] for s in ins), H, W)]
    if n == 'chunk_add':
        if C % 2: bad('odd channel count')
        return [(C // 2, H, W)]
    if n == 'split':
        if p['start'] + p['count'] > C: bad('start + count > C')
        return [(p['count'], H, W)]
    if n == 'pixel_shuffle':
        r = p['r']
        if sized: cap(H * r, 'output height'); cap(W * r, 'output width')
        if C % (r * r): bad('C not a multiple of r^2')
        return [(C // (r * r), H * r if sized else None, W * r if sized else None)]
    if n == 'pixel_unshuffle':
        r = p['r']
        if sized and (H % r or W % r): bad('sides not multiples of r')
        return [(C * r * r, H // r if sized else None, W // r if sized else None)]
    if n == 'pad_rep':
        m = p['m']
        if sized:
            ho, wo = -(-H // m) * m, -(-W // m) * m
            cap(ho, 'output height'); cap(wo, 'output width')
            return [(C, ho, wo)]
        return [ins[0]]
    if n == 'crop_to':
        if sized and (ins[1][1] > H or ins[1][2] > W): bad('ref larger than the input')
        return [(C, ins[1][1], ins[1][2])]
    if n == 'crop':
        if not sized: return [ins[0]]
        out = []
        for st, ln, S in ((p['y0'], p['h'], H), (p['x0'], p['w'], W)):
            s0 = st[1] if st[0] == 0 else 0
            if ln[0] == 0:
                L = ln[1]
            else:
                L = min(g['scalars'][ln[1]][1], S - s0)
            if s0 < 0 or L < 1 or s0 + L > S: bad('crop does not fit')
            out.append(L)
        return [(C, out[0], out[1])]
    if n == 'subpos_split':
        if sized and (H % 2 or W % 2): bad('odd side')
        s = (C, H // 2 if sized else None, W // 2 if sized else None)
        return [s, s, s, s]
    if n == 'subpos_merge':
        if sized: cap(2 * H, 'output height'); cap(2 * W, 'output width')
        for s in ins[1:]:
            if s != ins[0]: bad('input shapes differ')
        return [(C, 2 * H if sized else None, 2 * W if sized else None)]
    if n == 'fill':
        return [(g['tensors'][op['outs'][0]]['ch'], H, W)]
    if n == 'gram':
        if ins[1] != ins[0]: bad('A and B shapes differ')
        if C % p['groups']: bad('C not a multiple of groups')
        return [(C, 1 if sized else None, C // p['groups'])]
    if n == 'apply':
        V = ins[1]
        if C != V[0] or C % p['groups']: bad('channel counts')
        if sized and (H != 1 or W != C // p['groups']): bad('A is not [C, 1, C/groups]')
        return [V]
    raise AssertionError(n)
