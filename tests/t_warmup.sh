# The GPU's bring-up on a background thread (GPUSHIM_WARMUP): the calls that want the GPU while it comes up run
# on the CPU, later ones on the GPU; off brings it up in the first such call; eager at the first call of any
# size; a fork waits for a bring-up under way and its child never calls CUDA; a program that exits while the
# bring-up runs exits cleanly; without a GPU, one notice.  The stand-in's driver takes GS_STANDIN_UP_MS to start.
. "$(dirname "$0")/lib.sh"
P=$T/warmup
$P 14 0 >$W/ref.out
$P 10 0 dgetrf >$W/ref_lu.out
$P 4 0 fork >$W/ref_fork.out

# same OUT REF: the checksums of two runs' lines agree to 1e-9 (the stand-in's arithmetic rounds its own way).
same() {
    awk 'NR == FNR { ref[$1 " " $2 " " $3] = $NF; next }
         { k = $1 " " $2 " " $3; if (!(k in ref)) bad = 1; d = $NF - ref[k]; if (d < 0) d = -d
           if (d > 1e-9 * (ref[k] < 0 ? -ref[k] : ref[k]) + 1e-12) bad = 1; n++ }
         END { exit bad || n == 0 }' "$2" "$1"
}
# first LOG FIELD [ROUTINE]: FIELD of the log's first call record (of ROUTINE).
first() { $PY "$ROOT/tests/logq.py" first "$2" "$1" -- "routine=${3:-*}"; }
# run NAME VAR=VALUE... -- ARGS...: the program under the shim, with every call above the threshold (and little
# staging memory, which the stand-in's bring-up would take a while to allocate on a busy machine).
run() {
    name=$1
    shift
    vars=
    while [ "$1" != -- ]; do vars="$vars $1"; shift; done
    shift
    # shellcheck disable=SC2086
    shim GPUSHIM_WARMUP=lazy GPUSHIM_MIN_FLOPS=0 GPUSHIM_PINNED=16M GPUSHIM_LOG=$W/$name.log $vars $P "$@" \
        >$W/$name.out 2>$W/$name.err
}

# lazy, the default: the first call starts the bring-up (300 ms) and runs on the CPU without waiting for it.
run lazy GS_STANDIN_UP_MS=300 -- 14 150
check "lazy: results equal" same $W/lazy.out $W/ref.out
check "lazy: the first call on the CPU, saying the GPU is starting" \
    test "$(first $W/lazy.log where)/$(first $W/lazy.log why)" = \
    "cpu/gpu starting (CUDA is being brought up on a background thread)"
check "lazy: the first call did not wait for the bring-up" \
    awk -v s="$(first $W/lazy.log seconds)" 'BEGIN { exit !(s < 0.2) }'
check "lazy: the calls after the bring-up on the GPU" test "$(count $W/lazy.log -- where=gpu)" -ge 3
check "lazy: the log says when the GPU came up" grep -q '"event":"gpu","what":".*; up in [0-9]* ms"' $W/lazy.log
check "lazy: nothing on stderr" test ! -s $W/lazy.err

# off: the first call that wants the GPU brings it up itself, and waits.
run off GPUSHIM_WARMUP=off GS_STANDIN_UP_MS=300 -- 8 0
check "off: results equal" same $W/off.out $W/ref.out
check "off: every call on the GPU" test "$(count $W/off.log -- where=gpu)" = 8
check "off: the first call waited for the bring-up" awk -v s="$(first $W/off.log seconds)" 'BEGIN { exit !(s >= 0.3) }'

# A call that the model says is far faster on the GPU, bring-up included, waits for it: here the CPU is
# predicted at 4 s a product and the bring-up at 0.3 s.
printf 'dgemm min_flops=0 cpu_gflops=0.001 cpu_gbps=0 threads=0 gpu_gflops=1000 link_gbps=10 bringup_us=300000\n' \
    >$W/slowcpu.policy
shim GPUSHIM_WARMUP=lazy GPUSHIM_POLICY=$W/slowcpu.policy GS_STANDIN_UP_MS=300 GPUSHIM_LOG=$W/waits.log \
    $P 3 0 >$W/waits.out
