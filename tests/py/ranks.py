"""One rank of a parallel job for tests/t_cluster.sh: a product and a solve whose inputs depend on the rank
(from the launcher's variables, as gpushim's log reads it), and one line with the rank and a checksum of the
results to 10 digits, so that the same rank without the shim gives the same line (the GPU's rounding differs
from the CPU library's in the last bits only)."""
import os

import numpy as np

rank = next((int(os.environ[v]) for v in ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID")
             if os.environ.get(v, "").isdigit()), 0)
rng = np.random.default_rng(rank)
a = rng.standard_normal((96, 96))
b = rng.standard_normal((96, 8))
c = a @ a.T
x = np.linalg.solve(c + 96 * np.eye(96), b)
print(f"rank {rank} {np.abs(c).sum():.10e} {np.abs(x).sum():.10e}")
