"""Admissible ranges of wai-ops/1 §8.4, by binary search on X in [0, 2^63]."""
import bounds
import whg1
from bounds import CLASS, WIDTH, fits


def admissible(b, tensor, profile):
    """[−X*, min(X*, 2^63 − 1)], or None when C(0) fails."""
    g = whg1.parse(b)
    shapes = whg1.plan(g)
    _, iv = bounds.run(g, shapes)
    if not 0 <= tensor < len(g['tensors']):
        raise ValueError('tensor %d out of range' % tensor)
    consumers = [op for op in g['ops'] if tensor in op['ins']]
    w = WIDTH[profile]

    def C(X):
        read = list(iv)
        read[tensor] = (-X, X)
        for op in consumers:
            S = bounds.Sat()
            try:
                im, results = bounds.node_rule(g, op, shapes, read, S)
            except whg1.Refuse:
                return False  # lut16: the rule has no value past [-32767, 32767]
            if S.saturated:
                return False
            for k, v in im.items():
                if not fits(v, w[CLASS[k]]):
                    return False
            for r in results:
                if not fits(r, w['tensor']):
                    return False
        return True

    if not C(0):
        return None
    lo, hi = 0, 1 << 63
    if C(hi):
        lo = hi
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if C(mid):
            lo = mid
        else:
            hi = mid - 1
    return (-lo, min(lo, (1 << 63) - 1))
