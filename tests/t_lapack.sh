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
printf '%s min_flops=inf\n' '*gemm' '*symm' '*hemm' '*syrk' '*herk' '*syr2k' '*her2k' '*trmm' '*trsm' '*gemv' \
    '*dot*' '*axpy' >$W/blas-off.policy
if [ "${GS_LAPACK_REAL:-0}" = 1 ]; then
    run_shim() { env LD_PRELOAD="$LIB" "$@"; }
else
    run_shim() { shim "$@"; }
fi

# lapack_case PROGRAM INPUT: the failure lines of the run under the shim must all appear in the run without it.
lapack_case() {
    prog=$1 in=$2 name=$1-$(basename "$2" .in)
    (cd $W && $L/$prog <$in >$name.ref 2>&1)
    (cd $W && run_shim GPUSHIM_OFFLOAD=always GPUSHIM_POLICY=$W/blas-off.policy GPUSHIM_SUMMARY=1 $L/$prog <$in \
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
# Every interposed LAPACK routine, in every precision, reached the GPU path in one of the runs.
missing=
for r in getrf getrs gesv getri potrf potrs posv potri geqrf gels trtrs trtri gesdd gesvd geev; do
    for p in s d c z; do grep -qx "$p$r" $W/on-gpu || missing="$missing $p$r"; done
done
for r in orgqr:ungqr ormqr:unmqr syevd:heevd syev:heev; do
    for p in s d c z; do
        case $p in s | d) n=$p${r%%:*} ;; *) n=$p${r##*:} ;; esac
        grep -qx "$n" $W/on-gpu || missing="$missing $n"
    done
done
check "every LAPACK routine of the table reached the GPU path (missing:${missing:- none})" test -z "$missing"
[ "${GS_LAPACK_REAL:-0}" = 1 ] || check "no stand-in violation" test "$(standin violations)" = 0
finish
