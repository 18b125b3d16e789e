#!/usr/bin/env python3
"""Write float_cases.inc: expected narrow-float conversions for the Loom runtime tests.

The expectations come from independent implementations: numpy's float16 for IEEE binary16, and
the ml_dtypes package (the one JAX and ONNX use) for bfloat16, float8_e4m3fn and float8_e5m2.
ml_dtypes casts do not saturate, so the saturating FP8 expectation is derived from its result by
clamping overflow to the largest finite value. Every non-NaN expectation is also checked here
against exact rational rounding.

Needs numpy and ml_dtypes (pip install ml_dtypes). The output is committed, so the C++ tests do not
need either. Usage: python3 make_float_cases.py [output path]
"""

import fractions
import math
import os
import random
import struct
import sys

import ml_dtypes
import numpy as np


class Format:
    def __init__(self, name, dtype, bits, mant, bias, max_finite, has_inf):
        self.name, self.dtype, self.bits = name, dtype, bits
        self.mant, self.bias, self.max_finite, self.has_inf = mant, bias, max_finite, has_inf


F16 = Format("f16", np.float16, 16, 10, 15, 0x7BFF, True)
BF16 = Format("bf16", ml_dtypes.bfloat16, 16, 7, 127, 0x7F7F, True)
E4M3 = Format("e4m3", ml_dtypes.float8_e4m3fn, 8, 3, 7, 0x7E, False)
E5M2 = Format("e5m2", ml_dtypes.float8_e5m2, 8, 2, 15, 0x7B, True)


