# Bad input, swept: every GPUSHIM_ variable of the options table (and a per-routine threshold) given an empty,
# huge, negative, non-numeric, overlong (5000 bytes) and non-UTF-8 value; unreadable, empty, binary and
# truncated policy files; log paths in a missing folder, somewhere not writable, and on a full device.  Each
# run of tests/progs/little (a product, a triangular solve, a copy and an LU solve, forced onto the GPU path)
# must exit 0 with the results of the CPU library, and print at most one line, naming the variable or the
# file (for GPUSHIM_CUDA_LIBDIR, whose default is the system's CUDA, also the notice that no GPU is usable).
# The variables' values are a sample in CI, one of the six for each variable in turn (each run takes about
# 0.4 s), and all of them with GS_SWEEP=full (make check-badinput: 127 runs).
. "$(dirname "$0")/lib.sh"
P=$T/little
$P $W/ref.bin
mkdir -p $W/sweep
big=$(head -c 5000 /dev/zero | tr '\0' x)
nonutf8=$(printf 'a\377\376\200')
runs=0

# sweep_run NAME WHAT VAR=VALUE...: little under the shim, in $W/sweep (where a log named by a bad value goes);
# checks the exit status, the results and the messages, which must name WHAT.
sweep_run() {
    name=$1 what=$2
    shift 2
    runs=$((runs + 1))
    (cd $W/sweep && shim GPUSHIM_OFFLOAD=always "$@" $P $W/out.bin >/dev/null 2>$W/err)
    rc=$?
    named=$(grep -cF -- "$what" $W/err)
    # (the notice that no GPU is usable is the one other line allowed, where the system's CUDA was the default)
    others=$(grep -vF -- "$what" $W/err | if [ "$what" = GPUSHIM_CUDA_LIBDIR ]; then grep -v '^gpushim: no usable GPU'; else
        cat; fi | wc -l)
    if [ $rc = 0 ] && $T/blas_cmp $W/ref.bin $W/out.bin >/dev/null 2>&1 && [ "$named" -le 1 ] && [ "$others" = 0 ]; then
        return 0
    fi
    bad "$name: exit status $rc, results $($T/blas_cmp $W/ref.bin $W/out.bin >/dev/null 2>&1 && echo equal ||
        echo differ), messages: $(head -c 300 $W/err)"
}

i=0
for var in $(grep -o '{"GPUSHIM_[A-Z_]*' src/core/options.c | cut -c3-) GPUSHIM_MIN_FLOPS_DGEMM; do
    j=0
    before=$failed
    for value in "" 99999999999999999999999999 -5 abc "$big" "$nonutf8"; do
        if [ "${GS_SWEEP:-}" = full ] || [ $(((j + i) % 6)) = 0 ]; then
            # (GPUSHIM_OFFLOAD is the variable swept there; the stand-in stays where CUDA_LIBDIR is not swept)
            if [ $var = GPUSHIM_CUDA_LIBDIR ]; then
                sweep_run "$var=$(printf '%.20s' "$value")" $var GPUSHIM_CUDA_LIBDIR="$value"
            else
                sweep_run "$var=$(printf '%.20s' "$value")" $var GPUSHIM_CUDA_LIBDIR=$SI $var="$value"
            fi
        fi
        j=$((j + 1))
    done
    [ $failed = $before ] && ok "$var: bad values give one line naming it at most, results unchanged"
    i=$((i + 1))
done

# Policy files that are not one: a folder, an empty file, a binary, a line cut short.
mkdir -p $W/policy.d
: >$W/empty.policy
printf 'dgemm min_flops=1e9\n*trsm min_fl' >$W/cut.policy
for f in $W/policy.d $W/empty.policy /bin/sh $W/cut.policy; do
    before=$failed
    sweep_run "GPUSHIM_POLICY=$f" "$f" GPUSHIM_POLICY=$f
    [ $failed = $before ] && ok "GPUSHIM_POLICY=$f: one line naming the file at most, results unchanged"
done
# Log paths that cannot be written: a missing folder, a file under /proc, a full device.
for f in $W/missing/run.log /proc/gpushim.log /dev/full; do
    before=$failed
    sweep_run "GPUSHIM_LOG=$f" GPUSHIM_LOG GPUSHIM_LOG=$f
    [ $failed = $before ] && [ -s $W/err ] && ok "GPUSHIM_LOG=$f: one line naming the log, results unchanged"
done
ok "$runs runs of the sweep"
finish
