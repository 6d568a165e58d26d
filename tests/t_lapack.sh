# LAPACK's own test programs (Debian's liblapack-test: xlintst* for the linear systems, xeigtst* for the
# eigenvalue and singular value drivers) under the shim with GPUSHIM_OFFLOAD=always: every eligible call of an
# interposed LAPACK routine goes through the GPU path (here the stand-in, whose cuSOLVER runs the reference
# LAPACK), and no test may fail that passes without the shim, except those tests/lapack_known.txt explains.  The BLAS calls the test programs and the
# routines gpushim does not interpose make themselves (millions) are kept on the CPU with min_flops=inf, so
# that the run stays short; LAPACK calls go to the GPU whatever their size.
# On the GPU machine, tests/gpu/run.sh runs this file against the real CUDA libraries (GS_LAPACK_REAL=1).
. "$(dirname "$0")/lib.sh"
L=${GS_LAPACK_TESTS:-/usr/lib/x86_64-linux-gnu/lapack}
[ -x $L/xlintstd ] || { bad "liblapack-test is not installed (tests/deps.sh installs it)"; finish; exit; }
if [ "${GS_LAPACK_REAL:-0}" = 1 ]; then
    run_shim() { env LD_PRELOAD="$LIB" "$@"; }
else
    run_shim() { shim "$@"; }
fi

