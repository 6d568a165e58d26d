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
VPY=$ROOT/build/venv-np2/bin/python
cmd() {
    case $1 in
    little) echo $T/little $W/$2.bin ;;
    fft) echo $T/fft_steps 3 1 14 ;;
    blas) echo $T/blas_all_plain $W/$2.bin ;;
    plans) echo $T/fft_plans ;;
    lapack) echo $VPY tests/py/lapack_numpy.py $W/$2.npz 200 ;;
    more) echo $VPY tests/py/lapack_more.py $W/$2.npz ;;
    split) echo env GS_STANDIN_DEVICES=2 GPUSHIM_DEVICES=0,1 $T/fft_split $W/$2.bin ;;
    esac
}
# same NAME RUN: whether the run's results (RUN.out, RUN.bin) equal the program's without the shim.
same() {
    cmp -s $W/$1.ref.out $W/$2.out &&
        { [ ! -e $W/$1.ref.bin ] || $T/blas_cmp $W/$1.ref.bin $W/$2.bin >/dev/null 2>&1; } &&
        { [ ! -e $W/$1.ref.npz ] || $VPY tests/py/compare.py $W/$1.ref.npz $W/$2.npz >/dev/null 2>&1; }
}

clean_ok() { same $1 $1.clean && [ -s $W/$1.calls ]; }

# point PROG WHY VAR=VALUE...: one run of PROG with the fault VAR=VALUE (and the other settings given), checked
# against the run without a fault; its log must match WHY (the failed function's name, or for GPUSHIM_FAULT any
# reason or message).  With absorbed_ok=no, a run whose log does not match fails, even if nothing else changed.
point() {
    prog=$1 why=$2
    shift 2
    swept=$((swept + 1))
    r=$W/fault.report
    rm -f $r $W/fault.log
    shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/fault.log GS_STANDIN_REPORT=$r "$@" $(cmd $prog fault) \
        >$W/fault.out 2>$W/fault.err
    rc=$?
    what=
    [ $rc = 0 ] || what="$what exit status $rc;"
    same $prog fault || what="$what results differ;"
    [ "$(field $r violations)" = 0 ] || what="$what $(field $r violations) stand-in violations;"
    for k in live pinned_live registered_live fft_live fds threads; do
        [ "$(field $r $k)" -le "$(field $W/$prog.clean.report $k)" ] ||
            what="$what $k $(field $r $k) at exit (without the fault $(field $W/$prog.clean.report $k));"
    done
    # (a fault that a retry absorbed leaves every call on the GPU, and nothing to say)
    if ! grep -q "$why" $W/fault.log; then
        if [ "${absorbed_ok:-yes}" = yes ] &&
            [ "$(count $W/fault.log -- where=gpu)" = "$(count $W/$prog.clean.log -- where=gpu)" ] &&
            ! grep -qv '^gpushim: GPUSHIM_FAULT: calls by kind' $W/fault.err; then
            absorbed=$((absorbed + 1))
        else
            what="$what the log does not say why;"
        fi
    fi
    [ -z "$what" ] || bad "$prog, $*:$what $(head -c 200 $W/fault.err)"
}
# sample N CALLS: whether the N-th of CALLS calls is swept (the first and the last in CI, all with GS_SWEEP=full).
sample() { [ "${GS_SWEEP:-}" = full ] || [ $1 = 1 ] || [ $1 = $2 ]; }

points=0 swept=0 absorbed=0
for prog in little fft; do
    $(cmd $prog $prog.ref) >$W/$prog.ref.out
    shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/$prog.clean.log GS_STANDIN_CALLS=$W/$prog.calls \
        GS_STANDIN_REPORT=$W/$prog.clean.report $(cmd $prog $prog.clean) >$W/$prog.clean.out
    check "$prog without a fault: results equal, and the calls that can fail are counted" clean_ok $prog
    while read -r name calls; do
        n=1
        while [ $n -le $calls ]; do
            points=$((points + 1))
            sample $n $calls && point $prog $name GS_STANDIN_FAIL=$name:$n
            n=$((n + 1))
        done
    done <$W/$prog.calls
done
check "$swept of the $points injection points swept ($absorbed absorbed by a retry), each finished with the CPU \
libraries' results, nothing leaked, the log saying why" test $swept -gt 0

