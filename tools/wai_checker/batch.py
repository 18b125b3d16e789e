"""Certifies each WHG1 file given, one line per file: the certificate, or "refused: <code>"."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import canon  # noqa: E402
import certificate  # noqa: E402
import whg1  # noqa: E402


def admissible_line(path):
    """Every tensor's admissible range under each profile: "t:acc32=[lo,hi] t:acc64=none ..."."""
    import admissible
    with open(path, 'rb') as f:
        b = f.read()
    try:
        g = whg1.parse(b)
        certificate.certificate([('g', b)])
    except whg1.Refuse as r:
        return 'refused: ' + r.code
    parts = []
    for t in range(len(g['tensors'])):
        for prof in ('acc32', 'acc64'):
            r = admissible.admissible(b, t, prof)
            parts.append('%d:%s=%s' % (t, prof, 'none' if r is None else '[%d,%d]' % r))
    return ' '.join(parts)


def line(path):
    with open(path, 'rb') as f:
        b = f.read()
    role = os.path.basename(path)
    if role.endswith('.whg1'):
        role = role[:-5]
    try:
        return canon.dumps(certificate.certificate([(role, b)]))
    except whg1.Refuse as r:
        return 'refused: ' + r.code


if __name__ == '__main__':
    paths = sys.argv[1:]
    fn = line
    if paths[:1] == ['--admissible']:
        fn, paths = admissible_line, paths[1:]
    if paths[:1] == ['--list']:
        with open(paths[1]) as f:
            paths = [l.rstrip('\n') for l in f if l.strip()]
    for p in paths:
        sys.stdout.write(fn(p) + '\n')
