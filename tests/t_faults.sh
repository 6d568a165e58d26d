# Fault injection at every point: two programs, every call forced onto the GPU path, run once against the
# stand-in to count the calls of each CUDA, cuBLAS, cuSOLVER and cuFFT function that can fail
# (GS_STANDIN_CALLS), then once per injection point with that call failed (GS_STANDIN_FAIL=NAME:N):
# tests/progs/little (a product, a triangular solve, a copy and an LU solve) and tests/progs/fft_steps (an
# in-place FFTW plan executed 3 times, 2^14 points).  Each run must exit 0 with the CPU libraries' results, the
# stand-in must see no bad pointer, no more device memory, pinned memory, host registrations or cuFFT plans
# live at exit than the run without a fault, and the log must say why (a call's reason, a message or a
# gpu_off event naming the function), unless a retry absorbed the fault (every call on the GPU as without
# it, nothing said).  CI sweeps the first and the last call of each function; GS_SWEEP=full (make
# check-faults) every one.
. "$(dirname "$0")/lib.sh"
# field FILE KEY: the stand-in report's KEY, from its last line.
field() { tail -n 1 "$1" | sed -n "s/.* $2=\([0-9-]*\).*/\1/p"; }
# cmd PROGRAM RUN: the program's command line; its results are its standard output and the file $W/RUN.bin.
cmd() { case $1 in little) echo $T/little $W/$2.bin ;; fft) echo $T/fft_steps 3 1 14 ;; esac; }
# same NAME RUN: whether the run's results (RUN.out, RUN.bin) equal the program's without the shim.
same() {
    cmp -s $W/$1.ref.out $W/$2.out && { [ ! -e $W/$1.ref.bin ] || $T/blas_cmp $W/$1.ref.bin $W/$2.bin >/dev/null 2>&1; }
}

clean_ok() { same $1 $1.clean && [ -s $W/$1.calls ]; }

points=0 swept=0 absorbed=0
for prog in little fft; do
    $(cmd $prog $prog.ref) >$W/$prog.ref.out
    shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/$prog.clean.log GS_STANDIN_CALLS=$W/$prog.calls \
        GS_STANDIN_REPORT=$W/$prog.clean.report $(cmd $prog $prog.clean) >$W/$prog.clean.out
    check "$prog without a fault: results equal, and the calls that can fail are counted" clean_ok $prog
    clean_gpu=$(count $W/$prog.clean.log -- where=gpu)
    while read -r name calls; do
        n=1
        while [ $n -le $calls ]; do
            points=$((points + 1))
            if [ "${GS_SWEEP:-}" = full ] || [ $n = 1 ] || [ $n = $calls ]; then
                swept=$((swept + 1))
                r=$W/fault.report
                rm -f $r $W/fault.log
                shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/fault.log GS_STANDIN_FAIL=$name:$n GS_STANDIN_REPORT=$r \
                    $(cmd $prog fault) >$W/fault.out 2>$W/fault.err
                rc=$?
                what=
                [ $rc = 0 ] || what="$what exit status $rc;"
                same $prog fault || what="$what results differ;"
                [ "$(field $r violations)" = 0 ] || what="$what $(field $r violations) stand-in violations;"
                for k in live pinned_live registered_live fft_live; do
                    [ "$(field $r $k)" -le "$(field $W/$prog.clean.report $k)" ] ||
                        what="$what $k $(field $r $k) at exit (without the fault $(field $W/$prog.clean.report $k));"
                done
                # (a fault that a retry absorbed leaves every call on the GPU, and nothing to say)
                if ! grep -q "$name" $W/fault.log; then
                    if [ "$(count $W/fault.log -- where=gpu)" = $clean_gpu ] && [ ! -s $W/fault.err ]; then
                        absorbed=$((absorbed + 1))
                    else
                        what="$what the log does not name $name;"
                    fi
                fi
                [ -z "$what" ] || bad "$prog, $name:$n:$what $(head -c 200 $W/fault.err)"
            fi
            n=$((n + 1))
        done
    done <$W/$prog.calls
done
check "$swept of the $points injection points swept ($absorbed absorbed by a retry), each finished with the CPU \
libraries' results, nothing leaked, the log saying why" test $swept -gt 0
finish
