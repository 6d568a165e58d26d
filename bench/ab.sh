#!/bin/sh
# Two builds of the library side by side in one run, for a change that must not move the figures (issue 18):
# DGEMM n = 8192 from the C program and from NumPy (bench/gemm.sh, default policy), numpy.linalg.eigh at
# n = 4096 (bench/lapack.sh) and the cost of a small call that stays on the CPU (build/tests/overhead), each
# measured ROUNDS times alternately with A and B, so that drift of the machine falls on both.  Prints a table
# of the best figure of each build and B / A; the raw lines go to $RESULTS/ab.jsonl.
# usage: bench/ab.sh LIB_A LIB_B   (ROUNDS [2]; RESULTS [bench/results]; PYTHON as bench/gemm.sh takes it)
# build/tests/overhead needs its OpenBLAS on the library path (on the GPU machine: LD_LIBRARY_PATH=/tmp/gpushim-libs,
# which tests/gpu/run.sh unpacks); it runs with one OpenBLAS thread.
set -eu
[ $# = 2 ] || { echo "usage: bench/ab.sh LIB_A LIB_B" >&2; exit 2; }
A=$(realpath "$1")
B=$(realpath "$2")
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-2}
R=${RESULTS:-bench/results}
mkdir -p "$R"
R=$(cd "$R" && pwd)
W=$(mktemp -d)
PY=${PYTHON:-python3}
: >"$R/ab.jsonl"
i=0
while [ $i -lt "$ROUNDS" ]; do
    i=$((i + 1))
    for side in A B; do
        lib=$A
        [ $side = B ] && lib=$B
        echo "bench/ab.sh: round $i, $side ($lib)" >&2
        GPUSHIM_LIB=$lib RESULTS=$W/g$side$i PRECISIONS=d SIZES=8192 SHAPES= \
            MODES="c:gpushim-auto numpy:gpushim-auto" REPEAT=7 bench/gemm.sh >/dev/null
        grep '"tool"' "$W/g$side$i/gemm.jsonl" | sed "s/^{/{\"side\": \"$side\", /" >>"$R/ab.jsonl"
        GPUSHIM_LIB=$lib RESULTS=$W/l$side$i RUNS=gpushim SIZES=4096 BIG=4096 REPEAT=3 bench/lapack.sh eigh \
            >/dev/null
        sed "s/^{/{\"side\": \"$side\", /" "$W/l$side$i/lapack.jsonl" >>"$R/ab.jsonl"
        OPENBLAS_NUM_THREADS=1 LD_PRELOAD=$lib build/tests/overhead 200000 20 | sed "s/^{/{\"side\": \"$side\", \"tool\": \"overhead\", /" \
            >>"$R/ab.jsonl"
        echo >>"$R/ab.jsonl"
    done
done
rm -rf "$W"
$PY - "$R/ab.jsonl" "$A" "$B" <<'PY' | tee "$R/ab.md"
import json, sys
best = {}
def keep(side, what, v):
    k = (what, side)
    best[k] = min(best.get(k, v), v)
for line in open(sys.argv[1]):
    if not line.strip():
        continue
    r = json.loads(line)
    s = r["side"]
    if r.get("tool") == "overhead":
        keep(s, "small dgemm_ on the CPU: ns added per call", r["added_ns"])
    elif "tool" in r:
        keep(s, f"DGEMM n = 8192 from {'the C program' if r['tool'] == 'c' else 'NumPy'}, ms", r["best_ms"])
    elif r.get("case") == "eigh":
        keep(s, f"numpy.linalg.eigh n = {r['n']}, ms", 1e3 * r["seconds"])
print(f"A: {sys.argv[2]}\nB: {sys.argv[3]}\n")
print("| figure | A | B | B / A |")
print("| --- | --- | --- | --- |")
for what in dict.fromkeys(k[0] for k in best):
    a, b = best.get((what, "A")), best.get((what, "B"))
    print(f"| {what} | {a:.1f} | {b:.1f} | {b / a:.3f} |" if a and b else f"| {what} | {a} | {b} | - |")
PY
