"""The Python layer (scripts/python/gpushim/_linalg.py) against the original functions, in one process: every
wrapped function of the layer's table on C-ordered, Fortran-ordered, strided and non-contiguous arrays of every
dtype the layer takes (and some it does not), with keywords, and in its error cases.  Each result must have the
original's type, dtype, shape and memory order, equal values (eigenvectors up to each one's phase) and the same
warnings, and each error the original's type and message.  The C entry's SciPy operations also write into
outputs inside canaries, which must come back unchanged.  Prints one line per case that differs and a count;
exit status 1 if any.

usage: python pylayer.py   (with the layer on: import gpushim first, or gpushim.pth under LD_PRELOAD)"""
import inspect
import os
import sys
import warnings

import numpy as np

from gpushim import _linalg

rng = np.random.default_rng(48)
OTHER = {"f": "d", "d": "f", "F": "D", "D": "F"}  # each dtype's other precision
bad, cases = [], 0


def matrix(n, dt, spd=False, m=None):
    a = rng.standard_normal((n, m or n))
    if np.dtype(dt).kind == "c":
        a = a + 1j * rng.standard_normal(a.shape)
    if spd:
        a = a @ a.conj().T + n * np.eye(n)
    return a.astype(dt)


def layouts(a):
    """a as it is (C order), in Fortran order, transposed (a view), inside a wider array (unit stride, a larger
    leading dimension), strided in both dimensions (no unit stride: the original's path), and with its rows
    reversed in memory (a negative stride: the original's path)."""
    n, m = a.shape
    wide = np.zeros((n, m + 3), a.dtype)
    wide[:, :m] = a
    big = np.zeros((2 * n, 2 * m), a.dtype)
    big[::2, ::2] = a
    wide_f = np.asfortranarray(np.zeros((n + 2, m), a.dtype))
    wide_f[:n] = a
    return {"C": a, "F": np.asfortranarray(a), "T-view": np.ascontiguousarray(a.T).T, "wide": wide[:, :m],
            "wide-F": wide_f[:n], "strided": big[::2, ::2], "negative strides": np.flipud(np.flipud(a).copy())}


def phase(v):
    """Eigenvectors with each one's phase (sign) fixed by its largest component."""
    if not isinstance(v, np.ndarray) or v.ndim != 2:
        return v
    k = np.abs(v).argmax(axis=0)
    p = v[k, np.arange(v.shape[1])]
    return v * (np.abs(p) / np.where(p == 0, 1, p))


def same(x, y, tol, phased=True):
    """Why x differs from y, or None; phased: a tuple's arrays after the first compared as eigenvectors."""
    if type(x) is not type(y):
        return f"type {type(x).__name__} against {type(y).__name__}"
    if isinstance(x, (tuple, list)):
        for i, (u, w) in enumerate(zip(x, y)):
            why = same(phase(u) if i and phased else u, phase(w) if i and phased else w, tol)
            if why:
                return f"[{i}] {why}"
        return None
    if not isinstance(x, (np.ndarray, np.generic)):
        return None if np.array_equal(x, y) else f"{x!r} against {y!r}"
    if x.dtype != y.dtype or x.shape != y.shape:
        return f"{x.dtype} {x.shape} against {y.dtype} {y.shape}"
    if isinstance(x, np.ndarray) and (x.flags.c_contiguous, x.flags.f_contiguous) != (
            y.flags.c_contiguous, y.flags.f_contiguous):
        return "memory order differs"
    finite = np.abs(np.asarray(y))[np.isfinite(y)]
    scale = max(1.0, float(np.max(finite, initial=0)))
    if not np.allclose(x, y, rtol=0, atol=tol * scale, equal_nan=True):
        return f"values differ by {np.nanmax(np.abs(np.asarray(x) - y))}"
    return None


