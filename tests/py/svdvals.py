"""The singular values alone (numpy.linalg.svd without vectors) of an n x n float64 matrix, saved for
compare.py: gesvdp serves them on the GPU from n = 1024, gesvd below (src/backend/cuda_svd.c).

usage: python svdvals.py OUT.npz N
"""
import sys

import numpy as np

n = int(sys.argv[2])
a = np.random.default_rng(5).random((n, n)) - 0.5
np.savez(sys.argv[1], svdvals=np.linalg.svd(a, compute_uv=False))
