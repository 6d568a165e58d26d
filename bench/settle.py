"""After a benchmark's warm-up call: bring up the GPU that the call wanted and wait for it (gpushim_gpu_wait, when
gpushim is loaded).  Under gpushim's default the warm-up ran on the CPU, so that when settle() returns 1 the
benchmark makes its warm-up call once more: the timed calls then follow a first call on the GPU, as a forced
run's do, steady state against steady state.  The first call in a fresh process is first_call.py's to measure.
"""
import ctypes


def settle(seconds=30.0):
    """1 when the GPU is up, 0 when it is not (or gpushim is not loaded)."""
    try:
        wait = ctypes.CDLL(None).gpushim_gpu_wait
    except AttributeError:
        return 0
    wait.argtypes = [ctypes.c_double]
    wait.restype = ctypes.c_int
    return wait(seconds)
