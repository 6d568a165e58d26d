"""The Python layer: numpy.linalg's and scipy.linalg's dense functions handed whole to libgpushim's
gpushim_linalg (include/gpushim.h), which runs them on the GPU on the arrays as they are laid out, through the same
policy, residency cache, log and CPU fallback as the LAPACK calls it interposes, with no copy around them.

One wrapper shape and one table (WRAPPED).  A function's plan reads its arguments into the C entry's operation,
the arrays it takes (inputs, then the fresh outputs) and what to return; a call the plan does not take (a
keyword it does not know, a stacked or unusual array, a subclass) or that the library does not do (small, kept
on the CPU, a singular matrix...) goes to the original function with the original arguments, so that results,
errors and warnings are NumPy's and SciPy's own.  gpushim_hook imports this module when numpy.linalg or
scipy.linalg has just been imported, for wrap_module."""
import ctypes
import functools
import inspect
import sys
import warnings

import numpy as np

_REAL = {"f": "f", "d": "d", "F": "f", "D": "d"}  # NumPy's type characters the library takes, and their reals


class _Array(ctypes.Structure):
    """gpushim_array_t."""
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_char), ("ndim", ctypes.c_int),
                ("shape", ctypes.c_int64 * 8), ("strides", ctypes.c_int64 * 8)]  # GPUSHIM_MAX_DIMS


def _plain(*arrays):
    """Whether every argument is a NumPy array itself (no subclass), 1-D or 2-D, of one dtype the library takes, in
    the machine's byte order."""
    t = arrays[0].dtype if type(arrays[0]) is np.ndarray else None
    return t is not None and t.char in _REAL and t.isnative and all(
        type(x) is np.ndarray and x.dtype == t and 1 <= x.ndim <= 2 for x in arrays)


_min_order = {}  # (operation, type character, right-hand sides): gpushim_linalg_min_order, for the process
_query = None  # gpushim_linalg_min_order, set by _entry
_begin = _end = None  # gpushim_original_begin and _end, set by _bind


def _least(op, t, k=1):
    """The least order of a square matrix of type character t that the library's policy would let op leave the
    CPU for with k right-hand sides, asked once per operation, dtype and k."""
    key = (op, t, k)
    least = _min_order.get(key)
    if least is None:
        least = _min_order[key] = _query(op.encode(), t.encode(), k)
    return least


def _take(op, a, *others, k=1):
    """Whether the plan of op takes a (square) and the others: plain arrays, a not smaller than the library's
    policy would let op leave the CPU for.  The order first, so that a small call goes to the original at once."""
    if type(a) is not np.ndarray or a.ndim != 2 or a.shape[0] != a.shape[1] or a.shape[0] < _least(op, a.dtype.char, k):
        return False
    return a.shape[0] > 0 and _plain(a, *others)


def _wide(op, a, mod=None):
    """Whether a, m x n, is a plain array whose larger side is not below the least square order the library's policy
    would let op leave the CPU for in the precision mod computes it in (_computed; a's own without mod): one below
    has fewer flops than that square, and goes to the original at once."""
    return type(a) is np.ndarray and a.ndim == 2 and \
        max(a.shape) >= _least(op, _computed(mod, a) if mod else a.dtype.char) and a.size > 0 and _plain(a)


# ---- the plans: (operation, uplo, arrays, finish[, flags]) for the C entry, or None; finish() makes the result
# once the call is done, or returns NotImplemented to pass the call on to the original ------------------------

def _np_solve(a, b):
    if not _take("solve", a, b, k=b.shape[1] if b.ndim == 2 else 1):
        return None
    x = np.empty(b.shape, a.dtype)
    return "solve", "L", (a, b, x), lambda: x


def _np_inv(a):
    if not _take("inv", a):
        return None
    x = np.empty(a.shape, a.dtype)
    return "inv", "L", (a, x), lambda: x


def _np_cholesky(a, *, upper=False):
    if not _take("cholesky", a) or upper is not False:
        return None
    x = np.empty(a.shape, a.dtype)
    return "cholesky", "L", (a, x), lambda: x


def _eigh(op, a, uplo, result=None, order="C", flags=0):
    if not _take(op, a) or uplo not in ("L", "U"):
        return None
    w = np.empty(a.shape[0], _REAL[a.dtype.char])
    if result is None:
        return op, uplo, (a, w), lambda: w, flags
    v = np.empty(a.shape, a.dtype, order)
    return op, uplo, (a, w, v), lambda: result(w, v), flags


