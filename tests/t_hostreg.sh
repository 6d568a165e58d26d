# Registration of operands used again (src/memory/hostreg.c): made on the second use of a large buffer, and dropped
# before free, realloc, munmap, mmap over it, madvise(DONTNEED) or mremap hand its addresses other pages.
# The residency cache is off here (an operand found on the device needs no copy, hence no registration);
# tests/t_cache.sh runs the same program with it.
. "$(dirname "$0")/lib.sh"
export GPUSHIM_CACHE=0
P=$T/reuse
$P $W/ref.bin
standin_reset
shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/reuse.log $P $W/gpu.bin
check "results equal, every step on the GPU" \
    sh -c "$T/blas_cmp $W/ref.bin $W/gpu.bin && [ $(count $W/reuse.log -- where=gpu) = 23 ]"
check "no bad pointer, nothing left queued" test "$(standin violations)/$(standin unfinished)" = 0/0
# tests/progs/reuse.c registers C, the first A, the A after free, after realloc, after reallocarray, the
# mapping, the mapping again after munmap, after mmap over it, after madvise, the second mapping, and the
# remapped one: 11, of which C, the last A and the last mapping are still registered at exit.  A hook that failed
# to drop a registration would leave more alive, and make the next registration at that address fail.
check "registered on the second use, dropped when the memory changed hands (11 made, 3 alive at exit)" \
    test "$(standin registers)/$(standin registered_live)" = 11/3
standin_reset
shim GPUSHIM_OFFLOAD=always GPUSHIM_REGISTERED=40M $P $W/small.bin
check "GPUSHIM_REGISTERED=40M: results equal, at most one 32 MiB buffer registered at exit" \
    sh -c "$T/blas_cmp $W/ref.bin $W/small.bin && [ $(standin registers) -gt 0 ] && [ $(standin registered_live) -le 1 ]"
standin_reset
env LD_PRELOAD="$T/libotherfree.so $LIB" GPUSHIM_CUDA_LIBDIR="$SI" GS_STANDIN_REPORT="$REPORT" GPUSHIM_OFFLOAD=always \
    $P $W/other.bin
check "another free ahead of the shim's: nothing registered, results equal" \
    sh -c "$T/blas_cmp $W/ref.bin $W/other.bin && [ $(standin registers) = 0 ]"
standin_reset
shim GPUSHIM_OFFLOAD=always GPUSHIM_REGISTERED=0 $P $W/none.bin
check "GPUSHIM_REGISTERED=0: nothing registered, results equal" \
    sh -c "$T/blas_cmp $W/ref.bin $W/none.bin && [ $(standin registers) = 0 ]"
finish