# lapack_case PROGRAM INPUT: the failure lines of the run under the shim must all appear in the run without it.
lapack_case() {
    prog=$1 in=$2 name=$1-$(basename "$2" .in)
    (cd $W && $L/$prog <$in >$name.ref 2>&1)
    (cd $W && run_shim GPUSHIM_OFFLOAD=always GPUSHIM_POLICY=$ROOT/tests/blas-off.policy GPUSHIM_SUMMARY=1 $L/$prog <$in \
        >$name.out 2>$name.err)
    grep -iE 'fail|illegal|error exit|threshold' $W/$name.ref | grep -viE 'passed the threshold|performed with' |
        sort >$W/$name.ref.f
    # A block's failure line is known when every test that failed in the block is in tests/lapack_known.txt.
    awk -v known=tests/lapack_known.txt '
        BEGIN { while ((getline l < known) > 0) if (l !~ /^#/ && split(l, f, " ") > 1)
                    for (i = 2; i <= length(f); i++) ok[f[1] " " f[i]] = 1 }
        /test\( *[0-9]+\)/ { t = $0; sub(/.*test\( */, "", t); sub(/\).*/, "", t); seen[t] = 1; next }
        /^ *[A-Z]+: +[0-9]+ out of +[0-9]+ tests failed/ {
            b = $1; sub(/:/, "", b); all = 0
            for (t in seen) { all = 1; break }
            for (t in seen) if (!((b " " t) in ok)) all = 0
            print (all ? "known: " : "") $0; delete seen; next }
        /passed the threshold/ { delete seen }
        { print }' $W/$name.out >$W/$name.filtered
    grep '^known: ' $W/$name.filtered | sed "s/^known: /    known, in $name: /"
    grep -v '^known: ' $W/$name.filtered | grep -iE 'fail|illegal|error exit|threshold' |
        grep -viE 'passed the threshold|performed with' | sort >$W/$name.out.f
    check "$name: ran to the end" grep -q 'End of tests' $W/$name.out
    comm -13 $W/$name.ref.f $W/$name.out.f >$W/$name.new
    check "$name: no failure that the run without the shim does not have" test ! -s $W/$name.new
    sed "s/^/    new in $name: /" $W/$name.new | head -n 20
    # Routines that ran on the GPU: the summary's "on gpu" column.
    awk '$1 == "gpushim:" && $4 ~ /^[0-9]+$/ && $4 > 0 {print $2}' $W/$name.err >>$W/on-gpu
}

for p in s d c z; do
    lapack_case xlintst$p $L/${p}test.in
    for in in sep svd ${p}ed; do
        lapack_case xeigtst$p $L/$in.in
    done
done
# NumPy and SciPy calls (tests/py/lapack_numpy.py): results equal to those without the shim; a singular
# matrix and one not positive definite raise as without it (INFO > 0 on the GPU: the CPU library makes the
# call again); lu_solve finds lu_factor's factor on the device; and a failure injected into cuSOLVER or the
# runtime finishes that call on the CPU, logged, with the same results.
if [ "${GS_LAPACK_REAL:-0}" != 1 ]; then
    PYV=$ROOT/build/venv-np2/bin/python
    $PYV tests/py/lapack_numpy.py $W/np.ref.npz
    standin_reset
    # A fixed mmap threshold gives every array of 128 KiB or more pages of its own.  Otherwise glibc raises the
    # threshold after the first large free, later arrays share their edge pages with others, and a write there
    # rightly makes the cache copy the factor again (as a clean clone's CI run showed).
    shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/np.log MALLOC_MMAP_THRESHOLD_=131072 $PYV tests/py/lapack_numpy.py \
        $W/np.gpu.npz 2>$W/np.err
    check "numpy/scipy LAPACK calls, forced: results equal" $PYV tests/py/compare.py $W/np.ref.npz $W/np.gpu.npz
    check "numpy/scipy: INFO > 0 on the GPU makes the CPU library redo the call" \
        test "$(count $W/np.log -- where=cpu 'why=INFO = *')" -ge 4
    check "numpy/scipy: lu_solve finds the factor of lu_factor on the device" \
        test "$(count $W/np.log -- routine=dgetrs where=gpu cache_hits=1)" = 3
    check "numpy/scipy: nothing on stderr, no stand-in violation" sh -c "[ ! -s $W/np.err ] && [ $(standin violations) = 0 ]"
    $PYV tests/py/lapack_numpy.py $W/small.ref.npz 200
    for f in cusolverDnXgetrf:1 cusolverDnXsyevd:1 cusolverDnXgesvd:1 cublasDtrmm_v2_64:1 cudaMemcpy2DAsync:40 \
        cudaStreamSynchronize:9; do
        rm -f $W/f.log
        shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/f.log GS_STANDIN_FAIL=$f $PYV tests/py/lapack_numpy.py $W/f.npz \
            200 >/dev/null 2>&1
        check "failure injected into $f: results equal, the call finished on the CPU and logged" \
            sh -c "$PYV tests/py/compare.py $W/small.ref.npz $W/f.npz >/dev/null &&
                [ $(count $W/f.log -- where=cpu 'why=gpu error: *') -ge 1 ]"
    done
    rm -f $W/f.log
    shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/f.log GS_STANDIN_FAIL=cusolverDnXgesvdp $PYV tests/py/lapack_numpy.py \
        $W/f.npz 200 >/dev/null 2>&1
    check "gesvdp refusing every call: results equal, gesvd computes them on the GPU" \
        sh -c "$PYV tests/py/compare.py $W/small.ref.npz $W/f.npz >/dev/null &&
            [ $(count $W/f.log -- 'why=gpu error: *') = 0 ] && [ $(count $W/f.log -- where=gpu 'routine=*gesdd') -ge 8 ]"
    # The singular values alone come from gesvdp from n = 1024 and from gesvd below: with gesvd failing every
    # call, those of lapack_numpy.py (n = 200) finish on the CPU, and those of svdvals.py on the GPU.
    rm -f $W/f.log
    $PYV tests/py/svdvals.py $W/sv.ref.npz 1024
    for s in "lapack_numpy.py $W/f.npz 200" "svdvals.py $W/sv.npz 1024"; do
        shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/f.log GS_STANDIN_FAIL=cusolverDnXgesvd $PYV tests/py/$s \
            >/dev/null 2>&1
    done
    check "gesvd failing every call: results equal, singular values alone from gesvdp at n = 1024 only" \
        sh -c "$PYV tests/py/compare.py $W/small.ref.npz $W/f.npz >/dev/null &&
            $PYV tests/py/compare.py $W/sv.ref.npz $W/sv.npz >/dev/null &&
            [ $(count $W/f.log -- where=gpu routine=dgesdd opts=NN m=1024) = 1 ] &&
            [ $(count $W/f.log -- where=cpu 'routine=*gesdd' opts=NN m=200 'why=gpu error: *') = 2 ]"
    # Economy SVDs of tall matrices past 2^15 rows (tests/py/svd_tall.py), as scipy.optimize.least_squares
    # takes them: the stand-in's workspaces for them once overflowed an int.
    $PYV tests/py/svd_tall.py $W/tall.ref.npz 34000
    rm -f $W/f.log
    shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/f.log $PYV tests/py/svd_tall.py $W/tall.npz 34000 2>$W/tall.err
    check "tall SVDs of 34000 rows, forced: results equal, 6 on the GPU, nothing on stderr" \
        sh -c "$PYV tests/py/compare.py $W/tall.ref.npz $W/tall.npz >/dev/null && [ ! -s $W/tall.err ] &&
            [ $(count $W/f.log -- where=gpu 'routine=*gesdd') = 6 ]"
    # gesvdp's wrong answers that its own error estimate calls exact (the H100's, for svd_tall.py's Gaussians):
    # each is tested, and gesvd computes the SVD again on the GPU, the values alone included.
    rm -f $W/f.log
    shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/f.log GS_STANDIN_SVDP_WRONG=1 GS_STANDIN_CALLS=$W/calls \
        $PYV tests/py/svd_tall.py $W/tall.npz 34000 2>$W/tall.err
    shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/f.log GS_STANDIN_SVDP_WRONG=1 $PYV tests/py/svdvals.py $W/sv.npz 1024 \
        >/dev/null 2>&1
    check "gesvdp's wrong answers, tall and values alone: results equal, each SVD redone by gesvd on the GPU" \
        sh -c "$PYV tests/py/compare.py $W/tall.ref.npz $W/tall.npz >/dev/null && [ ! -s $W/tall.err ] &&
            $PYV tests/py/compare.py $W/sv.ref.npz $W/sv.npz >/dev/null &&
            [ $(count $W/f.log -- where=gpu 'routine=*gesdd') = 7 ] && grep -q '^cusolverDnXgesvd [1-9]' $W/calls"
    # gesvd's wrong answers as well (the H200's for the Gaussians, from one routine or the other): tested too, and
    # the CPU library makes the call; least squares' SVD (gelsd) included.
    rm -f $W/f.log
    wrong="GS_STANDIN_SVDP_WRONG=1 GS_STANDIN_GESVD_WRONG=1"
    shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/f.log $wrong $PYV tests/py/svd_tall.py $W/tall.npz 34000 2>$W/tall.err
    shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/f.log $wrong $PYV tests/py/lapack_numpy.py $W/f.npz 200 2>>$W/tall.err
    check "gesvd's wrong answers too: results equal, each such SVD made by the CPU library, saying why" \
        sh -c "$PYV tests/py/compare.py $W/tall.ref.npz $W/tall.npz >/dev/null && [ ! -s $W/tall.err ] &&
            $PYV tests/py/compare.py $W/small.ref.npz $W/f.npz >/dev/null &&
            [ $(count $W/f.log -- where=cpu m=34000 'routine=*gesdd' 'why=gpu: *gesvd*failed its test*') = 6 ] &&
            [ $(count $W/f.log -- where=cpu 'routine=*gelsd' 'why=gpu: *gesvd*failed its test*') -gt 0 ] &&
            [ $(count $W/f.log -- where=gpu 'routine=*gesdd' opts=SS) = 0 ]"
    # cuSOLVER's geqrf's wrong QRs (the H100's, of the narrow Gaussians; CuPy's QR gives the same): each tested, and
    # the CPU library makes the call: geqrf itself and least squares through a QR (gelsd, tall and wide).  The tall
    # SVDs take CholeskyQR2, no geqrf, and stay on the GPU; of a matrix too ill-conditioned for it (svd_graded.py),
    # they take geqrf, and the whole answer, tested, is refused.
    $PYV tests/py/svd_graded.py $W/graded.ref.npz
    rm -f $W/f.log
    shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/f.log GS_STANDIN_GEQRF_WRONG=1 $PYV tests/py/lapack_numpy.py $W/f.npz \
        200 2>$W/qr.err
    shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/f.log GS_STANDIN_GEQRF_WRONG=1 $PYV tests/py/svd_tall.py $W/tall.npz \
        34000 2>>$W/qr.err
    shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/f.log GS_STANDIN_GEQRF_WRONG=1 $PYV tests/py/svd_graded.py \
        $W/graded.npz 2>>$W/qr.err
    check "geqrf's wrong answers: results equal, each QR and each SVD through one made by the CPU library, saying why" \
        sh -c "$PYV tests/py/compare.py $W/small.ref.npz $W/f.npz >/dev/null &&
            $PYV tests/py/compare.py $W/tall.ref.npz $W/tall.npz >/dev/null &&
            $PYV tests/py/compare.py $W/graded.ref.npz $W/graded.npz >/dev/null && [ ! -s $W/qr.err ] &&
            [ $(count $W/f.log -- where=cpu 'routine=*geqrf' 'why=gpu: *geqrf*failed its test*') -gt 0 ] &&
            [ $(count $W/f.log -- where=cpu 'routine=*gelsd' 'why=gpu: *geqrf*failed its test*') -gt 1 ] &&
            [ $(count $W/f.log -- where=gpu m=34000 'routine=*gesdd') = 6 ] &&
            [ $(count $W/f.log -- where=cpu m=20000 'routine=*gesdd' 'why=gpu: *A = QR*failed its test*') = 2 ]"
    # The graded matrix as it is: Householder's QR on the GPU after CholeskyQR2 gave up, the answer right.
    rm -f $W/f.log $W/calls
    shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/f.log GS_STANDIN_CALLS=$W/calls $PYV tests/py/svd_graded.py \
        $W/graded.npz 2>$W/qr.err
    check "a tall SVD too ill-conditioned for CholeskyQR2: on the GPU through geqrf, results equal" \
        sh -c "$PYV tests/py/compare.py $W/graded.ref.npz $W/graded.npz >/dev/null && [ ! -s $W/qr.err ] &&
            [ $(count $W/f.log -- where=gpu m=20000 'routine=*gesdd') = 2 ] &&
            grep -q '^cusolverDnXgeqrf [1-9]' $W/calls && grep -q '^cusolverDnXpotrf [1-9]' $W/calls"
    # The same SVD again and again, as a fit's steps take it, its GPU answers refused every time: by the default
    # policy the kind goes back to the CPU once a window of them measured what they cost (the GPU's try and the
    # CPU's redo), instead of paying both sides at every call.  The first call waits for the bring-up and the
    # second warms the kind up: neither is counted, so 5 tries, then the CPU.
    $PYV tests/py/svd_again.py $W/again.ref.npz 20000 8
    rm -f $W/f.log
    shim GPUSHIM_WARMUP=eager GPUSHIM_LOG=$W/f.log $wrong $PYV tests/py/svd_again.py $W/again.npz 20000 8 \
        2>$W/again.err
    check "the same SVD refused on the GPU again and again: 5 tries, then the CPU's ($(count $W/f.log -- \
'why=gpu: *failed its test*') tries)" \
        sh -c "$PYV tests/py/compare.py $W/again.ref.npz $W/again.npz >/dev/null && [ ! -s $W/again.err ] &&
            [ $(count $W/f.log -- where=cpu 'routine=*gesdd' 'why=gpu: *gesvd*failed its test*') = 5 ] &&
            [ $(count $W/f.log -- where=cpu 'routine=*gesdd' 'why=cpu faster') = 3 ]"
    # By the default policy, a Cholesky solve with one right-hand side and a factor of 72 MB made on the CPU
    # goes to the GPU: the CPU's solve reads the factor at one core's rate (cpu_gbps of *potrs), about 10 ms
    # against 3 for copying it (1.5 ms predicted at 55 GB/s kept it on the CPU).
    rm -f $W/f.log
    shim GPUSHIM_LOG=$W/f.log $PYV -c '
import numpy as np, scipy.linalg as sl
rng = np.random.default_rng(3)
c = np.triu(rng.standard_normal((3000, 3000))) + 60 * np.eye(3000)
b = rng.standard_normal(3000)
x = sl.cho_solve((c, False), b)
print(np.abs(c.T @ (c @ x) - b).max() < 1e-8)' >$W/potrs.out 2>&1
    check "default policy: a one-column Cholesky solve of n = 3000 on the GPU ($(cat $W/potrs.out))" \
        sh -c "[ '$(cat $W/potrs.out)' = True ] && [ $(count $W/f.log -- where=gpu routine=dpotrs) = 1 ]"
    rm -f $W/f.log
    shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/f.log GS_STANDIN_FAIL=cusolverDnCreate $PYV tests/py/lapack_numpy.py \
        $W/f.npz 200 2>$W/f.err
    check "cuSOLVER cannot start: results equal, LAPACK on the CPU after one notice, BLAS still on the GPU" \
        sh -c "$PYV tests/py/compare.py $W/small.ref.npz $W/f.npz >/dev/null && [ \$(wc -l <$W/f.err) = 1 ] &&
            grep -q 'cuSOLVER cannot start (cusolverDnCreate: status [0-9]*); LAPACK runs on the CPU' $W/f.err &&
            [ $(count $W/f.log -- where=gpu 'routine=*gesv') = 0 ] && [ $(count $W/f.log -- where=gpu 'routine=*gemm') -gt 0 ]"
fi

# Every interposed LAPACK routine that cuSOLVER serves, in every precision, reached the GPU path in one of the runs.
missing=
for r in getrf getrs gesv getri potrf potrs posv potri geqrf gels gelsd trtrs trtri gesdd gesvd geev sytrf sytrs sysv; do
    for p in s d c z; do grep -qx "$p$r" $W/on-gpu || missing="$missing $p$r"; done
done
for r in orgqr:ungqr ormqr:unmqr syevd:heevd syev:heev syevr:heevr syevx:heevx; do
    for p in s d c z; do
        case $p in s | d) n=$p${r%%:*} ;; *) n=$p${r##*:} ;; esac
        grep -qx "$n" $W/on-gpu || missing="$missing $n"
    done
done
check "every LAPACK routine of the table reached the GPU path (missing:${missing:- none})" test -z "$missing"
[ "${GS_LAPACK_REAL:-0}" = 1 ] || check "no stand-in violation" test "$(standin violations)" = 0
finish
