# FFTW3 against a reference FFTW the shim cannot see (tests/progs/fft_diff.c): a sample of random plans of every
# planner, kind, rank, layout, flag and execute, each result within FFTW's own accuracy of the reference's,
# plain, under the shim, and with every eligible execute forced onto the GPU path (the cuFFT stand-in), where
# the log must show each execute where the program expects it, also with cuFFT failures injected.
# FFTDIFF_SEED (default 1) and FFTDIFF_COUNT (default 1500) choose another sample; `fft_diff SEED COUNT --case
# ID -v` runs one case again.
. "$(dirname "$0")/lib.sh"
P=$T/fft_diff
SEED=${FFTDIFF_SEED:-1}
N=${FFTDIFF_COUNT:-1500}

# all_passed OUT COUNT STATUS ERR: fft_diff exited 0, its summary says all COUNT cases passed, nothing on
# stderr; otherwise prints the first few failed cases.
all_passed() {
    [ "$3" = 0 ] && grep -q "^cases $2 passed $2 failed 0\$" "$1" && [ ! -s "$4" ] && return 0
    grep ' FAIL' "$1" | head -n 5
    head -n 5 "$4"
    return 1
}
# covered OUT FEATURE MIN: the sample had at least MIN cases with FEATURE (fft_diff's coverage lines).
covered() { [ "$(awk -v f="$2" '$1 == "coverage" && $2 == f {print $3}' "$1")" -ge "$3" ]; }
# placed EXPECT LOG [WHY]: each execute in the log (in the order they began: each thread writes its own records
# in order, a buffer at a time) where fft_diff said it must run:
# "gpu", "cpu REASON", "cpu" (any reason) or "any"; an expected gpu one may be "cpu gpu error: WHY..." instead
# (an injected failure).  Prints the counts, then the first few mismatches, if any (then it fails).
placed() {
    $PY - "$@" <<'EOF'
import json, sys
exp = [l.split(" ", 2) for l in open(sys.argv[1]).read().splitlines()]
recs = sorted((r for r in map(json.loads, open(sys.argv[2])) if "routine" in r), key=lambda r: r["t"])
inj = "gpu error: " + sys.argv[3] if len(sys.argv) > 3 else None
bad, fell = [], 0
for (case, routine, want), r in zip(exp, recs):
    got = "gpu" if r["where"] == "gpu" else "cpu " + str(r.get("why"))
    if inj and want == "gpu" and got.startswith("cpu " + inj):
        fell += 1
    elif r["routine"] != routine or not (want in ("any", got) or (want == "cpu" and got[:4] == "cpu ")):
        bad.append(f"case {case}: {routine} expected {want}, logged {r['routine']} {got}")
if len(exp) != len(recs):
    bad.append(f"{len(exp)} executes expected, {len(recs)} logged")
gpu = sum(r["where"] == "gpu" for r in recs)
print(f"{len(recs)} executes, {gpu} on the GPU, {fell} fell back")
if bad:
    print("\n".join(bad[:8]))
sys.exit(1 if bad else 0)
EOF
}

# The test's own checks: a result off by a thousandth of its norm, and a write past an array, fail every case.
$P $SEED 40 --corrupt value >$W/corrupt.out
r=$?
check "a wrong result fails: 40 of 40 cases, exit status 1" \
    sh -c "[ $r = 1 ] && [ \$(grep -c ' FAIL: error above tolerance' $W/corrupt.out) = 40 ]"
$P $SEED 40 --corrupt guard >$W/guard.out
r=$?
check "a write outside the output's elements fails: 40 of 40 cases, exit status 1" \
    sh -c "[ $r = 1 ] && [ \$(grep -c ' FAIL: wrote outside' $W/guard.out) = 40 ]"

# (a) Plain: the program's FFTW against the reference, and the sample's coverage.
$P $SEED $N --expect $W/plain.exp >$W/plain.out 2>$W/plain.err
check "plain: $N cases within tolerance ($(sed -n 's/.*\(worst ratio [^ ]*\).*/\1/p' $W/plain.out))" \
    all_passed $W/plain.out $N $? $W/plain.err
missing=$(awk '$1 == "coverage" && $3 == 0 && $2 != "null_plan" {printf " %s", $2}' $W/plain.out)
features=$(grep -c '^coverage' $W/plain.out)
check "plain: the sample has every feature fft_diff counts ($features; missing:${missing:- none})" \
    test -z "$missing" -a "$features" -ge 41
check "plain: every planner returned a plan" grep -q '^coverage null_plan 0$' $W/plain.out
short=none
for f in size_large size_prime rank4 threads measure preserve_input guru_hm2_collapse guru_hm2_split \
    guru_free exec_new_other; do
    covered $W/plain.out $f 10 || short=$f
done
check "plain: large sizes, primes, rank 4, threads, MEASURE, PRESERVE_INPUT, two howmany dimensions, transposed\
 layouts and new arrays of another alignment in at least 10 cases each (short of 10: $short)" test $short = none

# (b) Under the shim, default settings.
standin_reset
shim GPUSHIM_LOG=$W/default.log $P $SEED $N >$W/default.out 2>$W/default.err
check "default shim: $N cases within tolerance" all_passed $W/default.out $N $? $W/default.err
check "default shim: the log is valid and has every execute of the program, none of the reference's" \
    sh -c "$PY tests/logq.py check $W/default.log >/dev/null &&
        [ $(count $W/default.log) = $(wc -l <$W/plain.exp) ]"
