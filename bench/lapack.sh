#!/bin/sh
# LAPACK through NumPy and SciPy side by side (bench/lapack.py, issue 5): the CPU (NumPy's and SciPy's own
# OpenBLAS), the same under gpushim, and CuPy with copies.  Needs a GPU, NumPy, SciPy and CuPy.  Writes
# bench/results/lapack.jsonl, lapack.md and with LOG=1 lapack.log, the offload log of the gpushim run (RESULTS=DIR
# to put them elsewhere): without it the run is timed as a user runs it, for the log's records cost microseconds
# each, and numpy.linalg makes one ?copy call per column.  SIZES, BIG, REPEAT and the cases (arguments) as bench/lapack.py takes them.
# RUNS (default "gpushim cupy cpu"): the columns to measure; lapack.jsonl keeps the lines of the others,
# so that a case too long for one command can be measured a column at a time.  The run forced (not in the
# default) is gpushim with GPUSHIM_OFFLOAD=always, its log lapack-forced.log.
# bench/lapack.sh --table: only the table, from the lapack.jsonl there is (of a run that was stopped early).
. "$(dirname "$0")/lib.sh"
J=$R/lapack.jsonl
if [ "${1:-}" != --table ]; then
    cols=${RUNS:-gpushim cupy cpu}
    touch "$J"
    for c in $cols; do
        case $c in
        gpushim | cupy | cpu | forced) ;;
        *) echo "bench/lapack.sh: RUNS: unknown run '$c' (gpushim, cupy, cpu or forced)" >&2; exit 2 ;;
        esac
        grep -v "^{\"run\": \"$c\"" "$J" >"$J.tmp" || true
        mv "$J.tmp" "$J"
    done
    for c in $cols; do
        case $c in
        gpushim) run gpushim env LD_PRELOAD="$LIB" ${LOG:+GPUSHIM_LOG="$R/lapack.log"} $PY bench/lapack.py numpy "$@" ;;
        cupy) run cupy $PY bench/lapack.py cupy "$@" ;;
        forced) run forced env LD_PRELOAD="$LIB" GPUSHIM_OFFLOAD=always GPUSHIM_LOG="$R/lapack-forced.log" \
            $PY bench/lapack.py numpy "$@" ;;
        cpu) run cpu $PY bench/lapack.py numpy "$@" ;;
        esac
    done
fi
$PY - "$J" <<'PY' | tee "$R/lapack.md"
import json, sys
t = {}
for r in map(json.loads, open(sys.argv[1])):
    t[(r["run"], r["case"], r["n"])] = r["seconds"]
keys = sorted({(c, n) for _, c, n in t}, key=lambda k: (k[0], k[1]))
print("| case | n | CPU ms | gpushim ms | CuPy with copies ms | CPU / gpushim | gpushim / CuPy |")
print("| --- | --- | --- | --- | --- | --- | --- |")
f = lambda v: f"{1e3 * v:.1f}" if v is not None else "-"
for c, n in keys:
    cpu, g, k = t.get(("cpu", c, n)), t.get(("gpushim", c, n)), t.get(("cupy", c, n))
    r1 = f"{cpu / g:.2f}" if cpu and g else "-"
    r2 = f"{g / k:.2f}" if g and k else "-"
    print(f"| {c} | {n} | {f(cpu)} | {f(g)} | {f(k)} | {r1} | {r2} |")
PY
