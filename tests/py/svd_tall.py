"""Economy SVDs of tall matrices with m past 2^15 rows, as scipy.optimize.least_squares takes one of its Jacobian
every step (bench/apps/sp_optimize.py, 60000 x 400): through scipy.linalg.svd and numpy.linalg.svd, float64 and
complex128.  Saves what does not depend on the signs the routine picks: the singular values, U^H U and V V^H,
the product U S V^H times a vector, and the least-squares solution V S^-1 U^H b, for compare.py.

usage: python svd_tall.py OUT.npz [M]   (M rows, 60000 by default)
"""
import sys

import numpy as np
import scipy.linalg

m = int(sys.argv[2]) if len(sys.argv) > 2 else 60000
rng = np.random.default_rng(5)
x = np.linspace(0, 1, m)
cases = {
    # sp_optimize's design: 400 Gaussians, condition number 1.4, every SVD of it as good as any other
    "gauss": np.exp(-((x[:, None] - np.linspace(0.02, 0.98, 400)[None, :]) / (0.5 / 400)) ** 2),
    "random": rng.standard_normal((m, 400)),
    "complex": rng.standard_normal((m, 100)) + 1j * rng.standard_normal((m, 100)),
}
out = {}
for name, a in cases.items():
    w, b = rng.standard_normal(a.shape[1]), rng.standard_normal(m)
    for lib, svd in (("scipy", lambda z: scipy.linalg.svd(z, full_matrices=False)),
                     ("numpy", lambda z: np.linalg.svd(z, full_matrices=False))):
        u, s, vh = svd(a)
        k = f"{name}_{lib}_"
        out[k + "s"], out[k + "uhu"], out[k + "vvh"] = s, u.conj().T @ u, vh @ vh.conj().T
        out[k + "rebuilt_w"] = (u * s) @ (vh @ w)
        out[k + "lstsq"] = vh.conj().T @ ((u.conj().T @ b) / s)
np.savez(sys.argv[1], **out)
