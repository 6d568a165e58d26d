"""gpushim for Python: run NumPy's, SciPy's and scikit-learn's large BLAS, LAPACK and FFTW calls on the GPU.

Three ways in, from the outside in:

    python -m gpushim [gpushim-run options] script.py [args]   (or -c CODE, -m MODULE)
    gpushim-run [options] python script.py                      (the console script of the wheel)
    import gpushim                                              (first, before NumPy: in a notebook)

The first two preload libgpushim.so (LD_PRELOAD) and cover everything the program loads.  The third loads it
into the process's global scope before NumPy, so that NumPy's and SciPy's calls are interposed without
LD_PRELOAD, and keeps an offload log of the session, removed at exit (unless GPUSHIM_LOG is set: set it
empty for none), for summary(), report() and the notebook magic (%load_ext gpushim, then %%gpushim in a
cell).  See gpushim(7)."""
import atexit
import ctypes
import os
import sys
import warnings

from gpushim._paths import LIB, VERSION as __version__, cuda_from_wheels, script

__all__ = ["LIB", "loaded", "log_path", "summary", "report", "load_ipython_extension"]

_LIBS_IMPORTED_FIRST = ("numpy", "scipy")  # whose BLAS and LAPACK calls bind as they load
_lib = None


def _preloaded():
    """Whether a libgpushim is in the process already, preloaded under any file name: then it is the one, and no
    second copy is loaded beside it."""
    return hasattr(ctypes.CDLL(None), "gpushim_version")


def _remove_session_log(pid):
    if os.getpid() == pid and log_path():
        try:
            os.unlink(log_path())
        except OSError:
            pass


def _load():
    """Loads libgpushim.so into the global scope, before NumPy; says plainly when it is too late."""
    global _lib
    if _preloaded():
        _lib = ctypes.CDLL(None)
        return
    first = [m for m in _LIBS_IMPORTED_FIRST if m in sys.modules]
    if first:
        warnings.warn(f"gpushim: {first[0]} was imported before gpushim, so its BLAS and LAPACK calls are "
                      "already bound to the CPU library and stay there: restart the interpreter (the notebook's "
                      "kernel) and import gpushim first, or run the script with python -m gpushim",
                      RuntimeWarning, stacklevel=3)
        return
    if "GPUSHIM_LOG" not in os.environ:
        # The session's log, for summary(), report() and the magic (%p: each process's own), removed at exit.
        os.environ["GPUSHIM_LOG"] = os.path.join(os.environ.get("TMPDIR", "/tmp"), "gpushim-session-%p.log")
        atexit.register(_remove_session_log, os.getpid())
    cuda_from_wheels()
    _lib = ctypes.CDLL(LIB, mode=os.RTLD_GLOBAL)


def loaded():
    """Whether this process's BLAS, LAPACK and FFTW calls go through gpushim."""
    return _lib is not None


def log_path():
    """This process's offload log, as the library named it (gpushim_log_path), or None."""
    if not loaded():
        return None
    f = _lib.gpushim_log_path
    f.restype = ctypes.c_char_p
    path = f()
    return os.fsdecode(path) if path else None


def _flush():
    if _lib is not None:
        _lib.gpushim_log_flush()


def _report_module():
    from importlib.machinery import SourceFileLoader
    return SourceFileLoader("gpushim_report", script("gpushim-report")).load_module()


def report(html=None, top=20):
    """Prints gpushim-report's tables for this process's log so far (what went where, from which line, and why
    calls stayed on the CPU); with html, also writes its page to that file."""
    path = log_path()
    if not path or not os.path.exists(path):
        print("gpushim: no offload log in this process (import gpushim first, with GPUSHIM_LOG unset or a file)")
        return
    _flush()
    _report_module().main([path, "--top", str(top)] + (["--html", html] if html else []))


def summary(since=0):
    """Calls per routine in this process's log from byte offset `since` on: {routine: (calls, on the GPU,
    seconds)}, printed as a table too; a call through the Python layer under its Python name
    (numpy.linalg.solve)."""
    path = log_path()
    if not path or not os.path.exists(path):
        print("gpushim: no offload log in this process")
        return {}
    _flush()
    import json
    rows = {}
    with open(path, "rb") as f:
        f.seek(since)
        for line in f:
            r = json.loads(line) if line.startswith(b'{"t"') and b'"routine"' in line else None
            if r:
                n = r.get("calls", 1)
                c = rows.setdefault(r["symbol"] if "." in r["symbol"] else r["routine"], [0, 0, 0.0])
                c[0] += n
                c[1] += n if r["where"] == "gpu" else 0
                c[2] += r["seconds"]
    print(f"gpushim: {'routine':<22} {'calls':>8} {'on gpu':>8} {'seconds':>10}")
    for k, (n, g, s) in sorted(rows.items(), key=lambda kv: -kv[1][2]):
        print(f"gpushim: {k:<22} {n:>8} {g:>8} {s:>10.4f}")
    return {k: tuple(v) for k, v in rows.items()}


def load_ipython_extension(ip):
    """%load_ext gpushim: the cell magic %%gpushim runs its cell and prints the calls it made."""
    from gpushim._magic import register
    register(ip)


# Not in the processes that only start the preloaded one: `python -m gpushim` (sys.argv[0] is "-m" while the
# package is imported) and the wheel's console scripts.
if sys.argv[:1] != ["-m"] and os.path.basename(sys.argv[0] if sys.argv else "") not in (
        "gpushim-run", "gpushim-report", "gpushim-calibrate"):
    _load()
    if _lib is not None:  # the Python layer (gpushim/_linalg.py) as NumPy and SciPy are imported
        import gpushim_hook
        gpushim_hook.install()
