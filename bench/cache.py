"""The residency cache's benchmarks (issue 4), in NumPy as a user writes them, or in CuPy with everything kept
on the GPU by hand (the ideal the cache is measured against).  Each prints one JSON line: the benchmark, the
backend, and the seconds of the best of REPEAT runs (default 2) of the timed part.  Data are made before the
clock starts; the CuPy versions start from the same NumPy arrays and include copying them to the GPU and the
results back, as a program that holds its data in NumPy must.

usage: python cache.py numpy|cupy [BENCH...]     (BENCH: products power chain ridge fresh; default the first four)
    a. products: 50 products A @ X_i, A fixed (n = 8192), each X_i 8192 x 256
    b. power: 100 steps of x = A @ x; x /= norm(x), n = 16384
    c. chain: A @ B @ C @ D, n = 8192
    d. ridge: np.linalg.solve(X.T @ X + lam I, X.T @ y) for 10 values of lam, X 200000 x 2048; the solve runs
       on the CPU until LAPACK is offloaded, so the products are also timed alone ("ridge-products")
    fresh: 8 products of new 4096 x 4096 matrices, never used again (what the cache's bookkeeping costs a
       program that never repeats an operand); "fresh-4k" the same with NumPy's huge-page advice off, so
       that the arrays sit in 4 KiB pages, the costlier case for write protection
"""
import json
import os
import sys
import time

import numpy as np
from settle import settle

backend = sys.argv[1]
benches = sys.argv[2:] or ["products", "power", "chain", "ridge"]
repeat = int(os.environ.get("REPEAT", "2"))
shrink = int(os.environ.get("SHRINK", "1"))  # divides every size, for a quick try without a GPU
rng = np.random.default_rng(2026)
if backend == "cupy":
    import cupy as cp


def rand(*shape):
    return rng.random(tuple(max(d // shrink, 1) for d in shape), dtype=np.float64) - 0.5


def sync():
    if backend == "cupy":
        cp.cuda.Device().synchronize()


def best(name, f, make):
    """Times f(*make()) REPEAT times, on new arrays each time (new addresses: nothing cached from before)."""
    times = []
    for _ in range(repeat):
        args = make()
        sync()
        t0 = time.perf_counter()
        f(*args)
        sync()
        times.append(time.perf_counter() - t0)
    print(json.dumps({"bench": name, "backend": backend, "seconds": min(times), "runs": times}), flush=True)


def products(A, X):
    if backend == "cupy":
        dA = cp.asarray(A)
        return [cp.asnumpy(dA @ cp.asarray(x)) for x in X]
    return [A @ x for x in X]


def power(A, x):
    if backend == "cupy":
        dA, x = cp.asarray(A), cp.asarray(x)
        for _ in range(100):
            x = dA @ x
            x /= cp.linalg.norm(x)
        return cp.asnumpy(x)
    for _ in range(100):
        x = A @ x
        x /= np.linalg.norm(x)
    return x


def chain(A, B, C, D):
    if backend == "cupy":
        return cp.asnumpy(cp.asarray(A) @ cp.asarray(B) @ cp.asarray(C) @ cp.asarray(D))
    return A @ B @ C @ D


LAMS = [10.0 ** e for e in range(-4, 6)]


def ridge(X, y, solve=True):
    n = X.shape[1]
    if backend == "cupy":
        dX, dy = cp.asarray(X), cp.asarray(y)
        I = cp.eye(n)
        out = []
        for lam in LAMS:
            G, r = dX.T @ dX + lam * I, dX.T @ dy
            out.append(cp.asnumpy(cp.linalg.solve(G, r) if solve else G))
        return out
    I = np.eye(n)
    return [np.linalg.solve(X.T @ X + lam * I, X.T @ y) if solve else X.T @ X + lam * I for lam in LAMS]


def fresh(pairs):
    return [a @ b for a, b in pairs]


# A warm-up product, untimed: the bring-up it starts (CuPy's, or gpushim's in the background) is over before
# the clocks start.
W = rand(2048, 2048)
W = cp.asnumpy(cp.asarray(W) @ cp.asarray(W)) if backend == "cupy" else W @ W
if settle():
    W = W @ W
del W

if "fresh" in benches:
    for name, huge in (("fresh", True), ("fresh-4k", False)):
        np._core.multiarray._set_madvise_hugepage(huge)
        # new memory each time, filled quickly (values do not matter here)
        best(name, fresh, lambda: ([(np.full((4096 // shrink,) * 2, 0.5), np.full((4096 // shrink,) * 2, 0.25))
                                    for _ in range(8)],))
    np._core.multiarray._set_madvise_hugepage(True)
if "products" in benches:
    A, X = rand(8192, 8192), [rand(8192, 256) for _ in range(50)]
    best("products", products, lambda: (A.copy(), [x.copy() for x in X]))
    del A, X
if "power" in benches:
    A, x = rand(16384, 16384), rand(16384)
    best("power", power, lambda: (A.copy(), x.copy()))
    del A, x
if "chain" in benches:
    M = [rand(8192, 8192) for _ in range(4)]
    best("chain", chain, lambda: [m.copy() for m in M])
    del M
if "ridge" in benches:
    X, y = rand(200000, 2048), rand(200000)
    best("ridge", ridge, lambda: (X.copy(), y.copy()))
    best("ridge-products", ridge, lambda: (X.copy(), y.copy(), False))
