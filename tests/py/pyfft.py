"""The Python layer's FFTs (scripts/python/gpushim/_fft.py) against numpy.fft's and scipy.fft's own functions, in
one process: a random sample of every wrapped function, and of scipy.fft's through gpushim's backend (workers
among the arguments), over shapes, axes, n and s, norms, dtypes (those the layer takes and some it does not),
layouts (C and Fortran order, strided and transposed views, reversed, big-endian) and out, and the error cases.
A strided out lies among canaries that no call may write.  Each result must have the original's type, dtype,
shape and strides, and values within FFT rounding of the original's: a relative L2 error at most
8 eps log2(N + 1), N the points of one transform, as tests/progs/fft_diff.c's tolerance; a call the library does
not do (fewer points than its policy takes) must give the original's result bit for bit.  The inputs must be
left as they were, and errors be the original's.  Prints one line per case that differs and a count; exit
status 1 if any.

usage: python pyfft.py [SEED [COUNT [--corrupt]]]   (with the layer on: import gpushim first, or gpushim.pth under
LD_PRELOAD); --corrupt: the test's own check, the layer's factor made wrong by a thousandth, which must fail every
case the library does."""
import inspect
import math
import sys
import warnings

import numpy as np
import scipy.fft

from gpushim import _fft

seed = int(sys.argv[1]) if len(sys.argv) > 1 else 49
count = int(sys.argv[2]) if len(sys.argv) > 2 else 600
rng = np.random.default_rng(seed)
if "--corrupt" in sys.argv:
    _job = _fft._job

    def _wrong(*args, **kwargs):
        job = _job(*args, **kwargs)
        return job and job[:5] + (job[5] * 1.001,) + job[6:]
    _fft._job = _wrong
bad, cases = [], 0
ONE = ("fft", "ifft", "rfft", "irfft", "ihfft", "hfft")
TWO = ("fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2")
ND = ("fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn")
SCIPY_ONLY = ("hfft2", "ihfft2", "hfftn", "ihfftn")  # numpy.fft has no n-dimensional Hermitian transforms
SIZES = (2, 3, 4, 5, 6, 7, 8, 9, 12, 15, 16, 17, 31, 32, 45, 64, 97, 128)
CANARY = 7  # the elements around a strided view, which no call may write


def data(shape, dt):
    a = rng.standard_normal(shape)
    if np.dtype(dt).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dt)


def laid_out(a, how):
    """a's values in layout how: C, F, a strided view into a larger array, a transposed view, reversed."""
    if how == "F":
        return np.asfortranarray(a)
    if how == "strided":
        big = np.full(tuple(2 * d + 1 for d in a.shape), CANARY, a.dtype)
        v = big[tuple(slice(1, None, 2) for _ in a.shape)]
        v[...] = a
        return v
    if how == "transposed":
        return np.ascontiguousarray(a.T).T
    if how == "reversed":
        return a[..., ::-1]
    return a


def tolerance(x, points):
    eps = np.finfo(x.dtype).eps
    return 8 * eps * math.log2(points + 1)


def compare(r1, r2, points, exact):
    """Why r1 is not r2: type, dtype, shape, strides, and values bit for bit (exact) or within the tolerance."""
    if type(r1) is not type(r2):
        return f"type {type(r1).__name__} against {type(r2).__name__}"
    if r1.dtype != r2.dtype or r1.shape != r2.shape or r1.strides != r2.strides:
        return f"{r1.dtype} {r1.shape} {r1.strides} against {r2.dtype} {r2.shape} {r2.strides}"
    if exact:
        same = np.array_equal(r1, r2, equal_nan=True) and (r1.dtype.char in "gG" or r1.tobytes() == r2.tobytes())
        return None if same else "not the original's bit for bit"  # long double's padding bytes are not its value
    err = np.linalg.norm((r1 - r2).ravel()) / max(np.linalg.norm(r2.ravel()), np.finfo(r2.dtype).tiny)
    tol = tolerance(r1, points)
    return None if err <= tol else f"relative error {err:.3g} above {tol:.3g}"