def case(name, fn, *args, _tol=None, _norm=None, **kwargs):
    """fn (wrapped) against its original on the same arguments, which must be left as they were (arrays inside a
    tuple argument, SciPy's (lu, piv) and (c, lower), too); _tol: the values' tolerance relative to the largest,
    for an ill-conditioned matrix, instead of the dtype's; _norm: what each result is compared as, value by value
    (an SVD's vectors with their phases fixed; a QR's factors as they are)."""
    global cases
    cases += 1
    inputs = [a for x in args for a in (x if isinstance(x, (tuple, list)) else (x,)) if isinstance(a, np.ndarray)]
    before = [a.copy() for a in inputs]
    results, warned = [], []
    for f in (fn, fn._gpushim_original):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                results.append(("ok", (_norm or (lambda r: r))(f(*args, **kwargs))))
            except Exception as e:  # noqa: BLE001 (compared below)
                results.append(("raised", e))
        warned.append(sorted((x.category.__name__, str(x.message)) for x in w))
    (k1, r1), (k2, r2) = results
    dt = next((a.dtype for a in args + tuple(kwargs.values()) if isinstance(a, np.ndarray)), np.dtype("d"))
    tol = _tol or (2e-4 if dt in (np.float32, np.complex64) else 1e-10)
    if k1 != k2:
        why = f"{k1} {r1!r} against {k2} {r2!r}"
    elif k1 == "raised":
        why = None if (type(r1), str(r1)) == (type(r2), str(r2)) else f"raised {r1!r} against {r2!r}"
    else:
        with np.errstate(all="ignore"):  # results of NaNs, as the original's
            why = same(r1, r2, tol, _norm is None)
    if not why and any(not np.array_equal(b, a, equal_nan=True) for b, a in zip(before, inputs)):
        why = "an input changed"
    if not why and warned[0] != warned[1]:
        why = f"warnings {warned[0]} against {warned[1]}"
    if why:
        bad.append(f"{name}: {why}")


def copied(x):
    """x with each array in it (in a tuple too) copied, in its memory order."""
    if isinstance(x, tuple):
        return tuple(map(copied, x))
    return x.copy(order="K") if isinstance(x, np.ndarray) else x


def overwrite_case(name, fn, *args, **kwargs):
    """fn against its original where they may overwrite their inputs (overwrite_a, overwrite_b): each called on
    copies of the arguments; the results, and the inputs as each call left them, must agree."""
    global cases
    cases += 1
    got = []
    for f in (fn, fn._gpushim_original):
        mine = copied(args)
        got.append((f(*mine, **kwargs), [a for x in mine for a in (x if isinstance(x, tuple) else (x,))
                                         if isinstance(a, np.ndarray)]))
    (r1, in1), (r2, in2) = got
    why = same(r1, r2, 2e-4) or next((f"input {i} left as {u!r} against {w!r}" for i, (u, w) in
                                      enumerate(zip(in1, in2)) if not np.allclose(u, w, atol=2e-4)), None)
    if why:
        bad.append(f"{name}: {why}")


def with_nan(x):
    y = x.copy()
    y[3, 2] = np.nan
    return y


