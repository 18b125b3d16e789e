#!/usr/bin/env python3
"""Runs every case under cases/: `loam <args.txt>` in the case's directory, and demands exactly
expected_stdout.txt, expected_stderr.txt and the status in expected_status.txt.

  run_cases.py LOAM_BINARY
"""
import os
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def read(path):
    with open(path, 'rb') as f:
        return f.read().decode('utf-8')


def main(loam):
    cases = os.path.join(HERE, 'cases')
    bad = 0
    for name in sorted(os.listdir(cases)):
        d = os.path.join(cases, name)
        args = shlex.split(read(os.path.join(d, 'args.txt')))
        r = subprocess.run([loam] + args, cwd=d, capture_output=True)
        got = (r.stdout.decode('utf-8'), r.stderr.decode('utf-8'), r.returncode)
        want = (read(os.path.join(d, 'expected_stdout.txt')), read(os.path.join(d, 'expected_stderr.txt')),
                int(read(os.path.join(d, 'expected_status.txt'))))
        if got != want:
            print('%s: got %r, expected %r' % (name, got, want))
            bad += 1
        else:
            print('%s: ok' % name)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1]))
