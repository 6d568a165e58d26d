"""LAPACK through NumPy and SciPy (issue 5), as a user writes it, or in CuPy with copies (the data start in
NumPy and the results come back to NumPy).  Prints one JSON line per case and size: the case, n, the backend
and the seconds of the best of REPEAT runs (default 2; 1 when a run takes over 5 s), each on a new copy of the
data, made before the clock starts.

usage: python lapack.py numpy|cupy [--layer] [CASE...]   (default: every case); --layer: `import gpushim` first
  (libgpushim.so preloaded), so that the functions gpushim's Python layer wraps go through it
  sizes: SIZES (default "1024 2048 4096 8192 16384"); BIG (default 8192): the largest n for the eigensolvers,
  the SVD, lstsq and schur, whose CPU times grow past minutes at 16384
  cases: solve (64 right-hand sides), solve_f (the same with A in Fortran order), inv, cholesky, eigh, eigvalsh,
  svd, svdvals (numpy.linalg.svd without vectors), qr, det, slogdet, lstsq (64 right-hand sides), slstsq
  (scipy.linalg.lstsq, the same), sinv, ssvd, sqr (scipy.linalg's inv, svd and qr), eig,
  lu (scipy.linalg.lu_factor, then lu_solve with 64 right-hand sides, 10 times), cho (cho_factor, then
  cho_solve likewise), and ssolve and scholesky: scipy.linalg.solve and cholesky, which hand LAPACK a
  Fortran-ordered copy made in one pass, where numpy.linalg copies column by column with a strided BLAS copy;
  seigh, seigh_evd, seigh_evx: scipy.linalg.eigh by its default driver (syevr), by evd (syevd) and by evx
  (syevx) for the lowest tenth of the eigenvalues; ssym: scipy.linalg.solve with assume_a="sym" (sytrf and
  sytrs) of a symmetric indefinite A; schur: scipy.linalg.schur (gees, on the CPU: CuPy has none)
A warm-up solve at n = 2048 comes first, so that no case pays for bringing CUDA up.
"""
import json
import os
import sys
import time

import numpy as np
from settle import settle

backend = sys.argv[1]
if "--layer" in sys.argv:
    sys.argv.remove("--layer")
    import gpushim  # noqa: F401  (the layer's wrappers)
cases = sys.argv[2:] or ["solve", "solve_f", "inv", "cholesky", "eigh", "eigvalsh", "svd", "svdvals", "qr", "det",
                         "slogdet", "lstsq", "slstsq", "sinv", "ssvd", "sqr", "eig", "lu", "cho", "ssolve", "scholesky",
                         "seigh", "seigh_evd", "seigh_evx", "ssym", "schur"]
# Cases whose CPU time grows past minutes beyond BIG.
slow = ("eigh", "eigvalsh", "svd", "svdvals", "ssvd", "eig", "lstsq", "slstsq", "seigh", "seigh_evd", "seigh_evx",
        "schur")
sizes = [int(s) for s in os.environ.get("SIZES", "1024 2048 4096 8192 16384").split()]
big = int(os.environ.get("BIG", "8192"))
repeat = int(os.environ.get("REPEAT", "2"))
rng = np.random.default_rng(2026)
if backend == "cupy":
    import cupy as cp
    import cupyx.scipy.linalg as cla
else:
    import scipy.linalg as sla


def data(case, n):
    a = rng.random((n, n)) - 0.5
    if case in ("cholesky", "eigh", "eigvalsh", "cho", "scholesky", "seigh", "seigh_evd", "seigh_evx"):
        a = a @ a.T + n * np.eye(n)
    if case == "ssym":
        a = a + a.T
    b = rng.random((n, 64)) - 0.5
    return (np.asfortranarray(a) if case == "solve_f" else a), b