def lu_cases(sl, dt, n):
    """lu_factor and lu_solve: every layout of A, of the factors and of B, SciPy's three transpositions, pivots
    strided, and the forms and errors that go to the original."""
    a, b = matrix(n, dt), matrix(n, dt, m=3)
    lu, piv = sl.lu_factor._gpushim_original(a)
    for ka, av in layouts(a).items():
        case(f"lu_factor {dt} {ka}", sl.lu_factor, av)
        for trans in (0, 1, 2):
            case(f"lu_solve {dt} LU {ka} trans={trans}", sl.lu_solve, (layouts(lu)[ka], piv), b, trans=trans)
    for kb, bv in list(layouts(b).items()) + [("vector", b[:, 0].copy()), ("vector-strided", b[:, 0])]:
        case(f"lu_solve {dt} B {kb}", sl.lu_solve, (lu, piv), bv)
        case(f"lu_solve {dt} B {kb} trans=2", sl.lu_solve, (lu, piv), bv, 2)
    wide = np.zeros(2 * n, np.int32)
    wide[::2] = piv
    case(f"lu_solve {dt} pivots strided", sl.lu_solve, (lu, wide[::2]), b)
    case(f"lu_solve {dt} a list", sl.lu_solve, [lu, piv], b)
    case(f"lu_solve {dt} pivots int64", sl.lu_solve, (lu, piv.astype(np.int64)), b)
    case(f"lu_solve {dt} pivots a list", sl.lu_solve, (lu, list(piv)), b)
    case(f"lu_solve {dt} factors of another dtype", sl.lu_solve, (lu.astype(OTHER[dt]), piv), b)
    for trans in (True, 1.0, 3, "T"):
        case(f"lu_solve {dt} trans={trans!r}", sl.lu_solve, (lu, piv), b, trans=trans)
    overwrite_case(f"lu_solve {dt} overwrite_b", sl.lu_solve, (lu, piv), np.asfortranarray(b), overwrite_b=True)
    case(f"lu_solve {dt} a NaN in B, check_finite", sl.lu_solve, (lu, piv), with_nan(b))
    case(f"lu_solve {dt} a NaN in B, check_finite=False", sl.lu_solve, (lu, piv), with_nan(b), check_finite=False)
    case(f"lu_solve {dt} a NaN in the factors", sl.lu_solve, (with_nan(lu), piv), b)
    singular = lu.copy()
    singular[5, 5] = 0
    case(f"lu_solve {dt} a zero on U's diagonal", sl.lu_solve, (singular, piv), b)
    case(f"lu_solve {dt} B too short", sl.lu_solve, (lu, piv), b[:5])
    case(f"lu_solve {dt} B empty", sl.lu_solve, (lu, piv), b[:, :0])
    case(f"lu_solve {dt} three factors", sl.lu_solve, (lu, piv, piv), b)
    case(f"lu_solve {dt} stacked", sl.lu_solve, (np.stack([lu, lu]), np.stack([piv, piv])), np.stack([b, b]))
    case(f"lu_factor {dt} check_finite=False", sl.lu_factor, a, check_finite=False)
    overwrite_case(f"lu_factor {dt} overwrite_a", sl.lu_factor, np.asfortranarray(a), overwrite_a=True)
    case(f"lu_factor {dt} singular", sl.lu_factor, np.zeros((n, n), dt))
    case(f"lu_factor {dt} singular rank 1", sl.lu_factor, np.ones((n, n), dt))
    case(f"lu_factor {dt} a NaN, check_finite", sl.lu_factor, with_nan(a))
    case(f"lu_factor {dt} a NaN, check_finite=False", sl.lu_factor, with_nan(a), check_finite=False)
    for shape in ((n + 5, n), (n, n + 5), (n + 40, 5), (5, n + 40), (1, n), (n, 1)):  # tall and wide
        r = matrix(shape[0], dt, m=shape[1])
        for kr, rv in layouts(r).items():
            case(f"lu_factor {dt} {shape} {kr}", sl.lu_factor, rv)
        z = np.zeros(shape, dt)
        z[:, :-1] = r[:, :-1]
        case(f"lu_factor {dt} {shape} singular", sl.lu_factor, z)
    case(f"lu_factor {dt} stacked", sl.lu_factor, np.stack([a, a]))
    case(f"lu_factor {dt} empty", sl.lu_factor, np.zeros((0, 0), dt))


def cho_solve_cases(sl, dt, n, s):
    """cho_solve: every layout of the factor (whose other triangle holds A's, as cho_factor leaves it) and of B,
    both triangles, and the forms and errors that go to the original."""
    b = matrix(n, dt, m=3)
    for lower in (False, True):
        c, _ = sl.cho_factor._gpushim_original(s, lower=lower)
        for kc, cv in layouts(c).items():
            case(f"cho_solve {dt} C {kc} lower={lower}", sl.cho_solve, (cv, lower), b)
        for kb, bv in list(layouts(b).items()) + [("vector", b[:, 0].copy()), ("vector-strided", b[:, 0])]:
            case(f"cho_solve {dt} B {kb} lower={lower}", sl.cho_solve, (c, lower), bv)
    for lower in (1, 0, 2, None, np.True_, 1.0):
        case(f"cho_solve {dt} lower={lower!r}", sl.cho_solve, (c, lower), b)
    case(f"cho_solve {dt} a list", sl.cho_solve, [c, True], b)
    overwrite_case(f"cho_solve {dt} overwrite_b", sl.cho_solve, (c, True), np.asfortranarray(b), overwrite_b=True)
    case(f"cho_solve {dt} a NaN in C, check_finite", sl.cho_solve, (with_nan(c), True), b)
    case(f"cho_solve {dt} a NaN in B, check_finite", sl.cho_solve, (c, True), with_nan(b))
    case(f"cho_solve {dt} a NaN in B, check_finite=False", sl.cho_solve, (c, True), with_nan(b), check_finite=False)
    zero = c.copy()
    zero[4, 4] = 0
    case(f"cho_solve {dt} a zero on the diagonal", sl.cho_solve, (zero, True), b)
    case(f"cho_solve {dt} factor of another dtype", sl.cho_solve, (c.astype(OTHER[dt]), True), b)
    case(f"cho_solve {dt} C not square", sl.cho_solve, (c[:, :5], True), b)
    case(f"cho_solve {dt} B too short", sl.cho_solve, (c, True), b[:5])
    case(f"cho_solve {dt} B empty", sl.cho_solve, (c, True), b[:, :0])
    case(f"cho_solve {dt} stacked", sl.cho_solve, (np.stack([c, c]), True), np.stack([b, b]))


