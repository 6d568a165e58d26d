# The bounds of gpushim's writes into user memory (src/WRITES.md), on the GPU path through the stand-in: every
# output of the BLAS, LAPACK and FFTW calls that gpushim runs on the GPU lies between guard bands, with canary
# bytes in its padding and data in what the routine leaves alone, and nothing outside its bound changes, during
# the call or after it returned (tests/progs/bounds.c); in every symbol spelling, so that pivots, INFO, ranks and
# counts are written in the caller's integer width; through staging, direct copies, registered memory, tiles,
# parts of a long column, two devices, a batched FFT in parts on one, and a copy back that failed and was made
# again.  The same for the Python layer's C entries, gpushim_linalg and gpushim_fft, called directly
# (tests/progs/bounds_arrays.c): padded and strided outputs with canaries in their gaps, inputs never written, and
# calls not done writing nothing.
. "$(dirname "$0")/lib.sh"

# within NAME: the run's output says every case kept its bounds.
within() { grep -q '^bounds: [0-9]* cases, 0 violations$' $W/$1.out && ! grep -q '^FAIL' $W/$1.out; }
# bounds NAME GROUPS [VAR=VALUE...]: the plain spelling's program forced onto the GPU; output and log in $W.
bounds() {
    name=$1 groups=$2
    shift 2
    standin_reset
    shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/$name.log "$@" $T/bounds_plain $groups >$W/$name.out 2>$W/$name.err
    check "$name: every output within its bound, nothing written after a call returned" within $name
    check "$name: the stand-in saw no bad pointer, left nothing queued" \
        test "$(standin violations)/$(standin unfinished)" = 0/0
}
gpu() { count $W/$1.log -- where=gpu; }
expected() { sed -n 's/^gpu_expected=//p' $W/$1.out; }

for s in plain ilp64 scipy scipy64; do
    standin_reset
    shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/$s.log $T/bounds_$s blas lapack >$W/$s.out 2>$W/$s.err
    check "$s: BLAS and LAPACK outputs, pivots, INFO and workspaces within their bounds, after the call too" \
        within $s
    check "$s: all $(expected $s) calls meant for the GPU ran there" test "$(gpu $s)" = "$(expected $s)"
    check "$s: the stand-in saw no bad pointer, left nothing queued" \
        test "$(standin violations)/$(standin unfinished)" = 0/0
done

# Checks that can fail: a byte past each output written by the program itself fails every case, and a byte changed
# at the end fails every array.
$T/bounds_plain corrupt blas lapack fft large >$W/corrupt.out
cases=$(sed -n 's/^bounds: \([0-9]*\) cases.*/\1/p' $W/corrupt.out)
check "a byte past each output fails each of the $cases cases" \
    test "$(grep 'outside its bound' $W/corrupt.out | cut -d: -f2 | sort -u | wc -l)" = "$cases"
check "a byte changed after the calls fails too" \
    test "$(grep -c 'changed after its call returned' $W/corrupt.out)" -ge "$cases"
# The control: the CPU library keeps the same bounds, a workspace apart (the CPU library's own, which the GPU path
# leaves alone but for its first element, the workspace query's answer).
$T/bounds_plain cpu blas lapack fft large >$W/cpu.out
check "without the shim: the CPU library keeps the same bounds, whole workspaces allowed" within cpu
$T/bounds_plain blas lapack >$W/cpu-work.out
check "without the shim: the CPU library writes past the workspaces' first elements, which the GPU path does not" \
    grep -q '^FAIL: dgeqrf 31 x 24: WORK: ' $W/cpu-work.out

# The Python layer's C entries: every operation of gpushim_linalg in every dtype, gpushim_fft's five on padded,
# strided and transposed outputs, and calls that are not done (a singular matrix, one not positive definite, a
# form the entry does not take, a factor on an output with gaps).
standin_reset
shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/arrays.log $T/bounds_arrays linalg fft >$W/arrays.out 2>$W/arrays.err
check "arrays: gpushim_linalg's and gpushim_fft's outputs within their bounds, inputs and gaps as they were" \
    within arrays
check "arrays: the $(expected arrays) calls meant for the GPU ran there, by their Python names, and no other" \
    sh -c "[ $(gpu arrays) = $(expected arrays) ] && ! grep -q '^note:' $W/arrays.out &&
        [ $(count $W/arrays.log -- where=gpu 'symbol=numpy.linalg.*') -gt 0 ] &&
        [ $(count $W/arrays.log -- where=gpu 'symbol=numpy.fft.*') -gt 0 ]"
