"""After a benchmark's warm-up calls: wait for the GPU bring-up that they started under gpushim's default
GPUSHIM_WARMUP=lazy (gpushim_gpu_wait, when gpushim is loaded), so that the timed calls meet the steady state
that a forced run meets after its own warm-up.  The first call in a fresh process is first_call.py's to measure.
"""
import ctypes


def settle(seconds=30.0):
    """1 when the GPU is up, 0 when it is not, None without gpushim."""
    try:
        wait = ctypes.CDLL(None).gpushim_gpu_wait
    except AttributeError:
        return None
    wait.argtypes = [ctypes.c_double]
    wait.restype = ctypes.c_int
    return wait(seconds)