def inv_cases(sl, dt, a, s):
    """scipy.linalg.inv: every layout; the structures SciPy detects and inverts by other routines (diagonal,
    triangular, symmetric or Hermitian, positive definite or not); Hilbert matrices from well- to ill-conditioned,
    which SciPy warns of (the library must hand back those near the edge); singular matrices, and the keywords and
    errors that go to the original."""
    for ka, av in layouts(a).items():
        case(f"scipy inv {dt} {ka}", sl.inv, av)
    d = np.diag(np.diag(a) + np.asarray(3, dt))
    structures = {"diagonal": d, "upper": np.triu(a) + 3 * d, "lower": np.tril(a) + 3 * d, "positive definite": s,
                  "symmetric (complex: not Hermitian)": a + a.T, "Hermitian indefinite": a + a.conj().T}
    for kind, m in structures.items():
        case(f"scipy inv {dt} {kind}", sl.inv, m.astype(dt))
        case(f"scipy inv {dt} {kind}, Fortran order", sl.inv, np.asfortranarray(m.astype(dt)))
    for k in range(3, 15):
        h, tol = hilbert(k, dt)
        case(f"scipy inv {dt} Hilbert {k}", sl.inv, h, _tol=tol)
        case(f"scipy inv {dt} Hilbert {k}, Fortran order", sl.inv, np.asfortranarray(h), _tol=tol)
    for kind, m in singular(a).items():
        case(f"scipy inv {dt} {kind}", sl.inv, m, _tol=1.0)
    for kw in ({"assume_a": "gen"}, {"assume_a": "general"}, {"assume_a": "pos"}, {"assume_a": "sym"},
               {"assume_a": "her"}, {"assume_a": "diagonal"}, {"assume_a": "upper triangular"}, {"lower": True},
               {"assume_a": "gen", "lower": True}, {"assume_a": "banded"}, {"check_finite": False}):
        case(f"scipy inv {dt} {kw}", sl.inv, s if kw.get("assume_a") in ("pos", "sym", "her") else a, **kw)
    overwrite_case(f"scipy inv {dt} overwrite_a", sl.inv, np.asfortranarray(a), overwrite_a=True)
    case(f"scipy inv {dt} a NaN, check_finite", sl.inv, with_nan(a))
    case(f"scipy inv {dt} a NaN, check_finite=False", sl.inv, with_nan(a), check_finite=False)
    case(f"scipy inv {dt} stacked", sl.inv, np.stack([a, a]))
    case(f"scipy inv {dt} not square", sl.inv, a[:, :5])
    case(f"scipy inv {dt} a vector", sl.inv, a[0])
    case(f"scipy inv {dt} empty", sl.inv, np.zeros((0, 0), dt))


def singular(a):
    """Singular matrices of each structure SciPy detects and handles apart (inv, solve): LAPACK's factors of a
    general matrix find some of them singular only by rounding."""
    low, up, dg = np.tril(a), np.triu(a), np.diag(np.diag(a))
    low[0, 0] = up[5, 5] = dg[3, 3] = 0
    tri = np.diag(np.diag(a)) + np.diag(np.diag(a, 1), 1) + np.diag(np.diag(a, -1), -1)
    tri[:, 4] = 0
    rank = a.copy()
    rank[:, -1] = rank[:, 0] + rank[:, 1]
    return {"singular": np.zeros_like(a), "rank 1": np.ones_like(a), "rank n - 1": rank, "singular lower": low,
            "singular upper": up, "singular diagonal": dg, "singular tridiagonal": tri}


