"""pyFFTW as its users call it: the builders, the numpy_fft interface and FFTW objects called again on new
arrays, in double and single precision, each result checked against numpy.fft (in double precision) within a
tolerance from the precision and the size.  Prints one line per result, the number of FFTW executes it made
and which FFTW made its plans (that FFTW's wisdom); exits 1 when a result is wrong.  tests/t_fftw_apps.sh runs it with and without the shim.

usage: python fftw_pyfftw.py [--other LIBRARY]
  --other LIBRARY  load another FFTW (RTLD_LOCAL, as an extension module would) before pyFFTW
"""
import ctypes
import sys

if sys.argv[1:2] == ["--other"]:
    ctypes.CDLL(sys.argv[2])

import numpy as np  # noqa: E402
import pyfftw  # noqa: E402
import pyfftw.builders as builders  # noqa: E402
import pyfftw.interfaces.numpy_fft as npfft  # noqa: E402

rng = np.random.default_rng(20260711)
bad = 0
executes = 0  # FFTW executes this script makes: one per builder object called, interface call, FFTW call


def rand(shape, dt):
    a = rng.standard_normal(shape)
    if np.issubdtype(dt, np.complexfloating):
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dt)


def aligned(a):
    """A copy of a in memory aligned as pyFFTW's SIMD plans want it."""
    b = pyfftw.empty_aligned(a.shape, dtype=a.dtype)
    b[...] = a
    return b


def agree(name, got, ref, points, prec):
    """got against ref: got in the input's precision prec, and the largest difference, relative to ref's largest
    magnitude, at most 8 eps log2(points) (FFTW's error grows as log N; 8 leaves room for any algorithm)."""
    global bad
    eps = np.finfo(prec).eps
    tol = 8 * eps * max(1.0, np.log2(points))
    ok = got.shape == ref.shape and np.finfo(got.dtype).eps == eps
    err = float(np.max(np.abs(got.astype(ref.dtype) - ref)) / np.max(np.abs(ref))) if ok else float("inf")
    ok = ok and err <= tol
    bad += not ok
    print(f"{'ok ' if ok else 'BAD'} {name} {got.dtype} {got.shape}: error {err:.2e}, tolerance {tol:.2e}")


def wide(a):
    """a in double precision, for numpy.fft's reference."""
    return a.astype(np.complex128 if np.iscomplexobj(a) else np.float64)


def run(name, call, x, ref, points):
    global executes
    executes += 1
    agree(name, call(x), ref, points, x.dtype)


for cdt, rdt in ((np.complex128, np.float64), (np.complex64, np.float32)):
    # The builders: a plan object made from an example array, then called once.
    x = aligned(rand(1024, cdt))
    run("builders.fft 1-D", lambda a: builders.fft(a)(), x, np.fft.fft(wide(x)), 1024)
    x = aligned(rand((8, 96), cdt))
    run("builders.fft 8 rows", lambda a: builders.fft(a, axis=-1)(), x, np.fft.fft(wide(x), axis=-1), 96)
    x = aligned(rand((12, 10, 8), cdt))
    run("builders.fftn 3-D", lambda a: builders.fftn(a)(), x, np.fft.fftn(wide(x)), x.size)
    run("builders.ifftn 3-D", lambda a: builders.ifftn(a)(), x, np.fft.ifftn(wide(x)), x.size)
    r = aligned(rand((12, 10, 8), rdt))
    run("builders.rfftn 3-D", lambda a: builders.rfftn(a)(), r, np.fft.rfftn(wide(r)), r.size)
    # c2r of more than one dimension is defined for Hermitian input only: irfftn of an rfftn result.
    h = aligned(np.fft.rfftn(wide(r)).astype(cdt))
    run("builders.irfftn 3-D", lambda a: builders.irfftn(a, s=r.shape)(), h, wide(r), r.size)
    r2 = aligned(rand((32, 30), rdt))
    h2 = aligned(np.fft.rfft2(wide(r2)).astype(cdt))
    run("builders.irfftn 2-D", lambda a: builders.irfftn(a, s=r2.shape)(), h2, wide(r2), r2.size)

    # numpy_fft: numpy.fft's functions, each planning and executing once.
    x, r = rand((16, 24), cdt), rand((16, 24), rdt)
    run("numpy_fft.fft", npfft.fft, x, np.fft.fft(wide(x)), 24)
    run("numpy_fft.ifft", npfft.ifft, x, np.fft.ifft(wide(x)), 24)
    run("numpy_fft.fft2", npfft.fft2, x, np.fft.fft2(wide(x)), x.size)
    run("numpy_fft.fftn", npfft.fftn, x, np.fft.fftn(wide(x)), x.size)
    run("numpy_fft.ifftn", npfft.ifftn, x, np.fft.ifftn(wide(x)), x.size)
    run("numpy_fft.rfft", npfft.rfft, r, np.fft.rfft(wide(r)), 24)
    run("numpy_fft.irfft", npfft.irfft, npfft.rfft(r), wide(r), 24)
    executes += 1  # the rfft inside
    run("numpy_fft.rfftn", npfft.rfftn, r, np.fft.rfftn(wide(r)), r.size)
    run("numpy_fft.irfftn", lambda a: npfft.irfftn(a, s=r.shape), np.fft.rfftn(wide(r)).astype(cdt), wide(r),
        r.size)

    # One FFTW object, called again and again: on new inputs (which pyFFTW copies into the plan's array),
    # then on new aligned arrays of its own (update_arrays: FFTW's new-array execute).
    a, b = pyfftw.empty_aligned((20, 18), dtype=cdt), pyfftw.empty_aligned((20, 18), dtype=cdt)
    f = pyfftw.FFTW(a, b, axes=(0, 1))
    for k in range(3):
        v = rand((20, 18), cdt)
        run(f"FFTW 2-D call {k}", lambda v: f(v).copy(), v, np.fft.fft2(wide(v)), 360)
    for k in range(2):
        v, w = aligned(rand((20, 18), cdt)), pyfftw.empty_aligned((20, 18), dtype=cdt)
        f.update_arrays(v, w)
        run(f"FFTW 2-D new arrays {k}", lambda v: (f.execute(), w)[1], v, np.fft.fft2(wide(v)), 360)
    a, b = pyfftw.empty_aligned(200, dtype=rdt), pyfftw.empty_aligned(101, dtype=cdt)
    g = pyfftw.FFTW(a, b)
    for k in range(3):
        v = rand(200, rdt)
        run(f"FFTW r2c call {k}", lambda v: g(v).copy(), v, np.fft.rfft(wide(v)), 200)

# Which FFTW made the plans: its wisdom (not interposed) holds their codelets; a plan made by another loaded
# FFTW leaves it empty.
for prec, wisdom in zip(("double", "single"), pyfftw.export_wisdom()[:2]):
    entries = wisdom.decode().count("\n  (")
    print(f"wisdom {prec}: {entries} entries, {wisdom.decode().split()[0][1:]}")
    bad += entries < 1
maps = sorted({ln.split()[-1] for ln in open("/proc/self/maps") if "fftw3" in ln.rsplit("/", 1)[-1]})
print("fftw libraries:", " ".join(maps))
print(f"executes {executes}")
print(f"pyfftw {pyfftw.__version__}: {'all agree' if not bad else f'{bad} wrong'}")
sys.exit(1 if bad else 0)
