"""Economy SVDs of a tall matrix of condition about 1e16 (random factors on either side of singular values from 1
to 1e-14, so that no scaling of its columns undoes it), through scipy.linalg.svd and numpy.linalg.svd: past what
CholeskyQR2 holds (its Gram matrix is not positive definite in double precision), so the tall SVD on the GPU takes
Householder's QR (src/backend/cuda_svd.c).  Saves the singular values and U S Vh times a vector, for compare.py.

usage: python svd_graded.py OUT.npz [M]   (M rows, 20000 by default)
"""
import sys

import numpy as np
import scipy.linalg

m = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
rng = np.random.default_rng(11)
a = (rng.standard_normal((m, 200)) * np.logspace(0, -14, 200)) @ rng.standard_normal((200, 200))
w = rng.standard_normal(200)
out = {}
for lib, svd in (("scipy", scipy.linalg.svd), ("numpy", np.linalg.svd)):
    u, s, vh = svd(a, full_matrices=False)
    out[lib + "_s"], out[lib + "_rebuilt_w"] = s, (u * s) @ (vh @ w)
np.savez(sys.argv[1], **out)