check "default shim: the stand-in saw no bad pointer" test "$(standin violations)" = 0

# (c) Every eligible execute forced onto the GPU path: the stand-in's cuFFT.
standin_reset
shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/always.log $P $SEED $N >$W/always.out 2>$W/always.err
check "offload always: $N cases within tolerance" all_passed $W/always.out $N $? $W/always.err
placed $W/plain.exp $W/always.log >$W/always.placed
p=$?
check "offload always: every execute where the program expects it ($(head -n 1 $W/always.placed))" test $p = 0
[ $p = 0 ] || tail -n +2 $W/always.placed
g=$(grep -c ' gpu$' $W/plain.exp)
check "offload always: the eligible executes on the GPU (where=gpu), at least $g" \
    test "$(count $W/always.log -- where=gpu)" -ge "$g" -a "$g" -gt 0
r4=$(grep -c 'rank above 3$' $W/plain.exp)
check "offload always: rank 4 on the CPU with its reason ($r4 executes)" \
    test "$(count $W/always.log -- where=cpu 'why=rank above 3' 'shape=[[]*, *, *, *]')" = "$r4" -a "$r4" -gt 0
a=$(grep -c 'another alignment$' $W/plain.exp)
check "offload always: new arrays of another alignment on the CPU with the reason ($a executes)" \
    test "$(count $W/always.log -- where=cpu 'why=new arrays of another alignment')" = "$a" -a "$a" -gt 0
check "offload always: the stand-in saw no bad pointer, left nothing queued" \
    test "$(standin violations)/$(standin unfinished)" = 0/0
k=$(count $W/always.log -- where=gpu 'opts=*P*')
check "offload always: transposed layouts and unmerged howmany dimensions ran through gpushim's kernels ($k\
 executes)" \
    test "$k" -ge 50

# (d) cuFFT failures injected: the execute whose call failed finishes on the CPU with the reason, the results
# still right.  inject NAME FAULT CALL: a sixth of the sample, forced, with GS_STANDIN_FAIL=FAULT, which fails
# CALL; sets $f, the executes that fell back for it, and $g, the number expected on the GPU.
inject() {
    standin_reset
    n=$((N / 6))
    $P $SEED $n --expect $W/$1.exp >/dev/null
    shim GPUSHIM_OFFLOAD=always GS_STANDIN_FAIL=$2 GPUSHIM_LOG=$W/$1.log $P $SEED $n >$W/$1.out 2>$W/$1.err
    check "$1 ($2): $n cases within tolerance" all_passed $W/$1.out $n $? /dev/null
    placed $W/$1.exp $W/$1.log $3 >$W/$1.placed
    p=$?
    check "$1 ($2): every execute where expected, or on the CPU for the failure" test $p = 0
    [ $p = 0 ] || tail -n +2 $W/$1.placed
    check "$1 ($2): the stand-in saw no bad pointer" test "$(standin violations)" = 0
    f=$(count $W/$1.log -- where=cpu "why=gpu error: $3*")
    g=$(grep -c ' gpu$' $W/$1.exp)
}
inject exec-once cufftExecZ2Z:2 cufftExecZ2Z
check "exec-once: the one execute whose cufftExecZ2Z failed on the CPU with the reason ($f)" test "$f" = 1
# (a plan that fails for memory, as the stand-in's failures do, is made again once after the backend gave its
# cached plans back: then the execute stays on the GPU)
inject plan-once cufftMakePlanMany64:1 cufftMakePlanMany64
check "plan-once: at most the one execute whose plan failed on the CPU with the reason ($f)" test "$f" -le 1
inject kernel-once cudaLaunchKernel:3 cudaLaunchKernel
check "kernel-once: the one execute whose kernel launch failed on the CPU with the reason ($f)" test "$f" = 1
# The kernels cannot be loaded (an image the driver refuses): what needs them runs on the CPU, said once.
standin_reset
shim GPUSHIM_OFFLOAD=always GS_STANDIN_FAIL=cudaLibraryLoadData GPUSHIM_LOG=$W/noload.log $P $SEED $((N / 6)) \
    >$W/noload.out 2>$W/noload.err
r=$?
noload=$(count $W/noload.log -- where=cpu "why=gpu: gpushim's kernels did not load*")
noload_ok() {
    all_passed $W/noload.out $((N / 6)) $r /dev/null && [ "$noload" -gt 0 ] &&
        [ "$(count $W/noload.log -- where=gpu 'opts=*P*')" = 0 ] &&
        [ "$(grep -c 'kernels did not load' $W/noload.err)" = 1 ]
}
check "no kernels: results within tolerance, $noload executes on the CPU with the reason (said once), none through\
 them" \
    noload_ok
inject plan-always cufftMakePlanMany64 cufftMakePlanMany64
check "plan-always: every eligible execute on the CPU with the reason ($f of $g), none on the GPU" \
    test "$f" -ge "$g" -a "$g" -gt 0 -a "$(count $W/plan-always.log -- where=gpu)" = 0
finish
