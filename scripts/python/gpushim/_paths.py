"""Where the package's library and scripts are: in the wheel, beside this file; in a checkout (the package
imported from scripts/python), build/libgpushim.so and scripts/."""
import ctypes
import glob
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
_CHECKOUT = os.path.dirname(os.path.dirname(os.path.dirname(_HERE)))
_IN_WHEEL = os.path.exists(os.path.join(_HERE, "libgpushim.so"))
LIB = os.path.join(_HERE, "libgpushim.so") if _IN_WHEEL else os.path.join(_CHECKOUT, "build", "libgpushim.so")


def script(name):
    """The path of one of gpushim's scripts (gpushim-run, gpushim-report, gpushim-calibrate)."""
    return os.path.join(_HERE, "scripts", name) if _IN_WHEEL else os.path.join(_CHECKOUT, "scripts", name)


def _version():
    try:
        from gpushim._version import VERSION
        return VERSION
    except ImportError:  # a checkout: the library's own definition
        import re
        with open(os.path.join(_CHECKOUT, "src", "core", "gs.h")) as f:
            return re.search(r'#define GS_VERSION "([^"]*)"', f.read()).group(1)


VERSION = _version()


def cuda_from_wheels():
    """Where the system's loader finds no CUDA 13 runtime and GPUSHIM_CUDA_LIBDIR is unset: points
    GPUSHIM_CUDA_LIBDIR at the CUDA 13 libraries of PyPI's NVIDIA wheels (nvidia/cu13/lib), if installed."""
    if os.environ.get("GPUSHIM_CUDA_LIBDIR"):
        return
    try:
        ctypes.CDLL("libcudart.so.13")
        return
    except OSError:
        pass
    for d in sys.path:
        lib = os.path.join(d, "nvidia", "cu13", "lib")
        if glob.glob(os.path.join(lib, "libcudart.so.13*")):
            os.environ["GPUSHIM_CUDA_LIBDIR"] = lib
            return
