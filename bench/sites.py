"""The cost of a logged call that stays on the CPU, from Python: a small matrix product (one BLAS call) in a
loop, of 6 sizes in turn (2 x 2 to 7 x 7), so that each call has a record of its own (like calls in a row
would make one, log/runs.c), best of ROUNDS rounds of CALLS calls; run it with GPUSHIM_LOG set and
GPUSHIM_SITES off, native or python, and without the log, and the differences are what a record and its call
sites cost (bench/sites.sh).
usage: python sites.py [CALLS [ROUNDS]]; prints one JSON object."""
import json
import sys
import time

import numpy as np

calls = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
mats = [np.ones((n, n)) for n in range(2, 8)]
best = float("inf")
for _ in range(rounds):
    t = time.perf_counter_ns()
    for i in range(calls):
        a = mats[i % 6]
        np.dot(a, a)
    best = min(best, (time.perf_counter_ns() - t) / calls)
print(json.dumps({"calls": calls, "rounds": rounds, "ns_per_call": round(best, 1)}))
