"""The cache's origins (src/memory/cache.c, GS_CACHE_ORIGINS), through the Python layer's FFTs: a loop that
multiplies fftn's result in place before ifftn reads it (pyfft's loop), STEPS steps, then CHAINS steps that pass
fftn's result to ifftn unchanged.  Prints, for each chained step, whether ifftn found fftn's result on the device
(the log's cache_hits): fftn's outputs stop being kept once two in a row were rewritten, and one in 16 is kept
again, whose hit makes them kept from then on.  usage: cache_origins.py LOG (with the layer on; forced)"""
import json
import sys

import gpushim  # noqa: F401
import numpy as np

STEPS, CHAINS = 4, 24
x = np.random.default_rng(3).standard_normal((64, 64, 64)) + 0j
for _ in range(STEPS):
    y = np.fft.fftn(x)
    y *= 0.5
    x = np.fft.ifftn(y)
for _ in range(CHAINS):
    x = np.fft.ifftn(np.fft.fftn(x))
gpushim._flush()
hits = [r["cache_hits"] for r in map(json.loads, open(sys.argv[1])) if r.get("symbol") == "numpy.fft.ifftn"]
print("".join(str(min(h, 1)) for h in hits[STEPS:]))
