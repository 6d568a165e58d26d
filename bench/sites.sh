#!/bin/sh
# What call sites cost in the log (GPUSHIM_SITES): a logged call that stays on the CPU, from C
# (build/tests/overhead: a 2 x 2 DGEMM) and from Python (bench/sites.py: a 2 x 2 np.dot), with sites off,
# native and python, REPEAT times each (default 5), best of each kept.  Needs no GPU.  Writes
# bench/results/sites.md (RESULTS=DIR to put it elsewhere).  PYTHON: an interpreter with NumPy.
. "$(dirname "$0")/lib.sh"
J=$R/sites.jsonl
: >"$J"
for i in $(seq "${REPEAT:-5}"); do
    for s in off native python; do
        run "c-$s" env LD_PRELOAD="$LIB" GPUSHIM_LOG=/dev/null GPUSHIM_SITES=$s build/tests/overhead 20000 5
        run "py-$s" env LD_PRELOAD="$LIB" GPUSHIM_LOG=/dev/null GPUSHIM_SITES=$s $PY bench/sites.py 20000 5
    done
done
$PY - "$J" <<'PY' | tee "$R/sites.md"
import json, sys
best = {}
for r in map(json.loads, open(sys.argv[1])):
    ns = r.get("added_ns", r.get("ns_per_call"))
    best[r["run"]] = min(best.get(r["run"], ns), ns)
print("| caller | sites off (ns per call) | native | python | native - off | python - off |")
print("| --- | --- | --- | --- | --- | --- |")
for lang in ("c", "py"):
    o, n, p = (best[f"{lang}-{s}"] for s in ("off", "native", "python"))
    print(f"| {'C (shim cost)' if lang == 'c' else 'Python (whole call)'} | {o:.0f} | {n:.0f} | {p:.0f} | {n - o:.0f} | {p - o:.0f} |")
PY
