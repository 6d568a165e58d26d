"""The quick start's example: a small scientific workload in plain NumPy (products in three precisions, a
covariance matrix, a chain of products, and many small products).  Run under gpushim (`make demo`) it shows
what went to the GPU and what stayed on the CPU; the same script runs unchanged without it.

Its sizes follow the machine: where an NVIDIA GPU is present (/dev/nvidiactl), products of order 4096 to 8192,
about ten seconds on the H200 machine's 16 cores, enough for the GPU to win the whole run, its start-up
included (the first product waits for it); elsewhere, a few seconds' worth of smaller ones.  DEMO_SIZE=small
or large chooses."""
import os
import sys
import time

import numpy as np

size = os.environ.get("DEMO_SIZE") or ("large" if os.path.exists("/dev/nvidiactl") else "small")
if size not in ("small", "large"):
    sys.exit(f"bench/demo.py: DEMO_SIZE={size!r} is not valid: use small or large")
n, rows, cols, nz = {"small": (3000, 20000, 1500, 1500), "large": (8192, 40000, 2048, 4096)}[size]
print(f"sizes: {size} (DEMO_SIZE=small or large chooses)")
rng = np.random.default_rng(0)


def timed(label, f):
    t = time.perf_counter()
    r = f()
    print(f"{label:<44} {1e3 * (time.perf_counter() - t):9.1f} ms")
    return r


A, B = rng.standard_normal((n, n)), rng.standard_normal((n, n))
C = timed(f"A @ B, {n} x {n}, float64", lambda: A @ B)
timed(f"A @ B, {n} x {n}, float32", lambda: A.astype(np.float32) @ B.astype(np.float32))
X = rng.standard_normal((rows, cols))
cov = timed(f"covariance X.T @ X, X {rows} x {cols}", lambda: X.T @ X / len(X))
Z = (A[:nz, :nz] + 1j * B[:nz, :nz]).astype(np.complex128)
timed(f"Z @ Z.conj().T, {nz} x {nz}, complex128", lambda: Z @ Z.conj().T)
timed("chain A @ B @ A.T", lambda: A @ B @ A.T)
small = rng.standard_normal((2000, 16, 16))
timed("2000 products of 16 x 16 matrices", lambda: [m @ m for m in small])
print(f"check: trace(cov) = {np.trace(cov):.6f}, C[0, 0] = {C[0, 0]:.6f}")
