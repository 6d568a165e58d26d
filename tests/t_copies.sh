# The Level-1 copies (?copy, every precision, Fortran and CBLAS): bit for bit BLAS's copy under the shim, the
# large strided ones split across threads, the others left to the CPU library, the pages ahead of a run of
# gathers faulted in; and numpy.linalg's copies around LAPACK among them.
. "$(dirname "$0")/lib.sh"

check "copies: the program's reference agrees with the CPU library" sh -c "$T/copies >$W/ref.out"
for mode in auto always; do
    shim GPUSHIM_OFFLOAD=$mode GPUSHIM_LOG=$W/$mode.log $T/copies >$W/$mode.out 2>$W/$mode.err
    check "copies, $mode: every case equals BLAS's copy, in threads and forked children" \
        grep -q "every case equals" $W/$mode.out
    check "copies, $mode: the large strided ones split, in all four precisions and both conventions" \
        sh -c "for r in scopy dcopy ccopy zcopy; do for s in '*copy_' 'cblas_*'; do
                   [ \$($PY $ROOT/tests/logq.py count $W/$mode.log -- routine=\$r \"symbol=\$s\" 'why=strided copy in *') \
                     -gt 0 ] || exit 1; done; done"
done
check "copies: every call logged, on the CPU" \
    test "$(count $W/auto.log -- where=cpu)" = "$(count $W/auto.log)"
# Split are the gathers, scatters and strided pairs, n >= 2048; a call made while another thread's copy holds
# the threads runs in the CPU library.
check "copies: small, contiguous, overlapping and zero-increment ones never split" \
    sh -c "for d in n=100 n=1500 n=2000; do
               [ \$($PY $ROOT/tests/logq.py count $W/auto.log -- \$d 'why=strided*') = 0 ] || exit 1; done"
shim GPUSHIM_COPY_THREADS=1 GPUSHIM_LOG=$W/one.log $T/copies >$W/one.out
check "copies, GPUSHIM_COPY_THREADS=1: equal, and every call the CPU library's" \
    sh -c "grep -q 'every case equals' $W/one.out && [ $(count $W/one.log -- 'why=strided*') = 0 ]"

# The pages after a run of gathers are faulted in ahead of them in private memory, never in shared memory, and
# keep their contents; without the shim (the control) nothing faults them in.
$T/prefault >$W/prefault.ref
shim $T/prefault --expect >$W/prefault.out
check "prefault: the control, without the shim, has no page ahead resident" \
    sh -c "[ \$(grep -c 'resident 0 of 256, contents unchanged yes, results equal yes' $W/prefault.ref) = 2 ]"
# (a kernel without PROCMAP_QUERY, before Linux 6.11, gets no prefaulting: then none in either)
ahead=256
grep -q 'PROCMAP_QUERY yes' $W/prefault.out || ahead=0
check "prefault: $ahead pages ahead of the gathers faulted in in private memory ($(sed -n 2p $W/prefault.out))" \
    grep -q "private: pages ahead resident $ahead of 256, contents unchanged yes, results equal yes" $W/prefault.out
check "prefault: none in shared memory ($(sed -n 3p $W/prefault.out))" \
    grep -q 'shared: pages ahead resident 0 of 256, contents unchanged yes, results equal yes' $W/prefault.out

# numpy.linalg copies A and B into Fortran order with one ?copy per column, and X back.
cat >$W/solve.py <<'PYEOF'
import sys
import numpy as np
rng = np.random.default_rng(5)
for dt in (np.float32, np.float64, np.complex64, np.complex128):
    a = rng.standard_normal((2500, 2500)).astype(dt)
    b = rng.standard_normal((2500, 3)).astype(dt)
    if np.iscomplexobj(a):
        a = a + 1j * rng.standard_normal(a.shape).astype(a.real.dtype)
    sys.stdout.buffer.write(np.linalg.solve(a, b).tobytes())
PYEOF
NP=$ROOT/build/venv-np2/bin/python
$NP $W/solve.py >$W/solve.ref
shim GPUSHIM_OFFLOAD=never GPUSHIM_LOG=$W/np.log $NP $W/solve.py >$W/solve.out
check "numpy.linalg.solve, 4 precisions: bit for bit the same results" cmp -s $W/solve.ref $W/solve.out
# numpy.linalg computes single precision in double: float32 and float64 both make dcopy calls.
check "numpy.linalg.solve: its copies interposed, the gathers of A split (2500 per matrix)" \
    sh -c "for r in dcopy zcopy; do
               [ \$($PY $ROOT/tests/logq.py count $W/np.log -- routine=\$r 'why=strided copy*') -ge 5000 ] || exit 1
           done"
finish
