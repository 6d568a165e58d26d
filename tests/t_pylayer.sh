# The Python layer (scripts/python/gpushim/_linalg.py, the C entry gpushim_linalg): every wrapped function
# against the original, forced onto the GPU path and by default (tests/py/pylayer.py); the log names the calls
# by their Python names, with the program's line as the site, those the cost model kept on the CPU too, timed in
# the original (whose own calls it does not log); each way in gives the layer (import gpushim first,
# python -m gpushim, gpushim-run, plain LD_PRELOAD through gpushim.pth), and GPUSHIM_PYTHON=0 or no library
# gives none; NumPy's own linalg suite, and SciPy's tests of cho_factor, cho_solve, lu_factor, lu_solve, eigh, inv,
# solve, svd, qr and lstsq, with the layer on and every call forced, pass as without it.
. "$(dirname "$0")/lib.sh"
NP2=$ROOT/build/venv-np2/bin/python
have "build/venv-np2 (NumPy 2.x, SciPy, pytest)" $NP2 -c 'import numpy, scipy, pytest' || { finish; exit 1; }

# A virtual environment with the package as the wheel installs it (gpushim.pth, gpushim_hook.py and the package,
# here from the checkout) and build/venv-np2's packages on its path.
$NP2 -m venv --without-pip $W/v2
site=$($W/v2/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
echo "$ROOT/scripts/python" >$site/00-gpushim-checkout.pth
cp scripts/python/gpushim.pth $site/
$NP2 -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' >$site/venv-np2.pth
V2=$W/v2/bin/python

# The wrapped functions against the originals, forced onto the GPU path and by default, through import gpushim.
for mode in always auto; do
    standin_reset
    (cd $W && shim GPUSHIM_OFFLOAD=$mode GPUSHIM_LOG=$W/cases.$mode.log $V2 $ROOT/tests/py/pylayer.py \
        >$W/cases.$mode.out 2>$W/cases.$mode.err)
    check "$mode: every case as the original's ($(tail -n 1 $W/cases.$mode.out))" \
        sh -c "grep -q ' 0 differ' $W/cases.$mode.out && [ ! -s $W/cases.$mode.err ]"
    check "$mode: no stand-in violation" test "$(standin violations)" = 0
done
# cuSOLVER's geqrf's wrong QRs (the H100's, of the narrow Gaussians): qr and lstsq through the layer test each
# answer and hand a failed one to the original, whose own LAPACK calls (forced too) are tested the same way and
# made by the CPU library; a call handed back is not logged by its Python name.
standin_reset
(cd $W && shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/qr.log GS_STANDIN_GEQRF_WRONG=1 $V2 $ROOT/tests/py/pylayer.py \
    >$W/qr.out 2>$W/qr.err)
check "geqrf's wrong answers: every case as the original's ($(tail -n 1 $W/qr.out)), the QRs by the CPU library" \
    sh -c "grep -q ' 0 differ' $W/qr.out && [ ! -s $W/qr.err ] &&
        [ $(count $W/qr.log -- where=cpu 'symbol=*geqrf*' 'why=gpu: *geqrf*failed its test*') -gt 0 ] &&
        [ $(count $W/qr.log -- where=cpu 'symbol=*gelsd*' 'why=gpu: *geqrf*failed its test*') -gt 0 ] &&
        [ $(count $W/qr.log -- 'symbol=*.linalg.*' where=cpu) = 0 ]"
for f in numpy.linalg.solve numpy.linalg.inv numpy.linalg.cholesky numpy.linalg.eigh numpy.linalg.eigvalsh \
    numpy.linalg.det numpy.linalg.slogdet numpy.linalg.svd numpy.linalg.qr numpy.linalg.lstsq scipy.linalg.cho_factor \
    scipy.linalg.cho_solve scipy.linalg.lu_factor scipy.linalg.lu_solve scipy.linalg.eigh scipy.linalg.inv \
    scipy.linalg.solve scipy.linalg.svd scipy.linalg.qr scipy.linalg.lstsq; do
    check "forced: $f on the GPU, by its Python name, the program's line its site" \
        sh -c "[ $(count $W/cases.always.log -- where=gpu symbol=$f 'site=pylayer.py:*') -gt 0 ] &&
            [ $(count $W/cases.always.log -- symbol=$f 'site=*_linalg*') = 0 ]"
done
check "forced: a call the GPU found singular or not positive definite is not logged by its Python name" \
    test "$(count $W/cases.always.log -- 'symbol=*.linalg.*' where=cpu)" = 0
check "by default: the small calls stay with the originals" \
    test "$(count $W/cases.auto.log -- 'symbol=*.linalg.*')" = 0
# By default: a solve of the order the library names as its least (gpushim_linalg_min_order, by the policy's
# threshold) and one larger go through the layer; one of an order less goes to NumPy at once, its LAPACK call
# below the threshold.
cat >$W/sizes.py <<'PY'
import numpy as np
from gpushim import _linalg
least = _linalg._query(b"solve", b"d", 2)
for n in (least - 1, least, 2 * least):
    a = np.eye(n) * n + np.random.default_rng(n).random((n, n))
    x = np.linalg.solve(a, np.ones((n, 2)))
    print(n, np.abs(a @ x - 1).max() < 1e-9)
PY
(cd $W && shim GPUSHIM_LOG=$W/sizes.log $V2 sizes.py >sizes.out 2>sizes.err)
least=$(sed -n '2s/ .*//p' $W/sizes.out)
check "by default: solve from order $least (the policy's threshold) through the layer, below it NumPy's at once" \
    sh -c "[ \$(grep -c ' True\$' $W/sizes.out) = 3 ] && [ ! -s $W/sizes.err ] &&
        [ $(count $W/sizes.log -- symbol=numpy.linalg.solve "n=$least" 'why=above threshold') = 1 ] &&
        [ $(count $W/sizes.log -- symbol=numpy.linalg.solve) = 2 ] &&
        [ $(count $W/sizes.log -- routine=dgesv "n=$((least - 1))" 'why=below threshold') = 1 ]"

printf 'import gpushim, runpy\nrunpy.run_path("%s", run_name="__main__")\n' $ROOT/tests/py/pylayer.py >$W/np1.py
(cd $W && shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/np1.log PYTHONPATH=$ROOT/scripts/python \
    $ROOT/build/venv-np1/bin/python np1.py >$W/np1.out 2>$W/np1.err)
check "NumPy 1.26, import gpushim first, forced: every case as the original's ($(tail -n 1 $W/np1.out))" \
    sh -c "grep -q ' 0 differ' $W/np1.out && [ ! -s $W/np1.err ] &&
        [ $(count $W/np1.log -- where=gpu 'symbol=numpy.linalg.*') -gt 0 ]"

# The originals' conventions are read from their results, not assumed: a SciPy whose cho_factor returns the
# factor in C order with the other triangle zero and lower as an array (SciPy 1.18's), made here by replacing the
# original the layer reads them from; the layer's results must then be that function's, in every layout, and
# cho_solve must take them to the GPU.
cat >$W/conventions.py <<'PY'
import gpushim
import numpy as np
import scipy.linalg as sl

def cho_factor_118(a, lower=False, overwrite_a=False, check_finite=True):
    c = np.linalg.cholesky(a)
    return np.ascontiguousarray(c if lower else c.conj().T), np.array(lower)

sl.cho_factor._gpushim_original = cho_factor_118
rng = np.random.default_rng(5)
a = rng.standard_normal((300, 300))
a = a @ a.T + 300 * np.eye(300)
b = rng.standard_normal((300, 4))
ok = 0
for x in (a, np.asfortranarray(a)):
    for lower in (False, True):
        (c, f), (c0, f0) = sl.cho_factor(x, lower=lower), cho_factor_118(x, lower=lower)
        ok += c.flags.c_contiguous and type(f) is type(f0) and f == f0 and np.allclose(c, c0, rtol=0, atol=1e-9)
        ok += np.allclose(sl.cho_solve((c, f), b), np.linalg.solve(a, b), rtol=1e-9, atol=0)  # lower an array
print(ok)
PY
(cd $W && shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/conventions.log $V2 conventions.py >conventions.out 2>&1)
check "a SciPy of other conventions (cho_factor's C order, zero triangle, lower an array): the layer's as its" \
    sh -c "[ \"\$(cat $W/conventions.out)\" = 8 ] &&
        [ $(count $W/conventions.log -- where=gpu symbol=scipy.linalg.cho_factor) = 4 ] &&
        [ $(count $W/conventions.log -- where=gpu symbol=scipy.linalg.cho_solve) = 4 ]"

# Each way in.  probe.py prints whether np.linalg.solve is wrapped and makes one solve.
cat >$W/probe.py <<'PY'
import sys
import numpy as np
a = np.eye(64) * 2.0 + 0.01
x = np.linalg.solve(a, np.ones(64))
print(hasattr(np.linalg.solve, "_gpushim_original"), "gpushim_hook" in sys.modules, "%.6f" % x.sum())
PY
printf 'import gpushim\nexec(open("probe.py").read())\n' >$W/first.py
# way NAME WANT COMMAND...: the probe's first field is WANT, and a layered solve was logged when WANT is True.
way() {
    name=$1 want=$2
    shift 2
    rm -f $W/way.log
    (cd $W && env GPUSHIM_CUDA_LIBDIR=$SI GPUSHIM_WARMUP=off GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/way.log "$@" \
        >$W/way.out 2>$W/way.err)
    n=$( [ -f $W/way.log ] && count $W/way.log -- symbol=numpy.linalg.solve where=gpu || echo 0)
    [ "$want" = True ] && wantn=1 || wantn=0
    check "$name: the layer is $( [ $want = True ] && echo on || echo off)" \
        sh -c "[ \"\$(cut -d' ' -f1 $W/way.out)\" = $want ] && [ $n = $wantn ] && [ ! -s $W/way.err ]"
}
way "import gpushim first" True env PYTHONPATH=$ROOT/scripts/python $NP2 first.py
way "python -m gpushim" True $V2 -m gpushim --lib $LIB probe.py
way "python -m gpushim from a checkout (no gpushim.pth)" True env PYTHONPATH=$ROOT/scripts/python \
    $NP2 -m gpushim --lib $LIB probe.py
way "gpushim-run" True sh $ROOT/scripts/gpushim-run --lib $LIB $V2 probe.py
way "LD_PRELOAD, the package installed (gpushim.pth)" True env LD_PRELOAD=$LIB $V2 probe.py
way "LD_PRELOAD, GPUSHIM_PYTHON=0" False env LD_PRELOAD=$LIB GPUSHIM_PYTHON=0 $V2 probe.py
# The library preloaded under another name: import gpushim takes it, and loads no second copy beside it (the two
# took each other's BLAS entries for the CPU library's, and called each other until the stack ran out).
cp "$LIB" $W/libgpushim-other.so
way "LD_PRELOAD of a copy under another name, import gpushim first" True env LD_PRELOAD=$W/libgpushim-other.so \
    PYTHONPATH=$ROOT/scripts/python $NP2 first.py
way "import gpushim first, GPUSHIM_PYTHON=0" False env GPUSHIM_PYTHON=0 PYTHONPATH=$ROOT/scripts/python $NP2 first.py
way "LD_PRELOAD, the package not installed" False env LD_PRELOAD=$LIB $NP2 probe.py
way "no library, the package installed" False $V2 probe.py
check "no library: the .pth hook imports nothing" grep -q '^False False ' $W/way.out

# A call the cost model keeps on the CPU (a GPU made slow by the policy) is timed in its original: logged by its
# Python name with the original's seconds, the original's own LAPACK and copy calls not logged (nor offloaded);
# one whose original raises leaves the thread's next calls as they were (the product after it is logged).
cat >$W/kept.policy <<'POL'
dgesv gpu_gflops=0.001 latency_us=1e7
POL
cat >$W/kept.py <<'PY'
import gpushim, numpy as np
a, b = np.random.default_rng(0).standard_normal((600, 600)) + 600 * np.eye(600), np.ones(600)
x = np.linalg.solve(a, b)
assert np.allclose(a @ x, b)
try:
    np.linalg.solve(np.zeros((600, 600)), b)
except np.linalg.LinAlgError:
    print("raised")
np.ones((300, 300)) @ np.ones((300, 300))
PY
(cd $W && shim GPUSHIM_POLICY=$W/kept.policy GPUSHIM_LOG=$W/kept.log $V2 kept.py >$W/kept.out 2>&1)
check "kept on the CPU: the original's result, and its error ($(tr '\n' ' ' <$W/kept.out))" grep -qx raised $W/kept.out
check "kept on the CPU: each call logged by its Python name, timed in its original" sh -c \
    "[ $(count $W/kept.log -- symbol=numpy.linalg.solve where=cpu 'why=cpu faster' 'site=kept.py:3 *') = 1 ] &&
     [ $(count $W/kept.log -- symbol=numpy.linalg.solve where=cpu 'site=kept.py:6 *') = 1 ] &&
     [ \"$($PY tests/logq.py first seconds $W/kept.log -- 'site=kept.py:3 *')\" != 0 ]"
check "kept on the CPU: the originals' own calls not logged" \
    test "$(count $W/kept.log -- 'symbol=*dgesv*')$(count $W/kept.log -- routine=dcopy)" = 00
check "kept on the CPU: the product after the error logged as ever" \
    test "$(count $W/kept.log -- routine=dgemm 'site=kept.py:9 *')" = 1

# The suites of the wrapped functions with the layer on (gpushim.pth), every call forced, as tests/t_pylinalg.sh
# runs them (SciPy's with its BLAS calls on the CPU): NumPy's linalg suite, SciPy's of cho_factor, cho_solve, eigh,
# svd and qr (test_decomp), lu_factor, lu_solve, and inv, solve and lstsq (test_basic).
# suite NAME MODULES...
suite() {
    name=$1
    shift
    (cd $W && $NP2 -m pytest -q -rf -p no:cacheprovider --pyargs "$@" >$name.ref 2>&1) &
    (cd $W && shim GPUSHIM_OFFLOAD=always GPUSHIM_POLICY=$ROOT/tests/blas-off.policy GPUSHIM_LOG=$W/$name.log \
        $V2 -m pytest -q -rf -p no:cacheprovider --pyargs "$@" >$name.out 2>&1)
    wait
    $PY tests/py/new_failures.py $W/$name.ref $W/$name.out >$W/$name.cmp
    sed -n 's/^new //p' $W/$name.cmp >$W/$name.new
    check "$name: the suite ran with the layer on ($(grep -E '[0-9]+ passed' $W/$name.out | tail -n 1))" \
        grep -qE '[0-9]+ passed' $W/$name.out
    check "$name: no test fails that passes without the layer" test ! -s $W/$name.new
    sed "s/^/    new in $name: /" $W/$name.new
    n=$(count $W/$name.log -- 'symbol=*.linalg.*' where=gpu)
    check "$name: calls through the layer on the GPU path ($n)" test "$n" -gt 0
}
suite numpy numpy.linalg
suite scipy scipy.linalg.tests.test_decomp_cholesky scipy.linalg.tests.test_decomp scipy.linalg.tests.test_decomp_lu \
    scipy.linalg.tests.test_basic
for f in cho_factor cho_solve lu_factor lu_solve eigh inv solve svd qr lstsq; do
    n=$(count $W/scipy.log -- where=gpu symbol=scipy.linalg.$f)
    check "scipy: SciPy's tests call scipy.linalg.$f through the layer on the GPU path ($n)" test "$n" -gt 0
done
check "no stand-in violation" test "$(standin violations)" = 0
finish
