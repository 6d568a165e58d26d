# Programs that load BLAS the hard ways: privately (RTLD_LOCAL), from a library constructor, nested inside
# the CPU library, across fork and nested fork, and from many threads at once; and a dlsym that frees.
. "$(dirname "$0")/lib.sh"

for mode in never always; do
    $T/rtld_local_main $T/librtld_user.so $W/rtld.ref
    shim GPUSHIM_OFFLOAD=$mode GPUSHIM_LOG=$W/rtld_$mode.log $T/rtld_local_main $T/librtld_user.so \
        $W/rtld_$mode.bin 2>$W/rtld_$mode.err
    check "RTLD_LOCAL BLAS, $mode: results equal" $T/blas_cmp $W/rtld.ref $W/rtld_$mode.bin
    check "RTLD_LOCAL BLAS, $mode: the call was intercepted and its CPU entry found" \
        sh -c "[ $(count $W/rtld_$mode.log -- symbol=dgemm_) = 1 ] && ! grep -q 'no loaded library' $W/rtld_$mode.err"

    # Another copy of the library under another name in the global scope beside the preloaded one, the BLAS
    # private: each copy took the other's dgemm_ for the CPU library's, and they called each other until the
    # stack ran out.
    cp "$LIB" $W/libgpushim-copy.so
    shim GPUSHIM_OFFLOAD=$mode GPUSHIM_LOG=$W/copy_$mode.log timeout 60 $T/rtld_local_main $T/librtld_user.so \
        $W/copy_$mode.bin $W/libgpushim-copy.so 2>$W/copy_$mode.err
    check "two copies of the library in one process, $mode: results equal, the call logged once" \
        sh -c "$T/blas_cmp $W/rtld.ref $W/copy_$mode.bin >/dev/null && [ $(count $W/copy_$mode.log -- symbol=dgemm_) = 1 ]"

    $T/ctor_main $W/ctor.ref
    shim GPUSHIM_OFFLOAD=$mode GPUSHIM_LOG=$W/ctor_$mode.log $T/ctor_main $W/ctor_$mode.bin
    check "BLAS from a library constructor, $mode: results equal" $T/blas_cmp $W/ctor.ref $W/ctor_$mode.bin
    check "BLAS from a library constructor, $mode: both calls logged" \
        test "$(count $W/ctor_$mode.log -- routine=dgemm)" = 2
done

# A dlsym that frees while gpushim's free hook resolves the real free (glibc 2.39's, inside a dlopen): the
# nested free must not resolve again, which recursed until the stack ran out.
env LD_PRELOAD="$LIB $T/libdlsym_frees.so" timeout 20 $T/first_free >$W/first_free.out 2>&1
check "dlsym that frees: the program runs to its end" test "$(cat $W/first_free.out)" = freed

# nested: reference CBLAS calls dgemm_ and dsyrk_ from inside cblas_dgemm and cblas_dsyrk.
$T/nested $W/nested.ref
for mode in never auto; do
    shim GPUSHIM_OFFLOAD=$mode GPUSHIM_LOG=$W/nested_$mode.log $T/nested $W/nested_$mode.bin
    check "nested, $mode: results equal" $T/blas_cmp $W/nested.ref $W/nested_$mode.bin
    check "nested, $mode: the library's inner calls are not intercepted" \
        test "$(count $W/nested_$mode.log -- symbol=cblas_dgemm)/$(count $W/nested_$mode.log -- symbol=cblas_dsyrk)/$(
            count $W/nested_$mode.log -- symbol=dgemm_)/$(count $W/nested_$mode.log -- symbol=dsyrk_)" = 3/3/0/0
done
# The same under always: the outer calls run on the GPU, so the library is never entered.
standin_reset
shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/nested_always.log $T/nested $W/nested_always.bin
check "nested, always: results equal, all on the GPU" \
    sh -c "$T/blas_cmp $W/nested.ref $W/nested_always.bin >/dev/null && [ $(count $W/nested_always.log -- where=gpu) = 6 ]"

# inner: reference LAPACK's dsytrd, not interposed, calls dsyr2k_ and dgemv_ in the reference BLAS: those are
# the library's own (its object defines routines of the table), not the program's.
$T/inner $W/inner.ref
for mode in auto always; do
    standin_reset
    shim GPUSHIM_OFFLOAD=$mode GPUSHIM_LOG=$W/inner_$mode.log $T/inner $W/inner_$mode.bin
    check "inner, $mode: results equal" $T/blas_cmp $W/inner.ref $W/inner_$mode.bin
    check "inner, $mode: dsytrd's calls into the BLAS pass through, the program's dgemm_ is its call" \
        test "$(count $W/inner_$mode.log)/$(count $W/inner_$mode.log -- symbol=dgemm_ site=inner:main)" = 1/1
done
check "inner, always: only the program's dgemm_ ran on the GPU (one cuBLAS call, A twice in, S out)" \
    test "$(standin blas_calls)/$(standin h2d_bytes)/$(standin d2h_bytes)" = 1/2560000/1280000

