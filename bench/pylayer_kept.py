"""The cost the Python layer adds to a call that the library keeps on the CPU (issue 49's target: the layer at
most 5% slower than the function it stands in for, at any size): transforms and solves of medium size, called
alternately through the wrapper and through the original (for scipy.fft: gpushim's backend, then SciPy's own),
ROUNDS rounds; the median of each, and how many of the wrapper's calls the library weighed (the others its rates
leave to the original at once: gpushim_fft_min_points, on the original's threads).  The library is loaded by
`import gpushim` with a policy whose GPU never finishes its bring-up (unless GPUSHIM_POLICY is set), so that each
call the rates would give the GPU is weighed and kept, as it is while the GPU comes up; the log's count of calls
that went to the GPU must be 0.
Without a GPU, the stand-in (GPUSHIM_CUDA_LIBDIR=build/standin) makes the library weigh the calls as on one.
usage: PYTHONPATH=scripts/python python bench/pylayer_kept.py [ROUNDS]  (not under LD_PRELOAD or python -m
gpushim: the policy must be set before the library loads); prints one JSON object per case."""
import contextlib
import io
import json
import os
import sys
import tempfile
import time

ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 15
work = tempfile.mkdtemp(prefix="gpushim-kept-")
if "GPUSHIM_POLICY" not in os.environ:
    with open(os.path.join(work, "kept.policy"), "w") as f:
        f.write("* bringup_us=1e12\n")
    os.environ["GPUSHIM_POLICY"] = f.name
os.environ["GPUSHIM_LOG"] = os.path.join(work, "kept.log")

import gpushim  # noqa: E402  (after the policy: the library reads it as it loads)
import numpy as np  # noqa: E402
import scipy.fft  # noqa: E402
import scipy.linalg  # noqa: E402

if not gpushim.loaded() or os.environ.get("LD_PRELOAD"):
    sys.exit("pylayer_kept: run with the package importable and without LD_PRELOAD (see usage)")

rng = np.random.default_rng(1)
r20 = rng.standard_normal(1 << 20)
z20 = r20 + 1j * rng.standard_normal(1 << 20)
r1k2 = rng.standard_normal((1024, 1024))
z1k4k = rng.standard_normal((1024, 4096)) + 1j
a = rng.standard_normal((1024, 1024)) + 32 * np.eye(1024)
b = rng.standard_normal((1024, 64))
W = os.cpu_count()


def scipy_own(fn):
    def own(*args, **kwargs):
        with scipy.fft.set_backend("scipy", only=True):
            return fn(*args, **kwargs)
    return own


cases = {
    "numpy.fft.fft, 2^20 float64 (cast to complex)": (np.fft.fft, (r20,), {}),
    "numpy.fft.fft, 2^20 complex128": (np.fft.fft, (z20,), {}),
    "numpy.fft.hfft, 2^20 complex128 (conjugated)": (np.fft.hfft, (z20,), {}),
    "numpy.fft.rfft2, 1024^2 float64": (np.fft.rfft2, (r1k2,), {}),
    "numpy.fft.fft, 2^20 float64, n = 2^20 + 2^19 (padded)": (np.fft.fft, (r20,), {"n": 3 << 19}),
    "scipy.fft.fft, 2^20 float64, all workers": (scipy.fft.fft, (r20,), {"workers": W}),
    "scipy.fft.rfft2, 1024^2 float64, all workers": (scipy.fft.rfft2, (r1k2,), {"workers": W}),
    "scipy.fft.fft, 1024 x 4096 complex128, all workers": (scipy.fft.fft, (z1k4k,), {"workers": W}),
    "numpy.linalg.solve, 1024, 64 right-hand sides": (np.linalg.solve, (a, b), {}),
    "scipy.linalg.solve, 1024, 64 right-hand sides": (scipy.linalg.solve, (a, b), {}),
}


def weighed(api, since):
    """The calls of api in the log from byte offset since on (each one the library weighed), and the log's size."""
    with contextlib.redirect_stdout(io.StringIO()):  # (summary prints its table)
        rows = gpushim.summary(since)
    log = os.environ["GPUSHIM_LOG"]
    return rows.get(api, (0,))[0], os.path.getsize(log) if os.path.exists(log) else 0


_, since = weighed(None, 0)
for name, (fn, args, kwargs) in cases.items():
    own = scipy_own(fn) if fn.__module__.startswith("scipy.fft") else getattr(fn, "_gpushim_original", None)
    if own is None:
        print(json.dumps({"case": name, "skipped": "not wrapped"}))
        continue
    times = {"layer": [], "original": []}
    for _ in range(ROUNDS):
        for side, f in (("layer", fn), ("original", own)):
            t = time.perf_counter()
            r = f(*args, **kwargs)
            times[side].append(time.perf_counter() - t)
            del r
    med = {k: sorted(v)[len(v) // 2] * 1e3 for k, v in times.items()}
    n, since = weighed(name.split(",")[0], since)
    print(json.dumps({"case": name, "layer_ms": round(med["layer"], 3), "original_ms": round(med["original"], 3),
                      "ratio": round(med["layer"] / med["original"], 3),
                      "weighed": n}))
print(json.dumps({"calls_on_the_gpu": sum(gpu for _, gpu, _ in gpushim.summary().values()),
                  "log": os.environ["GPUSHIM_LOG"]}))
