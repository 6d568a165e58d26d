"""The LAPACK routines gpushim offloads that tests/py/lapack_numpy.py does not call: getri (scipy.linalg.inv),
potri, trtri and gels (given its optimal workspace, without which it stays on the CPU), in float64, of order N
(default 200); saves the results to RESULT.npz for tests/py/compare.py (tests/t_faults.sh fails their CUDA
calls one by one).

usage: python lapack_more.py RESULT.npz [N]
"""
import sys

import numpy as np
import scipy.linalg as sla

n = int(sys.argv[2]) if len(sys.argv) > 2 else 200
rng = np.random.default_rng(7)
a = rng.random((n, n)) - 0.5
spd = a @ a.T + n * np.eye(n)
b = rng.random((n, 4))
lp = sla.lapack
np.savez(sys.argv[1], inv=sla.inv(a), potri=lp.dpotri(sla.cho_factor(spd)[0])[0],
         trtri=lp.dtrtri(np.triu(a) + n * np.eye(n))[0],
         gels=lp.dgels(a, b, lwork=int(lp.dgels_lwork(n, n, 4)[0]))[1])
