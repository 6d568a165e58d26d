"""The Python layer's activation (gpushim/_linalg.py, gpushim/_fft.py): an import hook that puts the layer's
wrappers into numpy.linalg, scipy.linalg and numpy.fft, and its backend into scipy.fft, once each has been
imported.  Installed by `import gpushim` and, where the package is installed, by gpushim.pth at every start of
Python in a process with libgpushim.so preloaded (python -m gpushim, gpushim-run, LD_PRELOAD): elsewhere the .pth
line costs a look at LD_PRELOAD.  A module of its own, outside the package, so that a start of Python imports
neither the package nor NumPy.  GPUSHIM_PYTHON=0 turns it off."""
import os
import sys

# Each module wrapped, and the layer's module that wraps it.
LAYERS = {"numpy.linalg": "_linalg", "scipy.linalg": "_linalg", "numpy.fft": "_fft", "scipy.fft": "_fft"}
MODULES = tuple(LAYERS)


def enabled():
    """GPUSHIM_PYTHON: the layer is on unless it says 0, no, false or off."""
    return os.environ.get("GPUSHIM_PYTHON", "1").strip().lower() not in ("0", "no", "false", "off")


def _wrap(module):
    """Wraps module's functions; a failure leaves them as they are, and says so, never failing the import."""
    try:
        import importlib
        importlib.import_module("gpushim." + LAYERS[module.__name__]).wrap_module(module)
    except Exception as e:  # noqa: BLE001 (the program's import of NumPy or SciPy must go on)
        import warnings
        warnings.warn(f"gpushim: the Python layer is off for {module.__name__}: {e!r}", RuntimeWarning, stacklevel=2)


class _Finder:
    """Finds MODULES as the finders after it do, and wraps each once its own code has run."""

    def find_spec(self, name, path=None, target=None):
        if name not in MODULES:
            return None
        for finder in sys.meta_path:
            spec = None if finder is self or not hasattr(finder, "find_spec") else finder.find_spec(name, path, target)
            if spec is not None:
                break
        if spec is None or not hasattr(spec.loader, "exec_module"):
            return spec
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            _wrap(module)

        spec.loader.exec_module = exec_module
        return spec


def install():
    """Installs the hook (once); wraps at once the modules of MODULES already imported."""
    if not enabled() or any(isinstance(f, _Finder) for f in sys.meta_path):
        return
    sys.meta_path.insert(0, _Finder())
    for name in MODULES:
        if name in sys.modules:
            _wrap(sys.modules[name])


def from_pth():
    """gpushim.pth's line: installs the hook when libgpushim.so is preloaded."""
    if any(os.path.basename(p) == "libgpushim.so" for p in os.environ.get("LD_PRELOAD", "").replace(":", " ").split()):
        install()