def _np_eigh(a, UPLO="L"):
    # (the result's type looked up once the call is done: a small call pays nothing for it)
    return _eigh("eigh", a, UPLO, lambda w, v: _result_type("numpy.linalg", "eigh")(w, v))


def _np_eigvalsh(a, UPLO="L"):
    return _eigh("eigvalsh", a, UPLO)


def _slogdet(a, finish):
    """slogdet's sign and log of the absolute value of the determinant from the library's diagonal d, whose
    product is the determinant, as NumPy makes them from its LU factors; finish(sign, logdet) the result."""
    if not _take("slogdet", a):
        return None
    d = np.empty(a.shape[0], a.dtype)

    def result():
        m = np.abs(d)
        return finish(np.prod(d / m), np.sum(np.log(m)))
    return "slogdet", "L", (a, d), result


def _np_slogdet(a):
    return _slogdet(a, lambda sign, logdet: _result_type("numpy.linalg", "slogdet")(sign, logdet))


def _np_det(a):
    def det(sign, logdet):
        """sign times exp(logdet), as NumPy makes it.  Beyond a real dtype's range (above or below), NumPy's det of a
        diagonal matrix that overflows or underflows where a's does, for its result and its warning or error under
        the caller's np.errstate, where NumPy's own call would factor a again (a random matrix of n = 1024 and up
        overflows).  NumPy's det computes in float64 and casts: a float32 result beyond float64's range is flagged
        in det (11 entries of 1e30), one only beyond float32's in the cast (2 entries).  A complex one's, or NaN:
        NumPy's own call."""
        wide = np.complex128 if a.dtype.kind == "c" else np.float64
        with np.errstate(all="ignore"):
            e = wide(sign) * np.exp(np.float64(logdet))
            d = a.dtype.type(e)
        if np.isfinite(d) and d != 0:  # (a singular matrix is NumPy's: _slogdet's call is not done)
            return d
        if a.dtype.kind == "c" or np.isnan(d):
            return NotImplemented
        single = a.dtype.itemsize == 4
        x = a.dtype.type(1e30 if single else 1e300)
        x = x if np.isinf(d) else 1 / x
        k = 11 if single and (np.isinf(e) or e == 0) else 2
        original = sys.modules["numpy.linalg"].det._gpushim_original
        return original(np.diag(np.array([sign * x] + [x] * (k - 1), a.dtype)))
    return _slogdet(a, det)


_UNSET = object()  # a keyword not given
_defaults = {}


def _default(mod, fn, name):
    """The default of the original mod.fn's keyword name, read once."""
    key = (mod, fn, name)
    if key not in _defaults:
        _defaults[key] = inspect.signature(getattr(sys.modules[mod], fn)._gpushim_original).parameters[name].default
    return _defaults[key]


_FINITE = 1  # GPUSHIM_LINALG_FINITE: the library hands a call back when an input holds an infinity or a NaN,
# found on the device once the inputs are there, so that the original raises, with no pass over them on the host.


def _sp_cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    if not _take("cho_factor", a) or overwrite_a:
        return None
    # SciPy before 1.18 returns LAPACK's factor in Fortran order with A's other triangle, and lower as it was
    # given; SciPy 1.18 the factor in C order with the other triangle zero, and lower as a NumPy array
    c0, lower0 = _probe("scipy.linalg", "cho_factor", _SPD, lower=True)
    c = np.empty(a.shape, a.dtype, _order(c0))
    flag = np.array(lower) if type(lower0) is np.ndarray else lower
    return "cholesky" if c0[0, 1] == 0 else "cho_factor", "L" if lower else "U", (a, c), lambda: (c, flag), \
        _FINITE if check_finite else 0


def _sp_lu_factor(a, overwrite_a=False, check_finite=True):
    # m x n (the library decides those _wide lets through)
    if not _wide("lu_factor", a) or overwrite_a:
        return None
    # (pivots of 64 bits, from a SciPy built with 64-bit LAPACK integers, go to the original)
    lu0, piv0 = _probe("scipy.linalg", "lu_factor", _SPD)
    if piv0.dtype != np.int32:
        return None
    lu, piv = np.empty(a.shape, a.dtype, _order(lu0)), np.empty(min(a.shape), np.int32)
    return "lu_factor", "N", (a, lu, piv), lambda: (lu, piv), _FINITE