def run_numpy(case, a, b):
    la = np.linalg
    if case in ("solve", "solve_f"):
        return la.solve(a, b)
    if case == "seigh":
        return sla.eigh(a)
    if case == "seigh_evd":
        return sla.eigh(a, driver="evd")
    if case == "seigh_evx":
        return sla.eigh(a, driver="evx", subset_by_index=[0, a.shape[0] // 10 - 1])
    if case == "ssym":
        return sla.solve(a, b, assume_a="sym")
    if case == "schur":
        return sla.schur(a)
    if case == "inv":
        return la.inv(a)
    if case == "eigvalsh":
        return la.eigvalsh(a)
    if case == "slogdet":
        return la.slogdet(a)
    if case in ("sinv", "ssvd", "sqr"):
        return getattr(sla, case[1:])(a)
    if case == "ssolve":
        return sla.solve(a, b)
    if case == "scholesky":
        return sla.cholesky(a, lower=True)
    if case == "cholesky":
        return la.cholesky(a)
    if case == "eigh":
        return la.eigh(a)
    if case == "svd":
        return la.svd(a)
    if case == "svdvals":
        return la.svd(a, compute_uv=False)
    if case == "qr":
        return la.qr(a)
    if case == "det":
        return la.det(a)
    if case == "lstsq":
        return la.lstsq(a, b, rcond=None)
    if case == "slstsq":
        return sla.lstsq(a, b)
    if case == "eig":
        return la.eig(a)
    if case == "lu":
        f = sla.lu_factor(a)
        return [sla.lu_solve(f, b) for _ in range(10)]
    if case == "cho":
        f = sla.cho_factor(a)
        return [sla.cho_solve(f, b) for _ in range(10)]


def run_cupy(case, a, b):
    la = cp.linalg
    da, db = cp.asarray(a), cp.asarray(b)
    out = {
        "solve": lambda: la.solve(da, db), "ssolve": lambda: la.solve(da, db), "solve_f": lambda: la.solve(da, db),
        "ssym": lambda: la.solve(da, db), "seigh": lambda: la.eigh(da), "seigh_evd": lambda: la.eigh(da),
        "seigh_evx": lambda: (lambda w, v: (w[: da.shape[0] // 10], v[:, : da.shape[0] // 10]))(*la.eigh(da)),
        "scholesky": lambda: la.cholesky(da), "inv": lambda: la.inv(da), "cholesky": lambda: la.cholesky(da),
        "eigh": lambda: la.eigh(da), "eigvalsh": lambda: la.eigvalsh(da), "svd": lambda: la.svd(da),
        "ssvd": lambda: la.svd(da), "sinv": lambda: la.inv(da), "sqr": lambda: la.qr(da),
        "slogdet": lambda: la.slogdet(da),
        "svdvals": lambda: la.svd(da, compute_uv=False), "qr": lambda: la.qr(da), "det": lambda: la.det(da),
        "lstsq": lambda: la.lstsq(da, db, rcond=None), "slstsq": lambda: la.lstsq(da, db, rcond=None),
        "eig": lambda: la.eig(da) if hasattr(la, "eig") else None,
        "lu": lambda: (lambda f: [cla.lu_solve(f, db) for _ in range(10)])(cla.lu_factor(da)),
        "cho": lambda: (lambda f: [cla.cho_solve(f, db) for _ in range(10)])(cla.cho_factor(da)),
    }[case]()
    res = out if isinstance(out, (tuple, list)) else [out]
    return [cp.asnumpy(x) if isinstance(x, cp.ndarray) else x for x in res]


(run_cupy if backend == "cupy" else run_numpy)("solve", *data("solve", 2048))
if settle():
    run_numpy("solve", *data("solve", 2048))
for case in cases:
    if backend == "cupy" and case == "cho" and not hasattr(cla, "cho_factor"):
        continue
    for n in sizes:
        if n > big and case in slow:
            continue
        if backend == "cupy" and case == "schur":
            continue
        if backend == "cupy" and case == "eig" and not hasattr(cp.linalg, "eig"):
            continue
        times = []
        for i in range(repeat):
            a, b = data(case, n)
            if backend == "cupy":
                cp.cuda.Device().synchronize()
            t0 = time.perf_counter()
            (run_cupy if backend == "cupy" else run_numpy)(case, a, b)
            if backend == "cupy":
                cp.cuda.Device().synchronize()
            times.append(time.perf_counter() - t0)
            if times[-1] > 5:
                break
        print(json.dumps({"case": case, "n": n, "backend": backend, "seconds": min(times), "runs": times}),
              flush=True)
