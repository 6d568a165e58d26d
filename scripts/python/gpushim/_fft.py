"""The Python layer's FFTs: numpy.fft's transforms handed whole to libgpushim's gpushim_fft (include/gpushim.h),
which describes each as the FFTW family's geometry on the arrays as they are laid out and runs it through the same
policy, log, cuFFT plan cache and CPU fallback as the FFTW executes it interposes, NumPy's norm applied to the
output on the device.  n or s below the input's length crop it (a view); beyond, the library pads it with zeros,
and casts a real input to a complex transform's type, once the call goes to the GPU (gpushim_fft's from).

One wrapper shape (gpushim/_linalg.py's) and one table (WRAPPED).  A function's plan reads its arguments into
the C entry's operation, input, fresh output (or the caller's out), axes and factor; a call the plan does not take
(repeated axes, more than three axes, a subclass, a dtype other than float32, float64,
complex64, complex128 and the integers NumPy transforms as float64, fewer points than the library's policy would
ever take to the GPU) or that the library does not do goes to the original function with the original arguments,
so that results and errors are NumPy's own.  scipy.fft's transforms go through Backend, the same plans behind
SciPy's backend protocol, where NotImplemented passes a call on to SciPy's own backend.  gpushim_hook imports this
module when numpy.fft or scipy.fft has just been imported, for wrap_module."""
import ctypes
import math
import operator
import os
import sys

import numpy as np

from gpushim._linalg import _Array, _bind, _describe, _timed, _wrap

_NORMS = (None, "backward", "ortho", "forward")
# The C entry's operations: (transform's input complex, output complex, inverse direction for the norm).
_OPS = {"fft": (True, True, False), "ifft": (True, True, True), "rfft": (False, True, False),
        "irfft": (True, False, True), "ihfft": (False, True, True), "hfft": (True, False, True)}
# The norm of irfft that gives hfft's (NumPy's and SciPy's _swap_direction).
_SWAP = {None: "forward", "backward": "forward", "ortho": "ortho", "forward": "backward"}
_min_points = {}  # (operation, type character, threads): gpushim_fft_min_points, for the process
_query = None  # gpushim_fft_min_points, set by _entry


def _axes(a, axes):
    """axes as non-negative indexes, or None when one is out of range or repeated, or there are more than 3."""
    axes = [operator.index(x) + (a.ndim if operator.index(x) < 0 else 0) for x in axes]
    if not 1 <= len(axes) <= 3 or len(set(axes)) != len(axes) or not all(0 <= x < a.ndim for x in axes):
        return None
    return axes


