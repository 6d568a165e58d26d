#!/bin/sh
# The soak test (issue 24, item 6): PIECES runs of build/bench/soak (bench/soak.c) of SECONDS each (default 600
# x 1), each under the shim with the offload log on and a seed of its own, every call compared with the CPU
# library's own result.  Prints a markdown table, a row per piece: seed, seconds, calls, the GPU's share of them
# by count and by time (from the log), the cache's hits, mismatches, the process's RSS and the device memory in
# use at its start and end; then the calls per routine, the program's count against the log's (the reference
# calls the CPU libraries past the shim, so the two must agree).  Writes the table to $OUT/soak.md (OUT set)
# or bench/results/soak.md (RESULTS=DIR: DIR/soak.md); the logs and outputs to $OUT, else build/soak.
# SOAK_SEED: the first piece's seed (default: the time); SOAK_OFFLOAD: GPUSHIM_OFFLOAD for the pieces (default
# the built-in policy); SOAK_ARGS: more options for the program (bench/soak.c).  Exit status 1 on a mismatch,
# a piece that failed, or counts that disagree.
# usage: bench/soak.sh [SECONDS [PIECES]]
. "$(dirname "$0")/lib.sh"
P=build/bench/soak
[ -x $P ] || { echo "bench/soak.sh: $P is missing: make build/bench/soak" >&2; exit 2; }
seconds=${1:-600}
pieces=${2:-1}
seed=${SOAK_SEED:-$(date +%s)}
D=${OUT:-build/soak}
mkdir -p "$D"
md=${OUT:+$OUT/soak.md}
md=${md:-$R/soak.md}
status=0
detect_gpu
echo "soak: $pieces piece(s) of $seconds s from seed $seed on ${GPU_NAME:-no GPU}; logs in $D" >&2
i=1
while [ $i -le "$pieces" ]; do
    s=$((seed + i - 1))
    rm -f "$D/soak-$s.log"
    rc=0
    # (SOAK_ARGS is split into words on purpose)
    # shellcheck disable=SC2086
    env LD_PRELOAD="$LIB" GPUSHIM_LOG="$D/soak-$s.log" ${SOAK_OFFLOAD:+GPUSHIM_OFFLOAD=$SOAK_OFFLOAD} \
        $P "$seconds" "$s" ${SOAK_ARGS:-} >"$D/soak-$s.out" 2>"$D/soak-$s.err" || rc=$?
    echo "soak: piece $i, seed $s: exit status $rc; $(tail -n 1 "$D/soak-$s.out")" >&2
    [ $rc = 0 ] || status=1
    i=$((i + 1))
done
# The table, from each piece's last line and its log.
i=1
set --
while [ $i -le "$pieces" ]; do
    set -- "$@" "$D/soak-$((seed + i - 1))"
    i=$((i + 1))
done
$PY - "${GPU_NAME:-no GPU}" "$@" >"$md" <<'PY' || status=1
import json, re, sys
gpu, pieces = sys.argv[1], sys.argv[2:]
print(f"Soak pieces on {gpu}: random calls compared with the CPU library call by call (bench/soak.sh).\n")
print("| piece | seed | seconds | calls | on the GPU (calls) | on the GPU (time) | cache hits | mismatches |"
      " RSS start / end, MB | device start / end, MB |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
routines, bad, notes = {}, 0, []
for i, base in enumerate(pieces, 1):
    prog = {}
    last = {}
    for line in open(base + ".out"):
        w = line.split()
        if w[:1] == ["calls"]:
            prog[w[1]] = int(w[2])
        elif w[:1] == ["mismatch"]:
            notes.append(f"piece {i}: {line.strip()}")
        elif w[:1] == ["soak"]:
            last = dict(re.findall(r"(\w+)=(\S+)", line))
    if not last:
        bad = 1
        notes.append(f"piece {i}: no summary line (the program failed: {base}.err)")
        continue
    n = g = hits = 0
    t = tg = 0.0
    logged = {}
    for line in open(base + ".log"):
        r = json.loads(line)
        if "routine" not in r:
            continue
        c = r.get("calls", 1)
        on = r.get("where") == "gpu"
        n, g, hits = n + c, g + c * on, hits + r.get("cache_hits", 0)
        t, tg = t + r.get("seconds", 0), tg + r.get("seconds", 0) * on
        k = routines.setdefault(r["routine"], [0, 0, 0])
        k[1], k[2] = k[1] + c, k[2] + c * on
        logged[r["routine"]] = logged.get(r["routine"], 0) + c
    for name, c in prog.items():
        routines.setdefault(name, [0, 0, 0])[0] += c
    if {k: v for k, v in prog.items() if v} != logged:
        bad = 1
        diff = sorted(k for k in set(prog) | set(logged) if prog.get(k, 0) != logged.get(k, 0))
        notes.append(f"piece {i}: the log's counts differ from the program's for {', '.join(diff)}")
    share = lambda a, b: f"{100 * a / b:.1f}%" if b else "-"
    print(f"| {i} | {last['seed']} | {float(last['seconds']):.0f} | {last['calls']} | {share(g, n)} ({g}) |"
          f" {share(tg, t)} ({tg:.0f} of {t:.0f} s) | {hits} | {last['mismatches']} |"
          f" {last['rss_start_mb']} / {last['rss_end_mb']} | {last['dev_start_mb']} / {last['dev_end_mb']} |")
    bad |= last["mismatches"] != "0"
print("\n| routine | calls (program) | calls (log) | on the GPU |")
print("| --- | --- | --- | --- |")
for name in sorted(routines):
    p, l, on = routines[name]
    print(f"| {name} | {p} | {l} | {on} |")
if notes:
    print()
    for note in notes[:40]:
        print(f"- {note}")
sys.exit(bad)
PY
cat "$md"
exit $status
