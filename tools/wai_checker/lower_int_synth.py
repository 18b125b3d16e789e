"""The lowering int_synth/1 of wai-ops/1 §13.1, in the canonical form of §13.0, from the text alone.

  lower(set_bytes, latent_channels=None) -> ([('synth', whg1 bytes)], certificate object)
  raises LowerRefuse('payload_malformed', message) for every load check of §13.1.
"""
import hashlib
import json
import struct

import build
import certificate
import whg1

U32 = 1 << 32


class LowerRefuse(Exception):
    def __init__(self, code, msg):
        Exception.__init__(self, '%s: %s' % (code, msg))
        self.code = code


def bad(msg):
    raise LowerRefuse('payload_malformed', 'int_synth.json: ' + msg)


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def field(layer, name, i, default=None):
    if name not in layer:
        if default is None:
            bad('layer %d has no %s' % (i, name))
        return default
    v = layer[name]
    if not is_int(v) or not 0 <= v < U32:
        bad('layer %d %s is not an integer in [0, 2^32)' % (i, name))
    return v


def flatten(v, dims, where):
    """A nested array of exactly `dims` (or a flat one of their product), of 32-bit integers."""
    total = 1
    for d in dims:
        total *= d
    out = []

    def leaf(x):
        if not is_int(x) or not -(1 << 31) <= x < (1 << 31):
            bad('%s: a value that is not a 32-bit integer' % where)
        out.append(x)

    if isinstance(v, list) and len(v) == total and (total == 0 or not isinstance(v[0], list)):
        for x in v:
            leaf(x)
        return out

    def walk(x, depth):
        if depth == len(dims):
            return leaf(x)
        if not isinstance(x, list) or len(x) != dims[depth]:
            bad('%s: expected %d entries at depth %d' % (where, dims[depth], depth))
        for y in x:
            walk(y, depth + 1)

    walk(v, 0)
    return out


def lower_graphs(set_bytes, latent_channels=None):
    """The lowered graphs and their certificate, every check of §13.1 made except the profile's."""
    try:
        doc = json.loads(set_bytes.decode('utf-8'))
    except (UnicodeDecodeError, ValueError):
        bad('not JSON')
    if not isinstance(doc, dict) or not isinstance(doc.get('layers'), list):
        bad('no layers list')
    layers = doc['layers']
    if not layers:
        bad('there is no layer')
    g = build.Graph(max_elems=1 << 26)
    ch = None
    t = None
    for i, L in enumerate(layers):
        if not isinstance(L, dict):
            bad('layer %d is not an object' % i)
        in_ch, out_ch = field(L, 'in_ch', i), field(L, 'out_ch', i)
        k, stride, pad = field(L, 'k', i), field(L, 'stride', i), field(L, 'pad', i)
        out_pad, shift = field(L, 'out_pad', i, 0), field(L, 'shift', i, 0)
        relu = L.get('relu', False)
        if not isinstance(relu, bool):
            bad('layer %d relu is not a boolean' % i)
        if out_ch < 1 or k < 1 or stride < 1:
            bad('layer %d: out_ch, k and stride must each be at least 1' % i)
        if shift > 127:
            bad('layer %d: shift %d is above 127' % (i, shift))
        if i == 0:
            if latent_channels is not None and in_ch != latent_channels:
                bad("the first layer's in_ch is not the payload's C")
            if in_ch < 1:
                bad("the first layer's in_ch is 0")
            t = g.input(in_ch, -128, 127, policy=2)  # check [-128, 127], sizes per decode
        elif in_ch != ch:
            bad('layer %d: in_ch does not chain from the previous out_ch' % i)
        if 'weight' not in L or 'bias' not in L:
            bad('layer %d lacks weight or bias' % i)
        w = flatten(L['weight'], [in_ch, out_ch, k, k], 'layer %d weight' % i)
        b = flatten(L['bias'], [out_ch], 'layer %d bias' % i)
        rqb = build.rq(round=0, bias=1, mult=None, shift=(shift,), bvals=b, b_bytes=4)
        t = g.op('conv_transpose', [t], out_ch,
                 build.conv_transpose(out_ch, k, k, stride, stride, pad, pad, out_pad, out_pad, w, rqb, w_bytes=4))
        if relu:
            t = g.op('relu', [t], out_ch)
        ch = out_ch
    t = g.op('clamp', [t], ch, struct.pack('<qq', 0, 255))
    try:
        b = g.bytes([t])
    except struct.error:
        bad('the lowered graph cannot be written')
    graphs = [('synth', b)]
    try:
        cert = certificate.certificate(graphs, capability='wai.neural.int_synth', lowering='int_synth/1',
                                       set_sha256=hashlib.sha256(set_bytes).hexdigest())
    except whg1.Refuse as r:
        bad('the lowered graph does not load: %s' % r.code)
    return graphs, cert


def lower(set_bytes, latent_channels=None):
    graphs, cert = lower_graphs(set_bytes, latent_channels)
    if not cert['verdict']['acc64']:
        bad('the certificate does not meet acc64')
    return graphs, cert
