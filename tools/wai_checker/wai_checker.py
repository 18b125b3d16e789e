#!/usr/bin/env python3
"""Independent checker for wai-ops/1 (written from the specification text alone).

  wai_checker.py certify G.whg1 [--role NAME]     print the certificate (lowering "whg1")
  wai_checker.py load G.whg1 [--profile P]        print "ok" or the refusal code
  wai_checker.py admissible G.whg1 TENSOR --profile P
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import canon  # noqa: E402
import certificate  # noqa: E402
import admissible  # noqa: E402
import whg1  # noqa: E402


def role_of(path):
    base = os.path.basename(path)
    return base[:-5] if base.endswith('.whg1') else base


def main(argv):
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest='cmd', required=True)
    c = sub.add_parser('certify'); c.add_argument('graphs', nargs='+'); c.add_argument('--role')
    c.add_argument('--profile', choices=('acc32', 'acc64'))
    l = sub.add_parser('load'); l.add_argument('graph'); l.add_argument('--profile', default='acc64')
    a = sub.add_parser('admissible'); a.add_argument('graph'); a.add_argument('tensor', type=int)
    a.add_argument('--profile', required=True, choices=('acc32', 'acc64'))
    args = ap.parse_args(argv)
    if args.cmd == 'certify':
        gs = []
        for p in args.graphs:
            with open(p, 'rb') as f:
                gs.append((args.role if args.role and len(args.graphs) == 1 else role_of(p), f.read()))
        try:
            cert = certificate.certificate(gs)
        except whg1.Refuse as r:
            print('refused: %s' % r, file=sys.stderr)
            return 2
        sys.stdout.write(canon.dumps(cert))
        if args.profile and not cert['verdict'][args.profile]:
            return 1
        return 0
    if args.cmd == 'load':
        with open(args.graph, 'rb') as f:
            print(certificate.load(f.read(), args.profile))
        return 0
    if args.cmd == 'admissible':
        with open(args.graph, 'rb') as f:
            b = f.read()
        r = admissible.admissible(b, args.tensor, args.profile)
        print('none' if r is None else '[%d, %d]' % r)
        return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
