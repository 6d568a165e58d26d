#!/bin/sh
# numpy.linalg's copies around LAPACK (bench/copy.c): an n x n matrix into column order by one strided dcopy_
# per column and back, with the CPU library alone and under gpushim (which splits each large strided copy
# across threads), beside what the host's memory allows for the same bytes on THREADS threads (a plain copy,
# and a cache-blocked transpose).  Needs no GPU.  SIZES (default "2048 4096 8192"), THREADS (default: the
# CPUs, at most 16).  "gather-fresh" and "scatter-fresh" copy into memory fresh from malloc, as numpy.linalg
# does (its pages touched for the first time).  Writes bench/results/copy.md (RESULTS=DIR to put it elsewhere).
. "$(dirname "$0")/lib.sh"
P=build/bench/copy
[ -x $P ] || { echo "bench/copy.sh: $P is missing: make build/bench/copy" >&2; exit 2; }
threads=${THREADS:-$(nproc)}
[ "$threads" -le 16 ] || threads=16
out=$R/copy.txt
: >"$out"
for n in ${SIZES:-2048 4096 8192}; do
    $P "$n" "$threads" | sed 's/^/cpu /' >>"$out"
    env LD_PRELOAD="$LIB" $P "$n" "$threads" | sed 's/^/gpushim /' >>"$out"
done
$PY - "$out" <<'PY' | tee "$R/copy.md"
import re, sys
t = {}
for line in open(sys.argv[1]):
    run, rest = line.split(" ", 1)
    f = dict(re.findall(r"(\w+)=(\S+)", rest))
    if "what" in f:
        t[(run, int(f["n"]), f["what"])] = (float(f["ms"]), float(f["gbps"]))
print("| n | copy | CPU library ms (GB/s) | gpushim ms (GB/s) | memcpy, same threads ms (GB/s) | transpose ms (GB/s) | gpushim / transpose |")
print("| --- | --- | --- | --- | --- | --- | --- |")
f = lambda v: f"{v[0]:.1f} ({v[1]:.2f})" if v else "-"
for n in sorted({k[1] for k in t}):
    lim_c, lim_t = t.get(("cpu", n, "memcpy")), t.get(("cpu", n, "transpose"))
    for what in ("gather", "gather-fresh", "scatter", "scatter-fresh"):
        c, g = t.get(("cpu", n, what)), t.get(("gpushim", n, what))
        r = f"{g[0] / lim_t[0]:.2f}" if g and lim_t else "-"
        print(f"| {n} | {what} | {f(c)} | {f(g)} | {f(lim_c)} | {f(lim_t)} | {r} |")
PY
