# The linalg test suites of NumPy (numpy/linalg/tests) and SciPy (scipy/linalg/tests), as pip installs them,
# under the shim with GPUSHIM_OFFLOAD=always: no test may fail that fails without the shim.  NumPy 2.x (the
# scipy_..._64_ spellings) and SciPy (scipy_...) from build/venv-np2, and NumPy 1.26 (..._64_) from
# build/venv-np1.  NumPy's suite runs with every eligible call forced (BLAS too); SciPy's, whose thousands of
# tests make millions of small BLAS calls, with the BLAS routines kept on the CPU (min_flops=inf) and every
# LAPACK call forced, so that it stays within minutes.  tests/gpu/run.sh runs both so on the GPU.
. "$(dirname "$0")/lib.sh"

# suite NAME PYTHON MODULE [VAR=VALUE...]: the failed tests under the shim must all fail without it too, and
# LAPACK calls must have reached the GPU path.
suite() {
    name=$1 py=$2 mod=$3
    shift 3
    # (the suite without the shim alongside the one under it: each is mostly one thread of Python)
    (cd $W && $py -m pytest -q -rf -p no:cacheprovider --pyargs $mod >$name.ref 2>&1) &
    (cd $W && shim GPUSHIM_OFFLOAD=always GPUSHIM_SUMMARY=1 "$@" $py -m pytest -q -rf -p no:cacheprovider \
        --pyargs $mod >$name.out 2>&1)
    wait
    $PY tests/py/new_failures.py $W/$name.ref $W/$name.out >$W/$name.cmp
    sed -n 's/^new //p' $W/$name.cmp >$W/$name.new
    check "$name: the suite ran ($(grep -E '[0-9]+ passed' $W/$name.out | tail -n 1))" grep -qE '[0-9]+ passed' $W/$name.out
    check "$name: no test fails that passes without the shim, but those in tests/py/linalg_known.txt" \
        test ! -s $W/$name.new
    sed "s/^/    new in $name: /" $W/$name.new
    sed -n "s/^known /    known, failed in $name: /p" $W/$name.cmp
    gpu=$(awk -f tests/lapack_gpu_calls.awk $W/$name.out)
    check "$name: LAPACK calls on the GPU path ($gpu)" test "$gpu" -gt 0
}

suite numpy2 $ROOT/build/venv-np2/bin/python numpy.linalg
suite numpy1 $ROOT/build/venv-np1/bin/python numpy.linalg
suite scipy $ROOT/build/venv-np2/bin/python scipy.linalg GPUSHIM_POLICY=$ROOT/tests/blas-off.policy
check "no stand-in violation" test "$(standin violations)" = 0
finish