def dbits(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def from_dbits(b):
    return struct.unpack("<d", struct.pack("<Q", b))[0]


def uint_dtype(fmt):
    return np.uint16 if fmt.bits == 16 else np.uint8


def oracle(fmt, xs):
    """Non-saturating conversion of the doubles xs by numpy / ml_dtypes, as bit patterns."""
    arr = np.array(xs, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        return [int(v) for v in arr.astype(fmt.dtype).view(uint_dtype(fmt))]


def exact_magnitude(fmt, x):
    """Round |x| (finite) to fmt with unbounded exponent, by exact rational arithmetic."""
    q = abs(fractions.Fraction(x))
    if q == 0:
        return 0
    emin = 1 - fmt.bias
    e = math.frexp(abs(x))[1] - 1
    e_eff = max(e, emin)
    n = round(q / fractions.Fraction(2) ** (e_eff - fmt.mant))  # round() on Fraction: half to even
    return ((e_eff - emin) << fmt.mant) + n


def values(fmt):
    """All positive finite values of fmt, ascending, as doubles."""
    pats = np.arange(0, fmt.max_finite + 1, dtype=np.uint64).astype(uint_dtype(fmt))
    return [float(v) for v in pats.view(fmt.dtype).astype(np.float64)]


def inputs(fmt, rng, n_values, n_random):
    vals = values(fmt)
    top = vals[-1]
    over_step = vals[-1] - vals[-2]
    picks = set(range(0, min(40, len(vals))))  # zero and the smallest subnormals
    picks |= set(range(len(vals) - 40, len(vals)))  # the largest values
    sub_end = 1 << fmt.mant  # first normal pattern
    picks |= set(range(max(sub_end - 20, 0), min(sub_end + 20, len(vals))))
    while len(picks) < min(n_values, len(vals)):
        picks.add(rng.randrange(len(vals)))
    xs = []
    for i in sorted(picks):
        v = vals[i]
        nxt = vals[i + 1] if i + 1 < len(vals) else top + over_step
        mid = (v + nxt) / 2  # exact: fewer than 53 significant bits
        step = nxt - v
        xs += [v, mid, math.nextafter(mid, math.inf), math.nextafter(mid, -math.inf)]
        # Just off the midpoint by less than half a float ulp: rounding through float would land
        # on the midpoint and then round to even, which is wrong for one of the two.
        xs += [mid + step * 2.0**-30, mid - step * 2.0**-30]
    xs += [top + over_step / 2, math.nextafter(top + over_step / 2, 0.0), top + over_step, top * 4]
    xs += [1e300, 1.7976931348623157e308, 5e-324, 2.2250738585072014e-308, 1e-300]
    xs += [math.inf, -math.inf, math.nan, -math.nan, 0.0, -0.0, 1.0, -1.0, 0.1, 1.0 / 3.0]
    lo = math.log2(vals[1]) - 3
    hi = math.log2(top) + 3
    for _ in range(n_random):
        xs.append(2.0 ** rng.uniform(lo, hi))
    # Either sign; the sign bit is set on about half.
    out = []
    for x in xs:
        out.append(-x if rng.random() < 0.5 else x)
    # Negative midpoints of a few small values, to exercise rounding of the sign-magnitude form.
    out += [-vals[3] / 2, -(vals[1] / 2), -(vals[1] / 2) * 1.0000001]
    return out


def check_exact(fmt, x, got, saturate):
    if math.isnan(x):
        return
    if math.isinf(x):
        mag = 1 << 30
    else:
        mag = exact_magnitude(fmt, x)
    sign = (1 << (fmt.bits - 1)) if math.copysign(1.0, x) < 0 else 0
    if mag > fmt.max_finite:
        if saturate:
            want = fmt.max_finite
        elif fmt.has_inf:
            want = fmt.max_finite + 1  # the infinity pattern
        else:
            want = (1 << (fmt.bits - 1)) - 1  # E4M3: the NaN pattern S.1111.111
    else:
        want = mag
    assert got == (sign | want), (fmt.name, x, hex(got), hex(sign | want))


def saturated(fmt, x, nonsat):
    """The saturating result, derived from the non-saturating one."""
    if math.isnan(x):
        return nonsat
    sign = nonsat & (1 << (fmt.bits - 1))
    mag = nonsat & ((1 << (fmt.bits - 1)) - 1)
    if mag > fmt.max_finite:  # inf (E5M2) or NaN (E4M3) from a non-NaN input: overflow
        return sign | fmt.max_finite
    return nonsat


def canonical_f32(b):
    """f32 bits with every NaN made the quiet NaN of its sign (payloads are not compared)."""
    if (b & 0x7F800000) == 0x7F800000 and (b & 0x7FFFFF):
        return (b & 0x80000000) | 0x7FC00000
    return b


def fnv1a(words):
    h = 0xCBF29CE484222325
    for w in words:
        for k in range(4):
            h ^= (w >> (8 * k)) & 0xFF
            h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def widen_table(fmt):
    pats = np.arange(1 << fmt.bits, dtype=np.uint64).astype(uint_dtype(fmt))
    f32 = pats.view(fmt.dtype).astype(np.float32).view(np.uint32)
    return [canonical_f32(int(v)) for v in f32]


def emit_cases(out, name, rows, per_line):
    out.append("const %s[] = {" % name)
    for i in range(0, len(rows), per_line):
        out.append("".join(rows[i:i + per_line]))
    out.append("};")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "float_cases.inc")
    rng = random.Random(20240611)
    out = [
        "// Generated by make_float_cases.py from numpy's float16 and the ml_dtypes package; do not",
        "// edit. Inputs are double bit patterns; outputs are the narrow format's bit patterns.",
        "// FloatCase16 {in, out}; FloatCase8 {in, out without saturation, out with saturation}.",
        "",
    ]
    for fmt, n_values, n_random in ((F16, 330, 400), (BF16, 330, 400), (E4M3, 200, 160), (E5M2, 200, 160)):
        xs = inputs(fmt, rng, n_values, n_random)
        got = oracle(fmt, xs)
        rows = []
        for x, g in zip(xs, got):
            check_exact(fmt, x, g, False)
            if fmt.bits == 16:
                rows.append("{0x%x,0x%x}," % (dbits(x), g))
            else:
                s = saturated(fmt, x, g)
                check_exact(fmt, x, s, True)
                rows.append("{0x%x,0x%x,0x%x}," % (dbits(x), g, s))
        kind = "FloatCase16" if fmt.bits == 16 else "FloatCase8"
        emit_cases(out, "%s %s_cases" % (kind, fmt.name), rows, 4)
        out.append("")
    for fmt in (E4M3, E5M2):
        table = ["0x%x," % v for v in widen_table(fmt)]
        emit_cases(out, "std::uint32_t %s_to_f32_table" % fmt.name, table, 8)
        out.append("")
    for fmt in (F16, BF16):
        out.append("// FNV-1a (64-bit, little-endian bytes) of the f32 bits of all 65536 patterns, NaNs made the")
        out.append("// quiet NaN of their sign.")
        out.append("const std::uint64_t %s_to_f32_hash = 0x%xull;" % (fmt.name, fnv1a(widen_table(fmt))))
        out.append("")
    with open(path, "w") as f:
        f.write("\n".join(out))
    print("wrote", path, os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
