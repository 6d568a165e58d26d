"""One rank of a parallel job (tests/t_cluster.sh, tests/gpu/run.sh's group ranks, bench/ranks.sh): products
and a solve of order N (default 96) whose inputs depend on the rank (from the launcher's variables, as
gpushim's log reads it), and one line with the rank, a checksum of the results to 10 digits (the same rank
without the shim gives the same line: the GPU's rounding differs from the CPU library's in the last bits
only) and the seconds the work took.  With --cupy the same work runs in CuPy, the copies to and from the GPU
included: the peer that bench/ranks.sh compares with.
usage: ranks.py [N] [--cupy]"""
import os
import sys
import time

import numpy as np

args = [a for a in sys.argv[1:] if a != "--cupy"]
n = int(args[0]) if args else 96
rank = next((int(os.environ[v]) for v in ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID")
             if os.environ.get(v, "").isdigit()), 0)
rng = np.random.default_rng(rank)
a = rng.standard_normal((n, n))
b = rng.standard_normal((n, 8))
t0 = time.perf_counter()
if "--cupy" in sys.argv:
    import cupy
    da = cupy.asarray(a)
    c = da @ da.T
    x = cupy.linalg.solve(c + n * cupy.eye(n), cupy.asarray(b))
    for _ in range(3):
        c = da @ da.T
    c, x = cupy.asnumpy(c), cupy.asnumpy(x)
else:
    c = a @ a.T
    x = np.linalg.solve(c + n * np.eye(n), b)
    for _ in range(3):  # products again: a rank's steady state, not only its first calls
        c = a @ a.T
seconds = time.perf_counter() - t0
print(f"rank {rank} {np.abs(c).sum():.10e} {np.abs(x).sum():.10e} {seconds:.3f}")
