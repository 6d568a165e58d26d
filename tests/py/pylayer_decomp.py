"""The Python layer's decompositions against the originals, as tests/py/pylayer.py checks the other functions
(with its case(), from its main()): numpy.linalg's and scipy.linalg's svd, qr and lstsq on C-ordered, Fortran-ordered,
strided and non-contiguous matrices, square, tall and wide, of every dtype, each form of the result (svd's
full_matrices and compute_uv, qr's modes), and the arguments and matrices that go to the original: errors,
infinities and NaNs, stacked arrays, keywords the layer does not take, and singular values too close for their
vectors to be determined."""
import numpy as np


def svd_phases(r):
    """An SVD's result with each pair of singular vectors (U's column and Vh's row) multiplied by the phase that
    makes U's largest component real and positive, so that two SVDs of one matrix agree (U S Vh is unchanged);
    the arrays keep their memory order and the result its type."""
    if not isinstance(r, tuple) or len(r) != 3:
        return r
    u, s, vh = r
    k = len(s)
    i = np.abs(u[:, :k]).argmax(axis=0)
    p = u[i, np.arange(k)]
    with np.errstate(all="ignore"):
        p = np.where(p == 0, 1, p) / np.where(p == 0, 1, np.abs(p))
    u2, vh2 = u.copy(order="K"), vh.copy(order="K")
    with np.errstate(all="ignore"):  # the original's NaNs
        u2[:, :k] *= p.conj()
        vh2[:k] *= p[:, None]
    return type(r)(u2, s, vh2) if type(r) is not tuple else (u2, s, vh2)


def svd_cases(t, name, fn, dt, **extra):
    """fn (numpy.linalg.svd or scipy.linalg.svd) on every layout of square, tall and wide matrices, in each form."""
    for shape in SHAPES:
        a = t.matrix(shape[0], dt, m=shape[1])
        for ka, av in t.layouts(a).items():
            for full in (True, False):
                t.case(f"{name} {dt} {shape} {ka} full_matrices={full}", fn, av, full_matrices=full,
                       _norm=svd_phases, **extra)
            t.case(f"{name} {dt} {shape} {ka} values", fn, av, compute_uv=False, **extra)
    a = t.matrix(24, dt)
    t.case(f"{name} {dt} positional", fn, a, False, True, _norm=svd_phases)
    t.case(f"{name} {dt} full_matrices=1", fn, a, full_matrices=1, _norm=svd_phases)
    t.case(f"{name} {dt} compute_uv=np.True_", fn, a, compute_uv=np.True_, _norm=svd_phases)
    q, _ = np.linalg.qr(t.matrix(24, dt))
    special = {"zero": np.zeros_like(a), "rank 1": np.ones_like(a), "identity": np.eye(24, dtype=dt),
               "orthogonal (every value 1)": q.astype(dt), "near underflow": a * np.asarray(1e-30 if dt in "fF" else
                                                                                              1e-300, dt),
               "rank 12": (t.matrix(24, dt, m=12) @ t.matrix(12, dt, m=24)).astype(dt)}
    for kind, m in special.items():
        t.case(f"{name} {dt} {kind}", fn, m, _norm=svd_phases, _tol=1e-3 if kind == "rank 12" else None)
        t.case(f"{name} {dt} {kind} values", fn, m, compute_uv=False)
    for kind, v in (("NaN", np.nan), ("infinity", np.inf)):
        m = a.copy()
        m[3, 2] = v
        t.case(f"{name} {dt} a {kind}", fn, m, _norm=svd_phases)
        t.case(f"{name} {dt} a {kind} values", fn, m, compute_uv=False)
    t.case(f"{name} {dt} stacked", fn, np.stack([a, a]), _norm=svd_phases)
    t.case(f"{name} {dt} empty", fn, np.zeros((0, 3), dt), _norm=svd_phases)
    t.case(f"{name} {dt} a vector", fn, a[0])


def unique(r):
    """A QR's factors, which Householder reflections determine: compared as they are, no phase fixed."""
    return r


SHAPES = ((24, 24), (40, 24), (24, 40), (60, 5), (5, 60), (1, 24), (24, 1))


