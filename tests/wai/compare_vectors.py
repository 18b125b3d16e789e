#!/usr/bin/env python3
"""Regenerates the committed conformance vectors (tests/wai) and demands byte-identical files.

  compare_vectors.py generator GEN_BINARY   the C++ reference generator's output
  compare_vectors.py checker                the independent checker's rewrite (tools/wai_checker)
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


SUBDIRS = ('certificates', 'graphs', 'sets', 'stage', 'vectors')


def files_under(root):
    """npu.jsonl and every file below SUBDIRS, as paths relative to root."""
    files = {'npu.jsonl'} if os.path.exists(os.path.join(root, 'npu.jsonl')) else set()
    for sub in SUBDIRS:
        for d, _, names in os.walk(os.path.join(root, sub)):
            files |= {os.path.relpath(os.path.join(d, n), root) for n in names}
    return files


def compare(out):
    bad = 0
    for rel in sorted(files_under(HERE) | files_under(out)):
        a, b = os.path.join(HERE, rel), os.path.join(out, rel)
        if not os.path.exists(a) or not os.path.exists(b):
            print('only one side has %s' % rel)
            bad += 1
            continue
        with open(a, 'rb') as fa, open(b, 'rb') as fb:
            if fa.read() != fb.read():
                print('differs: %s' % rel)
                bad += 1
    return bad


def main():
    with tempfile.TemporaryDirectory() as out:
        if sys.argv[1] == 'generator':
            subprocess.run([sys.argv[2], out], check=True)
        else:
            subprocess.run([sys.executable, os.path.join(ROOT, 'tools', 'wai_checker', 'vectors.py'), HERE, out],
                           check=True)
        bad = compare(out)
    print('%d file(s) differ' % bad)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
