"""The cost of one tiny call forced onto the GPU: numpy.linalg on 8x8 matrices, REPEAT times each, under the
shim with GPUSHIM_OFFLOAD=always.  Prints, per case, the wall time per call; with GPUSHIM_LOG set, bench/lapack.sh's
reader then gives each routine's own time from the log.
usage: python bench/latency.py [REPEAT]"""
import sys
import time

import numpy as np

REPEAT = int(sys.argv[1]) if len(sys.argv) > 1 else 300
rng = np.random.default_rng(1)
a = rng.standard_normal((8, 8)) + 8 * np.eye(8)
spd = a @ a.T
cases = {
    "matmul": lambda: a @ a,
    "solve": lambda: np.linalg.solve(a, a),
    "inv": lambda: np.linalg.inv(a),
    "cholesky": lambda: np.linalg.cholesky(spd),
    "qr": lambda: np.linalg.qr(a),
    "eigh": lambda: np.linalg.eigh(spd),
    "svd": lambda: np.linalg.svd(a),
    "eig": lambda: np.linalg.eig(a),
}
for name, f in cases.items():
    f()
    t = time.perf_counter()
    for _ in range(REPEAT):
        f()
    print(f"{name:10s} {1e6 * (time.perf_counter() - t) / REPEAT:9.1f} us per call")
