"""The wheel's console scripts gpushim-run, gpushim-report and gpushim-calibrate: each runs the packaged
script of that name, gpushim-run and gpushim-calibrate with the packaged library (--lib).  A module of its
own, so that starting one does not import the gpushim package, which would load the library here."""
import os
import sys

from gpushim._paths import LIB, cuda_from_wheels, script


def _exec(name, interpreter, lib):
    cuda_from_wheels()
    args = [interpreter, script(name)] + (["--lib", LIB] if lib and "--lib" not in sys.argv[1:] else [])
    os.execvp(interpreter, args + sys.argv[1:])


def run():
    _exec("gpushim-run", "sh", True)


def report():
    _exec("gpushim-report", sys.executable, False)


def calibrate():
    _exec("gpushim-calibrate", sys.executable, True)
