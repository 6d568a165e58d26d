#!/bin/sh
# The first benchmark (make bench): DGEMM from NumPy for n = 1024 ... 8192 without the shim, with it (auto
# policy) and with it forced onto the GPU, side by side in one run; the shim's cost per call for a call that
# stays on the CPU; and the offload log as proof of where each product ran.  Writes bench/results/dgemm.md
# and prints it.  Needs a GPU for the GPU columns; PYTHON picks the interpreter (default python3).
# RESULTS=DIR puts the results elsewhere; OVERHEAD=0 skips the cost per call (the DGEMM table alone).
set -eu
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
R=${RESULTS:-bench/results}
OVERHEAD=${OVERHEAD:-1}
LIB=$(pwd)/build/libgpushim.so
SIZES=${SIZES:-1024 2048 4096 8192}
mkdir -p $R
rm -f $R/dgemm-auto.log $R/dgemm-always.log

$PY bench/dgemm_numpy.py $SIZES >$R/dgemm-cpu.jsonl
LD_PRELOAD=$LIB GPUSHIM_LOG=$R/dgemm-auto.log $PY bench/dgemm_numpy.py $SIZES >$R/dgemm-auto.jsonl
LD_PRELOAD=$LIB GPUSHIM_LOG=$R/dgemm-always.log GPUSHIM_OFFLOAD=always $PY bench/dgemm_numpy.py $SIZES \
    >$R/dgemm-always.jsonl
# One OpenBLAS thread: a 2 x 2 product is faster without the library's thread hand-offs, and steadier.
# OVERHEAD_LIBRARY_PATH: where the overhead program finds libopenblas.so.0, if not in the system's paths.
OV=build/tests/overhead
ov() { OPENBLAS_NUM_THREADS=1 LD_LIBRARY_PATH=${OVERHEAD_LIBRARY_PATH:-${LD_LIBRARY_PATH:-}} "$@"; }
if [ "$OVERHEAD" != 0 ]; then
    [ -x $OV ] || make -s $OV
    ov $OV >$R/overhead-cpu.json
    ov env LD_PRELOAD=$LIB $OV >$R/overhead-shim.json
    ov env LD_PRELOAD=$LIB GPUSHIM_LOG=/dev/null $OV 20000 5 >$R/overhead-shim-log.json
    # Every call wants the GPU and finds none (no CUDA libraries): the cost on a machine without a GPU.
    ov env LD_PRELOAD=$LIB GPUSHIM_MIN_FLOPS=0 GPUSHIM_CUDA_LIBDIR=/nonexistent GPUSHIM_QUIET=1 $OV \
        >$R/overhead-nogpu.json
fi

$PY - "$R" "$OVERHEAD" <<'PY'
import json, sys, collections
r = sys.argv[1]
def rows(name):
    return {j["n"]: j for j in map(json.loads, open(f"{r}/dgemm-{name}.jsonl"))}
cpu, auto, always = rows("cpu"), rows("auto"), rows("always")
where = collections.defaultdict(collections.Counter)
for mode in ("auto", "always"):
    for line in open(f"{r}/dgemm-{mode}.log"):
        rec = json.loads(line)
        if rec.get("routine") == "dgemm" and rec["m"] == rec["n"] == rec["k"]:
            where[(mode, rec["n"])][rec["where"]] += 1
out = ["| n | NumPy (CPU) ms | gpushim auto ms | auto: calls on GPU | gpushim forced ms | forced: calls on GPU | speed-up (auto) |",
       "| --- | --- | --- | --- | --- | --- | --- |"]
for n in sorted(cpu):
    c, a, f = cpu[n]["best_s"] * 1e3, auto[n]["best_s"] * 1e3, always[n]["best_s"] * 1e3
    wa, wf = where[("auto", n)], where[("always", n)]
    out.append(f"| {n} | {c:.1f} | {a:.1f} | {wa['gpu']}/{sum(wa.values())} | {f:.1f} | {wf['gpu']}/{sum(wf.values())} | {c / a:.1f}x |")
ov = {k: json.load(open(f"{r}/overhead-{k}.json")) for k in ("cpu", "shim", "shim-log", "nogpu")
      if sys.argv[2] != "0"}
if ov:
    out.append("")
    out.append(f"Cost per call that stays on the CPU (2 x 2 DGEMM through dgemm_ against the CPU library's own "
               f"entry, best of {ov['shim']['rounds']} rounds): {ov['shim']['added_ns']:.1f} ns added by the shim "
               f"({ov['shim']['direct_ns']:.1f} ns for the call itself; control without the shim: "
               f"{ov['cpu']['added_ns']:+.1f} ns); {ov['nogpu']['added_ns']:.1f} ns when the call wants the GPU "
               f"and there is none; with GPUSHIM_LOG set: {ov['shim-log']['added_ns']:.0f} ns.")
text = "\n".join(out) + "\n"
open(f"{r}/dgemm.md", "w").write(text)
print(text)
PY