def functions(fname, lib):
    """numpy.fft's fname (wrapped) and its original, or scipy.fft's through gpushim's backend and past it."""
    if lib == "numpy":
        f = getattr(np.fft, fname)
        return f, f._gpushim_original
    f = getattr(scipy.fft, fname)

    def original(*args, **kwargs):
        with scipy.fft.skip_backend(_fft.Backend):
            return f(*args, **kwargs)
    return f, original


def case(name, fname, a, kwargs, points=2, total=None, out=None, lib="numpy"):
    """numpy.fft.fname (wrapped) against its original, or scipy.fft's (lib "scipy"); points: of one transform, for
    the tolerance; total: the call's points, below which the layer must leave the call to the original (None: it
    must, whatever the size); out: a function making the out argument, a fresh one for each call."""
    global cases
    cases += 1
    before = np.array(a, copy=True)
    results = []
    for k, g in enumerate(functions(fname, lib)):
        kw = dict(kwargs, out=out()) if out else kwargs
        around = kw["out"].base if out and kw["out"].base is not None else None
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                r = ("ok", g(a, **kw))
            except Exception as e:  # noqa: BLE001 (compared below)
                r = ("raised", e)
        if out and r[0] == "ok" and r[1] is not kw["out"] and fname not in ("ifft2", "irfft2", "hfft"):
            bad.append(f"{name}: the result is not out")
        if around is not None and np.count_nonzero(around == CANARY) < around.size - kw["out"].size:
            bad.append(f"{name}: {'the original' if k else 'the layer'} wrote around out")
        results.append(r + (sorted((str(x.category), str(x.message)) for x in w),))
    (k1, r1, w1), (k2, r2, w2) = results
    t = getattr(a, "dtype", np.dtype("O"))
    c = "d" if t.kind in "biu" else t.char  # NumPy transforms integers as float64
    least = _fft._least(_fft_op(fname), c) if c in "fdFD" and t.isnative else math.inf
    if k1 != k2:
        why = f"{k1} {r1!r} against {k2} {r2!r}"
    elif k1 == "raised":
        why = None if (type(r1), str(r1)) == (type(r2), str(r2)) else f"raised {r1!r} against {r2!r}"
    else:
        why = compare(r1, r2, points, total is None or total < least)
    if not why and not (np.array_equal(a, before, equal_nan=True) and np.asarray(a).tobytes() == before.tobytes()):
        why = "the input changed"
    if not why and w1 != w2:
        why = f"warnings {w1} against {w2}"
    if why:
        bad.append(f"{name}: {why}")


def _fft_op(fname):
    """The C entry's operation of a numpy.fft or scipy.fft function (fftn and fft2 are fft's, ...)."""
    return "irfft" if fname.startswith("hfft") else fname.rstrip("n2")  # hfft is irfft of the conjugate