def hilbert(k, dt):
    """The Hilbert matrix of order k, and a tolerance for results computed with it, by its condition number."""
    h = (1 / (np.arange(1, k + 1)[:, None] + np.arange(k))).astype(dt)
    return h, min(1.0, 100 * np.finfo(dt).eps * np.linalg.cond(h.astype(complex)))


def solve_cases(sl, dt, n, a, s):
    """scipy.linalg.solve: every layout of A and B, general (assume_a "gen" and None, whose structure SciPy detects)
    and positive definite ("pos", either triangle, the other one not read); the structures SciPy solves by other
    routines; Hilbert matrices from well- to ill-conditioned, which SciPy warns of; singular and indefinite
    matrices, and the keywords and errors that go to the original."""
    b = matrix(n, dt, m=3)
    bs = list(layouts(b).items()) + [("vector", b[:, 0].copy()), ("vector-strided", b[:, 0])]
    for ka, av in layouts(a).items():
        case(f"scipy solve {dt} A {ka}", sl.solve, av, b)
        case(f"scipy solve {dt} pos A {ka}", sl.solve, layouts(s)[ka], b, assume_a="pos")
    for kb, bv in bs:
        case(f"scipy solve {dt} B {kb}", sl.solve, a, bv, assume_a="gen")
        case(f"scipy solve {dt} pos B {kb}", sl.solve, s, bv, assume_a="pos", lower=True)
    for lower in (False, True):  # the other triangle holding what SciPy does not read
        junk = np.triu(s) + np.tril(a, -1) if lower is False else np.tril(s) + np.triu(a, 1)
        case(f"scipy solve {dt} pos lower={lower}, the other triangle not A's", sl.solve, junk, b, assume_a="pos",
             lower=lower)
    d = np.diag(np.diag(a) + np.asarray(3, dt))
    tri = d * 4 + np.diag(np.diag(a, 1), 1) + np.diag(np.diag(a, -1), -1)
    for kind, m in {"diagonal": d, "tridiagonal": tri, "upper": np.triu(a) + 3 * d, "lower": np.tril(a) + 3 * d,
                    "positive definite": s, "symmetric (complex: not Hermitian)": a + a.T,
                    "Hermitian indefinite": a + a.conj().T}.items():
        case(f"scipy solve {dt} {kind}", sl.solve, m.astype(dt), b)
    for k in range(3, 15):
        h, tol = hilbert(k, dt)
        for kw in ({}, {"assume_a": "gen"}, {"assume_a": "pos"}, {"assume_a": "pos", "lower": True}):
            case(f"scipy solve {dt} Hilbert {k} {kw}", sl.solve, h, np.ones((k, 2), dt), _tol=tol, **kw)
            case(f"scipy solve {dt} Hilbert {k} {kw}, Fortran order", sl.solve, np.asfortranarray(h),
                 np.ones(k, dt), _tol=tol, **kw)
    for kind, m in singular(a).items():
        case(f"scipy solve {dt} {kind}", sl.solve, m, b, _tol=1.0)
        case(f"scipy solve {dt} {kind} gen", sl.solve, m, b, assume_a="gen", _tol=1.0)
    case(f"scipy solve {dt} pos, not positive definite", sl.solve, -s, b, assume_a="pos")
    case(f"scipy solve {dt} pos, indefinite", sl.solve, a + a.conj().T, b, assume_a="pos", _tol=1.0)
    for kw in ({"assume_a": "general"}, {"assume_a": "positive definite"}, {"assume_a": "sym"}, {"assume_a": "her"},
               {"assume_a": "diagonal"}, {"assume_a": "tridiagonal"}, {"assume_a": "banded"}, {"assume_a": "X"},
               {"transposed": True}, {"lower": True}, {"lower": None}, {"check_finite": False}):
        case(f"scipy solve {dt} {kw}", sl.solve, s if kw.get("assume_a") in ("sym", "her") else a, b, **kw)
    overwrite_case(f"scipy solve {dt} overwrite_a", sl.solve, np.asfortranarray(a), b, overwrite_a=True)
    overwrite_case(f"scipy solve {dt} overwrite_b", sl.solve, a, np.asfortranarray(b), overwrite_b=True)
    case(f"scipy solve {dt} a NaN in A", sl.solve, with_nan(a), b)
    case(f"scipy solve {dt} a NaN in B, check_finite=False", sl.solve, a, with_nan(b), check_finite=False)
    case(f"scipy solve {dt} B too short", sl.solve, a, b[:5])
    case(f"scipy solve {dt} B stacked", sl.solve, a, np.stack([b, b]))
    case(f"scipy solve {dt} stacked", sl.solve, np.stack([a, a]), np.stack([b, b]))
    case(f"scipy solve {dt} B empty", sl.solve, a, b[:, :0])
    case(f"scipy solve {dt} 1 x 1", sl.solve, a[:1, :1], b[:1])
    case(f"scipy solve {dt} B of another dtype", sl.solve, a, b.astype(OTHER[dt]))