def _pair(x):
    """x's two elements, as the original unpacks (lu, piv) and (c, lower); None for another form."""
    return tuple(x) if type(x) in (tuple, list) and len(x) == 2 else None


def _rhs(op, a, b):
    """Whether op takes the factors a and the right-hand sides b (n, or n x k, not empty) for a solve."""
    return _take(op, a, b, k=b.shape[1] if b.ndim == 2 else 1) and b.size > 0 and b.shape[0] == a.shape[0]


def _sp_lu_solve(lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    lu, piv = _pair(lu_and_piv) or (None, None)
    # SciPy's pivots as lu_factor makes them; the library checks each is a row of the matrix
    if not _rhs("lu_solve", lu, b) or overwrite_b or type(trans) is not int or trans not in (0, 1, 2) or \
            type(piv) is not np.ndarray or piv.dtype != np.int32 or piv.shape != lu.shape[:1]:
        return None
    x = np.empty(b.shape, b.dtype,
                 _order(_probe("scipy.linalg", "lu_solve", _probe("scipy.linalg", "lu_factor", _SPD), _B)))
    return "lu_solve", "NTC"[trans], (lu, piv, b, x), lambda: x, _FINITE


def _flag(x):
    """Whether x is lower as cho_factor gives it: a bool (or 0 or 1), or (SciPy 1.18) a NumPy array of one."""
    if type(x) is np.ndarray:
        return x.shape == () and x.dtype.kind in "biu" and x in (0, 1)
    return type(x) in (bool, int, np.bool_) and x in (0, 1)


def _sp_cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True):
    c, lower = _pair(c_and_lower) or (None, None)
    if not _rhs("cho_solve", c, b) or overwrite_b or not _flag(lower):
        return None
    x = np.empty(b.shape, b.dtype, _order(_probe("scipy.linalg", "cho_solve", (_SPD, True), _B)))
    return "cho_solve", "L" if lower else "U", (c, b, x), lambda: x, _FINITE


def _sp_inv(a, overwrite_a=False, check_finite=True, *, assume_a=None, lower=False):
    # a matrix as SciPy inverts it whole: assume_a "gen", or None, whose structure SciPy detects (diagonal,
    # triangular, symmetric...) to invert it with other routines, to the same result within rounding; the
    # library hands an ill-conditioned one back, so that the warning, with SciPy's estimate in it, is SciPy's
    if not _take("inv_rcond", a) or overwrite_a or \
            not (assume_a is None or type(assume_a) is str and assume_a in ("gen", "general")):
        return None
    x = np.empty(a.shape, a.dtype, _order(_probe("scipy.linalg", "inv", _SPD)))
    return "inv_rcond", "L", (a, x), lambda: x, _FINITE


def _sp_solve(a, b, lower=False, overwrite_a=False, overwrite_b=False, check_finite=True, assume_a=None,
              transposed=False):
    # the general solve (assume_a "gen", or None, whose structure SciPy detects to solve by other routines, to the
    # same result within rounding) and the positive definite one from the triangle lower ("pos"); the library
    # hands an ill-conditioned matrix back, so that the warning, with SciPy's estimate in it, is SciPy's.  A 1 x 1
    # matrix SciPy divides by, without LAPACK.
    pos = type(assume_a) is str and assume_a in ("pos", "positive definite")
    op = "posv_rcond" if pos else "solve_rcond"
    if not _rhs(op, a, b) or a.shape[0] < 2 or overwrite_a or overwrite_b or transposed is not False or \
            type(lower) not in (bool, int) or \
            not (pos or assume_a is None or type(assume_a) is str and assume_a in ("gen", "general")):
        return None
    x = np.empty(b.shape, b.dtype, _order(_probe("scipy.linalg", "solve", _SPD, _B)))
    return op, "L" if lower else "U", (a, b, x), lambda: x, _FINITE


def _sp_eigh(a, b=None, *, lower=True, eigvals_only=False, overwrite_a=False, overwrite_b=False, type=1,
             check_finite=True, subset_by_index=None, subset_by_value=None, driver=None):
    # the standard problem, every eigenvalue, by any driver that computes them all
    if not _take("eigh", a) or b is not None or type != 1 or subset_by_index is not None or \
            subset_by_value is not None or driver not in (None, "ev", "evd", "evr", "evx"):
        return None
    uplo, flags = "L" if lower else "U", _FINITE if check_finite else 0
    if eigvals_only:
        return _eigh("eigvalsh", a, uplo, flags=flags)
    return _eigh("eigh", a, uplo, lambda w, v: (w, v), _order(_probe("scipy.linalg", "eigh", _SPD)[1]), flags)


