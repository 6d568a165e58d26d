# GPU failures injected into the stand-in: each failed call finishes on the CPU with the CPU's results, the
# reason is logged, the program never crashes, and a device that stops working is given up with one notice.
. "$(dirname "$0")/lib.sh"
P=$T/blas_all_plain
$P $W/ref.bin >$W/ref.out
eligible=$(sed -n 's/gpu_eligible=//p' $W/ref.out)

# fail NAME VAR=VALUE...: forced offload with a fault; sets $log and $err.
fail() {
    name=$1
    shift
    standin_reset
    log=$W/$name.log err=$W/$name.err
    shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$log "$@" $P $W/$name.bin >/dev/null 2>$err
    check "$name: the program finished" test $? = 0
    check "$name: results equal" $T/blas_cmp $W/ref.bin $W/$name.bin
    check "$name: stand-in saw no bad pointer" test "$(standin violations)" = 0
}

fail oom-always GS_STANDIN_FAIL=cudaMalloc
check "oom-always: every eligible call fell back, with the reason" \
    test "$(count $log -- "why=gpu error: cudaMalloc: out of memory (2) at src/backend/cuda_call.c*")" = "$eligible"
check "oom-always: out of memory does not give the GPU up (no notice)" test ! -s $err

fail oom-small GS_STANDIN_MEM=4000
check "oom-small: small calls on the GPU, large ones fell back" \
    sh -c "[ $(count $log -- where=gpu) -gt 0 ] && [ $(count $log -- 'why=gpu: needs * bytes of device memory*') -gt 0 ]"

fail one-gemm GS_STANDIN_FAIL=cublasDgemm_v2_64:3
check "one-gemm: only that call fell back" test "$(count $log -- where=gpu)" = $((eligible - 1))
check "one-gemm: its reason names the cuBLAS call and status" \
    test "$(count $log -- "why=gpu error: cublasDgemm_v2_64: CUBLAS_STATUS_EXECUTION_FAILED (13)*")" = 1

fail trmm-in-place GS_STANDIN_FAIL=cublasStrmm_v2_64
check "trmm-in-place: B untouched by the failed GPU call (the CPU's result is right)" \
    test "$(count $log -- routine=strmm "why=gpu error*")" -gt 0

fail sync GS_STANDIN_FAIL=cudaStreamSynchronize:1
check "sync: a failure after the computation, before any copy back, fell back" \
    test "$(count $log -- "why=gpu error: cudaStreamSynchronize*")" = 1
check "sync: the GPU stays in use" test "$(count $log -- where=gpu)" = $((eligible - 1))

fail lost GS_STANDIN_FAIL=cudaMemcpy2DAsync:5 GS_STANDIN_STICKY=1
check "lost: one notice that the GPU was given up" \
    sh -c "[ \$(wc -l <$err) = 1 ] && grep -q '^gpushim: GPU disabled after an error: gpu error: cudaMemcpy2DAsync' $err"
check "lost: the calls before it ran on the GPU, none after" \
    sh -c "[ $(count $log -- where=gpu) -ge 1 ] && [ $(count $log -- where=gpu) -le 2 ]"
check "lost: later calls say why" test "$(count $log -- "why=GPU disabled after an error*")" -gt 7000

fail pinned GS_STANDIN_FAIL=cudaHostAlloc
check "pinned: one notice, naming GPUSHIM_PINNED" \
    sh -c "[ \$(wc -l <$err) = 1 ] && grep -q 'pinned memory (GPUSHIM_PINNED; cudaHostAlloc: [^)]*); copying from pageable memory' $err"
check "pinned: every eligible call still on the GPU, copying from pageable memory" \
    sh -c "[ $(count $log -- where=gpu) = $eligible ] && [ $(standin pageable_copies) -gt 0 ]"

fail unpack GS_STANDIN_FAIL=cudaEventSynchronize:40
# (the results are still on the device: copied again, rather than the CPU library reading an output it also
# takes as input, part of which the failed copy may have written)
check "unpack: a failure while copying results back: copied again, with the reason" \
    test "$(count $log -- where=gpu "why=results copied back again after: gpu error: cudaEventSynchronize*")" = 1

fail mid-tiles GPUSHIM_TILE=4 GS_STANDIN_FAIL=cublasDgemm_v2_64:5
check "mid-tiles: a GEMM that failed in its fifth tile fell back" \
    test "$(count $log -- routine=dgemm "why=gpu error: cublasDgemm_v2_64*")" = 1

fail bring-up GS_STANDIN_FAIL=cublasCreate_v2
check "bring-up: one notice naming the failed call" \
    sh -c "[ \$(wc -l <$err) = 1 ] && grep -q '^gpushim: no usable GPU: gpu error: cublasCreate' $err"
check "bring-up: nothing on the GPU" test "$(count $log -- where=gpu)" = 0
finish
