"""The quick start's example: a small scientific workload in plain NumPy (a covariance matrix, products in
three precisions, a chain of products, and many small products).  Run under gpushim (`make demo`) it shows
what went to the GPU and what stayed on the CPU; the same script runs unchanged without it."""
import time

import numpy as np

rng = np.random.default_rng(0)


def timed(label, f):
    t = time.perf_counter()
    r = f()
    print(f"{label:<44} {1e3 * (time.perf_counter() - t):9.1f} ms")
    return r


X = rng.standard_normal((20000, 1500))
cov = timed("covariance X.T @ X, X 20000 x 1500", lambda: X.T @ X / len(X))
A, B = rng.standard_normal((3000, 3000)), rng.standard_normal((3000, 3000))
C = timed("A @ B, 3000 x 3000, float64", lambda: A @ B)
timed("A @ B, 3000 x 3000, float32", lambda: A.astype(np.float32) @ B.astype(np.float32))
Z = (A[:1500, :1500] + 1j * B[:1500, :1500]).astype(np.complex128)
timed("Z @ Z.conj().T, 1500 x 1500, complex128", lambda: Z @ Z.conj().T)
timed("chain A @ B @ A.T", lambda: A @ B @ A.T)
small = rng.standard_normal((2000, 16, 16))
timed("2000 products of 16 x 16 matrices", lambda: [m @ m for m in small])
print(f"check: trace(cov) = {np.trace(cov):.6f}, C[0, 0] = {C[0, 0]:.6f}")