_DOUBLE = {"f": "d", "F": "D", "d": "d", "D": "D"}


def _computed(mod, a):
    """The type character of the precision a's SVD or QR is computed in: numpy.linalg's in double (its float32 and
    complex64 results are those of double precision, rounded), scipy.linalg's in a's."""
    return _DOUBLE.get(a.dtype.char, a.dtype.char) if mod == "numpy.linalg" else a.dtype.char


def _rounded(x, t):
    """x as the original returns it for an input of dtype t: a complex array of t, a real one of t's real type."""
    return x.astype(t if x.dtype.kind == "c" else _REAL[t.char], copy=False)


def _svd(mod, a, full_matrices, compute_uv):
    """The SVD's plan, numpy.linalg's and scipy.linalg's: a's singular values and, with compute_uv, its vectors, in
    the original's memory order and result type (NumPy's SVDResult).  full_matrices of a matrix not square goes to
    the original: the vectors past min(m, n) are then any basis of a space, LAPACK's choice (the library's are
    those of singular values apart from the others, and hands a matrix of close ones back)."""
    if not _wide("svd" if compute_uv is not False else "svdvals", a, mod) or type(full_matrices) is not bool or \
            type(compute_uv) is not bool or (compute_uv and full_matrices and a.shape[0] != a.shape[1]):
        return None
    t, a = a.dtype, a.astype(_computed(mod, a), copy=False)
    s = np.empty(min(a.shape), _REAL[a.dtype.char])
    if not compute_uv:
        return "svdvals", "N", (a, s), lambda: _rounded(s, t), _FINITE
    r0 = _probe(mod, "svd", _SPD)
    k = min(a.shape)
    u = np.empty((a.shape[0], a.shape[0] if full_matrices else k), a.dtype, _order(r0[0]))
    vh = np.empty((a.shape[1] if full_matrices else k, a.shape[1]), a.dtype, _order(r0[2]))
    make = (lambda *x: x) if type(r0) is tuple else type(r0)
    return "svd", "A" if full_matrices else "S", (a, s, u, vh), lambda: make(*(_rounded(x, t) for x in (u, s, vh))), \
        _FINITE


def _np_svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    return None if hermitian is not False else _svd("numpy.linalg", a, full_matrices, compute_uv)


def _sp_svd(a, full_matrices=True, compute_uv=True, overwrite_a=False, check_finite=True, lapack_driver="gesdd"):
    # either driver: the same singular values and vectors within rounding
    if overwrite_a or type(lapack_driver) is not str or lapack_driver not in ("gesdd", "gesvd"):
        return None
    return _svd("scipy.linalg", a, full_matrices, compute_uv)


def _qr(mod, a, full, with_q, *probe):
    """The QR's plan, numpy.linalg's and scipy.linalg's: a's factors by Householder reflections, Q (with_q) and R,
    min(m, n) of Q's columns and R's rows or (full) m of them, in the memory order and result type (NumPy's
    QRResult, an array, a tuple) of the original's result on the example with the keywords probe."""
    if not _wide("qr" if with_q else "qr_r", a, mod):
        return None
    t, a = a.dtype, a.astype(_computed(mod, a), copy=False)
    r0 = _probe(mod, "qr", _SPD, **dict(probe))
    k = a.shape[0] if full else min(a.shape)
    r = np.empty((k, a.shape[1]), a.dtype, _order(r0[-1] if isinstance(r0, tuple) else r0))
    if not with_q:
        return "qr_r", "A" if full else "S", (a, r), lambda: (_rounded(r, t),) if type(r0) is tuple else \
            _rounded(r, t), _FINITE
    q = np.empty((a.shape[0], k), a.dtype, _order(r0[0]))
    make = (lambda *x: x) if type(r0) is tuple else type(r0)
    return "qr", "A" if full else "S", (a, q, r), lambda: make(_rounded(q, t), _rounded(r, t)), _FINITE


