"""A small WHG1 writer (§10), for tests and for seeded random graphs. Not an oracle: the checker
parses the bytes it writes like any other file."""
import struct

CODES = {'conv': 0x01, 'rescale': 0x02, 'chscale': 0x03, 'lut16': 0x04, 'add': 0x05, 'concat': 0x06,
         'chunk_add': 0x07, 'split': 0x08, 'pixel_shuffle': 0x09, 'pixel_unshuffle': 0x0A,
         'clamp': 0x0B, 'relu': 0x0C, 'leaky': 0x0D, 'pad_rep': 0x0E, 'crop_to': 0x0F, 'mul': 0x10,
         'conv_transpose': 0x11, 'igdn': 0x12, 'abs': 0x13, 'crop': 0x14, 'subpos_split': 0x15,
         'subpos_merge': 0x16, 'fill': 0x17, 'layernorm_c': 0x18, 'l2norm': 0x19, 'softmax': 0x1A,
         'sigmoid': 0x1B, 'elu': 0x1C, 'gram': 0x1D, 'apply': 0x1E}
FMT = {1: 'b', 2: 'h', 4: 'i', 8: 'q'}


def ints(width, vals):
    return struct.pack('<%d%s' % (len(vals), FMT[width]), *vals)


def width_for(vals, allowed=(1, 2, 4, 8)):
    for w in allowed:
        if all(-(1 << (8 * w - 1)) <= v < (1 << (8 * w - 1)) for v in vals):
            return w
    raise ValueError('no width holds the values')


def rq(round=0, bias=0, mult=None, m_per=False, shift=(0,), bvals=(), m_bytes=None, b_bytes=None):
    """RQ block. mult None = absent; shift a tuple of 1 or C values; bias 0 none, 1 pre, 2 post."""
    mk = 0 if mult is None else (2 if m_per else 1)
    mb = 0 if mult is None else (m_bytes or width_for(mult, (4, 8)))
    bb = 0 if bias == 0 else (b_bytes or width_for(bvals, (4, 8)))
    sk = 1 if len(shift) == 1 else 2
    out = struct.pack('<6B2x', round, bias, mk, sk, mb, bb)
    if mult is not None:
        out += ints(mb, list(mult))
    out += bytes(shift)
    if bias:
        out += ints(bb, list(bvals))
    return out


def conv(cout, kh, kw, sh, sw, ph, pw, groups, w, rqb, w_bytes=None):
    wb = w_bytes or width_for(w)
    return struct.pack('<8IB3x', cout, kh, kw, sh, sw, ph, pw, groups, wb) + rqb + ints(wb, w)


def conv_transpose(cout, kh, kw, sh, sw, ph, pw, oph, opw, w, rqb, w_bytes=None):
    wb = w_bytes or width_for(w)
    return struct.pack('<9IB3x', cout, kh, kw, sh, sw, ph, pw, oph, opw, wb) + rqb + ints(wb, w)


class Graph:
    def __init__(self, max_elems=1 << 26):
        self.max_elems = max_elems
        self.scalars, self.inputs, self.outputs, self.tensors, self.ops = [], [], [], [], []

    def tensor(self, ch, policy=0, lo=0, hi=0, exp=-128):
        self.tensors.append((ch, exp, policy, lo, hi))
        return len(self.tensors) - 1

    def input(self, ch, lo, hi, policy=2, max_h=0, max_w=0, kind=0, src=0, init=0):
        t = self.tensor(ch, policy, lo, hi)
        self.inputs.append((t, max_h, max_w, kind, src, init))
        return t

    def scalar(self, lo, hi):
        self.scalars.append((lo, hi))
        return len(self.scalars) - 1

    def op(self, name, ins, out_ch, params=b'', policy=0, lo=0, hi=0, n_out=1):
        outs = [self.tensor(out_ch, policy, lo, hi) for _ in range(n_out)]
        self.ops.append((CODES[name], list(ins), outs, params))
        return outs[0] if n_out == 1 else outs

    def bytes(self, outputs=None):
        outs = outputs if outputs is not None else [self.ops[-1][2][0]]
        b = b'WHG1' + struct.pack('<BBHIIHHHHII', 1, 1, 0, len(self.tensors), len(self.ops), len(self.inputs),
                                  len(outs), len(self.scalars), 0, self.max_elems, 0)
        for lo, hi in self.scalars:
            b += struct.pack('<qq', lo, hi)
        for t, mh, mw, kind, src, init in self.inputs:
            b += struct.pack('<IIIB3xIIq', t, mh, mw, kind, src, 0, init)
        for t in outs:
            b += struct.pack('<I', t)
        for ch, ex, pol, lo, hi in self.tensors:
            b += struct.pack('<IbBHqq', ch, ex, pol, 0, lo, hi)
        for code, ins, os, p in self.ops:
            b += struct.pack('<4B', code, len(ins), len(os), 0) + struct.pack('<%dI' % len(ins), *ins)
            b += struct.pack('<%dI' % len(os), *os) + struct.pack('<I', len(p)) + p
        return b