# The same through the library's own switch, GPUSHIM_FAULT=KIND:N, as on a real GPU (tests/gpu/run.sh, faults):
# the calls of each kind counted by GPUSHIM_FAULT=count, then the first and the last of each kind failed.
kinds=0 swept=0 absorbed=0
for prog in little fft; do
    shim GPUSHIM_OFFLOAD=always GPUSHIM_FAULT=count $(cmd $prog count) 2>$W/count.err >/dev/null
    for kc in $(sed -n 's/^gpushim: GPUSHIM_FAULT: calls by kind: //p' $W/count.err | tr -d ' ' | tr , ' '); do
        kind=${kc%%[0-9]*} calls=${kc#$kind}
        kinds=$((kinds + 1))
        for n in 1 $calls; do
            [ $calls -gt 0 ] && point $prog 'gpu error\|"message"' GPUSHIM_FAULT=$kind:$n
        done
    done
done
check "GPUSHIM_FAULT: the first and the last call of each of $kinds kinds failed ($swept runs, $absorbed absorbed), \
each finished with the CPU libraries' results" test $swept -gt 0

# clean_run PROG: PROG's reference and its run under the shim without a fault, once (stdin closed: the loops
# below read their lists from it); status 1 when they had been made already.
clean_run() {
    [ ! -e $W/$1.clean.report ] || return 1
    $(cmd $1 $1.ref) >$W/$1.ref.out </dev/null
    shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/$1.clean.log GS_STANDIN_REPORT=$W/$1.clean.report \
        $(cmd $1 $1.clean) >$W/$1.clean.out </dev/null
    check "$1 without a fault: results equal" same $1 $1.clean
}

# Checked calls that neither program makes (tests/coverage.sh found their failure branches unreached), each
# failed by name at its first (or second) call in a program that makes it: cuBLAS's symm, syrk and syr2k, cuFFT's
# other transforms, the bring-up's stream, and cuSOLVER's drivers as numpy.linalg and scipy.linalg reach them
# (tests/py/lapack_numpy.py, and tests/py/lapack_more.py for getri, potri, trtri and gels).
# CI runs the first of each program's list; GS_SWEEP=full all of them.
swept=0 absorbed=0
for spec in "blas cublasSsymm_v2_64:1,cublasSsyrk_v2_64:1,cublasSsyr2k_v2_64:1" \
    "plans cufftExecC2C:1,cufftExecD2Z:1,cufftExecR2C:1,cufftExecZ2D:1,cufftExecC2R:1" \
    "little cublasSetStream_v2:1" "little cusolverDnXgetrf_bufferSize:1" \
    "lapack cusolverDnXsyevd_bufferSize:1,cusolverDnXsyevdx_bufferSize:1,cusolverDnXsyevdx:1" \
    "lapack cusolverDnXgesvd_bufferSize:1,cusolverDnXgeev_bufferSize:1,cusolverDnXgeev:1,cusolverDnXgetrs:3" \
    "lapack cublasDgeam_64:1" "lapack cusolverDnDsytrf:1,cusolverDnXpotrs:1,cusolverDnDorgqr:1,cudaMemsetAsync:1" \
    "lapack cusolverDnDsytrf:2,cusolverDnDorgqr:2" "lapack cusolverDnXsytrs_bufferSize:1,cusolverDnXsytrs:1" \
    "lapack cudaMemsetAsync:2" \
    "more cusolverDnXgetrf:1,cusolverDnXpotrf_bufferSize:1,cusolverDnDpotri:1,cusolverDnXtrtri_bufferSize:1" \
    "more cusolverDnXgeqrf_bufferSize:1" "more cusolverDnXgeqrf:1" "more cusolverDnDormqr:2" \
    "more cusolverDnXpotrf:1,cusolverDnDpotri:2,cusolverDnXtrtri:1,cusolverDnDormqr:1,cusolverDnXgetrs:1"; do
    prog=${spec%% *} rules=${spec#* }
    clean_run $prog || [ "${GS_SWEEP:-}" = full ] || continue
    point $prog 'gpu error\|"message"' GPUSHIM_FAULT=$rules
done
check "GPUSHIM_FAULT by name, calls the two programs never make: $swept runs ($absorbed absorbed), each finished \
with the CPU libraries' results" test $swept -gt 0

# The other checked calls whose failure branches tests/coverage.sh found unreached, failed at the call site
# (GPUSHIM_FAULT=NAME@SITE:N, SITE the gpushim function making the call; NAME:N alone would count the program's
# every call of NAME), each run's log naming the failed call and the file of its site: direct copies
# (GPUSHIM_PINNED=0), the second copy of outputs after the first failed, the out-of-core GEMM, the runtime
# calls inside cuSOLVER's drivers (gesvdp's A put back after gesvdp itself failed), and the wait of a part of a
# call split across the stand-in's two devices before it writes an output it also reads (fft_split's FFT in
# place).  Each line: PROGRAM FILE RULES [SETTING...].  CI runs the first of each program's lines; GS_SWEEP=full
# all of them.
swept=0 absorbed=0 absorbed_ok=no last_prog=
while read -r prog file rules settings; do
    clean_run $prog
    [ "${GS_SWEEP:-}" != full ] && [ "$prog" = "$last_prog" ] && continue
    last_prog=$prog
    name=${rules##*,} name=${name%%@*}
    # (the settings are split into words on purpose)
    # shellcheck disable=SC2086
    point $prog "gpu error: $name: .* at src/[a-z]*/$file:" GPUSHIM_FAULT=$rules $settings </dev/null
done <<'RUNS'
little xfer.c cudaMemcpy2DAsync@gs_xfer_put:1 GPUSHIM_PINNED=0
little xfer.c cudaMemcpy2DAsync@gs_xfer_get:1 GPUSHIM_PINNED=0
little xfer.c cudaStreamSynchronize@gs_xfer_finish:1 GPUSHIM_PINNED=0
plans cuda_call.c cudaMemcpy2DAsync@gs_xfer_get:1,cudaMemcpy2DAsync@gs_cuda_outputs_again:1
plans cuda_call.c cudaMemcpy2DAsync@gs_xfer_get:1,cudaStreamSynchronize@gs_cuda_outputs_again:1
blas cuda_gemm.c cudaStreamWaitEvent@gs_gemm_out_of_core:1 GPUSHIM_DEVICE_MEMORY=20k GPUSHIM_TILE=8
blas cuda_gemm.c cudaStreamWaitEvent@gs_gemm_out_of_core:2 GPUSHIM_DEVICE_MEMORY=20k GPUSHIM_TILE=8
blas cuda_gemm.c cudaEventRecord@gs_gemm_out_of_core:1 GPUSHIM_DEVICE_MEMORY=20k GPUSHIM_TILE=8
blas cuda_gemm.c cudaEventRecord@gs_gemm_out_of_core:2 GPUSHIM_DEVICE_MEMORY=20k GPUSHIM_TILE=8
blas cuda_gemm.c cudaEventRecord@gs_gemm_cslot_free:1 GPUSHIM_DEVICE_MEMORY=20k GPUSHIM_TILE=8
lapack cuda_eigen.c cudaStreamSynchronize@gs_syevdx_out:1
lapack cuda_svdp_check.c cudaStreamSynchronize@gs_svdp_values:1
lapack cuda_svdp_check.c cudaStreamSynchronize@gs_svdp_products:1
lapack cuda_eigen.c cudaMemcpy2DAsync@gs_svdp:1
lapack cuda_eigen.c cudaMemcpy2DAsync@gs_svdp:2
lapack cuda_eigen.c cusolverDnXgesvdp@gs_svdp:1,cudaMemcpy2DAsync@gs_svdp:2
lapack cuda_factor.c cudaMemcpy2DAsync@gs_sytrf:1
lapack cuda_factor.c cudaStreamSynchronize@gs_sytrf:1
lapack cuda_factor.c cudaStreamSynchronize@gs_sytrs:1
lapack cuda_lstsq.c cudaMemcpy2DAsync@gs_gelsd_reduce:1
lapack cuda_lstsq.c cudaStreamSynchronize@gs_gelsd:1
lapack cuda_lstsq.c cudaMemsetAsync@gs_gelsd:1
more cuda_factor.c cudaMemcpy2DAsync@gs_getri:1
more cuda_factor.c cudaMemsetAsync@gs_getri:1
more cuda_factor.c cudaMemcpy2DAsync@gs_getri:2
more cuda_factor.c cudaMemcpy2DAsync@gs_trtri_out:1
more cuda_factor.c cudaStreamSynchronize@gs_trtri_out:1
more cuda_lstsq.c cudaMemcpy2DAsync@gs_gels:1
split cuda_split.c cudaStreamSynchronize@gs_split_synced:1
RUNS
check "GPUSHIM_FAULT at a call site, the failure branches the other runs leave unreached: $swept runs, each \
finished with the CPU libraries' results, its log naming the call and its site's file" test $swept -gt 0
finish

