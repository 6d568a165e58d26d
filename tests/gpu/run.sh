#!/bin/sh
# GPU tests (make check-gpu), on a machine with an NVIDIA GPU and the CUDA libraries: the preload test
# programs and the NumPy/SciPy script, with every eligible call forced onto the real cuBLAS
# (GPUSHIM_OFFLOAD=always), compared with the same programs run without the shim.  Expects build/ from
# `make gpu-pack` (built on another machine is fine) and the system's python3 with NumPy and SciPy.
# Writes logs and results under $OUT (default build/gpu-out); exit status 1 if any test failed.
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-build/gpu-out}
mkdir -p "$OUT"
LIB=$(pwd)/build/libgpushim.so
T=$(pwd)/build/tests
PY=${PYTHON:-python3}
pass=0
fail=0
ok() { echo "PASS $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }
count() { $PY tests/logq.py count "$@"; }

# The CPU libraries the programs were linked against: packed ones, and NumPy's and SciPy's own OpenBLAS
# under the names the scipy_ programs were linked with.
L=/tmp/gpushim-libs
rm -rf $L && mkdir -p $L && tar xJf build/gpu/libs.tar.xz -C $L
SP=$($PY -c 'import numpy, os; print(os.path.dirname(os.path.dirname(numpy.__file__)))')
ln -s "$(ls "$SP"/numpy.libs/libscipy_openblas64_*.so | head -n 1)" $L/libscipy_openblas64_.so
ln -s "$(ls "$SP"/scipy.libs/libscipy_openblas*.so | head -n 1)" $L/libscipy_openblas.so
# (the bundled libraries find their own dependencies through $ORIGIN, which a symbolic link does not carry)
export LD_LIBRARY_PATH=$L:$L/numpy.libs:$SP/numpy.libs:$SP/scipy.libs
shim() { LD_PRELOAD=$LIB GPUSHIM_OFFLOAD=always "$@"; }

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
$PY -c 'import numpy, scipy; print("numpy", numpy.__version__, "scipy", scipy.__version__)'

# 1. Every routine in every spelling, small and (BLAS_ALL_LARGE) sizes in the hundreds.
export BLAS_ALL_LARGE=${BLAS_ALL_LARGE:-1}
for s in plain ilp64 scipy scipy64; do
    $T/blas_all_$s $OUT/ref_$s.bin >/dev/null
    GPUSHIM_LOG=$OUT/blas_all_$s.log shim $T/blas_all_$s $OUT/gpu_$s.bin >$OUT/blas_all_$s.out
    eligible=$(sed -n 's/gpu_eligible=//p' $OUT/blas_all_$s.out)
    on_gpu=$(count $OUT/blas_all_$s.log -- where=gpu)
    if $T/blas_cmp $OUT/ref_$s.bin $OUT/gpu_$s.bin && [ "$eligible" = "$on_gpu" ]; then
        ok "blas_all $s: results equal, $on_gpu of $eligible eligible calls on the GPU"
    else
        bad "blas_all $s: $on_gpu of $eligible eligible calls on the GPU"
    fi
done

# 1b. GEMM in many tiles and slices of k, and out of core (device memory capped), against the same reference.
for v in GPUSHIM_TILE=64 GPUSHIM_DEVICE_MEMORY=300k; do
    env $v GPUSHIM_LOG=$OUT/tiles.log LD_PRELOAD=$LIB GPUSHIM_OFFLOAD=always $T/blas_all_plain $OUT/tiles.bin >/dev/null
    if $T/blas_cmp $OUT/ref_plain.bin $OUT/tiles.bin && [ "$(count $OUT/tiles.log -- where=gpu)" -gt 0 ]; then
        ok "tiled gemm, $v: results equal"
    else
        bad "tiled gemm, $v"
    fi
done

# 1c. Operands used again (registered), then freed, unmapped or remapped with new contents at the same address.
$T/reuse $OUT/reuse.ref
GPUSHIM_LOG=$OUT/reuse.log shim $T/reuse $OUT/reuse.gpu
if $T/blas_cmp $OUT/reuse.ref $OUT/reuse.gpu && [ "$(count $OUT/reuse.log -- where=gpu)" = 23 ]; then
    ok "registered operands freed, unmapped, remapped: results equal"
else
    bad "registered operands freed, unmapped, remapped"
fi

# 2. NumPy and SciPy as installed.
$PY tests/py/blas_numpy.py $OUT/py_ref.npz >/dev/null
GPUSHIM_LOG=$OUT/py.log shim $PY tests/py/blas_numpy.py $OUT/py_gpu.npz >/dev/null
n=$(count $OUT/py.log -- where=gpu symbol=scipy_cblas_dgemm64_)
if $PY tests/py/compare.py $OUT/py_ref.npz $OUT/py_gpu.npz && [ "$n" -gt 0 ]; then
    ok "numpy/scipy: results equal; $(count $OUT/py.log -- where=gpu) calls on the GPU"
else
    bad "numpy/scipy ($n scipy_cblas_dgemm64_ calls on the GPU)"
fi

# 3. Loading, nesting, fork and threads.
LIBBLAS_REF=$L/reference
for p in threads ctor_main; do
    $T/$p $OUT/$p.ref >/dev/null
    GPUSHIM_LOG=$OUT/$p.log shim $T/$p $OUT/$p.gpu >/dev/null
    if $T/blas_cmp $OUT/$p.ref $OUT/$p.gpu >/dev/null && [ "$(count $OUT/$p.log -- where=gpu)" -gt 0 ]; then
        ok "$p"
    else
        bad "$p"
    fi
done
$T/rtld_local_main $T/librtld_user.so $OUT/rtld.ref
GPUSHIM_LOG=$OUT/rtld.log shim $T/rtld_local_main $T/librtld_user.so $OUT/rtld.gpu
[ "$(count $OUT/rtld.log -- where=gpu)" = 1 ] && $T/blas_cmp $OUT/rtld.ref $OUT/rtld.gpu >/dev/null &&
    ok "rtld_local" || bad "rtld_local"
LD_LIBRARY_PATH=$LIBBLAS_REF:$LD_LIBRARY_PATH $T/nested $OUT/nested.ref
LD_LIBRARY_PATH=$LIBBLAS_REF:$LD_LIBRARY_PATH GPUSHIM_LOG=$OUT/nested.log LD_PRELOAD=$LIB GPUSHIM_OFFLOAD=never \
    $T/nested $OUT/nested.cpu
[ "$(count $OUT/nested.log -- symbol=dgemm_)" = 0 ] && [ "$(count $OUT/nested.log -- symbol=cblas_dgemm)" = 3 ] &&
    $T/blas_cmp $OUT/nested.ref $OUT/nested.cpu >/dev/null && ok "nested" || bad "nested"
$T/fork $OUT/fork.ref
GPUSHIM_LOG=$OUT/fork.%p.log shim $T/fork $OUT/fork.gpu
r=0
for role in parent child grandchild; do
    $T/blas_cmp $OUT/fork.ref.$role $OUT/fork.gpu.$role >/dev/null || r=1
done
[ $r = 0 ] && [ "$(count $OUT/fork.*.log -- where=gpu)" = 2 ] &&
    [ "$(count $OUT/fork.*.log -- "why=no gpu in a forked child")" = 3 ] && ok "fork" || bad "fork"
GPUSHIM_LOG=$OUT/forkfirst.%p.log shim $T/fork $OUT/forkfirst --fork-first
r=0
for role in parent child grandchild; do
    $T/blas_cmp $OUT/fork.ref.$role $OUT/forkfirst.$role >/dev/null || r=1
done
[ $r = 0 ] && [ "$(count $OUT/forkfirst.*.log -- where=gpu)" = 1 ] &&
    [ "$(count $OUT/forkfirst.*.log -- "why=no gpu in a forked child")" = 3 ] && ok "fork first" || bad "fork first"

echo "gpu tests: $pass passed, $fail failed"
[ $fail = 0 ]