def qr_cases(t, name, fn, dt, modes):
    """fn (numpy.linalg.qr or scipy.linalg.qr) in each of its modes on every layout of square, tall and wide
    matrices, and the arguments and matrices that go to the original."""
    for shape in SHAPES:
        a = t.matrix(shape[0], dt, m=shape[1])
        for ka, av in t.layouts(a).items():
            for mode in modes:
                t.case(f"{name} {dt} {shape} {ka} mode={mode}", fn, av, mode=mode, _norm=unique)
    a = t.matrix(24, dt, m=16)
    if name == "qr":  # numpy.linalg.qr(a, mode)
        t.case(f"{name} {dt} mode positional", fn, a, modes[1], _norm=unique)
    t.case(f"{name} {dt} mode=raw", fn, a, mode="raw", _norm=unique)
    t.case(f"{name} {dt} mode=X", fn, a, mode="X", _norm=unique)
    z = a.copy()
    z[:, 3] = 0
    special = {"zero": np.zeros_like(a), "rank 1": np.ones_like(a), "a zero column": z,
               "near underflow": a * np.asarray(1e-30 if dt in "fF" else 1e-300, dt)}
    for kind, m in special.items():
        for mode in modes:
            t.case(f"{name} {dt} {kind} mode={mode}", fn, m, mode=mode, _tol=1e-3 if kind == "rank 1" else None,
                   _norm=unique)
    for kind, v in (("NaN", np.nan), ("infinity", np.inf)):
        m = a.copy()
        m[3, 2] = v
        t.case(f"{name} {dt} a {kind}", fn, m, _norm=unique)
    t.case(f"{name} {dt} stacked", fn, np.stack([a, a]), _norm=unique)
    t.case(f"{name} {dt} empty", fn, np.zeros((0, 3), dt), _norm=unique)
    t.case(f"{name} {dt} a vector", fn, a[0], _norm=unique)


def as_is(r):
    """A result compared as it is (no phases: least squares' solution, residuals, rank and singular values)."""
    return r


def lstsq_cases(t, name, fn, dt, cut):
    """fn (numpy.linalg.lstsq or scipy.linalg.lstsq, whose cut-off keyword is cut) on every layout of square, tall
    and wide matrices, with right-hand sides of each layout and a vector; rank-deficient matrices, cut-offs, and the
    arguments that go to the original."""
    for shape in SHAPES:
        a, b = t.matrix(shape[0], dt, m=shape[1]), t.matrix(shape[0], dt, m=3)
        for ka, av in t.layouts(a).items():
            t.case(f"{name} {dt} {shape} A {ka}", fn, av, b, _norm=as_is)
        for kb, bv in list(t.layouts(b).items()) + [("vector", b[:, 0].copy()), ("vector-strided", b[:, 0])]:
            t.case(f"{name} {dt} {shape} B {kb}", fn, a, bv, _norm=as_is)
    a, b = t.matrix(40, dt, m=24), t.matrix(40, dt, m=2)
    low = a[:, :12] @ t.matrix(12, dt, m=24) / 4  # rank 12: the residuals then go unreported
    for kind, m in (("rank 12", low), ("a zero column", np.where(np.arange(24) == 5, 0, a).astype(dt)),
                    ("wide rank 12", low.T.copy())):
        t.case(f"{name} {dt} {kind}", fn, m, b if kind[0] != "w" else b[:24], _norm=as_is)
    # a singular value at the cut-off, which rounding puts on either side: the rank is the original's to decide
    u, _, vh = np.linalg.svd(t.matrix(40, "d", m=24).real, full_matrices=False)
    sv = np.linspace(2, 1, 24)
    sv[-1] = 2e-3
    t.case(f"{name} {dt} a singular value at the cut-off", fn, ((u * sv) @ vh).astype(dt), b, **{cut: 1e-3},
           _norm=as_is)
    for c in (-1, 0.5, 1e-3, 2, np.float64(1e-6), "x", np.nan):
        t.case(f"{name} {dt} {cut}={c!r}", fn, a, b, **{cut: c}, _norm=as_is)
    t.case(f"{name} {dt} positional", fn, a, b, None, _norm=as_is)
    t.case(f"{name} {dt} keywords", fn, a=a, b=b, _norm=as_is)
    t.case(f"{name} {dt} rows differ", fn, a, b[:5], _norm=as_is)
    t.case(f"{name} {dt} other dtype", fn, a, b.astype(t.OTHER[dt]), _norm=as_is)
    t.case(f"{name} {dt} stacked", fn, np.stack([a, a]), np.stack([b, b]), _norm=as_is)
    t.case(f"{name} {dt} empty", fn, np.zeros((0, 3), dt), np.zeros((0, 2), dt), _norm=as_is)
    t.case(f"{name} {dt} no right-hand side", fn, a, np.zeros((40, 0), dt), _norm=as_is)
    t.case(f"{name} {dt} a 3-D b", fn, a, b[:, :, None], _norm=as_is)
    for kind, v in (("NaN", np.nan), ("infinity", np.inf)):
        m = a.copy()
        m[3, 2] = v
        # (NumPy 1's OpenBLAS reports LAPACK's error on such an A on stderr, which the suite takes for the layer's)
        if name != "lstsq" or np.lib.NumpyVersion(np.__version__) >= "2.0.0":
            t.case(f"{name} {dt} a {kind}", fn, m, b, _norm=as_is)
        bv = b.copy()
        bv[7, 1] = v
        t.case(f"{name} {dt} a {kind} in b", fn, a, bv, _norm=as_is)


