# R's and GNU Octave's linear algebra under the shim: each script (tests/r/linalg.R, tests/octave/linalg_octave.m)
# runs without the shim, then under it by default and with GPUSHIM_OFFLOAD=always (the stand-in's cuSOLVER),
# and its results must agree with the run without it.  The log must show the LAPACK drivers each calls (R's
# eigen: syevr; Octave's eig: syev and geevx), on the GPU path where cuSOLVER serves them, and none of the BLAS
# calls the CPU library makes inside them.
. "$(dirname "$0")/lib.sh"

# r_run OUT [REF] and octave_run OUT [REF], after the command to run them under (shim ...) in RUN: each script,
# saving its results to OUT and comparing them with REF.
r_run() { $RUN Rscript "$ROOT/tests/r/linalg.R" "$@"; }
octave_run() {
    args="'$1'${2:+, '$2'}"
    $RUN octave-cli --no-gui --norc --no-history -q --eval "addpath('$ROOT/tests/octave'); linalg_octave($args)"
}

# app NAME RUNNER RESULTS LABEL ROUTINE...: the script without the shim, then under it in both modes; ROUTINEs
# must reach the GPU path when forced.
app() {
    name=$1 runner=$2 results=$3 label=$4
    shift 4
    RUN= $runner $W/$name.ref >$W/$name.plain.out 2>&1
    check "$name: the script runs without the shim ($(tail -n 1 $W/$name.plain.out))" \
        grep -q "^$label linalg: $results results" $W/$name.plain.out
    for mode in auto always; do
        standin_reset
        RUN="env LD_PRELOAD=$LIB GPUSHIM_CUDA_LIBDIR=$SI GS_STANDIN_REPORT=$REPORT GPUSHIM_WARMUP=off
             GPUSHIM_OFFLOAD=$mode GPUSHIM_LOG=$W/$name.$mode.log" $runner $W/$name.$mode $W/$name.ref \
            >$W/$name.$mode.out 2>$W/$name.$mode.err
        check "$name, $mode: every result agrees with the run without the shim ($(tail -n 1 $W/$name.$mode.out))" \
            grep -q "^$label linalg: 0 of $results results differ" $W/$name.$mode.out
        check "$name, $mode: nothing on stderr, no stand-in violation" \
            sh -c "[ ! -s $W/$name.$mode.err ] && [ $(standin violations) = 0 ]"
    done
    missing=
    for r in "$@"; do [ "$(count $W/$name.always.log -- routine=$r where=gpu)" -ge 1 ] || missing="$missing $r"; done
    check "$name, always: $* on the GPU path (missing:${missing:- none})" test -z "$missing"
}

# R: eigen's dsyevr, solve's dgesv, chol's dpotrf, svd's dgesdd.
have "R (Rscript)" command -v Rscript && app r r_run 9 R dsyevr dgesv dpotrf dgesdd
# Octave: eig's dsyev, inv's dgetrf and dgetri, chol's dpotrf, svd's dgesvd.
if have "GNU Octave (octave-cli)" command -v octave-cli; then
    app octave octave_run 8 Octave dsyev dgetrf dgetri dpotrf dgesvd
    check "octave: eig of a general matrix is dgeevx, on the CPU with the reason, its inner BLAS calls not logged" \
        sh -c "[ $(count $W/octave.always.log -- routine=dgeevx where=cpu 'why=balancing*') -ge 1 ] &&
               [ $(count $W/octave.always.log -- routine=dgemv) = 0 ]"
fi
finish
