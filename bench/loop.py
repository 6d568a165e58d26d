"""The moderate loop (issue 20): a data matrix X of a few hundred MB used again in every iteration and a small
matrix W with new values in every iteration, C = X @ W, ITER times in a fresh process, each product a few
milliseconds on the CPU.  Prints one JSON line: the loop's total seconds, each iteration's seconds, and a
check of the last product made without BLAS.  The values of every W are drawn before the loop, so that the
loop times the products (and, with --inplace, the copy of the new values into W) alone.

usage: python bench/loop.py [--rows 16384] [--cols 2048] [--k 64] [--iter 40] [--inplace]
  X is rows x cols float64 in C order (256 MB by default), W cols x k.  Without --inplace each iteration's W
  is a new array; with it W is one array whose contents are overwritten in place before each product.
"""
import argparse
import json
import time

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("--rows", type=int, default=16384)
ap.add_argument("--cols", type=int, default=2048)
ap.add_argument("--k", type=int, default=64)
ap.add_argument("--iter", type=int, default=40)
ap.add_argument("--inplace", action="store_true")
args = ap.parse_args()

rng = np.random.default_rng(2026)
X = rng.random((args.rows, args.cols)) - 0.5
Ws = [rng.random((args.cols, args.k)) - 0.5 for _ in range(args.iter)]
W = np.empty((args.cols, args.k))
times = []
t_loop = time.perf_counter()
for i in range(args.iter):
    t0 = time.perf_counter()
    if args.inplace:
        np.copyto(W, Ws[i])  # the same array, new contents
        C = X @ W
    else:
        W = Ws[i]
        C = X @ W
    times.append(time.perf_counter() - t0)
total = time.perf_counter() - t_loop

# The last product against sums of elementwise products on a few entries.
rows, cols = rng.integers(0, args.rows, 8), rng.integers(0, args.k, 8)
ref = np.array([np.sum(X[i, :] * W[:, j]) for i, j in zip(rows, cols)])
mag = np.array([np.sum(np.abs(X[i, :]) * np.abs(W[:, j])) for i, j in zip(rows, cols)])
err = float(np.max(np.abs(C[rows, cols] - ref) / mag))
print(json.dumps({"rows": args.rows, "cols": args.cols, "k": args.k, "iter": args.iter,
                  "variant": "inplace" if args.inplace else "new", "total_s": total,
                  "first_s": times[0], "median_s": sorted(times)[len(times) // 2],
                  "iter_ms": [round(t * 1e3, 3) for t in times], "err": float(f"{err:.3e}"),
                  "check": "ok" if err < 1e-10 else "WRONG"}), flush=True)