def pivots_refused(sl):
    """lu_solve's pivots outside the matrix never reach the device (the original's getrs would read and write
    past B with them, so they are not run through it): the C entry does not take them, and takes them in range."""
    global cases
    n = 24
    lu, piv = sl.lu_factor._gpushim_original(matrix(n, "d"))
    run = _linalg._run(_linalg._entry())
    past, negative = piv.copy(), piv.copy()
    past[0], negative[-1] = n, -1
    for name, p, want in (("in range", piv, True), ("one past the last row", past, False),
                          ("negative", negative, False)):
        cases += 1
        job = _linalg._sp_lu_solve((lu, p), np.ones((n, 2)))
        done = job is not None and run(b"scipy.linalg.lu_solve", job) is not NotImplemented
        if done != want and _linalg._query(b"lu_solve", b"d", 2) <= n:
            bad.append(f"lu_solve pivots {name}: {'taken' if done else 'refused'} by the library")


def inside(shape, dt, order="F"):
    """A fresh output inside a larger array of canaries: a matrix with a row and a column of them before it and
    two after (a leading dimension 3 larger), a vector every second element of one: (the larger array, the
    output, the canaries' mask)."""
    if len(shape) == 1:
        big = np.full(2 * shape[0] + 3, -7, dt)
        view = big[1:1 + 2 * shape[0]:2]
    else:
        big = np.full((shape[0] + 3, shape[1] + 3), -7, dt, order)
        view = big[1:1 + shape[0], 1:1 + shape[1]]
    mask = np.ones(big.shape, bool)
    mask[(slice(1, 1 + 2 * shape[0], 2),) if len(shape) == 1 else (slice(1, 1 + shape[0]), slice(1, 1 + shape[1]))] = 0
    return big, view, mask


def guard_bands(sl):
    """The C entry's writes of the SciPy operations, into outputs inside canaries (t_bounds.sh's guard bands for
    the Python layer): forced, each output equals the original's and no canary changes."""
    global cases
    n, run = 24, _linalg._run(_linalg._entry())
    for dt in ("d", "F"):
        a, s, b = matrix(n, dt), matrix(n, dt, spd=True), matrix(n, dt, m=3)
        lu, piv = sl.lu_factor._gpushim_original(a)
        c = sl.cho_factor._gpushim_original(s, lower=True)[0]
        wide = matrix(n, dt, m=n + 5)
        jobs = (("lu_factor", "N", (a,), [(n, n), (n,)], sl.lu_factor._gpushim_original(a)),
                ("lu_factor", "N", (wide.T,), [(n + 5, n), (n,)], sl.lu_factor._gpushim_original(wide.T)),
                ("lu_solve", "T", (lu, piv, b), [b.shape], sl.lu_solve._gpushim_original((lu, piv), b, trans=1)),
                ("cho_solve", "L", (c, b), [b.shape], sl.cho_solve._gpushim_original((c, True), b)),
                ("inv_rcond", "L", (a,), [a.shape], sl.inv._gpushim_original(a)),
                ("solve_rcond", "L", (a, b), [b.shape], sl.solve._gpushim_original(a, b)),
                ("posv_rcond", "U", (s, b), [b.shape], sl.solve._gpushim_original(s, b, assume_a="pos")))
        for op, opt, ins, shapes, want in jobs:
            cases += 1
            outs = [inside(sh, np.int32 if op == "lu_factor" and len(sh) == 1 else dt) for sh in shapes]
            views = tuple(v for _, v, _ in outs)
            got = run(op.encode(), (op, opt, ins + views, lambda: views))
            if got is NotImplemented:
                if _linalg._query(op.encode(), dt.encode(), 3) <= n:
                    bad.append(f"guard bands: {op} {dt} not done")
                continue
            # the values (in the original's memory order: the outputs here are views)
            want = want if op == "lu_factor" else (want,)
            got = tuple(np.asfortranarray(g) if w.flags.f_contiguous and not w.flags.c_contiguous else
                        np.ascontiguousarray(g) for g, w in zip(got, want))
            why = same(got, want, 2e-4 if dt == "F" else 1e-10)
            if why or any((big[mask] != -7).any() for big, _, mask in outs):
                bad.append(f"guard bands: {op} {dt}: {why or 'a canary changed'}")


