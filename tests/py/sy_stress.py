"""sytrf then sytrs through scipy.linalg.lapack on small random symmetric systems (real and complex, both
triangles, 1 to 5 right-hand sides), each answer checked against A; for tests/gpu/run.sh's group shared, which
runs many of these processes on one GPU at once.  Prints "sy_stress cases N wrong W"; exit status 1 if W > 0.

usage: python sy_stress.py SEED SECONDS"""
import sys
import time

import numpy as np
import scipy.linalg.lapack as la

rng = np.random.default_rng(int(sys.argv[1]))
end = time.time() + float(sys.argv[2])
cases = wrong = 0
while time.time() < end:
    n, nrhs, lower = int(rng.integers(1, 40)), int(rng.integers(1, 6)), int(rng.integers(0, 2))
    cplx = rng.integers(0, 2) == 1
    a = rng.standard_normal((n, n)) + (1j * rng.standard_normal((n, n)) if cplx else 0)
    a = a + a.T
    b = rng.standard_normal((n, nrhs)) + (0j if cplx else 0)
    trf, trs = (la.zsytrf, la.zsytrs) if cplx else (la.dsytrf, la.dsytrs)
    lu, piv, info = trf(a, lower=lower)
    x, info2 = trs(lu, piv, b, lower=lower)
    cases += 1
    tol = 1e-8 * n * np.abs(a).max() * max(1.0, np.abs(x).max())
    if info == 0 and (info2 != 0 or not np.allclose(a @ x, b, atol=tol)):
        wrong += 1
        if wrong <= 3:
            print(f"sy_stress: wrong answer: n={n} nrhs={nrhs} lower={lower} complex={cplx} info={info2}")
print(f"sy_stress cases {cases} wrong {wrong}")
sys.exit(wrong > 0)
