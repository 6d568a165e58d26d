#!/bin/sh
# LAPACK through NumPy and SciPy side by side (bench/lapack.py, issue 5): the CPU (NumPy's and SciPy's own
# OpenBLAS), the same under gpushim, and CuPy with copies.  Needs a GPU, NumPy, SciPy and CuPy.  Writes
# bench/results/lapack.jsonl, lapack.md and with LOG=1 lapack.log, the offload log of the gpushim run (RESULTS=DIR
# to put them elsewhere): without it the run is timed as a user runs it, for the log's records cost microseconds
# each, and numpy.linalg makes one ?copy call per column.  SIZES, BIG, REPEAT and the cases (arguments) as bench/lapack.py takes them.
# RUNS (default "gpushim layer cupy cpu"): the columns to measure (gpushim: the symbols alone, GPUSHIM_PYTHON=0;
# layer: gpushim's Python layer too, `import gpushim` first); lapack.jsonl keeps the lines of the others,
# so that a case too long for one command can be measured a column at a time.  The run forced (not in the
# default) is gpushim with GPUSHIM_OFFLOAD=always, its log lapack-forced.log.
# The table gives each column's best call and, where it was slower by more than 10%, the first call of the case
# and size in its process (issue 48: first and repeated calls).
# bench/lapack.sh --table: only the table, from the lapack.jsonl there is (of a run that was stopped early).
. "$(dirname "$0")/lib.sh"
J=$R/lapack.jsonl
if [ "${1:-}" != --table ]; then
    cols=${RUNS:-gpushim layer cupy cpu}
    touch "$J"
    for c in $cols; do
        case $c in
        gpushim | layer | cupy | cpu | forced) ;;
        *) echo "bench/lapack.sh: RUNS: unknown run '$c' (gpushim, layer, cupy, cpu or forced)" >&2; exit 2 ;;
        esac
        grep -v "^{\"run\": \"$c\"" "$J" >"$J.tmp" || true
        mv "$J.tmp" "$J"
    done
    for c in $cols; do
        case $c in
        gpushim) run gpushim env LD_PRELOAD="$LIB" GPUSHIM_PYTHON=0 ${LOG:+GPUSHIM_LOG="$R/lapack.log"} $PY bench/lapack.py numpy "$@" ;;
        layer) run layer env LD_PRELOAD="$LIB" PYTHONPATH=scripts/python ${LOG:+GPUSHIM_LOG="$R/lapack-layer.log"} \
            $PY bench/lapack.py numpy --layer "$@" ;;
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
    t[(r["run"], r["case"], r["n"])] = r["seconds"], r.get("runs", [r["seconds"]])[0]
keys = sorted({(c, n) for _, c, n in t}, key=lambda k: (k[0], k[1]))
print("ms: the best of the calls, and in brackets the first call of the case and size in the process where it was "
      "slower by more than 10% (workspaces, CuPy's kernels, the cache's first tracking)")
print()
print("| case | n | CPU | gpushim | gpushim + layer | CuPy with copies | CPU / best gpushim | best gpushim / CuPy |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
def f(v):
    if v is None:
        return "-"
    best, first = v
    return f"{1e3 * best:.1f}" + (f" ({1e3 * first:.1f})" if first > 1.1 * best else "")
for c, n in keys:
    cpu, g, lay, k = (t.get((run, c, n)) for run in ("cpu", "gpushim", "layer", "cupy"))
    best = min((v[0] for v in (g, lay) if v), default=None)
    r1 = f"{cpu[0] / best:.2f}" if cpu and best else "-"
    r2 = f"{best / k[0]:.2f}" if best and k else "-"
    print(f"| {c} | {n} | {f(cpu)} | {f(g)} | {f(lay)} | {f(k)} | {r1} | {r2} |")
PY
