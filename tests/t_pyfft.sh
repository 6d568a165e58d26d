# The Python layer's FFTs (scripts/python/gpushim/_fft.py, the C entry gpushim_fft): a random sample of numpy.fft's
# wrapped functions, and of scipy.fft's through gpushim's backend (hfft2, hfftn, ihfft2 and ihfftn too), over
# shapes, axes, n and s, norms, dtypes, layouts and out against the originals, forced onto the GPU path and by
# default (tests/py/pyfft.py: results within FFT rounding, bit for bit where the library leaves the call to NumPy
# or SciPy; dtype, shape and strides the original's; inputs unchanged; errors the original's); a wrong factor fails
# the sample; the log names the calls by their Python names, with the program's line as the site, those the
# cost model kept on the CPU too, timed in the original;
# GPUSHIM_PYTHON=0 gives no layer; NumPy's and SciPy's fft suites, and scipy.signal's tests of fftconvolve and
# oaconvolve, with the layer on and every call forced pass as without it.  PYFFT_SEED (default 49) and
# PYFFT_COUNT (default 800) choose another sample.
. "$(dirname "$0")/lib.sh"
NP2=$ROOT/build/venv-np2/bin/python
have "build/venv-np2 (NumPy 2.x, pytest)" $NP2 -c 'import numpy, pytest' || { finish; exit 1; }
SEED=${PYFFT_SEED:-49}
N=${PYFFT_COUNT:-800}

# The layer through `import gpushim` (tests/t_pylayer.sh tests every way in): pyfft.py imports it, and so does
# this command before pytest.
PYP="env PYTHONPATH=$ROOT/scripts/python"
PYTEST="$NP2 -c 'import gpushim, sys, pytest; sys.exit(pytest.main(sys.argv[1:]))'"

# pyfft MODE NAME [ARGS...]: the sample under GPUSHIM_OFFLOAD=MODE, into $W/NAME.{out,err,log}.
pyfft() {
    mode=$1 name=$2
    shift 2
    standin_reset
    (cd $W && shim GPUSHIM_OFFLOAD=$mode GPUSHIM_LOG=$W/$name.log $PYP $NP2 $ROOT/tests/py/pyfft.py $SEED $N "$@" \
        >$W/$name.out 2>$W/$name.err)
}
for mode in always auto; do
    pyfft $mode $mode
    check "$mode: every case as the original's ($(tail -n 1 $W/$mode.out))" \
        sh -c "grep -q ' 0 differ' $W/$mode.out && [ ! -s $W/$mode.err ]"
    sed -n '/differ$/!s/^/    /p' $W/$mode.out | head -n 5
    check "$mode: no stand-in violation" test "$(standin violations)" = 0
done
# (scipy.fft's hfft2, hfftn, ihfft2 and ihfftn, which numpy.fft has not)
for m in numpy scipy; do
    for f in fft ifft rfft irfft hfft ihfft fftn ifftn rfftn irfftn fft2 ifft2 rfft2 irfft2 hfft2 hfftn ihfft2 ihfftn
    do
        [ $m = numpy ] && case $f in *hfft2 | *hfftn) continue ;; esac
        check "forced: $m.fft.$f on the GPU, by its Python name, the program's line its site" \
            sh -c "[ $(count $W/always.log -- where=gpu symbol=$m.fft.$f 'site=pyfft.py:*') -gt 0 ] &&
                [ $(count $W/always.log -- symbol=$m.fft.$f 'site=*_fft*') = 0 ]"
    done
done
check "a call the library does not do is not logged by its Python name, unless the model kept it on the CPU" \
    test "$(count $W/always.log -- 'symbol=*.fft.*' where=cpu)/$($PY tests/logq.py values why $W/auto.log -- \
        'symbol=*.fft.*' where=cpu | grep -cvx 'cpu faster')" = 0/0
# A transform the cost model keeps on the CPU is timed in NumPy's or SciPy's own function (scipy.fft's through
# SciPy's backend, skipping gpushim's): logged by its Python name, bit for bit the original's result.  The policy
# makes the GPU take 150 ms and the CPU compute 1 GFLOP/s on any threads: 512 transforms of 4096 points
# (126 MFLOP) are kept, though as many points in one transform (220 MFLOP: gpushim_fft_min_points) would not be.
cat >$W/kept.policy <<'POL'
fftw_* threads=0 cpu_gflops=1 gpu_gflops=1e6 link_gbps=1e6 latency_us=150000 setup_us=0
POL
cat >$W/kept.py <<'PY'
import gpushim, numpy as np, scipy.fft
x = np.random.default_rng(1).standard_normal((512, 4096)) + 1j
y, z = np.fft.fft(x), scipy.fft.fft(x, workers=2)
with scipy.fft.set_backend("scipy", only=True):
    print(np.array_equal(y, np.fft.fft._gpushim_original(x)), np.array_equal(z, scipy.fft.fft(x, workers=2)))