check "arrays: the stand-in saw no bad pointer, left nothing queued" \
    test "$(standin violations)/$(standin unfinished)" = 0/0
# The same calls weighed by the cost model with its history and kept on the CPU, the log off, under valgrind's
# memcheck: no error in gpushim's code.  Each such call's record was copied for the original's timing with a
# shape that only a logged call sets: uninitialised, it crashed SciPy's transforms through the layer.  (An error's
# first frame is where it lies: the loader's reads past strings that valgrind reports are not gpushim's.)
printf '*  min_flops=0 link_gbps=0.01 registered_gbps=0.01\n' >$W/cpu-faster.policy
if have valgrind valgrind --version; then
    shim GPUSHIM_POLICY=$W/cpu-faster.policy valgrind -q $T/bounds_arrays linalg fft >$W/arrays-vg.out 2>$W/arrays-vg.err
    check "arrays kept on the CPU by the model: valgrind finds no error in gpushim's code" sh -c "
        grep -q ' 0 violations' $W/arrays-vg.out && grep -q 'done 0, meant 1' $W/arrays-vg.out &&
        ! grep -qE '== +at 0x[0-9A-F]+: (gs_|gpushim_)' $W/arrays-vg.err"
fi
shim GPUSHIM_OFFLOAD=always $T/bounds_arrays corrupt linalg fft >$W/arrays-corrupt.out 2>&1
cases=$(sed -n 's/^bounds: \([0-9]*\) cases.*/\1/p' $W/arrays-corrupt.out)
check "arrays: a byte past each output, or in an array a call may not write, fails each of the $cases cases" \
    test "$(grep 'outside its bound' $W/arrays-corrupt.out | cut -d: -f2 | sort -u | wc -l)" = "$cases"

bounds fft fft
check "fft: all $(expected fft) executes on the GPU, one through the permutation kernels" \
    sh -c "[ $(gpu fft) = $(expected fft) ] && [ $(count $W/fft.log -- where=gpu opts=FP) = 1 ]"
# (calls after the large ones, whose synchronisations would land a copy the large ones left behind)
bounds large "large blas"
check "large: the 70001-float columns and 16.8 MB of C on the GPU, C registered at its second use" \
    sh -c "[ $(gpu large) = $(expected large) ] && [ $(standin registers) = 1 ]"
bounds tiles "blas large" GPUSHIM_TILE=8 GS_STANDIN_SEED=3
check "tiles of 8: every call meant for the GPU ran there" test "$(gpu tiles)" = "$(expected tiles)"
bounds out-of-core "blas large" GPUSHIM_TILE=8 GPUSHIM_DEVICE_MEMORY=20k GS_STANDIN_SEED=4
check "out of core: the large GEMMs (beta = 0) on the GPU, in tiles of 8" \
    test "$(count $W/out-of-core.log -- routine=sgemm where=gpu)/$(
        count $W/out-of-core.log -- routine=dgemm m=1024 where=gpu)" = 1/2
bounds direct "blas lapack large" GPUSHIM_PINNED=0
check "direct copies (no staging): every call meant for the GPU ran there, copying from pageable memory" \
    sh -c "[ $(gpu direct) = $(expected direct) ] && grep -q 'GPUSHIM_PINNED is less than 256 KiB' $W/direct.err"
bounds copy-threads "blas lapack large" GPUSHIM_COPY_THREADS=7
bounds split split GS_STANDIN_DEVICES=2 GPUSHIM_DEVICES=0,1
check "split: the $(expected split) GEMMs and TRSMs split across both devices" \
    test "$(count $W/split.log -- where=gpu devices=2)" = "$(expected split)"
# A library that reports one eigenvalue more than it found: syevr and syevx of every range or of an index range
# go back to the CPU (whose workspaces are its own: cpu), and nothing is written past W or Z; of a value range
# (up to n), the count cannot be checked, and W and Z stay within their n.
bounds miscount "cpu lapack" GS_STANDIN_SYEVDX_EXTRA=1
check "syevdx reporting one eigenvalue too many: syevr and syevx of 'A' and 'I' on the CPU, saying why" \
    test "$(count $W/miscount.log -- "why=gpu error: cuSOLVER's syevdx found *")" = 3
# (the 40th event synchronisation is a download's: its piece is abandoned, the results copied again)
bounds again blas GS_STANDIN_FAIL=cudaEventSynchronize:40
check "a copy back that failed: the results copied again, within the bound" \
    test "$(count $W/again.log -- where=gpu "why=results copied back again after: *")" = 1
finish