def random_case(i):
    lib = "scipy" if rng.random() < 0.4 else "numpy"
    fname = str(rng.choice([f for f in ONE + TWO + ND if lib == "scipy" or f not in SCIPY_ONLY]))
    real_in = fname.startswith(("r", "ih"))
    dt = rng.choice(["f", "d"] if real_in else ["f", "d", "F", "D"])
    nd = int(rng.integers(1 if fname in ONE or fname in ND else 2, 5))
    shape = [int(rng.choice(SIZES)) for _ in range(nd)]
    while math.prod(shape) > 40000:
        shape[int(rng.integers(nd))] = 2
    how = str(rng.choice(["C", "F", "strided", "transposed", "reversed"], p=[0.35, 0.2, 0.2, 0.2, 0.05]))
    a = laid_out(data(shape, dt), how)
    norm = rng.choice([None, "backward", "ortho", "forward"])
    kw = {} if norm is None else {"norm": str(norm)}
    if fname in ONE:
        ax = int(rng.integers(-nd, nd))
        kw["axis"] = ax
        axes = [ax % nd]
        if rng.random() < 0.15:
            kw["n"] = shape[ax % nd] + int(rng.choice([-1, 1, 2]))  # crop or pad
    else:
        k = int(rng.integers(1, min(nd, 3) + 1)) if fname in ND else 2
        axes = [int(x) for x in rng.permutation(nd)[:k]]
        if fname in TWO and rng.random() < 0.5:
            axes = None if rng.random() < 0.5 else axes
        if fname in ND and rng.random() < 0.2:
            axes = None
        if axes is not None or fname in ND:
            kw["axes"] = axes
        axes = axes if axes is not None else (list(range(nd)) if fname in ND else [nd - 2, nd - 1])
        if rng.random() < 0.3 and kw.get("axes") is not None:  # as the input's, or cropping or padding it
            kw["s"] = [shape[x] + int(rng.choice([0, 0, -1, 1, 3])) for x in axes]
        if lib == "scipy" and kw.get("axes") is not None and rng.random() < 0.2:
            axes = list(range(nd - len(axes), nd))  # SciPy's s without axes: the last len(s) axes
            kw["s"] = [shape[x] + int(rng.choice([0, 0, -1, 2])) for x in axes]
            kw.pop("axes")
    if lib == "scipy" and rng.random() < 0.2:
        kw["workers"] = 2
    n = [shape[x] for x in axes]  # the logical sizes, and the call's points: those of the others times theirs
    if fname.startswith(("irfft", "hfft")):
        n[-1] = 2 * (n[-1] - 1)
    n = [kw["n"]] if "n" in kw else kw.get("s", n)
    total = math.prod(d for x, d in enumerate(shape) if x not in axes) * math.prod(n)
    out = None
    if lib == "numpy" and rng.random() < 0.15 and fname not in ("ifft2", "irfft2"):
        ref = getattr(np.fft, fname)._gpushim_original(a, **kw)
        how_out = str(rng.choice(["C", "F", "strided"]))
        out = lambda: laid_out(np.zeros_like(ref, order="C"), how_out)  # noqa: E731
    case(f"#{i} {lib} {fname} {dt} {tuple(shape)} {how} {kw.get('axes', kw.get('axis'))} "
         f"n/s={kw.get('n', kw.get('s'))} {norm} out={out is not None}", fname, a, kw, max(math.prod(n), 2), total,
         out, lib)


