"""The cost the Python layer (scripts/python/gpushim/_linalg.py and _fft.py) adds to a small call that stays on the
CPU: each wrapped function on an 8 x 8 matrix, and numpy.fft's and scipy.fft's on 64 or 1024 points, called
alternately through the wrapper and through the original it wraps (for scipy.fft: with gpushim's backend the global
one, and with SciPy's own),
ROUNDS rounds of CALLS calls each; the fastest round of each is kept, which discards the noise of a shared
machine.  The difference is the wrapper's cost per call (the target of issues 48 and 49: at most 2 us).  Run it with the
layer on and the default policy, e.g. `python -m gpushim bench/pylayer_overhead.py`.
usage: python bench/pylayer_overhead.py [CALLS [ROUNDS]]; prints one JSON object per function."""
import json
import sys
import time

import numpy as np
import scipy.fft
import scipy.linalg

CALLS = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 7

rng = np.random.default_rng(1)
a = rng.standard_normal((8, 8)) + 8 * np.eye(8)
spd = a @ a.T
b = rng.standard_normal(8)
z64 = rng.standard_normal(64) + 1j * rng.standard_normal(64)
x1k = rng.standard_normal(1024)
z8x8 = rng.standard_normal((8, 8)) + 0j
cases = {
    "numpy.linalg.solve": (np.linalg.solve, (a, b)),
    "numpy.linalg.inv": (np.linalg.inv, (a,)),
    "numpy.linalg.cholesky": (np.linalg.cholesky, (spd,)),
    "numpy.linalg.eigh": (np.linalg.eigh, (spd,)),
    "numpy.linalg.eigvalsh": (np.linalg.eigvalsh, (spd,)),
    "numpy.linalg.det": (np.linalg.det, (a,)),
    "numpy.linalg.slogdet": (np.linalg.slogdet, (a,)),
    "numpy.linalg.svd": (np.linalg.svd, (a,)),
    "numpy.linalg.qr": (np.linalg.qr, (a,)),
    "numpy.linalg.lstsq": (np.linalg.lstsq, (a, b)),
    "scipy.linalg.cho_factor": (scipy.linalg.cho_factor, (spd,)),
    "scipy.linalg.cho_solve": (scipy.linalg.cho_solve, (scipy.linalg.cho_factor(spd), b)),
    "scipy.linalg.lu_factor": (scipy.linalg.lu_factor, (a,)),
    "scipy.linalg.lu_solve": (scipy.linalg.lu_solve, (scipy.linalg.lu_factor(a), b)),
    "scipy.linalg.eigh": (scipy.linalg.eigh, (spd,)),
    "scipy.linalg.inv": (scipy.linalg.inv, (a,)),
    "scipy.linalg.solve": (scipy.linalg.solve, (a, b)),
    "scipy.linalg.svd": (scipy.linalg.svd, (a,)),
    "scipy.linalg.qr": (scipy.linalg.qr, (a,)),
    "scipy.linalg.lstsq": (scipy.linalg.lstsq, (a, b)),
    "numpy.fft.fft": (np.fft.fft, (z64,)),
    "numpy.fft.rfft": (np.fft.rfft, (x1k,)),
    "numpy.fft.fft2": (np.fft.fft2, (z8x8,)),
    "scipy.fft.fft": (scipy.fft.fft, (z64,)),
    "scipy.fft.rfft": (scipy.fft.rfft, (x1k,)),
}
# scipy.fft's functions are not wrapped: the layer is its global backend, SciPy's own registered after it.
fft_layer = getattr(sys.modules.get("gpushim._fft"), "Backend", None)


def round_us(f, args, backend=None):
    if backend is not None:
        scipy.fft.set_global_backend(backend)
    t0 = time.perf_counter()
    for _ in range(CALLS):
        f(*args)
    return (time.perf_counter() - t0) / CALLS * 1e6


for name, (f, args) in cases.items():
    if name.startswith("scipy.fft."):
        original, backends = (f if fft_layer else None), (fft_layer, "scipy")
    else:
        original, backends = getattr(f, "_gpushim_original", None), (None, None)
    if original is None:
        print(json.dumps({"function": name, "layer": False}))
        continue
    best = [float("inf"), float("inf")]
    for _ in range(ROUNDS):
        best[0] = min(best[0], round_us(f, args, backends[0]))
        best[1] = min(best[1], round_us(original, args, backends[1]))
    if backends[0] is not None:
        scipy.fft.set_global_backend(fft_layer)
    print(json.dumps({"function": name, "layer": True, "wrapped_us": round(best[0], 3),
                      "original_us": round(best[1], 3), "added_us": round(best[0] - best[1], 3)}))
