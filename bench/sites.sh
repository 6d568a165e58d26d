#!/bin/sh
# What a call's log record and its call sites cost (GPUSHIM_SITES): a call that stays on the CPU, from C
# (build/tests/overhead: a 2 x 2 DGEMM, whose like calls make runs of one record) and from Python (bench/sites.py:
# small np.dot of 6 sizes in turn, a record each), without the log and with it, sites off, native and python,
# REPEAT times each (default 5), best of each kept.  Needs no GPU.  Writes bench/results/sites.md (RESULTS=DIR
# to put it elsewhere).  PYTHON: an interpreter with NumPy; GPUSHIM_LIB: another build of the library.
. "$(dirname "$0")/lib.sh"
J=$R/sites.jsonl
: >"$J"
for i in $(seq "${REPEAT:-5}"); do
    run c-nolog env LD_PRELOAD="$LIB" build/tests/overhead 20000 5
    run py-nolog env LD_PRELOAD="$LIB" $PY bench/sites.py 20000 5
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
print("| caller | no log (ns per call) | log, sites off | native | python | the record | native sites | python sites |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
for lang in ("c", "py"):
    z, o, n, p = (best[f"{lang}-{s}"] for s in ("nolog", "off", "native", "python"))
    print(f"| {'C (shim cost)' if lang == 'c' else 'Python (whole call)'} | {z:.0f} | {o:.0f} | {n:.0f} | {p:.0f} | "
          f"{o - z:.0f} | {n - o:.0f} | {p - o:.0f} |")
PY
