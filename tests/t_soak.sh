# The soak test's program (bench/soak.c) on the stand-in, in short pieces: random calls of every routine family
# on buffers that persist, change in place, are freed and reallocated, each compared with the CPU library's own
# result from a second copy in a namespace of its own.  With every call forced onto the GPU path, then under the
# built-in policy: no mismatch, every routine called, the log's counts equal to the program's (so the reference
# never went through the shim), calls on the GPU, no misuse of the stand-in.  Then its test of itself: an error
# planted into every third call's output must be counted as a mismatch in each of them.  bench/soak.sh runs the
# long pieces on the H200 (tests/gpu/run.sh, group soak).
. "$(dirname "$0")/lib.sh"
P=$ROOT/build/bench/soak
# Sizes the stand-in's plain loops compute in milliseconds: big dimensions up to 800 (operands of a MiB and more,
# which the residency cache keeps) with each call's arithmetic capped, FFTs up to 2^17 points.
ARGS="--small 48 --large 300:800 --large-share 0.25 --repeat 0.5 --max-flops 3e7 --fft-small 3:9 --fft-large 12:17\
    --progress 4"
# piece NAME CALLS SEED VAR=VALUE...: the program under the shim for CALLS generated calls (at most 300 s), its
# log, output and stderr in $W/NAME.*.  By calls, not seconds: a seed's calls are then the same on a loaded
# machine (a piece of 8 s beside other jobs made half its calls, and missed a routine).
piece() {
    name=$1 calls=$2 seed=$3
    shift 3
    standin_reset
    shim GPUSHIM_LOG=$W/$name.log "$@" $P 300 "$seed" $ARGS --calls "$calls" >$W/$name.out 2>$W/$name.err
    echo $? >$W/$name.rc
    echo "$name: $(tail -n 1 $W/$name.out)"
}
# field NAME KEY: KEY=VALUE of the summary line of piece NAME
field() { sed -n "s/^soak .* $2=\([^ ]*\).*/\1/p" $W/$1.out; }
# counts_agree NAME: each routine's calls in the program's count and in the log's, every one called
counts_agree() {
    $PY - $W/$1.out $W/$1.log <<'EOF'
import json, sys
prog = {l.split()[1]: int(l.split()[2]) for l in open(sys.argv[1]) if l.startswith("calls ")}
log = {}
for r in map(json.loads, open(sys.argv[2])):
    if "routine" in r:
        log[r["routine"]] = log.get(r["routine"], 0) + r.get("calls", 1)
missing = [k for k, v in prog.items() if v == 0]
if missing or prog != log:
    sys.exit(f"never called: {missing}; differ: {sorted(k for k in set(prog) | set(log) if prog.get(k) != log.get(k))}")
EOF
}
# Every call forced onto the GPU path, then the built-in policy: 500 generated calls each (14 and 4 s here,
# beside other jobs).
for run in "always 500 1 GPUSHIM_OFFLOAD=always" "default 500 2"; do
    # shellcheck disable=SC2086
    set -- $run
    name=$1
    piece "$@"
    check "$name: exit status 0, no mismatch" test "$(cat $W/$name.rc)/$(field $name mismatches)" = 0/0
    check "$name: every routine called, the log's counts equal the program's (the reference is not the shim's)" \
        counts_agree $name
    check "$name: calls on the GPU ($(count $W/$name.log -- where=gpu) of $(field $name calls))" \
        test "$(count $W/$name.log -- where=gpu)" -gt 0
    check "$name: the stand-in saw no misuse and nothing left queued" \
        test "$(standin violations)/$(standin unfinished)" = 0/0
    check "$name: progress lines, nothing else on stderr" test "$(grep -cv '^soak: [0-9]* s, ' $W/$name.err)" = 0
done
check "always: the reference's namespace holds no gpushim" grep -q '^reference: namespace [1-9].*none of them gpushim' \
    $W/always.out
check "always: buffers changed in place, freed, reallocated, at the same address too; found in the cache" \
    $PY -c 'import sys, re
e = dict(re.findall(r"^event (\w+) (\d+)$", open(sys.argv[1]).read(), re.M))
sys.exit(not all(int(e[k]) > 0 for k in ("touch", "free_malloc", "realloc", "same_address", "repeat")))' $W/always.out
check "always: cache hits ($(logsum cache_hits $W/always.log))" test "$(logsum cache_hits $W/always.log)" -gt 0
check "always: device memory read from the stand-in's runtime" test "$(field always dev_end_mb)" != n/a

# The test of the test: every third call's output perturbed after the call, before its comparison.
piece plant 300 3 GPUSHIM_OFFLOAD=always SOAK_PLANT=3
check "plant: every planted error caught ($(field plant mismatches) of $(field plant planted)), exit status 1" \
    test "$(cat $W/plant.rc)/$(field plant mismatches)" = "1/$(field plant planted)" -a "$(field plant planted)" -gt 0
check "plant: mismatches described, with where the shim ran the call" \
    grep -qE '^mismatch call [0-9]+ .* differs by .*\((gpu|cpu), [^)]*\)$' $W/plant.out
finish
