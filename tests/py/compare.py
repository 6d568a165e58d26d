"""Compares two result files of blas_numpy.py: same keys, shapes and dtypes, NaN where NaN, values equal within
rounding (relative to the largest magnitude of each result: 1e-4 for single precision, 1e-10 for double).

usage: python compare.py REFERENCE.npz RESULT.npz
"""
import sys

import numpy as np

ref, res = np.load(sys.argv[1]), np.load(sys.argv[2])
bad = []
if sorted(ref.files) != sorted(res.files):
    bad.append(f"keys differ: {sorted(set(ref.files) ^ set(res.files))}")
for k in ref.files:
    if k not in res.files:
        continue
    x, y = ref[k], res[k]
    if x.shape != y.shape or x.dtype != y.dtype:
        bad.append(f"{k}: {x.shape} {x.dtype} against {y.shape} {y.dtype}")
        continue
    tol = 1e-4 if x.dtype in (np.float32, np.complex64) else 1e-10
    scale = max(1.0, float(np.nanmax(np.abs(x))) if x.size else 1.0)
    if not np.array_equal(np.isnan(x), np.isnan(y)) or np.nanmax(np.abs(x - y), initial=0) > tol * scale:
        bad.append(f"{k}: max difference {np.nanmax(np.abs(x - y))} (scale {scale})")
for b in bad:
    print("compare:", b)
print(f"compare: {len(ref.files)} results, {len(bad)} differ")
sys.exit(1 if bad else 0)