def fixed_cases():
    big = data((64, 4096), "D")  # above the default policy's threshold
    case("fft big", "fft", big, {}, 4096, big.size)
    case("fft big, out", "fft", big, {"axis": 0}, 64, big.size, out=lambda: np.zeros(big.shape, "D", order="F"))
    case("rfft2 big", "rfft2", big.real.copy(), {"norm": "ortho"}, big.size, big.size)
    case("irfft big F", "irfft", np.asfortranarray(big[:, :2049]), {"norm": "forward"}, 4096, big.size)
    case("scipy hfft2 big", "hfft2", big, {"norm": "ortho"}, 64 * 8190, 64 * 8190, lib="scipy")
    case("scipy ihfftn big", "ihfftn", big.real.copy(), {"axes": [0], "workers": 2}, 64, big.size, lib="scipy")
    # n and s beyond the input: zero-padded by the library; below: a view of the input
    case("fft big, padded", "fft", big, {"n": 5000}, 5000, 64 * 5000)
    case("rfft2 big, cropped and padded", "rfft2", big.real.copy(), {"s": (60, 4500)}, 60 * 4500, 60 * 4500)
    case("irfft big, padded", "irfft", big[:, :1000], {"n": 4096}, 4096, 64 * 4096)
    case("scipy rfftn big, padded", "rfftn", big.real.copy(), {"s": (70, 4100), "workers": 2}, 70 * 4100, 70 * 4100,
         lib="scipy")
    case("scipy hfft big, cropped", "hfft", big, {"n": 6000}, 6000, 64 * 6000, lib="scipy")
    # a real input to a complex transform: cast by the library once the call goes to the GPU (padded too), not
    # copied by the layer before the library has weighed the call
    case("fft big, real", "fft", big.real.copy(), {}, 4096, big.size)
    case("ifft big, real single, strided, padded", "ifft", big.real[:, ::2].astype("f"), {"n": 3000}, 3000,
         64 * 3000)
    case("scipy fftn big, real F", "fftn", np.asfortranarray(big.real), {"workers": 2}, big.size, big.size,
         lib="scipy")
    case("scipy hfft big, real", "hfft", big.real.copy(), {}, 8190, 64 * 8190, lib="scipy")
    # batches of at least 32 MiB, run in parts of unequal size (258 transforms, the last 256) through one device's
    # pipeline (cuda_fft.c), each part's output scaled for the norm
    wide = data((1030, 4096), "D")
    case("fft wide batch, ortho", "fft", wide, {"norm": "ortho"}, 4096, wide.size)
    case("irfft wide batch, forward", "irfft", wide[:, :2049], {"norm": "forward"}, 4096, wide.size)
    real = big.real.copy()
    if _fft._one("fft")(real)[1] is not real:
        bad.append("fft big, real: the layer copied the input before the library weighed the call")
    x = data((8, 16), "D")
    for fname, y, kw in (("ihfftn", x, {}), ("hfft2", x[0], {}), ("hfftn", x, {"norm": "bogus"}),
                         ("ihfft2", x.real.copy(), {"axes": (1, 1)}), ("hfftn", x, {"s": (8, None)}),
                         ("irfftn", x, {"s": (8, None)}), ("irfft2", x, {"s": (8, 30.0)})):
        case(f"scipy {fname} {kw}", fname, y, kw, lib="scipy")
    case("scipy hfftn s (8, 20)", "hfftn", x, {"s": (8, 20)}, 160, 160, lib="scipy")
    case("scipy ihfftn s (8, 15)", "ihfftn", x.real.copy(), {"s": (8, 15)}, 120, 120, lib="scipy")
    for kw in ({"norm": "bogus"}, {"n": 0}, {"axis": 2}, {"n": 4.0}, {"axis": 1.0}):
        case(f"fft {kw}", "fft", x, kw)
    for kw in ({"axes": (0, 0)}, {"s": (8, 16)}, {"s": (8, None), "axes": (0, 1)}, {"axes": (0, 5)},
               {"s": (8,), "axes": (0, 1)}):
        case(f"fftn {kw}", "fftn", x, kw)
    case("fftn s -1", "fftn", x, {"axes": (0, 1), "s": (-1, 16)}, x.size, x.size)
    case("ifft2 out (ignored by NumPy)", "ifft2", x, {}, out=lambda: np.zeros((8, 16), "D"))
    case("fft out of another dtype", "fft", x, {}, out=lambda: np.zeros((8, 16), "F"))
    case("fft out of another shape", "fft", x, {}, out=lambda: np.zeros((8, 15), "D"))
    global cases
    cases += 1
    x1, x2 = big.copy(), big.copy()
    r1, r2 = np.fft.fft(x1, out=x1), np.fft.fft._gpushim_original(x2, out=x2)
    why = compare(r1, r2, 4096, False)
    if r1 is not x1 or why:
        bad.append(f"fft in place (out the input): {why or 'the result is not out'}")
    for dt in ("i8", "e", "g", ">f8", ">c16", "?"):
        case(f"fft {dt}", "fft", (data((4, 64), "d") * 10).astype(dt), {}, 64, 256)
        case(f"rfftn {dt}", "rfftn", (data((4, 64), "d") * 10).astype(dt), {}, 256, 256)
    case("rfft complex", "rfft", x, {})
    case("fft a list", "fft", [1.0, 2.0, 3.0], {}, 3)
    case("fft one point", "fft", data((5, 1), "D"), {}, 2)
    case("fft empty", "fftn", np.zeros((0, 4), "D"), {"axes": [1]})
    case("fft 4 axes", "fftn", data((4, 4, 4, 4), "D"), {}, 256)


def main():
    fixed_cases()
    for i in range(count):
        random_case(i)
    for fn, _ in _fft.WRAPPED:
        f = getattr(np.fft, fn)
        o = f._gpushim_original
        if (f.__name__, f.__doc__, f.__module__, inspect.signature(f)) != (
                o.__name__, o.__doc__, o.__module__, inspect.signature(o)):
            bad.append(f"numpy.fft.{fn}: name, docstring, module or signature differs from the original's")
    for line in bad:
        print("pyfft:", line)
    print(f"pyfft: {cases} cases, {len(bad)} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