check "lazy: a call that gains more than the bring-up waits for it, then runs on the GPU" \
    sh -c "[ $(count $W/waits.log -- where=gpu) = 3 ] &&
        awk -v s=$(first $W/waits.log seconds) -v w=$(first $W/waits.log predicted_wait_s) \
        'BEGIN { exit !(s >= 0.25 && w > 0.25) }'"

# The first large SVD of a process waits for the bring-up with the built-in policy, as scikit-learn's PCA does
# (issue 47): 3000 x 800 on the CPU library's 2 threads is predicted at 2 s there, and at 60 ms on the GPU.
$P 1 0 svd >$W/ref_svd.out
shim GPUSHIM_WARMUP=auto OPENBLAS_NUM_THREADS=2 GS_STANDIN_UP_MS=300 GPUSHIM_PINNED=16M GPUSHIM_LOG=$W/svd.log \
    $P 1 0 svd >$W/svd.out
check "auto: the first large SVD's results are equal" same $W/svd.out $W/ref_svd.out
check "auto: the first large SVD waits for the bring-up and runs on the GPU" \
    sh -c "[ $(count $W/svd.log -- routine=dgesdd where=gpu) = 1 ] &&
        awk -v s=$($PY $ROOT/tests/logq.py first seconds $W/svd.log -- where=gpu) 'BEGIN { exit !(s >= 0.3) }'"

# A GPU that a LAPACK call brought up serves the BLAS family at once, cuBLAS having come up with it: the products
# after the SVD above, predicted at 42 ms on the CPU and under 1 ms on the GPU, none waiting for a tenth of a 3 s
# bring-up (sk_decomposition's products of X stayed on the CPU so, H100, 2026-12-07).
printf 'dgemm min_flops=0 cpu_gflops=0.1 cpu_gbps=0 threads=0 gpu_gflops=1000 link_gbps=10 bringup_us=3000000 first_us=0\n' \
    >$W/svdgemm.policy
shim GPUSHIM_WARMUP=auto OPENBLAS_NUM_THREADS=2 GS_STANDIN_UP_MS=300 GPUSHIM_PINNED=16M GPUSHIM_LOG=$W/svdgemm.log \
    GPUSHIM_POLICY=$W/svdgemm.policy $P 6 0 svd_dgemm >$W/svdgemm.out
check "auto: after an SVD brought the GPU up, every product on it ($(count $W/svdgemm.log -- routine=dgemm where=gpu) of 5)" \
    sh -c "[ $(count $W/svdgemm.log -- routine=dgesdd where=gpu) = 1 ] &&
        [ $(count $W/svdgemm.log -- routine=dgemm where=gpu) = 5 ]"

# auto, the default: the bring-up starts once the calls that wanted the GPU would have gained on it what the
# bring-up takes.  Here each product is predicted at 42 ms on the CPU and under 1 ms on the GPU, and the
# bring-up at 0.3 s: four products stay below that, and never start it; the eighth starts it.
printf 'dgemm min_flops=0 cpu_gflops=0.1 cpu_gbps=0 threads=0 gpu_gflops=1000 link_gbps=10 bringup_us=300000 first_us=0\n' \
    >$W/gain.policy
auto() { name=$1; shift; shim GPUSHIM_WARMUP=auto GPUSHIM_POLICY=$W/gain.policy GS_STANDIN_UP_MS=100 GPUSHIM_PINNED=16M \
    GPUSHIM_LOG=$W/$name.log $P "$@" >$W/$name.out 2>$W/$name.err; }
auto autoshort 4 0
check "auto: calls that gain less than the bring-up run on the CPU and never start it, saying why" \
    sh -c "[ $(count $W/autoshort.log -- where=cpu why='gpu not started: the calls that wanted it*') = 4 ] &&
        ! grep -q '\"event\":\"gpu' $W/autoshort.log"
check "auto: results equal" same $W/autoshort.out $W/ref.out
auto autolong 20 100
check "auto: seven calls before the bring-up, the eighth starts it, the calls after it on the GPU" \
    sh -c "[ $(count $W/autolong.log -- why='gpu not started*') = 7 ] &&
        [ $(count $W/autolong.log -- why='gpu starting*') -ge 1 ] && [ $(count $W/autolong.log -- where=gpu) -ge 3 ]"