def _np_qr(a, mode="reduced"):
    # the deprecated modes go to the original
    if type(mode) is not str or mode not in ("reduced", "complete", "r", "raw"):
        return None
    if mode == "raw":
        return _np_qr_raw(a)
    return _qr("numpy.linalg", a, mode == "complete", mode != "r", *((("mode", "r"),) if mode == "r" else ()))


def _np_qr_raw(a):
    """numpy.linalg.qr's mode "raw": LAPACK's geqrf's outputs, A factored (R and the reflectors below it) as NumPy
    returns it, transposed (n x m, a view of an m x n array), and the reflectors' scalars; where the installed
    NumPy's differ, its call."""
    if not _wide("qr_raw", a, "numpy.linalg"):
        return None
    h0, tau0 = _probe("numpy.linalg", "qr", _TALL, mode="raw")
    if h0.shape != (2, 3) or not h0.flags.f_contiguous or h0.base is None or tau0.shape != (2,):
        return None
    t, a = a.dtype, a.astype(_computed("numpy.linalg", a), copy=False)
    # (in A's memory order, as NumPy's copy of it, which it factors)
    h, tau = np.empty_like(a), np.empty(min(a.shape), a.dtype)
    return "qr_raw", "R", (a, h, tau), lambda: (h.T.astype(t, copy=False), tau.astype(t, copy=False)), _FINITE


def _sp_qr(a, overwrite_a=False, lwork=_UNSET, mode="full", pivoting=False, check_finite=True):
    # lwork, a workspace size before SciPy 1.18 and deprecated since, goes to the original whatever its value
    if overwrite_a or lwork is not _UNSET or pivoting is not False or type(mode) is not str or \
            mode not in ("full", "economic", "r"):
        return None
    # mode "r": R alone, m x n
    return _qr("scipy.linalg", a, mode != "economic", mode != "r", *((("mode", "r"),) if mode == "r" else ()))


def _lstsq(mod, a, b, rcond, t, sides=False):
    """Least squares' plan, numpy.linalg's and scipy.linalg's (gelsd): a (m x n) and b (m, or m x k) of one dtype,
    computed in type character t (_computed), rcond the cut-off of the singular values relative to the largest
    (None: an epsilon of t, times max(m, n) with sides).
    Its arrays: X as LAPACK's gelsd leaves B, max(m, n) rows in the original's memory order, the solution on top
    and, when m > n, the residual below; the singular values; the rank.  None, or the arrays, X, the singular
    values and the rank."""
    if type(b) is not np.ndarray or b.ndim not in (1, 2) or b.size == 0 or not _wide("lstsq", a, mod) or \
            b.shape[0] != a.shape[0] or not _plain(a, b) or \
            not (rcond is None or type(rcond) in (int, float, np.float64, np.float32) and rcond == rcond):
        return None
    m, n = a.shape
    rcond = float(np.finfo(t).eps) * (max(m, n) if sides else 1) if rcond is None else rcond
    a, b = a.astype(t, copy=False), b.astype(t, copy=False)
    x = np.empty((max(m, n),) + b.shape[1:], t, _order(_probe(mod, "lstsq", _SPD, _B)[0]))
    s, rank = np.empty(min(m, n), _REAL[t]), np.empty(1, np.int32)
    return (a, b, np.array([rcond], _REAL[t]), x, s, rank), x, s, rank


def _np_lstsq(a, b, rcond=_UNSET):
    # NumPy's: in double precision, as NumPy computes it (float32 and complex64 results rounded); rcond None:
    # max(m, n) epsilons of double.  Not given, the original's default (NumPy 1's "warn" goes to it).  The size
    # first, so that a small call goes to the original at once.
    if not _wide("lstsq", a, "numpy.linalg"):
        return None
    if rcond is _UNSET:
        rcond = _default("numpy.linalg", "lstsq", "rcond")
    job = _lstsq("numpy.linalg", a, b, rcond, _computed("numpy.linalg", a), sides=True)
    if job is None:
        return None
    arrays, x, s, rank = job
    m, n = a.shape
    r0, rt = _probe("numpy.linalg", "lstsq", _SPD, _B), _REAL[a.dtype.char]
    make = (lambda *r: r) if type(r0) is tuple else type(r0)

    def finish():
        k = int(rank[0])
        # (of a vector b, one sum in an array, as NumPy's)
        resids = np.sum(np.abs(x[n:]) ** 2, axis=0).reshape(-1) if k == n and m > n else np.array([], rt)
        return make(x[:n].astype(a.dtype, order="C"), resids.astype(rt, copy=False), type(r0[2])(k),
                    s.astype(rt, copy=False))
    return "lstsq", "N", arrays, finish, _FINITE


