#!/bin/sh
# What gpushim costs a program where it offloads nothing (issue 47): the memory hooks under a malloc-heavy C
# program (build/bench/hooks: malloc and free pairs of 16 B to 64 KiB and of 1 MiB, ns a pair), with nothing
# tracked and with 32 matrices in the residency cache (GEMMs forced onto the stand-in's GPU path: the hooks'
# cost is the host's, whatever the device), and NumPy's small products (ns a product of 64 x 64), each
# CPU-only, under GPUSHIM_OFFLOAD=never and by default, alternately ROUNDS rounds, the best of each kept.  No GPU
# needed.  Writes $RESULTS/hooks.md and prints it.
# usage: bench/hooks.sh   (ROUNDS [5]; RESULTS [bench/results]; PYTHON [build/venv-np2/bin/python])
set -eu
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-5}
R=${RESULTS:-bench/results}
PY=${PYTHON:-build/venv-np2/bin/python}
LIB=$(pwd)/build/libgpushim.so
SI=$(pwd)/build/standin
mkdir -p "$R"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cat >$W/small.py <<'PY'
import time
import numpy as np
a = np.random.default_rng(0).standard_normal((64, 64))
best = 1e9
for _ in range(5):
    t = time.perf_counter()
    for _ in range(20000):
        b = a @ a
    best = min(best, (time.perf_counter() - t) / 20000)
print(f'{{"small_products_ns": {best * 1e9:.0f}}}')
PY
: >$W/all
i=0
while [ $i -lt "$ROUNDS" ]; do
    i=$((i + 1))
    for side in cpu never default tracked-cpu tracked; do
        case $side in
        cpu) env build/bench/hooks ;;
        never) env LD_PRELOAD=$LIB GPUSHIM_OFFLOAD=never build/bench/hooks ;;
        default) env LD_PRELOAD=$LIB GPUSHIM_CUDA_LIBDIR=$SI build/bench/hooks ;;
        tracked-cpu) env build/bench/hooks --tracked 32 ;;
        tracked) env LD_PRELOAD=$LIB GPUSHIM_CUDA_LIBDIR=$SI GPUSHIM_OFFLOAD=always GPUSHIM_WARMUP=off \
            build/bench/hooks --tracked 32 ;;
        esac | sed "s/^{/{\"side\": \"$side\", /" >>$W/all
        case $side in
        cpu) env $PY $W/small.py ;;
        never) env LD_PRELOAD=$LIB GPUSHIM_OFFLOAD=never $PY $W/small.py ;;
        default) env LD_PRELOAD=$LIB GPUSHIM_CUDA_LIBDIR=$SI $PY $W/small.py ;;
        *) continue ;;
        esac | sed "s/^{/{\"side\": \"$side\", /" >>$W/all
    done
done
$PY - $W/all "$ROUNDS" >$R/hooks.md <<'PY'
import json, sys
best = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    for k, v in r.items():
        if k.endswith("_ns"):
            key = (r["side"], k)
            best[key] = min(best.get(key, v), v)
rows = [("malloc and free, 16 B to 64 KiB", "small_ns"), ("malloc and free, 1 MiB", "large_ns"),
        ("NumPy 64 x 64 product", "small_products_ns")]
print(f"Best of {sys.argv[2]} alternating rounds, ns; 'tracked': 32 matrices of 2 MiB in the residency cache"
      " (the program's own frees among them).\n")
print("| case | CPU-only | GPUSHIM_OFFLOAD=never | default | tracked, CPU-only | tracked, gpushim |")
print("| --- | --- | --- | --- | --- | --- |")
for name, k in rows:
    cells = [best.get((s, k)) for s in ("cpu", "never", "default", "tracked-cpu", "tracked")]
    print(f"| {name} | " + " | ".join("-" if c is None else f"{c:.1f}" for c in cells) + " |")
PY
cat $R/hooks.md
