"""scipy.linalg on a dense tight-binding Hamiltonian of a disordered 2D lattice with long-range hopping: all its
eigenvalues and the projector onto the lowest states (eigh), a Green's function at one energy (solve) and the
singular values of a rectangular coupling block (svd), as a physicist calls them.  usage: sp_linalg.py SIZE
OUT.npz"""
import sys

import numpy as np
import scipy.linalg as sla

side = {"small": 12, "medium": 40, "large": 80}[sys.argv[1]]
n = side * side
rng = np.random.default_rng(17)
xy = np.stack(np.meshgrid(np.arange(side), np.arange(side)), -1).reshape(-1, 2).astype(float)
r = np.linalg.norm(xy[:, None, :] - xy[None, :, :], axis=-1)
H = np.where(r > 0, -np.exp(-r), 0) + np.diag(rng.uniform(-1, 1, n))
w, v = sla.eigh(H)
low = v[:, : n // 10]
G = sla.solve(H - 0.1 * np.eye(n), np.eye(n)[:, : n // 8], assume_a="sym")
s = sla.svd(H[: n // 2, n // 2:], compute_uv=False)
np.savez(sys.argv[2], eigenvalues=w, projector=low @ low.T, green=G, singular_values=s)
