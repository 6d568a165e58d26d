"""The CuPy column of the FFT benchmark (bench/fft.sh): bench/fft.c's large cases as cupy.fft calls on arrays
copied from host memory and back (asarray, transform, asnumpy, synchronised: the whole host-to-host time), with
the same input and the same checks (Parseval's identity; sampled outputs against the reference that the FFTW
run saved).  Prints one JSON line per case, as bench/fft.c does; progress on stderr.

usage: python fft_cupy.py [--prec ds] [--repeat R] [--ref DIR] [--xp numpy] CASE...
       CASE: c2c:D r2c:D c2r:D many:HxN tr:D as bench/fft.c takes them; --xp numpy runs numpy.fft instead (a test of
       this script on a machine without a GPU)
"""
import argparse
import json
import math
import os
import sys
import time

import numpy as np

POOL = 1048573  # as bench/pool.h: the same values in the same order
SAMPLES = 4096
TOL = {"d": 1e-10, "s": 1e-4}


def make_pool():
    """bench/pool.h's pool_init: splitmix64 from the golden-ratio increment, in [-1, 1)."""
    z = np.arange(2, POOL + 2, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z ^= z >> np.uint64(31)
    return (z >> np.uint64(11)).astype(np.float64) * 2.0**-52 - 1.0


def parse(text):
    kind, _, dims = text.partition(":")
    if kind not in ("c2c", "r2c", "c2r", "many", "tr"):
        raise SystemExit(f"fft_cupy: case '{text}': only c2c, r2c, c2r, many and tr are run here")
    n = [int(v) for v in dims.split("x")]
    if not 1 <= len(n) <= 3 or min(n) < 1 or (kind == "many" and len(n) != 2):
        raise SystemExit(f"fft_cupy: bad case '{text}'")
    howmany = 1
    if kind == "many":
        howmany, n = n[0], n[1:]
    return {"text": text, "kind": kind, "n": n, "howmany": howmany,
            "name": f"{kind}-" + (f"{howmany}x" if kind == "many" else "") + "x".join(map(str, n))}


def make_input(case, pool, real):
    """The case's input on the host, as bench/fft.c's fill_input writes it."""
    n, kind = case["n"], case["kind"]
    pts = math.prod(n)
    cplx = np.complex64 if real == np.float32 else np.complex128
    if kind == "r2c":
        return np.resize(pool, pts).reshape(n)
    if kind == "c2r":
        shape = n[:-1] + [n[-1] // 2 + 1]
        x = np.resize(pool, 2 * math.prod(shape)).view(cplx).reshape(shape)
        planes = [0] + ([n[-1] // 2] if n[-1] % 2 == 0 and n[-1] >= 2 else [])
        for p in planes:
            plane = x[..., p].copy()
            mirror = plane
            for ax in range(plane.ndim):
                mirror = np.roll(np.flip(mirror, ax), 1, ax)
            x[..., p] = (plane + np.conj(mirror)) * 0.5
        return x
    shape = [case["howmany"]] + n if kind == "many" else n
    return np.resize(pool, 2 * pts * case["howmany"]).view(cplx).reshape(shape)


def sumsq(x):
    """Sum of squares of the components, in float64 and in blocks (bench/fft.c's sumsq)."""
    v = np.ascontiguousarray(x).reshape(-1)
    if np.iscomplexobj(v):
        v = v.view(np.float32 if v.dtype == np.complex64 else np.float64)
    step = 1 << 16
    return math.fsum(float(np.dot(b, b)) for b in (v[i:i + step].astype(np.float64) for i in range(0, v.size, step)))


def energy(case, x):
    """As bench/fft.c's energy: the full spectrum's for a half one."""
    if not np.iscomplexobj(x) or case["kind"] not in ("r2c", "c2r"):
        return sumsq(x)
    nl = case["n"][-1]
    rows = x.reshape(-1, x.shape[-1])
    e = 2 * sumsq(rows) - sumsq(rows[:, 0])
    if nl % 2 == 0 and rows.shape[1] > 1:
        e -= sumsq(rows[:, -1])
    return e


def check_ref(path, y):
    """Relative 2-norm error of the sampled outputs against the reference, or None without one."""
    flat = np.ascontiguousarray(y).reshape(-1)
    m = flat.size
    k = min(m, SAMPLES)
    idx = np.arange(k, dtype=np.int64) if m <= SAMPLES else (np.arange(k, dtype=np.int64) * 1000003 + 7) % m
    s = flat[idx]
    got = np.empty(2 * k)
    got[0::2] = s.real
    got[1::2] = s.imag if np.iscomplexobj(s) else 0.0
    if not path or not os.path.exists(path):
        return None
    ref = np.fromfile(path, dtype=np.float64)
    if ref.size != 2 * k:
        return None
    den = float(np.dot(ref, ref))
    return math.sqrt(float(np.dot(got - ref, got - ref)) / (den if den > 0 else 1.0))


def transform(xp, case):
    kind, n = case["kind"], case["n"]
    if kind == "c2c":
        return lambda d: xp.fft.fftn(d)
    if kind == "tr":  # FFTW's output with its dimensions in reverse order: transposed on the device
        return lambda d: xp.ascontiguousarray(xp.fft.fftn(d).transpose())
    if kind == "many":
        return lambda d: xp.fft.fft(d, axis=-1)
    if kind == "r2c":
        return lambda d: xp.fft.rfftn(d)
    axes = tuple(range(-len(n), 0))
    return lambda d: xp.fft.irfftn(d, s=n, axes=axes, norm="forward")  # FFTW's c2r is not scaled


def run(xp, case, prec, args, pool):
    real = np.float32 if prec == "s" else np.float64
    h = make_input(case, pool.astype(real), real)
    fn = transform(xp, case)
    if xp is np:
        to_dev, to_host, sync = (lambda a: a), (lambda a: a), (lambda: None)
    else:
        to_dev, to_host, sync = xp.asarray, xp.asnumpy, xp.cuda.Device().synchronize
    times = []
    for _ in range(args.repeat + 1):
        t0 = time.perf_counter()
        out = to_host(fn(to_dev(h)))
        sync()
        times.append(time.perf_counter() - t0)
    want = energy(case, h) * math.prod(case["n"])
    pars = abs(energy(case, out) - want) / want if want > 0 else None
    ref = os.path.join(args.ref, f"{case['name']}-{prec}.ref") if args.ref else None
    err = check_ref(ref, out)
    best = sorted(times[1:])
    tol = TOL[prec]
    bad = (err is not None and not err <= tol) or (pars is not None and not pars <= tol)
    rec = {"mode": args.mode, "case": case["name"], "kind": case["kind"], "dims": case["n"],
           "howmany": case["howmany"], "prec": prec, "alloc": "numpy", "plan": "cupy",
           "first_ms": 1e3 * times[0], "best_ms": 1e3 * best[0], "median_ms": 1e3 * best[len(best) // 2],
           "runs": args.repeat, "err": err, "parseval": pars, "tol": tol,
           "ref": "none" if not ref else "checked" if err is not None else "absent",
           "check": "WRONG" if bad else "ok"}
    print(json.dumps(rec), flush=True)
    print(f"fft {args.mode} {prec} {case['text']}: first {rec['first_ms']:.1f} ms, best {rec['best_ms']:.2f} ms, "
          f"err {err if err is None else f'{err:.1e}'}{'  WRONG' if bad else ''}", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cases", nargs="+")
    ap.add_argument("--prec", default="ds")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--ref")
    ap.add_argument("--xp", choices=("cupy", "numpy"), default="cupy")
    ap.add_argument("--mode")
    args = ap.parse_args()
    args.mode = args.mode or args.xp
    if args.xp == "cupy":
        import cupy as xp
        meta = {"cupy": xp.__version__, "cuda_runtime": xp.cuda.runtime.runtimeGetVersion()}
    else:
        xp = np
        meta = {}
    print(json.dumps({"meta_prog": {"mode": args.mode, "numpy": np.__version__, **meta}}), flush=True)
    pool = make_pool()
    for text in args.cases:
        case = parse(text)
        for prec in args.prec:
            try:
                run(xp, case, prec, args, pool)
            except Exception as e:  # out of device memory, say: the line says so and the next case runs
                print(json.dumps({"mode": args.mode, "case": case["name"], "kind": case["kind"], "dims": case["n"],
                                  "howmany": case["howmany"], "prec": prec, "error": f"{type(e).__name__}: {e}"}),
                      flush=True)
                print(f"fft {args.mode} {prec} {text}: {type(e).__name__}: {e}", file=sys.stderr)
            if xp is not np:
                xp.get_default_memory_pool().free_all_blocks()
                xp.fft.config.get_plan_cache().clear()


main()
