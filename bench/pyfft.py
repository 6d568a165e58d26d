"""numpy.fft and scipy.fft as a user calls them (issue 49): one side per process, each case's whole call from NumPy
arrays to NumPy arrays, the best of REPEAT timed calls after a warm-up, each on a fresh copy of the input made
before the clock starts.  Prints one JSON line per case: the case, the side, the seconds and a checksum (the sum
of the result's magnitudes), which bench/pyfft.sh compares across sides.

usage: python pyfft.py numpy|scipy|cupy [--layer] [CASE...]   (default: every case)
  numpy: numpy.fft (one thread); scipy: scipy.fft with workers set to every CPU (scipy.signal too); cupy: CuPy with
  copies from and to NumPy, synchronised; --layer: `import gpushim` first (libgpushim.so preloaded), so that
  numpy.fft's wrappers or scipy.fft's backend hand the transforms to the library
  REPEAT (default 3); STEPS (default 100): the steps of the loop cases, timed once
Cases: c2c256 and c2c512 (fftn of N^3 complex128), rfft2 (8192^2 float64), batch (fft of each row of
4096 x 4096 complex128), conv (scipy.signal.fftconvolve of an 8192^2 image with a 64^2 kernel), loop (STEPS
steps of fftn, a multiply in NumPy and ifftn, on 256^3 complex128), and the small and medium ones where the CPU
should stay: fft64, fft1k, fft64k, fft1m (one transform of that many points), rfft1k, fft2_64 (64 x 64),
fftn64 (64^3), rfft2_1k (1024^2 float64).
"""
import json
import os
import sys
import time

import numpy as np

side = sys.argv[1]
layer = "--layer" in sys.argv
names = [a for a in sys.argv[2:] if a != "--layer"]
if layer:
    import gpushim  # noqa: F401  (the layer's wrappers and backend)
from settle import settle  # noqa: E402

REPEAT = int(os.environ.get("REPEAT", "3"))
STEPS = int(os.environ.get("STEPS", "100"))
WORKERS = os.cpu_count()
rng = np.random.default_rng(49)

if side == "cupy":
    import cupy as cp
    import cupyx.scipy.signal as csig
    fx = cp.fft
else:
    import scipy.fft
    import scipy.signal
    fx = np.fft if side == "numpy" else scipy.fft


def cplx(*shape):
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


def host(f, *xs):
    """f on the side's arrays: CuPy's with the copies there and back; NumPy's as they are."""
    if side != "cupy":
        return f(*xs)
    y = cp.asnumpy(f(*[cp.asarray(x) for x in xs]))
    cp.cuda.Device().synchronize()
    return y


def kw():
    return {"workers": WORKERS} if side == "scipy" else {}


def transform(name, axes=None):
    return lambda x: host(lambda d: getattr(fx, name)(d, axes=axes, **kw()) if axes else
                          getattr(fx, name)(d, **kw()), x)


def conv(img, k):
    if side == "cupy":
        return host(csig.fftconvolve, img, k)
    if side == "scipy":
        with scipy.fft.set_workers(WORKERS):
            return scipy.signal.fftconvolve(img, k)
    return scipy.signal.fftconvolve(img, k)


def loop(x, k):
    """STEPS steps of a spectral solver: forward, a multiply in NumPy, back (CuPy: each transform from the host)."""
    for _ in range(STEPS):
        y = host(lambda d: fx.fftn(d, **kw()), x)
        y *= k
        x = host(lambda d: fx.ifftn(d, **kw()), y)
    return x


# name: (inputs, call, timed calls)
CASES = {
    "c2c256": (lambda: [cplx(256, 256, 256)], transform("fftn"), REPEAT),
    "c2c512": (lambda: [cplx(512, 512, 512)], transform("fftn"), REPEAT),
    "rfft2": (lambda: [rng.standard_normal((8192, 8192))], transform("rfft2"), REPEAT),
    "batch": (lambda: [cplx(4096, 4096)], transform("fft"), REPEAT),
    "conv": (lambda: [rng.standard_normal((8192, 8192)), rng.standard_normal((64, 64))], conv, REPEAT),
    "loop": (lambda: [cplx(256, 256, 256), np.exp(-rng.random((256, 256, 256)))], loop, 1),
    "fft64": (lambda: [cplx(64)], transform("fft"), REPEAT),
    "fft1k": (lambda: [cplx(1024)], transform("fft"), REPEAT),
    "fft64k": (lambda: [cplx(65536)], transform("fft"), REPEAT),
    "fft1m": (lambda: [cplx(1 << 20)], transform("fft"), REPEAT),
    "rfft1k": (lambda: [rng.standard_normal(1024)], transform("rfft"), REPEAT),
    "fft2_64": (lambda: [cplx(64, 64)], transform("fft2"), REPEAT),
    "fftn64": (lambda: [cplx(64, 64, 64)], transform("fftn"), REPEAT),
    "rfft2_1k": (lambda: [rng.standard_normal((1024, 1024))], transform("rfft2"), REPEAT),
}
SMALL = {"fft64", "fft1k", "rfft1k", "fft2_64"}  # timed in batches: one call is below the clock's resolution

if side not in ("numpy", "scipy", "cupy") or any(n not in CASES for n in names):
    sys.exit(__doc__)
for name in names or CASES:
    make, call, timed = CASES[name]
    xs = make()
    call(*[x.copy() for x in xs])  # the warm-up: plans, and the GPU brought up where the call wanted it
    if settle():
        call(*[x.copy() for x in xs])
    batch = 1000 if name in SMALL else 1
    best = float("inf")
    for _ in range(timed):
        args = [[x.copy() for x in xs] for _ in range(batch)]
        t0 = time.perf_counter()
        for a in args:
            y = call(*a)
        best = min(best, (time.perf_counter() - t0) / batch)
    print(json.dumps({"case": name, "side": side + ("+layer" if layer else ""), "seconds": best,
                      "checksum": float(np.abs(y).sum()), "steps": STEPS if name == "loop" else None}), flush=True)