auto autowait 3 10000 wait
check "auto: gpushim_gpu_wait starts the bring-up that the calls wanted, and the calls after it use the GPU" \
    test "$(tr '\n' ' ' <$W/autowait.err)/$(count $W/autowait.log -- where=gpu)" = "before 0 after 1 /2"

# auto, a second family: once the GPU is up, an LU factorisation's family waits only for cuSOLVER's start (a
# tenth of its bring-up_us, 30 ms here), which two factorisations of 28 ms predicted gain pay for.
printf '%s\n' 'dgemm min_flops=0 cpu_gflops=0.1 cpu_gbps=0 threads=0 gpu_gflops=1000 link_gbps=10 bringup_us=30000' \
    'dgetrf min_flops=0 cpu_gflops=0.05 cpu_us=0 cpu_gbps=0 threads=0 gpu_gflops=1000 link_gbps=10 latency_us=100' \
    '* first_us=0' 'dgetrf bringup_us=300000' >$W/family.policy
shim GPUSHIM_WARMUP=auto GPUSHIM_POLICY=$W/family.policy GS_STANDIN_UP_MS=100 GPUSHIM_PINNED=16M \
    GPUSHIM_LOG=$W/family.log $P 10 150 dgetrf >$W/family.out 2>$W/family.err
check "auto: with the GPU up, LU's family starts after two factorisations, the later ones on the GPU" \
    sh -c "[ $(count $W/family.log -- routine=dgetrf why='gpu not started*') -le 2 ] &&
        [ $(count $W/family.log -- routine=dgetrf where=gpu) -ge 3 ]"
check "auto, a second family: results equal" same $W/family.out $W/ref_lu.out

# gpushim_gpu_wait: 0 before any call wants the GPU; after the first call, 1 once the bring-up is done, and every
# call after it on the GPU; 0 when its time runs out first, and 0 without a GPU.
run wait GS_STANDIN_UP_MS=300 -- 5 10000 wait
check "gpushim_gpu_wait: 0 before any call, 1 after the bring-up; then every call on the GPU" \
    test "$(tr '\n' ' ' <$W/wait.err)/$(count $W/wait.log -- where=gpu)" = "before 0 after 1 /4"
check "gpushim_gpu_wait: results equal" same $W/wait.out $W/ref.out
run waitshort GS_STANDIN_UP_MS=2000 -- 2 50 wait
check "gpushim_gpu_wait: 0 when the bring-up outlasts its time" grep -qx "after 0" $W/waitshort.err
run waitnone GPUSHIM_CUDA_LIBDIR=$W/none -- 2 10000 wait
check "gpushim_gpu_wait: 0 without a GPU, at once" grep -qx "after 0" $W/waitnone.err

# forced onto the GPU: the first call waits for the background bring-up.
run forced GPUSHIM_OFFLOAD=always GS_STANDIN_UP_MS=300 -- 8 0
check "forced: every call on the GPU" test "$(count $W/forced.log -- where=gpu)" = 8

# eager: a call below every threshold starts the bring-up; the calls stay on the CPU.
shim GPUSHIM_WARMUP=eager GPUSHIM_LOG=$W/eager.log $P 5 200 >$W/eager.out 2>$W/eager.err
check "eager: results equal" same $W/eager.out $W/ref.out
check "eager: every call on the CPU" test "$(count $W/eager.log -- where=gpu)" = 0
check "eager: small calls brought the GPU up" grep -q '"event":"gpu"' $W/eager.log
shim GPUSHIM_WARMUP=lazy GPUSHIM_LOG=$W/lazysmall.log $P 3 150 >/dev/null
check "lazy: small calls do not" sh -c "! grep -q '\"event\":\"gpu' $W/lazysmall.log"

# LAPACK's first call that wants the GPU brings cuSOLVER up on top, in the background too.
run lu GS_STANDIN_UP_MS=200 -- 10 150 dgetrf
check "lapack: results equal" same $W/lu.out $W/ref_lu.out
check "lapack: the first LU factorisation on the CPU: cuSOLVER is starting" \
    test "$(first $W/lu.log where dgetrf)/$(first $W/lu.log why dgetrf)" = \
    "cpu/gpu starting (CUDA is being brought up on a background thread)"
