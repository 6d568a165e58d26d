# Every interposed routine in every spelling, compared with the program run without the shim: on the CPU
# path (GPUSHIM_OFFLOAD=never) and on the GPU path through the stand-in (always), plus argument errors.
. "$(dirname "$0")/lib.sh"

for s in plain ilp64 scipy scipy64; do
    P=$T/blas_all_$s
    $P $W/ref_$s.bin >/dev/null || bad "$s: reference run"

    shim GPUSHIM_OFFLOAD=never GPUSHIM_LOG=$W/never_$s.log $P $W/never_$s.bin >/dev/null
    check "$s never: results equal" $T/blas_cmp $W/ref_$s.bin $W/never_$s.bin
    check "$s never: nothing on the GPU, every call logged" \
        test "$(count $W/never_$s.log -- where=gpu)" = 0 -a "$(count $W/never_$s.log -- why=offload=never)" -gt 7000

    standin_reset
    shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/always_$s.log $P $W/always_$s.bin >$W/always_$s.out
    eligible=$(sed -n 's/gpu_eligible=//p' $W/always_$s.out)
    check "$s always: results equal" $T/blas_cmp $W/ref_$s.bin $W/always_$s.bin
    check "$s always: all $eligible eligible calls on the GPU" test "$(count $W/always_$s.log -- where=gpu)" = "$eligible"
    check "$s always: the rest stayed on the CPU as trivial, CPU-only or not for cuBLAS" \
        test "$(count $W/always_$s.log -- where=cpu)" = "$(($(count $W/always_$s.log -- why=trivial) +
            $(count $W/always_$s.log -- "why=cpu only") +
            $(count $W/always_$s.log -- "why=row-major conjugate transpose")))"
    check "$s always: symbols logged in this spelling" test "$(count $W/always_$s.log -- "symbol=$(
        case $s in plain) echo dgemm_ ;; ilp64) echo cblas_dgemm64_ ;; scipy) echo scipy_dtrsm_ ;;
        scipy64) echo scipy_cblas_zher2k64_ ;; esac)")" -gt 0
    check "$s always: stand-in saw no bad pointer or scalar" test "$(standin violations)" = 0
    check "$s always: bytes in the log = bytes the stand-in moved" \
        test "$(logsum bytes_h2d $W/always_$s.log)/$(logsum bytes_d2h $W/always_$s.log)" = \
        "$(standin h2d_bytes)/$(standin d2h_bytes)"

    # Invalid arguments (BLAS, negative sizes, LAPACK): reported by the library's own xerbla, word for word, with
    # LAPACK's INFO, outputs untouched.
    $P --invalid $W/inv_ref_$s.bin >$W/inv_ref_$s.txt 2>&1
    shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/inv_$s.log $P --invalid $W/inv_$s.bin >$W/inv_$s.txt 2>&1
    check "$s invalid arguments: same reports as without the shim" cmp -s $W/inv_ref_$s.txt $W/inv_$s.txt
    check "$s invalid arguments: reports are there" test "$(lines $W/inv_ref_$s.txt 'On entry to|illegal value|parameter')" -ge 14
    check "$s invalid arguments: outputs untouched" $T/blas_cmp $W/inv_ref_$s.bin $W/inv_$s.bin
    # (dgeqrf's workspace of 1 is invalid, and also below the optimum: the reason logged for leaving it to LAPACK)
    check "$s invalid arguments: all logged as such" test "$(count $W/inv_$s.log -- "why=invalid arguments")/$(
        count $W/inv_$s.log -- "why=workspace below*")" = 13/1
done
finish