def _sizes(op, a, sizes, axes):
    """The transform's logical sizes on the axes (the real side's, irfft's last one 2 (m - 1) by default) from those
    asked for (None each for the default), and the input's length it reads on each (irfft's last: n // 2 + 1), which
    NumPy crops or zero-pads the input to; None when one is below 2 (an error, or a transform of one point: the
    original's)."""
    n = [a.shape[x] if s is None else operator.index(s) for s, x in zip(sizes, axes)]
    if op == "irfft" and sizes[-1] is None:
        n[-1] = 2 * (a.shape[axes[-1]] - 1)
    if min(n) < 2:
        return None
    return n, n[:-1] + [n[-1] // 2 + 1 if op == "irfft" else n[-1]]


def _type(a, cin, scipy):
    """The transform's type character, NumPy's promotion of a's dtype (an integer or boolean array is transformed as
    float64), and SciPy's (float16 as float32, too), or None where the layer does not take it."""
    t = "d" if a.dtype.kind in "biu" else "f" if scipy and a.dtype.char == "e" else a.dtype.char
    return t if t in "fdFD" and a.dtype.isnative and (cin or t in "fd") else None


def _input(a, t):
    """What the library makes the transform's input from (gpushim_fft's from) or takes as it: a, or a copy where
    NumPy's cast or the library needs one (an integer input, a stride that is not positive).  A real a of the
    transform's precision stays as it is for a complex transform: the library casts it once the call goes to the
    GPU, so that a call kept on the CPU costs no copy."""
    x = a if a.dtype.char == t else a.astype(t)  # a's byte order is native (_type)
    return x.copy(order="K") if any(s <= 0 for s, d in zip(x.strides, x.shape) if d > 1) else x


def _job(op, a, sizes, axes, norm, out, scipy=False, threads=1, hermitian=False):
    """The C entry's call for op on the axes of a: (op, input, made, output, axes, factor, threads, finish) where
    made is the shape of the transform's input that the library makes from input (zero-padded, a real input cast
    to complex, conjugated), or None where input is it, and finish() gives the result once the call is done; or
    None.  sizes are the logical sizes asked for (None each for NumPy's default), norm NumPy's, out the caller's
    array or None; scipy: SciPy's types and its output, always in C order; threads: those the original computes on
    (numpy.fft's one, SciPy's workers), for the library's policy; hermitian: hfft's, irfft of a's conjugate with
    the norm's direction swapped (NumPy's and SciPy's definition), the C entry's "hfft"."""
    if hermitian:
        if norm not in _SWAP:
            return None
        norm = _SWAP[norm]
    cin, cout, inverse = _OPS[op]
    if type(a) is not np.ndarray or a.ndim > 8 or norm not in _NORMS or (axes := _axes(a, axes)) is None or \
            (sized := _sizes(op, a, sizes, axes)) is None:
        return None
    n, reads = sized
    read = list(a.shape)  # the input as the transform reads it, cropped or padded
    for x, m in zip(axes, reads):
        read[x] = m
    shape = list(read)
    if cin != cout:  # the complex side has n // 2 + 1 on the last axis
        shape[axes[-1]] = n[-1] if cin else n[-1] // 2 + 1
    t = _type(a, cin, scipy)
    if t is None or math.prod(shape if cin and not cout else read) < _least(op, t, threads):
        return None
    want = np.dtype(t.upper() if cout else t.lower())
    if out is None:
        y = np.empty(shape, want) if scipy else np.empty_like(a, shape=shape, dtype=want)
    elif type(out) is np.ndarray and out.dtype == want and list(out.shape) == shape and out.flags.writeable:
        y = out if not np.may_share_memory(a, out) else np.empty_like(out)  # NumPy's ufunc reads a before writing
    else:
        return None
    if any(a.shape[x] > m for x, m in zip(axes, reads)):
        a = a[tuple(slice(0, m) if x in axes else slice(None) for x, m in enumerate(read))]
    x = _input(a, t)
    points = math.prod(n)
    scale = 1 / math.sqrt(points) if norm == "ortho" else 1 / points if (norm == "forward") != inverse else 1.0
    made = list(x.shape) != read or (cin and x.dtype.kind != "c") or hermitian
    return "hfft" if hermitian else op, x, read if made else None, y, axes, scale, threads, \
        (lambda: y) if out is None or y is out else (lambda: (np.copyto(out, y), out)[1])


def _least(op, t, threads=1):
    key = (op, t, threads)
    least = _min_points.get(key)
    if least is None:
        least = _min_points[key] = _query(op.encode(), t.encode(), threads)
    return least


def _small(op, a, threads=1):
    """Whether a is not an array, or one whose transforms have too few points for the library on the caller's
    threads (a c2r's output has at most twice the input's): the quick answer for the many small calls.  One
    thread's is the lowest: the CPU's side is then slowest."""
    return type(a) is not np.ndarray or \
        2 * a.size < _least(op, a.dtype.char if a.dtype.char in "fdFD" else "d", threads)


# ---- the plans: each takes the original's arguments and gives _job's call, or None ----------------------------

def _one(op):
    def plan(a, n=None, axis=-1, norm=None, out=None):
        return None if _small(op, a) else _job(op, a, [n], [axis], norm, out)
    return plan


def _hfft(a, n=None, axis=-1, norm=None, out=None):
    """numpy.fft's hfft; it ignores out, so a call with one is NumPy's."""
    return None if _small("hfft", a) or out is not None else _job("irfft", a, [n], [axis], norm, None, hermitian=True)


def _nd(op, default_axes, takes_out=True):
    """The n-dimensional transforms: s and axes as NumPy's _cook_nd_args reads them (-1 in s: the input's size),
    where it warns (s without axes, None in s) left to the original; ifft2 and irfft2 ignore out, so a call with
    one is theirs."""
    def plan(a, s=None, axes=default_axes, norm=None, out=None):
        if _small(op, a) or (s is not None and (axes is None or None in s)) or (out is not None and not takes_out):
            return None
        axes = list(range(a.ndim)) if axes is None else list(axes)
        s = [None] * len(axes) if s is None else list(s)
        if len(s) != len(axes):
            return None
        s = [a.shape[x] if v == -1 else v for v, x in zip(s, axes)]
        # NumPy's out holds each axis's transform in turn, the last axis's first (irfftn's only the last): it raises
        # where s crops or pads another axis
        if out is not None and op != "irfft" and any(v not in (None, a.shape[x]) for v, x in zip(s[:-1], axes[:-1])):
            return None
        return _job(op, a, s, axes, norm, out)
    return plan


def _sp_other(x, op, overwrite_x, workers, plan):
    """Whether a scipy.fft call is SciPy's own: a small one (for one thread, then for its workers), one that lets
    SciPy write x, one with a plan, or one whose workers SciPy must reject (0, or fewer than minus the CPUs)."""
    return _small(op, x) or overwrite_x or plan is not None or \
        (workers is not None and not (operator.index(workers) > 0 or -(os.cpu_count() or 1) <= workers < 0)) or \
        _small(op, x, _workers(workers))


def _workers(workers):
    """The threads SciPy computes on for workers: the context's (scipy.fft.set_workers) when None, counted back
    from the CPUs plus one when negative."""
    w = sys.modules["scipy.fft"].get_workers() if workers is None else operator.index(workers)
    return w if w > 0 else max(1, (os.cpu_count() or 1) + 1 + w)


def _sp_job(op, x, sizes, axes, norm, workers, hermitian):
    """_job for scipy.fft."""
    return _job(op, x, sizes, axes, norm, None, scipy=True, threads=_workers(workers), hermitian=hermitian)


def _sp_one(op, hermitian=False):
    def take(x, n=None, axis=-1, norm=None, overwrite_x=False, workers=None, *, plan=None):
        return None if _sp_other(x, op, overwrite_x, workers, plan) else \
            _sp_job(op, x, [n], [axis], norm, workers, hermitian)
    return take


def _listed(v):
    """s or axes of scipy.fft as a list, one integer as a list of one; a tuple or a list without np.ndim, which
    makes an array of it: a call the library keeps on the CPU pays the plan's every step on top of SciPy's own."""
    return list(v) if type(v) in (tuple, list) else [v] if np.ndim(v) == 0 else list(v)


def _sp_nd(op, default_axes, hermitian=False):
    """SciPy's n-dimensional transforms: s and axes as its _init_nd_shape_and_axes reads them (one integer for a
    list of one; s without axes for the last len(s) axes; -1 in s: the input's size; what is not an integer, None
    included, SciPy's error); hermitian as _sp_job's."""
    def take(x, s=None, axes=default_axes, norm=None, overwrite_x=False, workers=None, *, plan=None):
        if _sp_other(x, op, overwrite_x, workers, plan):
            return None
        s = None if s is None else [operator.index(v) for v in _listed(s)]
        if s is not None and len(s) > x.ndim:
            return None
        axes = list(range(x.ndim)) if axes is None and s is None else \
            list(range(x.ndim - len(s), x.ndim)) if axes is None else _listed(axes)
        s = [None] * len(axes) if s is None else s
        if len(s) != len(axes):
            return None
        return _sp_job(op, x, [x.shape[a] if v == -1 else v for v, a in zip(s, axes)], axes, norm, workers,
                       hermitian)
    return take


# scipy.fft's hfft, hfft2 and hfftn are irfft's of the conjugate; ihfft's are the C entry's own.
_SCIPY = {
    "fft": _sp_one("fft"), "ifft": _sp_one("ifft"), "rfft": _sp_one("rfft"), "irfft": _sp_one("irfft"),
    "ihfft": _sp_one("ihfft"), "hfft": _sp_one("irfft", hermitian=True), "fftn": _sp_nd("fft", None),
    "ifftn": _sp_nd("ifft", None), "rfftn": _sp_nd("rfft", None), "irfftn": _sp_nd("irfft", None),
    "hfftn": _sp_nd("irfft", None, hermitian=True), "ihfftn": _sp_nd("ihfft", None),
    "fft2": _sp_nd("fft", (-2, -1)), "ifft2": _sp_nd("ifft", (-2, -1)), "rfft2": _sp_nd("rfft", (-2, -1)),
    "irfft2": _sp_nd("irfft", (-2, -1)), "hfft2": _sp_nd("irfft", (-2, -1), hermitian=True),
    "ihfft2": _sp_nd("ihfft", (-2, -1)),
}


class Backend:
    """gpushim's backend of scipy.fft (its documented protocol): the transforms of _SCIPY that the plans take and
    the library does; every other call NotImplemented, which passes it on to SciPy's own backend, registered after
    this one, with the original arguments, workers included; a call the library weighed and kept on the CPU goes
    to SciPy's own backend from here (skipping this one), timed by the library."""
    __ua_domain__ = "numpy.scipy.fft"
    run = None  # _run(gpushim_fft), set by wrap_module

    @staticmethod
    def __ua_function__(method, args, kwargs):
        name = getattr(method, "__name__", None)
        try:
            job = _SCIPY[name](*args, **kwargs) if name in _SCIPY else None
        except (TypeError, AttributeError, IndexError):  # arguments the plan does not take: SciPy's own
            job = None
        if job is None:
            return NotImplemented
        result = Backend.run(f"scipy.fft.{name}".encode(), job)
        if result is not NotImplemented:
            return result
        del job  # freed before SciPy's own makes its output (gpushim/_linalg.py's _wrap says why)
        with sys.modules["scipy.fft"].skip_backend(Backend):  # SciPy's own, timed where the library kept it
            return _timed(method, *args, **kwargs)


WRAPPED = (
    ("fft", _one("fft")),
    ("ifft", _one("ifft")),
    ("rfft", _one("rfft")),
    ("irfft", _one("irfft")),
    ("ihfft", _one("ihfft")),
    ("hfft", _hfft),
    ("fftn", _nd("fft", None)),
    ("ifftn", _nd("ifft", None)),
    ("rfftn", _nd("rfft", None)),
    ("irfftn", _nd("irfft", None)),
    ("fft2", _nd("fft", (-2, -1))),
    ("ifft2", _nd("ifft", (-2, -1), takes_out=False)),
    ("rfft2", _nd("rfft", (-2, -1))),
    ("irfft2", _nd("irfft", (-2, -1), takes_out=False)),
)


def _made(op, x, shape):
    """gpushim_fft's in for the input that the library makes from x, of shape: no data; complex where op's input is."""
    d = _Array(None, (x.dtype.char.upper() if _OPS[op][0] else x.dtype.char).encode(), x.ndim)
    d.shape[:x.ndim] = shape
    return d


def _run(entry):
    """run for the one wrapper shape (gpushim/_linalg.py's _wrap): the job through gpushim_fft, then finish()."""
    def run(name, job):
        op, x, made, y, axes, scale, threads, finish = job
        done = entry(name, op.encode(), _describe(x) if made is None else _made(op, x, made),
                     None if made is None else _describe(x), _describe(y), len(axes),
                     (ctypes.c_int * len(axes))(*axes), scale, threads)
        return finish() if done else NotImplemented
    return run


def _entry():
    """gpushim_fft, or None; sets _query to gpushim_fft_min_points."""
    global _query
    bound = _bind("gpushim_fft", [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(_Array), ctypes.POINTER(_Array),
                                  ctypes.POINTER(_Array), ctypes.c_int, ctypes.POINTER(ctypes.c_int), ctypes.c_double,
                                  ctypes.c_int],
                  "gpushim_fft_min_points", [ctypes.c_char_p, ctypes.c_char, ctypes.c_int])
    if bound is None:
        return None
    f, _query = bound
    return f


def wrap_module(module):
    """numpy.fft: puts the wrappers of WRAPPED's functions into it (once), NumPy 2's: NumPy 1 transforms every dtype
    in double precision, and its numpy.fft is left as it is.  scipy.fft: makes Backend its global backend, with
    SciPy's own registered after it (once)."""
    entry = _entry()
    if entry is None or int(np.__version__.split(".")[0]) < 2:
        return
    if module.__name__ == "scipy.fft":
        if Backend.run is None:
            Backend.run = _run(entry)
            module.set_global_backend(Backend)
            module.register_backend("scipy")
        return
    for fn, plan in WRAPPED:
        original = getattr(module, fn, None)
        if original is None or hasattr(original, "_gpushim_original"):
            continue
        setattr(module, fn, _wrap(_run(entry), original, f"{module.__name__}.{fn}", plan))
