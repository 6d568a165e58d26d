"""Compares two pytest outputs (-rf) of the same suite, without the shim (REF) and under it (OUT): prints
"new ID" for each test that failed in OUT but not in REF and is not in KNOWN (tests/py/linalg_known.txt unless
given), and "known ID" for each test that failed in OUT and is in that file.  IDs are pytest's from the last
"tests/" on, so that the same test reads the same from any installation.

usage: python new_failures.py REF OUT [KNOWN]"""
import os
import sys


def failed(path):
    ids = set()
    for line in open(path, errors="replace"):
        if line.startswith("FAILED "):
            t = line[len("FAILED "):].split(" - ")[0].strip()
            ids.add(t[t.rfind("tests/"):] if "tests/" in t else t)
    return ids


known_file = sys.argv[3] if len(sys.argv) > 3 else \
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "linalg_known.txt")
known = {l.strip() for l in open(known_file) if l.strip() and not l.startswith("#")}
ref, out = failed(sys.argv[1]), failed(sys.argv[2])
for t in sorted(out - ref - known):
    print("new", t)
for t in sorted(out & known):
    print("known", t)
