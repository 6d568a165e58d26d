"""Times C = A @ B from NumPy for square float64 matrices (float32 with --dtype float32), best and median of
REPEAT runs after one warm-up run, and prints one JSON object per size.

usage: python dgemm_numpy.py [--dtype float64|float32|complex64|complex128] [--repeat R] N [N...]
"""
import argparse
import json
import time

import numpy as np
from settle import settle

ap = argparse.ArgumentParser()
ap.add_argument("sizes", type=int, nargs="+")
ap.add_argument("--dtype", default="float64")
ap.add_argument("--repeat", type=int, default=3)
args = ap.parse_args()

rng = np.random.default_rng(1)
for n in args.sizes:
    a = rng.standard_normal((n, n)).astype(args.dtype)
    b = rng.standard_normal((n, n)).astype(args.dtype)
    c = a @ b
    if settle():
        c = a @ b
    times = []
    for _ in range(args.repeat):
        t = time.perf_counter()
        c = a @ b
        times.append(time.perf_counter() - t)
    times.sort()
    # a cheap check that the product is right: one column against a matrix-vector product
    err = float(np.max(np.abs(c[:, 7] - a @ b[:, 7])) / max(1.0, float(np.max(np.abs(c[:, 7])))))
    print(json.dumps({"n": n, "dtype": args.dtype, "best_s": times[0], "median_s": times[len(times) // 2],
                      "column_check": err}), flush=True)
