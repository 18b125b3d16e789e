"""Canonical JSON of wai-ops/1 §8.5 and JSON Lines of §14.1.

Integers are written as decimal strings, object members in ascending order of their keys' bytes,
no whitespace, strings of printable ASCII with only the escapes \\" and \\\\.
"""


class CanonError(Exception):
    pass


def _string(s):
    out = ['"']
    for ch in s:
        o = ord(ch)
        if o < 0x20 or o > 0x7E:
            raise CanonError("string holds a character outside printable ASCII: %r" % s)
        if ch == '"':
            out.append('\\"')
        elif ch == '\\':
            out.append('\\\\')
        else:
            out.append(ch)
    out.append('"')
    return ''.join(out)


def dumps(v):
    if v is None:
        return 'null'
    if v is True:
        return 'true'
    if v is False:
        return 'false'
    if isinstance(v, int):
        return '"%d"' % v
    if isinstance(v, str):
        return _string(v)
    if isinstance(v, (list, tuple)):
        return '[' + ','.join(dumps(x) for x in v) + ']'
    if isinstance(v, dict):
        keys = sorted(v.keys(), key=lambda k: k.encode('ascii'))
        return '{' + ','.join(_string(k) + ':' + dumps(v[k]) for k in keys) + '}'
    raise CanonError("no canonical form for %r" % (type(v),))