def run(t):
    """The cases, through pylayer.py's module t (its case(), matrix() and layouts(), its count of cases)."""
    la = np.linalg
    try:
        import scipy.linalg as sl
    except ImportError:  # build/venv-np1: NumPy 1.26 alone
        sl = None
    for dt in ("f", "d", "F", "D"):
        svd_cases(t, "svd", la.svd, dt)
        a = t.matrix(24, dt)
        t.case(f"svd {dt} hermitian", la.svd, a + a.conj().T, hermitian=True, _norm=svd_phases)
        t.case(f"svd {dt} hermitian=False", la.svd, a, hermitian=False, _norm=svd_phases)
        qr_cases(t, "qr", la.qr, dt, ("reduced", "complete", "r", "raw"))
        t.case(f"qr {dt} mode=complete, keyword a", la.qr, a=a, mode="complete", _norm=unique)
        lstsq_cases(t, "lstsq", la.lstsq, dt, "rcond")
        if sl is None:
            continue
        lstsq_cases(t, "scipy lstsq", sl.lstsq, dt, "cond")
        b = t.matrix(24, dt, m=2)
        for kw in ({"lapack_driver": "gelsy"}, {"lapack_driver": "gelss"}, {"lapack_driver": "gelsd"},
                   {"check_finite": False}):
            t.case(f"scipy lstsq {dt} {kw}", sl.lstsq, a, b, _norm=as_is, **kw)
        t.overwrite_case(f"scipy lstsq {dt} overwrite_a", sl.lstsq, np.asfortranarray(a), b, overwrite_a=True)
        svd_cases(t, "scipy svd", sl.svd, dt)
        svd_cases(t, "scipy svd gesvd", sl.svd, dt, lapack_driver="gesvd")
        t.case(f"scipy svd {dt} check_finite=False", sl.svd, a, check_finite=False, _norm=svd_phases)
        for driver in ("gesvdx", 1, None):
            t.case(f"scipy svd {dt} lapack_driver={driver!r}", sl.svd, a, lapack_driver=driver, _norm=svd_phases)
        t.overwrite_case(f"scipy svd {dt} overwrite_a", sl.svd, np.asfortranarray(a), overwrite_a=True)
        qr_cases(t, "scipy qr", sl.qr, dt, ("full", "economic", "r"))
        for kw in ({"pivoting": True}, {"pivoting": False}, {"lwork": None}, {"lwork": -1}, {"check_finite": False},
                   {"mode": "economic", "pivoting": True}):
            t.case(f"scipy qr {dt} {kw}", sl.qr, a, _norm=unique, **kw)
        t.overwrite_case(f"scipy qr {dt} overwrite_a", sl.qr, np.asfortranarray(a), overwrite_a=True)
    for dt in ("i8", "e", "g"):  # dtypes the layer does not take
        t.case(f"svd {dt}", la.svd, (t.matrix(8, "d") * 10).astype(dt), _norm=svd_phases)
    t.case("svd big-endian", la.svd, t.matrix(8, ">f8"), _norm=svd_phases)
    t.case("svd lists", la.svd, [[2.0, 1.0], [1.0, 3.0]], _norm=svd_phases)
    for dt in ("i8", "e", "g"):
        t.case(f"qr {dt}", la.qr, (t.matrix(8, "d") * 10).astype(dt), _norm=unique)
    t.case("qr big-endian", la.qr, t.matrix(8, ">f8"), _norm=unique)
    t.case("qr matrix subclass", la.qr, np.asmatrix(t.matrix(8, "d")), _norm=unique)
    t.case("lstsq matrix subclass", la.lstsq, np.asmatrix(t.matrix(8, "d")), np.asmatrix(t.matrix(8, "d", m=2)),
           _norm=as_is)
    t.case("lstsq lists", la.lstsq, [[2.0, 1.0], [1.0, 3.0], [0.0, 1.0]], [1.0, 2.0, 3.0], _norm=as_is)
