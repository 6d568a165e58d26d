"""The cost of a logged call that stays on the CPU, from Python: a 2 x 2 matrix product (one BLAS call) in a
loop, best of ROUNDS rounds of CALLS calls; run it with GPUSHIM_LOG set and GPUSHIM_SITES off, native or
python, and the differences are what call sites cost (bench/sites.sh).
usage: python sites.py [CALLS [ROUNDS]]; prints one JSON object."""
import json
import sys
import time

import numpy as np

calls = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
a = np.ones((2, 2))
best = float("inf")
for _ in range(rounds):
    t = time.perf_counter_ns()
    for _ in range(calls):
        np.dot(a, a)
    best = min(best, (time.perf_counter_ns() - t) / calls)
print(json.dumps({"calls": calls, "rounds": rounds, "ns_per_call": round(best, 1)}))