check "lapack: later ones on the GPU" test "$(count $W/lu.log -- routine=dgetrf where=gpu)" -ge 3

# fork during the bring-up: the fork waits for it; the child runs on the CPU and never calls CUDA.
standin_reset
t0=$(date +%s%N)
run fork GS_STANDIN_UP_MS=400 GPUSHIM_LOG=$W/fork.%p.log -- 4 50 fork
t1=$(date +%s%N)
# The stand-in's runtime holds a lock across fork, as a library may: had its fork handler run before
# gpushim's wait, the bring-up could not finish, and the fork would wait out its 10 s.
check "fork: waited for the bring-up only" test $(((t1 - t0) / 1000000)) -lt 4000
check "fork: results equal, parent and child" same $W/fork.out $W/ref_fork.out
check "fork: the child's calls on the CPU, saying why" \
    test "$(count $W/fork.*.log -- "why=no gpu in a forked child")" = 2
check "fork: the parent's calls after the fork on the GPU" test "$(count $W/fork.*.log -- where=gpu)" -ge 2
check "fork: no CUDA call from the child" test "$(standin violations)" = 0

# exit during the bring-up, 200 ms into the stand-in's driver start (500 ms): exit waits for that step, which
# stops there, and the program exits cleanly, with nothing said.
t0=$(date +%s%N)
run exit GS_STANDIN_UP_MS=500 -- 1 200 exit
rc=$?
t1=$(date +%s%N)
check "exit: status 0, nothing on stderr (the runtime's exit handler ran after the step)" \
    test "$rc/$(wc -c <$W/exit.err)" = 0/0
check "exit: waited for the step under way, no longer" test $(((t1 - t0) / 1000000)) -lt 1500
check "exit: the bring-up stopped there, saying why in the log" \
    grep -q '"event":"gpu_off","what":"no usable GPU: the bring-up was stopped: the program is exiting"' $W/exit.log

# exit in a library's step (issue 46): LU factorisations of order 1024 keep the CPU library's threads busy, the
# first starting the bring-up of cuBLAS and cuSOLVER; main returns 700 ms after it, while cuSOLVER starts
# (1500 ms).  The stand-in's libraries register the real ones' thousands of exit handlers as they load; had any
# run before exit waited for the step, cuSOLVER's start would have run on under their teardown (a heap
# corruption in the real libraries on the H200 machine) and the stand-in says so.
$P 6 0 lu_exit >$W/ref_lu_exit.out
t0=$(date +%s%N)
standin_reset
run lu_exit GS_STANDIN_UP_MS=100 GS_STANDIN_SOLVER_MS=1500 -- 6 700 lu_exit
rc=$?
t1=$(date +%s%N)
check "exit in a library's step: status 0, nothing on stderr, no library torn down under the step" \
    test "$rc/$(wc -c <$W/lu_exit.err)/$(standin violations)" = 0/0/0
check "exit in a library's step: results equal" same $W/lu_exit.out $W/ref_lu_exit.out
# (the step began about 100 ms after the first call, and the exit waited for its end)
check "exit in a library's step: the exit waited for cuSOLVER's start, no longer" \
    test $(((t1 - t0) / 1000000)) -ge 1500 -a $(((t1 - t0) / 1000000)) -lt 4000

# no GPU: the bring-up fails in the background; one notice, every call on the CPU.
run none GPUSHIM_CUDA_LIBDIR=$W/none -- 6 50
check "no GPU: results equal" same $W/none.out $W/ref.out
check "no GPU: one notice line" test "$(grep -c '^gpushim: no usable GPU: no CUDA libraries' $W/none.err)/$(wc -l <$W/none.err)" = 1/1
check "no GPU: every call on the CPU" test "$(count $W/none.log -- where=gpu)" = 0

# A bad value is named, and the default kept.
env LD_PRELOAD="$LIB" GPUSHIM_WARMUP=sometimes $P 1 0 >/dev/null 2>$W/bad.err
check "GPUSHIM_WARMUP=sometimes: named, with what is accepted" \
    grep -q "GPUSHIM_WARMUP='sometimes' is not valid: use auto, lazy, eager or off; using the default" $W/bad.err
finish
