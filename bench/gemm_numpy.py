"""The NumPy side of the GEMM benchmark (bench/gemm.sh): times c = a @ b for C-ordered arrays of one dtype
(or, with --mode cupy, the same product through CuPy with plain copies in and out), and prints one JSON line
per case: best and median time and a spot check of the result against a dot product in extended precision.

usage: python gemm_numpy.py --dtype s|d|c|z --mode NAME [--repeat R] [--budget S] [--max-n N] CASE...
       CASE is N (square) or MxNxK (a is m x k, b is k x n); a case with m n k > N^3 is reported as skipped.
"""
import argparse
import json
import math
import os
import sys
import time

import numpy as np
from settle import settle

DTYPES = {"s": np.float32, "d": np.float64, "c": np.complex64, "z": np.complex128}
POOL = 1048573  # a prime, so the repeating pattern never lines up with a row


def parse_case(text):
    parts = [int(x) for x in text.split("x")]
    if len(parts) == 1:
        parts *= 3
    if len(parts) != 3 or min(parts) < 1:
        sys.exit(f"gemm_numpy: bad case {text!r} (N or MxNxK)")
    return tuple(parts)


def filled(shape, dtype, pool):
    """A new C-ordered array filled by repeating the pool: memcpy speed, where drawing 2^28 random numbers
    in every process would cost more than the products."""
    dtype = np.dtype(dtype)
    real = np.empty(0, dtype).real.dtype
    out = np.empty(shape, dtype)
    flat = out.reshape(-1).view(real)
    for off in range(0, flat.size, POOL):
        part = flat[off:off + POOL]
        part[:] = pool[:part.size]
    return out


def check(a, b, c, k):
    """Largest error over 16 sampled entries (four corners, twelve pseudo-random), each against a dot product
    in long double (double for single precision) and scaled by sum |a_il| |b_lj|.  Inf for NaN or Inf."""
    m, n = c.shape
    rs = np.random.default_rng(12345)
    ii = [0, m - 1, 0, m - 1] + list(rs.integers(0, m, 12))
    jj = [0, 0, n - 1, n - 1] + list(rs.integers(0, n, 12))
    wide = np.clongdouble if np.iscomplexobj(c) else np.longdouble
    if c.dtype in (np.float32, np.complex64):
        wide = np.complex128 if np.iscomplexobj(c) else np.float64
    worst = 0.0
    for i, j in zip(ii, jj):
        x, y = a[i, :].astype(wide), b[:, j].astype(wide)
        ref = np.sum(x * y)
        mag = np.sum(np.abs(x) * np.abs(y))
        err = float(abs(c[i, j].astype(wide) - ref) / (mag if mag > 0 else 1))
        if not math.isfinite(err):
            return math.inf
        worst = max(worst, err)
    return worst


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cases", nargs="+")
    ap.add_argument("--dtype", required=True, choices=sorted(DTYPES))
    ap.add_argument("--mode", required=True)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--budget", type=float, default=1.0)
    ap.add_argument("--max-n", type=float, default=0)
    args = ap.parse_args()
    dtype = DTYPES[args.dtype]
    cases = [parse_case(c) for c in args.cases]

    if args.mode == "cupy":
        import cupy as cp

        def product(a, b):
            c = cp.asnumpy(cp.matmul(cp.asarray(a), cp.asarray(b)))
            cp.cuda.Device().synchronize()
            return c

        def release():
            cp.get_default_memory_pool().free_all_blocks()
    else:
        def product(a, b):
            return a @ b

        def release():
            pass

    rng = np.random.default_rng(1)
    pool = rng.random(POOL) * 2 - 1
    pool_b = np.roll(pool, POOL // 3)
    single = dtype in (np.float32, np.complex64)
    unit = 2.0 ** -24 if single else 2.0 ** -53
    cplx = dtype in (np.complex64, np.complex128)
    log = os.environ.get("GPUSHIM_LOG")
    for m, n, k in cases:
        head = {"tool": "numpy", "mode": args.mode, "dtype": args.dtype, "m": m, "n": n, "k": k}
        if args.max_n > 0 and m * n * k > args.max_n ** 3:
            print(json.dumps({**head, "skipped": f"m n k above {args.max_n:.0f}^3"}), flush=True)
            continue
        try:
            a = filled((m, k), dtype, pool)
            b = filled((k, n), dtype, pool_b)
        except MemoryError:
            print(json.dumps({**head, "error": "out of host memory"}), flush=True)
            continue
        t0 = time.perf_counter()
        c = product(a, b)
        warm = time.perf_counter() - t0
        err = check(a, b, c, k)  # the warm-up's output: a result never written would show here
        if settle():
            c = product(a, b)
        del c
        times = []
        while len(times) < args.repeat:
            t0 = time.perf_counter()
            c = product(a, b)
            times.append(time.perf_counter() - t0)
            if sum(times) > args.budget:
                break
        err = max(err, check(a, b, c, k))
        del a, b, c
        release()
        times.sort()
        r = len(times)
        median = times[r // 2] if r % 2 else 0.5 * (times[r // 2 - 1] + times[r // 2])
        # Rounding errors of a k-term sum, scaled as above, grow like sqrt(k) unit roundoffs; 8 sqrt(k) u
        # (twice that for complex) leaves room for any summation order, not for a wrong or lower-precision one.
        tol = 8 * (2 if cplx else 1) * unit * math.sqrt(k)
        flops = (8 if cplx else 2) * m * n * k
        rec = {**head, "best_ms": round(times[0] * 1e3, 4), "median_ms": round(median * 1e3, 4), "runs": r,
               "warmup_ms": round(warm * 1e3, 4), "gflops": round(flops / times[0] * 1e-9, 2),
               "err": float(f"{err:.3e}") if math.isfinite(err) else None, "tol": float(f"{tol:.3e}"),
               "check": "ok" if err <= tol else "WRONG"}
        if log:
            rec["log"] = log
        print(json.dumps(rec), flush=True)


main()