PY
(cd $W && shim GPUSHIM_POLICY=$W/kept.policy GPUSHIM_LOG=$W/kept.log $PYP $NP2 kept.py >$W/kept.out 2>&1)
check "kept on the CPU: the originals' results ($(tr '\n' ' ' <$W/kept.out))" grep -qx "True True" $W/kept.out
check "kept on the CPU: each transform logged by its Python name, timed in the original" sh -c \
    "[ $(count $W/kept.log -- symbol=numpy.fft.fft where=cpu 'why=cpu faster' 'site=kept.py:3 *') = 1 ] &&
     [ $(count $W/kept.log -- symbol=scipy.fft.fft where=cpu 'why=cpu faster' 'site=kept.py:3 *') = 1 ]"
# The rates weigh the CPU's side on the original's threads before any call: a scipy.fft transform they keep on the
# CPU for its workers goes to SciPy's own at once, neither weighed nor logged (rfft2 of 1024^2 on 16 workers took
# 1.07 ms in SciPy and 1.80 through the H200, bench/RESULTS.md 2026-12-07); on one worker the library takes it.
printf '%s\n' 'import gpushim, numpy as np, scipy.fft' 'x = np.ones((1024, 1024))' 'for w in (16, 1):' \
    '    scipy.fft.rfft2(x, workers=w)' >$W/workers.py
(cd $W && shim GPUSHIM_LOG=$W/workers.log $PYP $NP2 workers.py >$W/workers.out 2>&1)
n16=$(count $W/workers.log -- symbol=scipy.fft.rfft2 threads=16)
check "scipy.fft's rfft2 of 1024^2: on 16 workers SciPy's own, unweighed; on 1 the library's" \
    test "$n16/$(count $W/workers.log -- symbol=scipy.fft.rfft2 threads=1)" = 0/1
# Transforms that the GPU's bring-up keeps on the CPU (not begun, then under way: 300 ms on the stand-in) are
# timed in the original too: the log has every call, by its Python name.
printf 'fftw_* cpu_gflops=1 gpu_gflops=1000 link_gbps=10 bringup_us=300000 first_us=0\n' >$W/up.policy
printf '%s\n' 'import gpushim, numpy as np, scipy.fft' 'x = np.ones((512, 1024), "D")' \
    'for i in range(20):' '    scipy.fft.fft(x, workers=2)' >$W/up.py
(cd $W && shim GPUSHIM_WARMUP=auto GS_STANDIN_UP_MS=300 GPUSHIM_POLICY=$W/up.policy GPUSHIM_LOG=$W/up.log $PYP $NP2 \
    up.py >$W/up.out 2>&1)
check "the bring-up's calls: each of the 20 logged by its Python name, some before the bring-up, some during it" \
    sh -c "[ $(count $W/up.log -- symbol=scipy.fft.fft) = 20 ] && [ $(count $W/up.log -- 'why=gpu not started*') -ge 1 ] &&
        [ $(count $W/up.log -- symbol=scipy.fft.fft 'why=gpu starting*') -ge 1 ]"
# A call that the bring-up keeps on the CPU is kept before the library makes the transform's input from the
# caller's (here the reals cast to complex): the input, none of whose pages may be read, is never touched (a kept
# numpy.fft.fft of 2^20 reals cost 20% more than NumPy's, its cast made first; bench/RESULTS.md 2026-12-07).
printf 'fftw_* cpu_gflops=1 gpu_gflops=1000 link_gbps=10 bringup_us=1e12 first_us=0\n' >$W/never.policy
cat >$W/unread.py <<'PY'
import gpushim, mmap, numpy as np
from gpushim import _fft
run = _fft._run(_fft._entry())
x = np.frombuffer(mmap.mmap(-1, 8 << 20, prot=0), np.float64)
job = _fft._one("fft")(x)
print(job is not None and job[2] is not None, run(b"numpy.fft.fft", job) is NotImplemented)
PY
(cd $W && shim GPUSHIM_WARMUP=auto GPUSHIM_POLICY=$W/never.policy $PYP $NP2 unread.py >$W/unread.out 2>&1)
check "kept by the bring-up: the input the library would cast for the GPU never read ($(tail -c 80 $W/unread.out))" \
    grep -qx "True True" $W/unread.out
cat >$W/big.py <<'PY'
import gpushim
import numpy as np
import scipy.fft
for i in range(3):
    np.fft.fft2(np.ones((2048, 2048), "D"))
scipy.fft.fft2(np.ones((2048, 2048), "D"), workers=2)
PY
(cd $W && shim GPUSHIM_LOG=$W/big.log $PYP $NP2 big.py >$W/big.out 2>&1)
check "by default: a 2048 x 2048 fft2 on the GPU by the policy, as numpy.fft.fft2" \
    test "$(count $W/big.log -- symbol=numpy.fft.fft2 where=gpu)" = 3
# The policy weighs the CPU's time on the threads the original computes on: numpy.fft's one, SciPy's workers.
check "the policy told the original's threads: numpy.fft's 1, scipy.fft's workers" \
    test "$(count $W/big.log -- symbol=numpy.fft.fft2 threads=1)/$(count $W/big.log -- symbol=scipy.fft.fft2 threads=2)" = 3/1
