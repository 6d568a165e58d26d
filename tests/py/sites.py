"""A program whose calls come from known lines, for the call sites of the log (tests/t_log.sh): train()
solves and multiplies, on lines SOLVE and MATMUL (printed), and a thread Python started does the same.
usage: python sites.py [N]"""
import sys
import threading

import numpy as np

n = int(sys.argv[1]) if len(sys.argv) > 1 else 200


def train(a):
    x = np.linalg.solve(a, a)  # SOLVE
    return x @ a  # MATMUL


a = np.random.default_rng(1).random((n, n)) + n * np.eye(n)
train(a)
t = threading.Thread(target=train, args=(a,))
t.start()
t.join()
src = open(__file__).read().splitlines()
for tag in ("SOLVE", "MATMUL"):
    print(tag, next(i for i, l in enumerate(src, 1) if l.endswith("# " + tag)))
