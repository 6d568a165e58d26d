# The tiled GEMM and the transfer engine through the stand-in, whose streams run in any order the events
# allow (chosen by GS_STANDIN_SEED), so that a missing dependency gives wrong results: GEMM in many tiles and
# slices of k, out of core under a device-memory cap, and the bounds on pinned memory.
. "$(dirname "$0")/lib.sh"
P=$T/blas_all_plain
$P $W/ref.bin >/dev/null

# run NAME VAR=VALUE...: forced offload; sets $log.
run() {
    name=$1
    shift
    file=$W/$(echo "$name" | tr ' ,' '__')
    standin_reset
    log=$file.log
    shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG="$log" "$@" $P "$file.bin" >/dev/null
    check "$name: results equal" $T/blas_cmp $W/ref.bin "$file.bin"
    check "$name: no bad pointer, nothing left queued" \
        test "$(standin violations)/$(standin unfinished)" = 0/0
}

for seed in 1 2 3; do
    run "tiles of 8, seed $seed" GPUSHIM_TILE=8 GS_STANDIN_SEED=$seed
    check "tiles of 8, seed $seed: every copy staged through pinned memory, allocated once" \
        test "$(standin pageable_copies)/$(standin pinned_allocs)" = 0/1
done
check "tiles of 8: the k = 300 products ran in slices" \
    test "$(count "$log" -- routine=dgemm m=20 n=17 k=300 where=gpu)" -gt 0
run whole
whole=$(logsum bytes_h2d "$log" -- routine=dgemm m=20 n=17 k=300)

run "out of core" GPUSHIM_DEVICE_MEMORY=20k GPUSHIM_TILE=8 GS_STANDIN_SEED=4
check "out of core: blocks of A and B copied more than once" \
    test "$(logsum bytes_h2d "$log" -- routine=dgemm m=20 n=17 k=300 where=gpu)" -gt "$whole"
# (with beta != 0 out of core, a failure part-way would leave C half written: those run on the CPU)
check "out of core: GEMM with beta != 0 on the CPU, with the reason" \
    test "$(count "$log" -- routine=?gemm "why=gpu: C does not fit beside A and B, and beta != 0*")" -gt 0
run "device memory below any tile" GPUSHIM_DEVICE_MEMORY=100
check "device memory below any tile: GEMM fell back with the reason" \
    test "$(count "$log" -- routine=dgemm "why=gpu: even 16 x 16 tiles need more than*")" -gt 0

run "pinned 1M" GPUSHIM_PINNED=1M GS_STANDIN_SEED=5
check "pinned 1M: pinned memory held stays within GPUSHIM_PINNED" test "$(standin pinned_max)" -le 1000000
run "one copy thread" GPUSHIM_COPY_THREADS=1 GPUSHIM_TILE=8
finish
