# The residency cache (src/memory/cache.c, src/memory/wp.c): operands used again are found on the device, and never when the
# host memory behind them changed.  tests/progs/hazards.c and tests/py/cache_numpy.py change cached operands
# in every way the cache must notice; their results must equal a run without the shim, and the log must show
# a cache hit exactly where the operand was unchanged.
. "$(dirname "$0")/lib.sh"
# hits LOG: the cache hits of the GPU calls of LOG, in order, as one string of digits.
hits() { $PY -c 'import json, sys
print("".join(str(r["cache_hits"]) for r in map(json.loads, open(sys.argv[1])) if r.get("where") == "gpu"))' "$1"; }

P=$T/hazards
$P $W/ref.bin
# Expected hits, one a GPU call (the forked child's two calls run on the CPU): used again (3 and a gemv; an
# input is cached on its second use, so the first hit is the third call);
# written by C code, used again; another thread, gemv; pread, read, readv, recv; before fork; the parent after
# the child wrote its own copy; the parent written; after the program's SIGSEGV handler; written; C = A B;
# D = C E finds C; D after C was written; a matrix sharing its edge pages used again (3), written beside it,
# its first element written, used again, its last element written; the MAP_SHARED file and the POSIX shared
# memory, three calls each, never cached.
expect=001101010000110101100011010000000
for seed in 1 2; do
    standin_reset
    shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/h$seed.log GS_STANDIN_SEED=$seed $P $W/h$seed.bin 2>$W/h$seed.err
    check "hazards, seed $seed: results equal, parent and forked child" \
        sh -c "$T/blas_cmp $W/ref.bin $W/h$seed.bin && $T/blas_cmp $W/ref.bin.child $W/h$seed.bin.child"
    check "hazards, seed $seed: a hit exactly where the operand was unchanged" test "$(hits $W/h$seed.log)" = $expect
    check "hazards, seed $seed: no bad pointer, nothing left queued, nothing on stderr" \
        sh -c "[ $(standin violations)/$(standin unfinished) = 0/0 ] && [ ! -s $W/h$seed.err ]"
done
check "hazards: D = C E uploaded only E (C, the result of the call before, was on the device)" \
    test "$(logsum bytes_h2d $W/h1.log -- where=gpu k=4 cache_hits=1)" = 128
check "hazards: the exit record counts the bytes saved" \
    test "$($PY tests/logq.py exit bytes_saved $W/h1.log)" = "$(logsum bytes_saved $W/h1.log)"

shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/off.log GPUSHIM_CACHE=0 $P $W/off.bin
check "GPUSHIM_CACHE=0: results equal, no hit" \
    sh -c "$T/blas_cmp $W/ref.bin $W/off.bin && [ $(logsum cache_hits $W/off.log) = 0 ]"
shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/none.log GPUSHIM_CACHE_MAX=0 $P $W/none.bin
check "GPUSHIM_CACHE_MAX=0: results equal, no hit" \
    sh -c "$T/blas_cmp $W/ref.bin $W/none.bin && [ $(logsum cache_hits $W/none.log) = 0 ]"
shim GPUSHIM_OFFLOAD=always GPUSHIM_SUMMARY=1 $P $W/sum.bin 2>$W/sum.err
check "GPUSHIM_SUMMARY=1: the table counts the megabytes saved, in a column and in total" \
    sh -c "grep -q 'MB saved' $W/sum.err && grep -Eq '^gpushim: dgemm +31 +31 .* [1-9][0-9.]* +100%$' $W/sum.err &&
        grep -Eq '^gpushim: [1-9][0-9.]* MB of copies to the GPU saved by the residency cache$' $W/sum.err"
shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/small.log GPUSHIM_CACHE_MAX=3M $P $W/small.bin
check "GPUSHIM_CACHE_MAX=3M: results equal, still hits (one 2 MiB entry at a time)" \
    sh -c "$T/blas_cmp $W/ref.bin $W/small.bin && [ $(logsum cache_hits $W/small.log) -gt 0 ]"
standin_reset
shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/tight.log GS_STANDIN_MEM=5000000 $P $W/tight.bin
check "5 MB of device memory: entries give way to the calls' own memory, results equal" \
    sh -c "$T/blas_cmp $W/ref.bin $W/tight.bin && [ $(count $W/tight.log -- where=gpu) = 33 ] &&
        [ $(standin violations) = 0 ]"

# GPU failures with cached operands: a call that fails runs on the CPU; entries it may have changed are dropped,
# the others stay right.  The failures: the second product (a hit), D = C E (C a hit), the first gemv, an
# upload, and the waits for downloads in two calls.
for f in cublasDgemm_v2_64:2 cublasDgemm_v2_64:19 cublasDgemv_v2_64:1 cudaMemcpy2DAsync:3 \
    cudaEventSynchronize:9 cudaEventSynchronize:20; do
    standin_reset
    rm -f $W/fail.log
    shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/fail.log GS_STANDIN_FAIL=$f $P $W/fail.bin 2>/dev/null
    check "GPU failure at $f: results equal, the call fell back, later hits still made" \
        sh -c "$T/blas_cmp $W/ref.bin $W/fail.bin && [ $(count $W/fail.log -- 'why=gpu error*') = 1 ] &&
            [ $(logsum cache_hits $W/fail.log) -gt 3 ] && [ $(standin violations) = 0 ]"
done

# Operands freed, reallocated, unmapped, mapped over, madvised and remapped (the hazards of registration too).
$T/reuse $W/reuse.ref
shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/reuse.log $T/reuse $W/reuse.bin
check "reuse: results equal, operands used again found on the device" \
    sh -c "$T/blas_cmp $W/reuse.ref $W/reuse.bin && [ $(logsum cache_hits $W/reuse.log) -gt 0 ]"
# With another library's free ahead of the shim's, frees never reach its hooks: the page tables alone must
# show that the memory changed hands.
env LD_PRELOAD="$T/libotherfree.so $LIB" GPUSHIM_CUDA_LIBDIR="$SI" GPUSHIM_OFFLOAD=always \
    GPUSHIM_LOG=$W/other.log $T/reuse $W/other.bin
check "reuse, the shim's free hook bypassed: results equal, hits still made" \
    sh -c "$T/blas_cmp $W/reuse.ref $W/other.bin && [ $(logsum cache_hits $W/other.log) -gt 0 ]"

# Resting (cache.c, GS_CACHE_REST): a 32 MiB array transformed in place, changed by the CPU before each of the
# first 3 executes.  Its entry is made at the first, found stale at the second and third and dropped; the array
# is then copied untracked for 16 executes (4 to 19), tracked again from the 20th, and found on the device from
# the 21st.  Without resting, executes 4 to 25 would all hit; tracking a large array the program rewrites costs
# as much as copying it.
$T/fft_steps 25 3 >$W/steps.plain
shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/steps.log $T/fft_steps 25 3 >$W/steps.shim
check "resting: results equal (sums of squares within 1e-9)" $PY -c "
import sys
a = [float(l.split()[2]) for l in open('$W/steps.plain')]
b = [float(l.split()[2]) for l in open('$W/steps.shim')]
sys.exit(not (len(a) == len(b) == 25 and all(abs(x - y) <= 1e-9 * abs(x) for x, y in zip(a, b))))"
check "resting: the array rests after two stale uses, and is found on the device again from the 21st execute" $PY -c "
import json, sys
h = [json.loads(l)['cache_hits'] for l in open('$W/steps.log') if '\"routine\"' in l]
sys.exit(not (len(h) == 25 and sum(h[:20]) == 0 and h[20:] == [1] * 5))"

# Origins (cache.c, GS_CACHE_ORIGINS): through the Python layer's FFTs, fftn's results multiplied in place before
# ifftn reads them, 4 steps, then 24 steps that pass them to ifftn unchanged.  The first two rewritten results make
# fftn's outputs stop being kept (the program's writes to them took a fault a page); the 13 chained steps after
# the 3rd and 4th miss, the 16th since is kept again and found, and from then on every one is.
NP2=$ROOT/build/venv-np2/bin/python
if have "build/venv-np2 (NumPy 2.x)" $NP2 -c 'import numpy'; then
    shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/origins.log env PYTHONPATH=$ROOT/scripts/python \
        $NP2 tests/py/cache_origins.py $W/origins.log >$W/origins.out 2>$W/origins.err
    check "origins: results rewritten by the program stop being kept, and are kept again once one is used" \
        test "$(cat $W/origins.out)" = 000000000000011111111111
fi

# NumPy as scientists write it (Debian's NumPy, cblas_dgemm and cblas_dgemv).
/usr/bin/python3 tests/py/cache_numpy.py $W/py.ref.npz
shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/py.log /usr/bin/python3 tests/py/cache_numpy.py $W/py.npz 2>$W/py.err
check "numpy: results equal, nothing on stderr" sh -c "/usr/bin/python3 tests/py/compare.py $W/py.ref.npz $W/py.npz && [ ! -s $W/py.err ]"
check "numpy: hits where arrays were used unchanged, results of products used again" \
    test "$(logsum cache_hits $W/py.log)" -ge 8
finish