def scipy_cases():
    try:
        import scipy.linalg as sl
    except ImportError:  # build/venv-np1: NumPy 1.26 alone
        return
    pivots_refused(sl)
    guard_bands(sl)
    for dt in ("f", "d", "F", "D"):
        n = 24
        s = matrix(n, dt, spd=True)
        for ks, sv in layouts(s).items():
            for lower in (False, True):
                case(f"cho_factor {dt} {ks} lower={lower}", sl.cho_factor, sv, lower=lower)
                case(f"scipy eigh {dt} {ks} lower={lower}", sl.eigh, sv, lower=lower)
                case(f"scipy eigh {dt} {ks} lower={lower} values", sl.eigh, sv, lower=lower, eigvals_only=True)
        case(f"cho_factor {dt} lower=1", sl.cho_factor, s, 1)
        # (on copies: SciPy 1.18 overwrites a C-ordered A too, which one array shared by both calls would show)
        overwrite_case(f"cho_factor {dt} overwrite_a", sl.cho_factor, s, overwrite_a=True)
        case(f"cho_factor {dt} not positive definite", sl.cho_factor, -s)
        case(f"cho_factor {dt} not square", sl.cho_factor, s[:, :5])
        case(f"cho_factor {dt} stacked", sl.cho_factor, np.stack([s, s]))
        bad_s = s.copy()
        bad_s[3, 2] = np.nan
        case(f"cho_factor {dt} a NaN, check_finite", sl.cho_factor, bad_s)
        case(f"scipy eigh {dt} a NaN, check_finite", sl.eigh, bad_s)
        case(f"scipy eigh {dt} check_finite=False", sl.eigh, s, check_finite=False)
        case(f"cho_factor {dt} check_finite=False", sl.cho_factor, s, check_finite=False)
        lu_cases(sl, dt, n)
        cho_solve_cases(sl, dt, n, s)
        inv_cases(sl, dt, matrix(n, dt), s)
        solve_cases(sl, dt, n, matrix(n, dt), s)
        for kw in ({"driver": "evd"}, {"driver": "evr"}, {"driver": "gvd"}, {"subset_by_index": [0, 3]},
                   {"b": np.eye(n, dtype=dt)}, {"type": 2}, {"turbo": True}):
            case(f"scipy eigh {dt} {kw}", sl.eigh, s, **kw)


