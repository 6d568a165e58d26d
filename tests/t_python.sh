# NumPy and SciPy as users install them, under the shim: Debian's (plain cblas_ and Fortran spellings), PyPI's
# NumPy 2.x and SciPy (scipy_ spellings) and NumPy 1.26 (64_ spellings).  Results with the shim, on the CPU
# path and forced through the stand-in, equal those without it.
. "$(dirname "$0")/lib.sh"

# python_case NAME PYTHON [--no-scipy] -- SYMBOL...: runs tests/py/blas_numpy.py; SYMBOLs must appear on the GPU.
python_case() {
    name=$1 py=$2
    shift 2
    opt=
    [ "$1" = --no-scipy ] && opt=--no-scipy && shift
    shift
    $py tests/py/blas_numpy.py $W/$name.ref.npz $opt >/dev/null
    for mode in never always; do
        standin_reset
        shim GPUSHIM_OFFLOAD=$mode GPUSHIM_LOG=$W/$name.$mode.log $py tests/py/blas_numpy.py $W/$name.$mode.npz $opt \
            >/dev/null 2>$W/$name.$mode.err
        check "$name, $mode: results equal" $py tests/py/compare.py $W/$name.ref.npz $W/$name.$mode.npz
        check "$name, $mode: nothing on stderr" test ! -s $W/$name.$mode.err
    done
    for sym in "$@"; do
        check "$name: $sym reached the GPU" test "$(count $W/$name.always.log -- where=gpu symbol=$sym)" -gt 0
    done
    check "$name: gemv logged, on the GPU; dot products and axpy logged, on the CPU" \
        sh -c "[ $(count $W/$name.always.log -- where=gpu "routine=*gemv") -gt 0 ] &&
            [ $(count $W/$name.always.log -- "why=cpu only" "routine=*dot*") -gt 0 ] &&
            [ $(count $W/$name.always.log -- "why=cpu only" "routine=*axpy") -gt 0 ]"
    check "$name: no stand-in violation" test "$(standin violations)" = 0
}

python_case debian /usr/bin/python3 -- cblas_dgemm cblas_zsyrk dgemm_ ztrsm_ zher2k_
python_case pypi build/venv-np2/bin/python -- scipy_cblas_dgemm64_ scipy_cblas_csyrk64_ scipy_sgemm_ scipy_zherk_
python_case numpy126 build/venv-np1/bin/python --no-scipy -- cblas_dgemm64_ cblas_zgemm64_
finish
