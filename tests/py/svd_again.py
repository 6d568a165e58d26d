"""The same economy SVD of a tall matrix N times, as a fit takes one of its Jacobian every step
(bench/apps/sp_optimize.py's design, svd_tall.py's "gauss"): what each call gave, for compare.py.  With the GPU's
answers refused every time (the stand-in's wrong SVDs), t_lapack counts how many calls still tried the GPU.

usage: python svd_again.py OUT.npz M N
"""
import sys

import numpy as np

m, n = int(sys.argv[2]), int(sys.argv[3])
x = np.linspace(0, 1, m)
a = np.exp(-((x[:, None] - np.linspace(0.02, 0.98, 400)[None, :]) / (0.5 / 400)) ** 2)
w = np.random.default_rng(7).standard_normal(400)
out = {}
for i in range(n):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    out[f"s{i}"], out[f"rebuilt{i}"] = s, (u * s) @ (vh @ w)
np.savez(sys.argv[1], **out)