def _sp_lstsq(a, b, cond=None, overwrite_a=False, overwrite_b=False, check_finite=True, lapack_driver=None):
    # gelsd, SciPy's default driver, in a's precision; cond None: an epsilon.  The solution is a view of the first
    # n rows of gelsd's B when m > n, as SciPy returns it, and the residuals are SciPy's sums over the others.
    if not _wide("lstsq", a, "scipy.linalg") or overwrite_a or overwrite_b or lapack_driver not in (None, "gelsd"):
        return None
    job = _lstsq("scipy.linalg", a, b, cond, a.dtype.char)
    if job is None or not _sp_lstsq_tall():
        return None
    arrays, x, s, rank = job
    m, n = a.shape

    def finish():
        k = int(rank[0])
        resids = np.sum(np.abs(x[n:]) ** 2, axis=0) if k == n and m > n else np.asarray([], dtype=x.dtype)
        return x[:n] if m > n else x, resids, k, s
    return "lstsq", "N", arrays, finish, _FINITE if check_finite else 0


def _sp_lstsq_tall():
    """Whether the installed SciPy's lstsq of a tall matrix returns (x, resids, rank, s) as _sp_lstsq makes them
    (x the first n rows of gelsd's Fortran-ordered B, resids its sums over the others, rank an int); where another
    version does otherwise, its calls go to it."""
    r = _probe("scipy.linalg", "lstsq", _TALL, _TALL)
    x, resids, rank, s = r if type(r) is tuple and len(r) == 4 else (None,) * 4
    return isinstance(x, np.ndarray) and x.shape == (2, 2) and x.strides == (x.itemsize, 3 * x.itemsize) and \
        isinstance(resids, np.ndarray) and resids.shape == (2,) and type(rank) is int and isinstance(s, np.ndarray)


# The originals' conventions, which NumPy's and SciPy's versions change, are those of their results on small
# examples, each made once, at a plan's first call: a symmetric positive definite matrix, right-hand sides, and a
# tall matrix.
_SPD = np.array([[4.0, 1.0], [1.0, 3.0]])
_B = np.array([[1.0, 2.0], [3.0, 4.0]])
_TALL = np.array([[4.0, 1.0], [1.0, 3.0], [2.0, 5.0]])
_probes = {}


def _key(x):
    """The probe's arguments x as a key: each example array by its identity (they are this module's)."""
    return tuple(map(_key, x)) if isinstance(x, tuple) else id(x) if isinstance(x, np.ndarray) else x


def _probe(mod, fn, *args, **kwargs):
    """The original of mod.fn's result on the example args with the keywords kwargs, from its first such call."""
    key = (mod, fn, _key(args), tuple(sorted(kwargs.items())))
    r = _probes.get(key)
    if r is None:
        with warnings.catch_warnings():  # (NumPy 1's lstsq warns of its rcond's default): not the caller's
            warnings.simplefilter("ignore")
            r = _probes[key] = getattr(sys.modules[mod], fn)._gpushim_original(*args, **kwargs)
    return r


def _order(x):
    """The memory order of the original's array x, for the layer's own: "F" for Fortran order, else "C"."""
    return "F" if x.flags.f_contiguous and not x.flags.c_contiguous else "C"


def _result_type(mod, fn):
    """What makes the original's result of two arrays (numpy.linalg.eigh's EighResult, a named tuple since NumPy
    1.25, or a tuple)."""
    t = type(_probe(mod, fn, _SPD))
    return (lambda *x: x) if t is tuple else t


