"""NumPy loops as scripts write them: k-means by matrix products and elementwise work, gradient descent of a
least-squares model, and many small products.  usage: np_loops.py SIZE OUT.npz"""
import sys

import numpy as np

kmeans, descent, small = {
    "small": ((4000, 16, 8, 5), (2000, 200, 4, 5), (200, 16)),
    "medium": ((200000, 64, 32, 10), (8192, 2048, 8, 20), (2000, 64)),
    "large": ((400000, 64, 32, 15), (16384, 4096, 8, 20), (20000, 64)),
}[sys.argv[1]]
rng = np.random.default_rng(31)

n, d, k, iters = kmeans
X = rng.standard_normal((n, d))
C = X[:k].copy()
x2 = (X * X).sum(1)[:, None]
for _ in range(iters):
    labels = (x2 - 2 * (X @ C.T) + (C * C).sum(1)[None, :]).argmin(1)
    for j in range(k):
        members = labels == j
        if members.any():
            C[j] = X[members].mean(0)

rows, cols, targets, steps = descent
A = rng.standard_normal((rows, cols))
Y = rng.standard_normal((rows, targets))
W = np.zeros((cols, targets))
for _ in range(steps):
    W -= 0.1 * (A.T @ (A @ W - Y)) / rows

count, m = small
P = np.eye(m)
for i in range(count):
    P = P @ (np.eye(m) + 1e-3 * rng.standard_normal((m, m)))
    P /= np.linalg.norm(P)
np.savez(sys.argv[2], centres=np.sort(C, axis=0), weights=W, product=P)
