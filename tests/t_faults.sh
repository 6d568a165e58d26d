# Fault injection at every point: tests/progs/little (a product, a triangular solve, a copy and an LU solve,
# every call forced onto the GPU path) runs once against the stand-in to count the calls of each CUDA, cuBLAS
# and cuSOLVER function that can fail (GS_STANDIN_CALLS), then once per injection point with that call failed
# (GS_STANDIN_FAIL=NAME:N).  Each run must exit 0 with the CPU library's results, the stand-in must see no bad
# pointer, no more device memory, pinned memory or host registrations live at exit than the run without a
# fault, and the log must say why (a call's reason, a message or a gpu_off event naming the function), unless
# a retry absorbed the fault (every call on the GPU as without it, nothing said).  CI sweeps the
# first and the last call of each function; GS_SWEEP=full (make check-faults) every one.
. "$(dirname "$0")/lib.sh"
P=$T/little
$P $W/ref.bin
# field FILE KEY: the stand-in report's KEY, from its last line.
field() { tail -n 1 "$1" | sed -n "s/.* $2=\([0-9-]*\).*/\1/p"; }

shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/clean.log GS_STANDIN_CALLS=$W/calls GS_STANDIN_REPORT=$W/clean.report \
    $P $W/clean.bin
clean_gpu=$(count $W/clean.log -- where=gpu)
check "without a fault: results equal, and the calls that can fail are counted" \
    sh -c "$T/blas_cmp $W/ref.bin $W/clean.bin >/dev/null && [ -s $W/calls ]"
points=0 swept=0 absorbed=0
while read -r name calls; do
    n=1
    while [ $n -le $calls ]; do
        points=$((points + 1))
        if [ "${GS_SWEEP:-}" = full ] || [ $n = 1 ] || [ $n = $calls ]; then
            swept=$((swept + 1))
            r=$W/fault.report
            rm -f $r $W/fault.log
            shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/fault.log GS_STANDIN_FAIL=$name:$n GS_STANDIN_REPORT=$r \
                $P $W/fault.bin >/dev/null 2>$W/fault.err
            rc=$?
            what=
            [ $rc = 0 ] || what="$what exit status $rc;"
            $T/blas_cmp $W/ref.bin $W/fault.bin >/dev/null 2>&1 || what="$what results differ;"
            [ "$(field $r violations)" = 0 ] || what="$what $(field $r violations) stand-in violations;"
            for k in live pinned_live registered_live; do
                [ "$(field $r $k)" -le "$(field $W/clean.report $k)" ] ||
                    what="$what $k $(field $r $k) at exit (without the fault $(field $W/clean.report $k));"
            done
            # (a fault that a retry absorbed leaves every call on the GPU, and nothing to say)
            if ! grep -q "$name" $W/fault.log; then
                if [ "$(count $W/fault.log -- where=gpu)" = $clean_gpu ] && [ ! -s $W/fault.err ]; then
                    absorbed=$((absorbed + 1))
                else
                    what="$what the log does not name $name;"
                fi
            fi
            [ -z "$what" ] || bad "$name:$n:$what $(head -c 200 $W/fault.err)"
        fi
        n=$((n + 1))
    done
done <$W/calls
check "$swept of the $points injection points swept ($absorbed absorbed by a retry), each finished with the CPU \
library's results, nothing leaked, the log saying why" test $swept -gt 0
finish