# A cuFFT plan's creation is laid on the first calls of a shape, a falling share as it recurs (as over an FFTW
# plan's executes): a transform of 131072 points, which on the CPU takes less than the plan's creation and more than
# the GPU without it, stays on the CPU the first time and goes to the GPU from the second call on.
cat >$W/plans.py <<'PY'
import gpushim
import numpy as np
x = np.ones(131072, "D")
for i in range(6):
    np.fft.fft(x)
PY
(cd $W && shim GPUSHIM_WARMUP=off GPUSHIM_LOG=$W/plans.log $PYP $NP2 plans.py >$W/plans.out 2>&1)
check "a shape's first call bears its cuFFT plan: the first of 6 on the CPU, the next 5 on the GPU" \
    test "$(count $W/plans.log -- symbol=numpy.fft.fft where=gpu)" = 5
pyfft always corrupt --corrupt
d=$(sed -n 's/.* \([0-9]*\) differ$/\1/p' $W/corrupt.out)
g=$(count $W/corrupt.log -- where=gpu 'symbol=*.fft.*')
check "a factor a thousandth off fails every case the library did ($d differ, $g transforms on the GPU)" \
    sh -c "[ '$d' = '$g' ] && [ '$g' -gt $((N / 3)) ]"

# Batched transforms split across two devices (the stand-in pretending to be 2), each part's output scaled.
cat >$W/split.py <<'PY'
import gpushim
import numpy as np
a = np.random.default_rng(3).standard_normal((512, 8192)) + 1j
for f, x, kw in ((np.fft.fft, a, {"norm": "ortho"}), (np.fft.rfft, a.real.copy(), {"norm": "forward"}),
                 (np.fft.ihfft, a.real.copy(), {}), (np.fft.fft, np.asfortranarray(a), {"axis": 0, "norm": "forward"})):
    r, o = f(x, **kw), f._gpushim_original(x, **kw)
    print(f.__name__, r.strides == o.strides and np.linalg.norm(r - o) / np.linalg.norm(o) < 1e-13)
PY
(cd $W && shim GPUSHIM_OFFLOAD=always GS_STANDIN_DEVICES=2 GPUSHIM_DEVICES=0,1 GPUSHIM_LOG=$W/split.log $PYP $NP2 \
    split.py >$W/split.out 2>&1)
check "two devices: batched transforms split, each part scaled, as NumPy's ($(grep -c True $W/split.out) of 4)" \
    sh -c "[ \$(grep -c True $W/split.out) = 4 ] && [ $(count $W/split.log -- 'symbol=numpy.fft.*' devices=2) = 4 ]"

cat >$W/probe.py <<'PY'
import gpushim
import numpy as np
try:
    import scipy.fft
except ImportError:  # build/venv-np1: NumPy 1.26 alone
    pass
from gpushim import _fft
print(hasattr(np.fft.fft, "_gpushim_original"), _fft.Backend.run is not None)
PY
for off in 1 0; do
    (cd $W && shim GPUSHIM_PYTHON=$off $PYP $NP2 probe.py >$W/probe.$off 2>&1)
done
(cd $W && shim $PYP $ROOT/build/venv-np1/bin/python probe.py >$W/probe.np1 2>&1)
check "import gpushim: numpy.fft wrapped, scipy.fft's backend set; not with GPUSHIM_PYTHON=0, nor NumPy 1.26's" \
    sh -c "[ \"\$(cat $W/probe.1)\" = 'True True' ] && [ \"\$(cat $W/probe.0)\" = 'False False' ] &&
        [ \"\$(cat $W/probe.np1)\" = 'False False' ]"

# The suites with the layer on, every call forced, against the suites without the library: NumPy's and SciPy's
# fft suites, and scipy.signal's tests of fftconvolve and oaconvolve, which call scipy.fft.
# suite NAME PYTEST-ARGS...
suite() {
    name=$1
    shift
    (cd $W && $NP2 -m pytest -q -rf -p no:cacheprovider "$@" >$name.ref 2>&1) &
    (cd $W && eval shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/$name.log $PYP $PYTEST -q -rf -p no:cacheprovider \
        '"$@"' >$name.out 2>&1)
    wait
    $PY tests/py/new_failures.py $W/$name.ref $W/$name.out tests/py/fft_known.txt >$W/$name.cmp
    sed -n 's/^new //p' $W/$name.cmp >$W/$name.new
    check "$name: the suite ran with the layer on ($(grep -E '[0-9]+ passed' $W/$name.out | tail -n 1))" \
        grep -qE '[0-9]+ passed' $W/$name.out
    check "$name: no test fails that passes without the layer, but those in tests/py/fft_known.txt" \
        test ! -s $W/$name.new
    sed "s/^/    new in $name: /" $W/$name.new
    sed -n "s/^known /    known, failed in $name: /p" $W/$name.cmp
    n=$(count $W/$name.log -- 'symbol=*.fft.*' where=gpu)
    check "$name: calls through the layer on the GPU path ($n)" test "$n" -gt 100
}
suite numpy.fft --pyargs numpy.fft
suite scipy.fft --pyargs scipy.fft
suite signal --pyargs scipy.signal.tests.test_signaltools -k "fftconvolve or oaconvolve"
check "no stand-in violation" test "$(standin violations)" = 0
finish