# fork: GPU in the parent, CPU in the child and grandchild, no CUDA call in either.
$T/fork $W/fork.ref
standin_reset
shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/fork.%p.log $T/fork $W/fork.out
for role in parent child grandchild; do
    check "fork: $role results equal" $T/blas_cmp $W/fork.ref.$role $W/fork.out.$role
done
check "fork: three processes, three logs" test "$(ls $W/fork.*.log | wc -l)" = 3
check "fork: the parent's calls on the GPU, before and after the fork" test "$(count $W/fork.*.log -- where=gpu)" = 2
check "fork: the children's calls on the CPU, saying why" \
    test "$(count $W/fork.*.log -- "why=no gpu in a forked child")" = 3
check "fork: no CUDA call from a forked child" test "$(standin violations)" = 0
# The same when the child makes the process's first BLAS call.
standin_reset
shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/forkfirst.%p.log $T/fork $W/forkfirst.out --fork-first
for role in parent child grandchild; do
    check "fork first: $role results equal" $T/blas_cmp $W/fork.ref.$role $W/forkfirst.out.$role
done
check "fork first: the children on the CPU, the parent on the GPU" \
    test "$(count $W/forkfirst.*.log -- "why=no gpu in a forked child")/$(count $W/forkfirst.*.log -- where=gpu)" = 3/1
check "fork first: no CUDA call from a forked child" test "$(standin violations)" = 0

# threads: 8 threads at once, calls of several sizes.
$T/threads $W/threads.ref
for mode in always auto; do
    standin_reset
    shim GPUSHIM_OFFLOAD=$mode GPUSHIM_MIN_FLOPS=1e6 GPUSHIM_LOG=$W/threads_$mode.log $T/threads $W/threads_$mode.bin
    check "threads, $mode: results equal" $T/blas_cmp $W/threads.ref $W/threads_$mode.bin
    check "threads, $mode: every call logged once" test "$(count $W/threads_$mode.log)" = 56
    check "threads, $mode: no bad pointer" test "$(standin violations)" = 0
done
check "threads, auto: small calls on the CPU, large ones on the GPU" \
    sh -c "[ $(count $W/threads_auto.log -- where=gpu) -gt 0 ] && [ $(count $W/threads_auto.log -- where=cpu) -gt 0 ]"

# region: an OpenMP region of 8 threads calling dgemm_ at once after one call alone (issue 47).  The cost model
# weighs calls made at once as sharing the CPU library's threads (8 here): k at once predict k times the CPU
# time of the call alone, up to 8; and as one queue on the GPU: the work of calls sent there and not back is
# ahead of the next.  The history is off so that the predictions are the rates' alone.
printf 'dgemm cpu_gbps=0 history=0\n' >$W/region.policy
printf 'dgemm cpu_gbps=0 history=0 cpu_gflops=1\n' >$W/region_slow.policy
OPENBLAS_NUM_THREADS=8 $T/region $W/region.ref 8 4 256
for p in region region_slow; do
    standin_reset
    shim OPENBLAS_NUM_THREADS=8 GPUSHIM_POLICY=$W/$p.policy GPUSHIM_LOG=$W/$p.log $T/region $W/$p.bin 8 4 256
    check "$p: results equal" $T/blas_cmp $W/region.ref $W/$p.bin
    check "$p: no bad pointer" test "$(standin violations)" = 0
done
$PY - $W/region.log $W/region_slow.log <<'PY' >$W/region.out
import json, sys
# By their start: each thread's records reach the log through its own buffer, the threads' in any order.
def calls(path):
    return sorted((r for r in map(json.loads, open(path)) if r.get("routine") == "dgemm"), key=lambda r: r["t"])
shared = calls(sys.argv[1])
alone = shared[0]["predicted_cpu_s"]
print("at once", sum(r.get("calls_at_once", 1) > 1 for r in shared))
print("scaled", all(abs(r["predicted_cpu_s"] / alone - min(r.get("calls_at_once", 1), 8)) < 0.01 for r in shared))
print("decided", all((r["predicted_gpu_s"] - r.get("predicted_wait_s", 0) < r["predicted_cpu_s"] * 1.001)
                     == (r["where"] == "gpu") for r in shared))
print("queued", sum(r.get("predicted_queue_s", 0) > 0 for r in calls(sys.argv[2])))
PY
check "region: calls weighed at once are counted ($(head -1 $W/region.out))" \
    sh -c "[ $(awk '/^at once/ {print $3}' $W/region.out) -gt 0 ]"
check "region: the CPU's time predicted as shared by the calls at once" grep -qx "scaled True" $W/region.out
check "region: each call where its predictions put it" grep -qx "decided True" $W/region.out
check "region, the CPU made slow: calls see the GPU work of others ahead ($(tail -1 $W/region.out))" \
    sh -c "[ $(awk '/^queued/ {print $2}' $W/region.out) -gt 0 ]"
finish
