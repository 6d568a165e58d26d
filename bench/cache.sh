#!/bin/sh
# The residency cache's benchmarks (bench/cache.py, issue 4) side by side: NumPy on the CPU, NumPy under
# gpushim, the same with the cache off (GPUSHIM_CACHE=0), and CuPy keeping everything on the GPU by hand (the
# ideal).  Then what the cache costs a program that never repeats an operand: bench/cache.py fresh under
# gpushim with the cache on and off, alternating, four rounds.  Needs a GPU, NumPy and CuPy.  Writes
# bench/results/cache.jsonl, cache.log (the offload log of the gpushim run) and cache.md (RESULTS=DIR to put
# them elsewhere).  FRESH_ONLY=1 runs only the second part.  RUNS (default "cpu gpushim nocache cupy"): the
# runs of the first part, in order; forced (not in the default) is gpushim with GPUSHIM_OFFLOAD=always, its
# log cache-forced.log.  BENCHES: the first part's benchmarks (default bench/cache.py's own four).
# FRESH_ROUNDS (default 4): the second part's rounds, 0 for none.  CPU_REPEAT (default 1): the CPU run's REPEAT.
# ROUNDS (default 1): the first part's RUNS made that many times, alternating, so that a slow spell of the
# machine falls on every run alike; each takes its best over the rounds, and its log holds every round.
. "$(dirname "$0")/lib.sh"
J=$R/cache.jsonl
: >"$J"
rm -f "$R/cache.log" "$R/cache-forced.log" "$R/fresh.log"
B=${BENCHES:-}
if [ "${FRESH_ONLY:-0}" != 1 ]; then
    # $B split into benchmark names on purpose
    for c in $(for _ in $(seq "${ROUNDS:-1}"); do echo ${RUNS:-cpu gpushim nocache cupy}; done); do
        case $c in
        cpu) run cpu env REPEAT="${CPU_REPEAT:-1}" $PY bench/cache.py numpy $B ;;
        gpushim) run gpushim env LD_PRELOAD="$LIB" GPUSHIM_LOG="$R/cache.log" $PY bench/cache.py numpy $B ;;
        nocache) run nocache env LD_PRELOAD="$LIB" GPUSHIM_CACHE=0 $PY bench/cache.py numpy $B ;;
        cupy) run cupy $PY bench/cache.py cupy $B ;;
        forced) run forced env LD_PRELOAD="$LIB" GPUSHIM_OFFLOAD=always GPUSHIM_LOG="$R/cache-forced.log" \
            $PY bench/cache.py numpy $B ;;
        *) echo "bench/cache.sh: RUNS: unknown run '$c' (cpu, gpushim, nocache, cupy or forced)" >&2; exit 2 ;;
        esac
    done
fi
for _ in $(seq "${FRESH_ROUNDS:-4}"); do
    run fresh-cache env LD_PRELOAD="$LIB" GPUSHIM_LOG="$R/fresh.log" REPEAT=5 $PY bench/cache.py numpy fresh
    run fresh-nocache env LD_PRELOAD="$LIB" GPUSHIM_CACHE=0 REPEAT=5 $PY bench/cache.py numpy fresh
done
$PY - "$J" "${SHRINK:-1}" <<'PY' | tee "$R/cache.md"
import json, statistics, sys
os_shrink = sys.argv[2]
rows = [json.loads(l) for l in open(sys.argv[1])]
t = {}
for r in rows:
    t.setdefault((r["run"], r["bench"]), []).append(r["seconds"])
ms = lambda run, b: 1e3 * min(t[(run, b)]) if (run, b) in t else float("nan")
if ("cpu", "power") in t:
    print("| benchmark | CPU (NumPy) | gpushim | gpushim, GPUSHIM_CACHE=0 | CuPy, all on the GPU | gpushim / CuPy | CPU / gpushim |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for b in ("products", "power", "chain", "ridge", "ridge-products"):
        c, g, n, k = ms("cpu", b), ms("gpushim", b), ms("nocache", b), ms("cupy", b)
        print(f"| {b} | {c:.1f} | {g:.1f} | {n:.1f} | {k:.1f} | {g / k:.2f} | {c / g:.1f} |")
    print()
if ("fresh-cache", "fresh") not in t:
    sys.exit(0)  # no second part (FRESH_ROUNDS=0)
print("Never repeating an operand: 8 products of new 4096 x 4096 float64 matrices (ms, best of 5 in each of")
print("4 rounds, cache on and off alternating), and the cache's cost: the median over rounds of on / off.")
print()
print("| benchmark | cache on | cache off | on / off, each round | median |")
print("| --- | --- | --- | --- | --- |")
for b in ("fresh", "fresh-4k"):
    on, off = t[("fresh-cache", b)], t[("fresh-nocache", b)]
    ratios = [x / y for x, y in zip(on, off)]
    print(f"| {b} | {1e3 * min(on):.1f} | {1e3 * min(off):.1f} | "
          f"{', '.join(f'{x:.3f}' for x in ratios)} | {statistics.median(ratios):.3f} |")
calls = [r for r in map(json.loads, open(sys.argv[1].replace("cache.jsonl", "fresh.log")))
         if r.get("where") == "gpu" and r.get("m") == 4096 // int(os_shrink)]
if calls:
    big = [r for r in calls if r["seconds"] < 1]  # the first call of each process brings CUDA up
    track, total = sum(r["track_us"] for r in big) * 1e-6, sum(r["seconds"] for r in big)
    print()
    print(f"The cache's own time in those products, from their log records (track_us): {1e3 * track:.1f} ms of "
          f"{1e3 * total:.1f} ms in {len(big)} calls, {100 * track / total:.2f}%.")
PY