# The one table: module, function, and its plan.  The log names each call module.function.
WRAPPED = (
    ("numpy.linalg", "solve", _np_solve),
    ("numpy.linalg", "inv", _np_inv),
    ("numpy.linalg", "cholesky", _np_cholesky),
    ("numpy.linalg", "eigh", _np_eigh),
    ("numpy.linalg", "eigvalsh", _np_eigvalsh),
    ("numpy.linalg", "det", _np_det),
    ("numpy.linalg", "slogdet", _np_slogdet),
    ("numpy.linalg", "svd", _np_svd),
    ("numpy.linalg", "qr", _np_qr),
    ("numpy.linalg", "lstsq", _np_lstsq),
    ("scipy.linalg", "cho_factor", _sp_cho_factor),
    ("scipy.linalg", "cho_solve", _sp_cho_solve),
    ("scipy.linalg", "lu_factor", _sp_lu_factor),
    ("scipy.linalg", "lu_solve", _sp_lu_solve),
    ("scipy.linalg", "eigh", _sp_eigh),
    ("scipy.linalg", "inv", _sp_inv),
    ("scipy.linalg", "solve", _sp_solve),
    ("scipy.linalg", "svd", _sp_svd),
    ("scipy.linalg", "qr", _sp_qr),
    ("scipy.linalg", "lstsq", _sp_lstsq),
)


def _describe(x):
    d = _Array(x.ctypes.data, x.dtype.char.encode(), x.ndim)
    d.shape[:x.ndim] = x.shape
    d.strides[:x.ndim] = x.strides
    return d


def _timed(call, *args, **kwargs):
    """call(*args, **kwargs), timed by the library under the call it has just kept on the CPU, when it has
    (gpushim_original_begin): the log's record of it and the cost model's measure of the CPU side."""
    if not _begin():
        return call(*args, **kwargs)
    try:
        return call(*args, **kwargs)
    finally:
        _end()


def _wrap(run, original, api, plan):
    """The one wrapper shape, of this layer and gpushim/_fft.py's: run(name, job) makes the plan's call through the
    library and returns its result, or NotImplemented when it is not done; then the original's call."""
    name = api.encode()

    @functools.wraps(original)
    def wrapper(*args, **kwargs):
        try:
            job = plan(*args, **kwargs)
        except (TypeError, AttributeError, IndexError):  # arguments the plan does not take: the original's own
            job = None
        if job is not None:
            result = run(name, job)
            if result is not NotImplemented:
                return result
            # The job's arrays (the output made for the GPU, a converted input) freed before the original makes its
            # own: while they were held, SciPy's rfft2 of 1024^2 took 2.2 ms every other call against 1.0 (H100;
            # fresh pages, it seems), and as SciPy's alone once freed.
            del job
            return _timed(original, *args, **kwargs)
        return original(*args, **kwargs)

    wrapper._gpushim_original = original
    return wrapper


def _run(entry):
    """run for _wrap: the job (operation, uplo, arrays, finish[, flags]) through gpushim_linalg, then finish()."""
    def run(name, job):
        op, uplo, arrays, finish, flags = job if len(job) == 5 else (*job, 0)
        descs = (_Array * len(arrays))(*map(_describe, arrays))
        return finish() if entry(name, op.encode(), uplo.encode(), len(arrays), descs, flags) else NotImplemented
    return run


def _bind(name, argtypes, least_name, least_argtypes):
    """The C entry name of libgpushim in this process (preloaded, or loaded by import gpushim) and its size query
    least_name, typed for ctypes; None when the library is not in the process."""
    global _begin, _end
    lib = ctypes.CDLL(None)
    try:
        f, least = getattr(lib, name), getattr(lib, least_name)
        _begin, _end = lib.gpushim_original_begin, lib.gpushim_original_end
    except AttributeError:
        return None
    f.argtypes, f.restype = argtypes, ctypes.c_int
    least.argtypes, least.restype = least_argtypes, ctypes.c_int64
    _begin.argtypes, _begin.restype, _end.argtypes, _end.restype = [], ctypes.c_int, [], None
    return f, least


def _entry():
    """gpushim_linalg, or None; sets _query to gpushim_linalg_min_order."""
    global _query
    bound = _bind("gpushim_linalg", [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int,
                                     ctypes.POINTER(_Array), ctypes.c_int],
                  "gpushim_linalg_min_order", [ctypes.c_char_p, ctypes.c_char, ctypes.c_int64])
    if bound is None:
        return None
    f, _query = bound
    return f


def wrap_module(module):
    """Puts the wrappers of WRAPPED's functions of this module into it (once)."""
    entry = _entry()
    if entry is None:
        return
    for mod, fn, plan in WRAPPED:
        original = getattr(module, fn, None) if mod == module.__name__ else None
        if original is None or hasattr(original, "_gpushim_original"):
            continue
        setattr(module, fn, _wrap(_run(entry), original, f"{mod}.{fn}", plan))
