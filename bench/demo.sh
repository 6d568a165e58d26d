#!/bin/sh
# The demo's whole process (issue 47: the first thing a user sees is faster under gpushim): bench/demo.py
# CPU-only and under gpushim with the default settings, alternately ROUNDS rounds (the order flips each round),
# wall seconds of each process and their medians.  Writes $RESULTS/demo.md and prints it.
# usage: bench/demo.sh   (ROUNDS [5]; RESULTS [bench/results]; PYTHON [build/venv-np2/bin/python]; DEMO_SIZE)
. "$(dirname "$0")/lib.sh"
PY=${PYTHON:-build/venv-np2/bin/python}
$PY - "${ROUNDS:-5}" "$LIB" "$R/demo.md" <<'PY'
import os, statistics, subprocess, sys, time
rounds, lib, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
sides = {"CPU-only": {}, "gpushim": {"LD_PRELOAD": lib}}
runs = {side: [] for side in sides}
for r in range(rounds):
    for side in (list(sides) if r % 2 == 0 else list(sides)[::-1]):
        t = time.perf_counter()
        subprocess.run([sys.executable, "bench/demo.py"], env={**os.environ, **sides[side]}, check=True,
                       stdout=subprocess.DEVNULL)
        runs[side].append(time.perf_counter() - t)
cpu = statistics.median(runs["CPU-only"])
lines = [f"bench/demo.py, whole process, {rounds} alternating rounds, s (DEMO_SIZE={os.environ.get('DEMO_SIZE', 'by the machine')})",
         "", "| side | median | runs | speed against CPU-only |", "| --- | --- | --- | --- |"]
for side, t in runs.items():
    lines.append(f"| {side} | {statistics.median(t):.2f} | {', '.join(f'{x:.2f}' for x in t)} | "
                 f"{cpu / statistics.median(t):.2f} |")
open(out, "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