def main():
    la = np.linalg
    for dt in ("f", "d", "F", "D"):
        n = 24
        a, s = matrix(n, dt), matrix(n, dt, spd=True)
        b = matrix(n, dt, m=3)
        for ka, av in layouts(a).items():
            for kb, bv in list(layouts(b).items()) + [("vector", b[:, 0].copy()), ("vector-strided", b[:, 0])]:
                case(f"solve {dt} A {ka} B {kb}", la.solve, av, bv)
            case(f"inv {dt} {ka}", la.inv, av)
            case(f"det {dt} {ka}", la.det, av)
            case(f"slogdet {dt} {ka}", la.slogdet, av)
        for k in range(1, 4):  # the determinant's sign, of permutations odd and even
            p = np.eye(n, dtype=dt)[rng.permutation(n)]
            case(f"det {dt} permuted {k}", la.det, p @ s / n)
            case(f"slogdet {dt} permuted {k}", la.slogdet, p @ s)
        for ks, sv in layouts(s).items():
            case(f"cholesky {dt} {ks}", la.cholesky, sv)
            for uplo in ("L", "U"):
                case(f"eigh {dt} {ks} {uplo}", la.eigh, sv, uplo)
                case(f"eigvalsh {dt} {ks} {uplo}", la.eigvalsh, sv, UPLO=uplo)
        case(f"solve {dt} keywords", la.solve, a=a, b=b)
        case(f"solve {dt} one column", la.solve, a, b[:, :1])
        case(f"cholesky {dt} upper", la.cholesky, s, upper=True)
        case(f"eigh {dt} bad UPLO", la.eigh, s, "X")
        case(f"eigh {dt} lower-case UPLO", la.eigh, s, UPLO="u")
        # errors: singular, not positive definite, not square, shapes that do not match, stacked, empty
        case(f"solve {dt} singular", la.solve, np.zeros((n, n), dt), b)
        case(f"solve {dt} singular rank 1", la.solve, np.ones((n, n), dt), b)
        case(f"inv {dt} singular", la.inv, np.zeros((n, n), dt))
        case(f"det {dt} singular", la.det, np.zeros((n, n), dt))
        case(f"slogdet {dt} singular", la.slogdet, np.ones((n, n), dt))
        case(f"det {dt} stacked", la.det, np.stack([a, a]))
        if dt in ("f", "d"):
            # above and below float64's range (flagged in det), and float32's alone (flagged in NumPy's cast), with
            # each sign, under the caller's np.errstate: the same result, warning or error
            big = 1e30 if dt == "f" else 1e300
            edges = {"above": big, "below": 1 / big, "negative, above": -big}
            if dt == "f":  # (s's determinant is near 1e39: 1e72 times it is above float32's, 1e-96 times below)
                edges.update({"above float32's": 1e3, "below float32's": 1e-4})
            for edge, x in edges.items():
                m = s * np.asarray(abs(x), dt)
                if x < 0:  # one row negated: a negative determinant
                    m[0] = -m[0]
                for mode in ("warn", "raise", "ignore"):
                    with np.errstate(over=mode, under=mode):
                        case(f"det {dt} {edge} the range, {mode}", la.det, m)
        case(f"inv {dt} not square", la.inv, a[:, :5])
        case(f"cholesky {dt} not positive definite", la.cholesky, -s)
        case(f"cholesky {dt} not square", la.cholesky, a[:, :5])
        case(f"eigh {dt} not square", la.eigh, a[:5])
        case(f"solve {dt} B too short", la.solve, a, b[:5])
        case(f"solve {dt} stacked", la.solve, np.stack([a, a]), np.stack([b, b]))
        case(f"eigvalsh {dt} stacked", la.eigvalsh, np.stack([s, s]))
        case(f"solve {dt} empty", la.solve, np.zeros((0, 0), dt), np.zeros((0, 2), dt))
        case(f"solve {dt} with a NaN", la.solve, np.where(np.eye(n) > 0, np.nan, a).astype(dt), b)
    scipy_cases()
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import pylayer_decomp
    pylayer_decomp.run(sys.modules[__name__])
    for dt in ("i8", "e", "g"):  # dtypes the layer does not take: the original's result or error
        case(f"solve {dt}", la.solve, (matrix(8, "d") * 10).astype(dt), np.ones((8, 2), dt))
    case("solve mixed dtypes", la.solve, matrix(8, "f"), matrix(8, "d", m=2))
    case("solve big-endian", la.solve, matrix(8, ">f8"), matrix(8, ">f8", m=2))
    case("solve matrix subclass", la.solve, np.asmatrix(matrix(8, "d")), np.asmatrix(matrix(8, "d", m=2)))
    case("solve lists", la.solve, [[2.0, 1.0], [1.0, 3.0]], [1.0, 2.0])
    for mod, fn, _ in _linalg.WRAPPED:
        if mod not in sys.modules:
            continue
        f = getattr(sys.modules[mod], fn)
        o = f._gpushim_original
        if (f.__name__, f.__doc__, f.__module__, inspect.signature(f)) != (
                o.__name__, o.__doc__, o.__module__, inspect.signature(o)):
            bad.append(f"{mod}.{fn}: name, docstring, module or signature differs from the original's")
    for line in bad:
        print("pylayer:", line)
    print(f"pylayer: {cases} cases, {len(bad)} differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
