#!/bin/sh
# The other Level-3 routines (bench/l3.c), square n = 256 ... 2048 from a C program, without the shim, with it
# forced onto the GPU and with the default policy, side by side in one run: the data behind the per-routine
# lines of policies/default.policy.  Writes bench/results/l3.md (RESULTS=DIR to put it elsewhere).
# Needs gcc and SciPy's bundled OpenBLAS (found through PYTHON, default python3), or GSBENCH_OPENBLAS.
# FORCED_LOG=PATH: an offload log of the forced run too (default none).
# ROUNDS=R [1]: R rounds of the three runs, alternating, so that a machine's slow spell falls on all three
# alike; each takes its best over the rounds, and a log of round r > 1 gets "-r" before its ".log".
set -eu
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
R=${RESULTS:-bench/results}
SIZES=${SIZES:-256 512 1024 2048}
PRECISIONS=${PRECISIONS:-sdcz}
LIB=$(pwd)/build/libgpushim.so
mkdir -p "$R" build/bench
[ -n "${GSBENCH_OPENBLAS:-}" ] || GSBENCH_OPENBLAS=$($PY -c '
import glob, os, scipy
print(sorted(glob.glob(os.path.join(os.path.dirname(os.path.dirname(scipy.__file__)), "scipy.libs",
                                    "libscipy_openblas-*.so")))[0])')
export GSBENCH_OPENBLAS
gcc -std=c11 -O2 -Wall -Wextra -o build/bench/l3 bench/l3.c -ldl
ROUNDS=${ROUNDS:-1}
round_log() { [ -z "$1" ] || [ "$2" = 1 ] && echo "$1" || echo "${1%.log}-$2.log"; }
: >"$R/l3-cpu.jsonl"; : >"$R/l3-forced.jsonl"; : >"$R/l3-auto.jsonl"
for r in $(seq "$ROUNDS"); do
    build/bench/l3 $PRECISIONS $SIZES >>"$R/l3-cpu.jsonl"
    LD_PRELOAD=$LIB GPUSHIM_LOG="$(round_log "${FORCED_LOG:-${GPUSHIM_LOG:-}}" "$r")" GPUSHIM_OFFLOAD=always \
        build/bench/l3 $PRECISIONS $SIZES >>"$R/l3-forced.jsonl"
    LD_PRELOAD=$LIB GPUSHIM_LOG="$(round_log "$R/l3-auto.log" "$r")" build/bench/l3 $PRECISIONS $SIZES \
        >>"$R/l3-auto.jsonl"
done
ROUNDS=$ROUNDS $PY - "$R" <<'PY' | tee "$R/l3.md"
import glob, json, os, sys
R, ROUNDS = sys.argv[1], os.environ["ROUNDS"]
t = {}
for m in ("cpu", "forced", "auto"):
    t[m] = {}
    for r in map(json.loads, open(f"{R}/l3-{m}.jsonl")):
        k = (r["routine"], r["n"])
        t[m][k] = min(t[m].get(k, r["best_ms"]), r["best_ms"])
gpu = {}
for log in glob.glob(f"{R}/l3-auto*.log"):
    for r in map(json.loads, open(log)):
        if "routine" in r:
            gpu.setdefault((r["routine"], r["n"] if "n" in r else r["m"]), []).append(r["where"] == "gpu")
sizes = sorted({n for _, n in t["cpu"]})
print(f"Best ms of up to 5 runs after a warm-up, over {ROUNDS} round(s): CPU library / GPU forced / default policy")
print("[calls on the GPU];", end=" ")
print("ratio = policy against the faster of the other two (bold above 1.1).\n")
print("| routine | " + " | ".join(f"n = {n}" for n in sizes) + " |")
print("| --- |" + " --- |" * len(sizes))
worst = (1, "")
for r in sorted({r for r, _ in t["cpu"]}, key=lambda r: ("sdcz".index(r[0]), r[1:])):
    cells = []
    for n in sizes:
        c, f, a = t["cpu"][r, n], t["forced"][r, n], t["auto"][r, n]
        ratio = a / min(c, f)
        worst = max(worst, (ratio, f"{r} n = {n}"))
        g = gpu.get((r, n), [])
        mark = f"**{ratio:.2f}**" if ratio > 1.1 else f"{ratio:.2f}"
        cells.append(f"{c:.3g} / {f:.3g} / {a:.3g} [{sum(g)}/{len(g)}] {mark}")
    print(f"| {r} | " + " | ".join(cells) + " |")
print(f"\nWorst ratio: {worst[0]:.2f} ({worst[1]}).")
PY
