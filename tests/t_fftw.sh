# FFTW3 under the shim, CPU path: plans of every planner kind in both precisions are the real FFTW's, returned
# unchanged (NULL where FFTW returns NULL), so every result is bit for bit the one without the shim; the executes
# are logged with their routine, shape and kind and a reason for staying on the CPU, the planners are not.
. "$(dirname "$0")/lib.sh"
P=$T/fft_plans

$P >$W/plain.out
shim GPUSHIM_LOG=$W/fftw.log $P >$W/shim.out
check "every plan's results under the shim are bit for bit FFTW's own ($(wc -l <$W/plain.out) cases)" \
    sh -c "[ -s $W/plain.out ] && cmp -s $W/plain.out $W/shim.out"
# Without a log or summary, small plans' executes take the short path straight to FFTW (fftw.h); forced onto
# the GPU path, none does.
shim $P >$W/nolog.out
check "no log: the short path's results are bit for bit FFTW's own" cmp -s $W/plain.out $W/nolog.out
standin_reset
shim GPUSHIM_OFFLOAD=always $P >$W/forced.out
check "no log, forced: every eligible execute still reaches the stand-in's cuFFT ($(standin fft_execs) of 340)" \
    test "$(standin fft_execs)" = 340
# Plans that need no work area (the real cuFFT reports none for some, such as the out-of-place c2c 512^3): the
# area passed is still one of the shim's own bytes, not the next allocation's, which may be an operand's.
standin_reset
shim GS_STANDIN_FFT_WORK=0 GPUSHIM_OFFLOAD=always $P >$W/nowork.out
check "plans that need no work area: every eligible execute ran on cuFFT ($(standin fft_execs) of 340), none in\
 violation" \
    sh -c "[ $(standin fft_execs) = 340 ] && [ $(standin violations) = 0 ] && cmp -s $W/forced.out $W/nowork.out"
# A pending runtime error: cuFFT reports an error the runtime kept from an earlier call as its own launch's, so an
# allocation that failed and was retried must not leave one (the stand-in's cuFFT fails as the real one).
for k in 1 2; do
    standin_reset
    shim GS_STANDIN_FAIL=cudaMalloc:$k GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/pending$k.log $P >$W/pending.out
    check "a pending runtime error (cudaMalloc call $k failed and was retried): every eligible execute ran on cuFFT" \
        sh -c "[ $(count $W/pending$k.log -- where=gpu) = 340 ] && [ $(standin fft_execs) = 340 ]"
done
# Fresh inputs: 1024 transforms of 4096 points (252 MFLOP, 3 ms at the policy's 85 GFLOP/s) whose input the CPU
# rewrites before each execute must pay for copying 134 MB (3.8 ms at 35 GB/s): every execute stays on the CPU.
# Were the input counted as resident from its second execute on (a BLAS matrix used again is), the model would
# see 67 MB and send executes 3 to 6 to the GPU (the second still bears half of a cuFFT plan's setup_us).
# (The policy's FFTW rates are for any number of threads here: the program plans on one; and the rates alone
# predict, without the history of what this machine's CPU took.)
$T/fft_fresh 6 >$W/fresh.plain
printf 'fftw_* threads=0 history=0\n' >$W/anythreads.policy
shim GPUSHIM_POLICY=$W/anythreads.policy GPUSHIM_LOG=$W/fresh.log $T/fft_fresh 6 >$W/fresh.shim
check "fresh inputs: results as FFTW's, and every execute on the CPU, the model counting the input's copy" \
    sh -c "cmp -s $W/fresh.plain $W/fresh.shim && [ $(count $W/fresh.log -- routine=fftw_execute 'why=cpu faster') = 6 ]"
# A geometry whose cuFFT executes keep failing (every cufftExecZ2Z fails) is tried twice, then left to FFTW:
# an execute that fails costs its copies, and the H200 showed a loop where every one did (bench/RESULTS.md).
$T/fft_steps 8 0 >$W/failing.plain
shim GS_STANDIN_FAIL=cufftExecZ2Z GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/failing.log $T/fft_steps 8 0 >$W/failing.shim
tried=$(count $W/failing.log -- 'why=gpu error: cufftExecZ2Z*')
left=$(count $W/failing.log -- "why=the gpu failed this shape's last calls")
check "a failing geometry: 2 executes tried on cuFFT ($tried), then 6 on FFTW without trying ($left), results FFTW's" \
    sh -c "cmp -s $W/failing.plain $W/failing.shim && [ $tried = 2 ] && [ $left = 6 ]"
# Other kinds: every r2r planner and the guru split planners, both precisions, 2 executes and one new-array
# execute a plan.  Their plans are FFTW's as they are; their executes are logged with the reason and stay on
# FFTW, forced or not.
$T/fft_other >$W/other.plain
shim GPUSHIM_OFFLOAD=always GPUSHIM_LOG=$W/other.log $T/fft_other >$W/other.shim
shim $T/fft_other >$W/other.short
check "other kinds: r2r and split-array plans give FFTW's results bit for bit, logged or not ($(wc -l <$W/other.plain) plans)" \
    sh -c "[ $(wc -l <$W/other.plain) = 20 ] && ! grep -q null $W/other.plain && cmp -s $W/other.plain $W/other.shim &&
        cmp -s $W/other.plain $W/other.short"
check "other kinds: 42 r2r executes (kind r2r, 14 through execute_r2r) and 18 split ones, each on the CPU with its reason" sh -c "
    [ $(count $W/other.log -- where=cpu why=r2r kind=r2r) = 42 ] && [ $(count $W/other.log -- routine='fftw*_execute_r2r') = 14 ] &&
    [ $(count $W/other.log -- 'why=split arrays') = 18 ] && [ $(count $W/other.log -- routine='fftw*_execute_split_dft*') = 6 ] &&
    [ $(count $W/other.log) = 60 ]"
check "a planner that returns NULL without the shim returns NULL under it (FFTW_WISDOM_ONLY, both precisions)" \
    sh -c "[ $(grep -c 'r2c wisdom only null$' $W/shim.out) = 2 ] && [ $(grep -c ' null$' $W/plain.out) = 2 ]"
check "the log is valid" $PY tests/logq.py check $W/fftw.log

for r in fftw_execute fftw_execute_dft fftw_execute_dft_r2c fftw_execute_dft_c2r; do
    for p in fftw fftwf; do
        rr=$p${r#fftw}
        check "$rr: its executes are logged, on the CPU" sh -c "
            [ $(count $W/fftw.log -- routine=$rr) -gt 10 ] && [ $(count $W/fftw.log -- routine=$rr where=gpu) = 0 ]"
    done
done
total=$(count $W/fftw.log)
check "the executes are the log's only calls: 2 per plan, none for the planners ($total records)" \
    test "$total" = $(( $(grep -vc ' null$' $W/plain.out) * 2 ))
check "the shapes: dft_3d 5x6x7 has n 210, kind dft, shape [5, 6, 7], direction F, in both precisions" sh -c "
    [ $(count $W/fftw.log -- routine=fftw_execute n=210 b=1 kind=dft 'shape=[[]5, 6, 7]' opts=F) = 1 ] &&
    [ $(count $W/fftw.log -- routine=fftwf_execute_dft n=210 b=1 kind=dft 'shape=[[]5, 6, 7]' opts=F) = 1 ]"
check "the shapes: an in-place c2r 5x6x7 is kind c2r, direction B in place (opts BI)" \
    test "$(count $W/fftw.log -- routine=fftw_execute_dft_c2r kind=c2r 'shape=[[]5, 6, 7]' opts=BI)" = 1
check "the shapes: plan_many_dft 6x10 x4 has n 60 and b 4; guru 16 x4x3 has b 12" sh -c "
    [ $(count $W/fftw.log -- routine=fftw_execute n=60 b=4 'shape=[[]6, 10]') = 1 ] &&
    [ $(count $W/fftw.log -- routine=fftw_execute n=16 b=12) = 1 ]"
check "flops: 5 N log2 N per transform, halved for r2c (1-D n = 4096: 245760 and 122880)" sh -c "
    [ $(count $W/fftw.log -- routine=fftw_execute n=4096 kind=dft flops=245760) = 4 ] &&
    [ $(count $W/fftw.log -- routine=fftw_execute n=4096 kind=r2c flops=122880) = 2 ]"
check "reasons: below threshold, rank above 3 (rank 4), overlapping strides (guru64 c2r), never unknown plan;\
 unmerged howmany (guru) through the kernels" sh -c "
    [ $(count $W/fftw.log -- 'why=below threshold') -gt 300 ] &&
    [ $(count $W/fftw.log -- 'why=strides no advanced layout expresses' kind=c2r 'shape=[[]10, 10]') = 4 ] &&
    [ $(count $W/fftw.log -- 'why=rank above 3' 'shape=[[]3, 4, 5, 6]') = 4 ] &&
    [ $(count $W/fftw.log -- 'why=below threshold' n=16 b=12 'opts=*P') = 4 ] &&
    [ $(count $W/fftw.log -- 'why=unknown plan') = 0 ]"
check "call sites: the executes come from the program's own functions (fft_plans:fftw_run, fftwf_run)" sh -c "
    [ $(count $W/fftw.log -- native=fft_plans:fftw_run) = $(count $W/fftw.log -- 'routine=fftw_*') ] &&
    [ $(count $W/fftw.log -- native=fft_plans:fftwf_run) = $(count $W/fftw.log -- 'routine=fftwf_*') ]"

# A plan the shim never saw made (through FFTW's own handle, as Julia's FFTW.jl plans): FFTW runs it, unknown.
$P handle >$W/handle.plain
shim GPUSHIM_LOG=$W/handle.log $P handle >$W/handle.shim
check "unknown plan: a plan made through FFTW's handle runs as FFTW runs it" \
    sh -c "[ -s $W/handle.plain ] && cmp -s $W/handle.plain $W/handle.shim"
check "unknown plan: its execute is logged with the reason, sizes 0 and no shape" \
    test "$(count $W/handle.log -- routine=fftw_execute 'why=unknown plan' n=0 b=0 shape=None)" = 1

# A plan made before fork is known in the child too (the registry's lock is reset there).
shim GPUSHIM_LOG=$W/fork.%p.log $P fork >$W/fork.out
check "fork: the child's execute of the parent's plan gives the parent's result" \
    sh -c "c=\$(sed -n 's/^child //p' $W/fork.out); [ -n \"\$c\" ] && [ \"\$c\" = \"\$(sed -n 's/^parent //p' $W/fork.out)\" ]"
check "fork: both executes logged with the plan's shape, in two processes" \
    sh -c "[ $(count $W/fork.*.log -- routine=fftw_execute 'shape=[[]64]' 'why=below threshold') = 2 ] && [ \$(ls $W/fork.*.log | wc -l) = 2 ]"
# ---- two FFTWs ----------------------------------------------------------------------------------------------
# Two libraries of FFTW's names in one process, each loaded RTLD_LOCAL by a caller of its own (as pyFFTW's wheel
# bundles an FFTW beside the system's): every call reaches the caller's own FFTW, under the shim as without it.
# The two FFTWs here are stand-ins compiled below that print each call and the library of the plan it gets;
# plan_dft_1d calls plan_many_dft through its PLT, as FFTW's does, and plan_r2r_1d is not interposed, so that
# its plan is unknown to the shim.
CC=${CC:-cc}
mkdir -p $W/two
cat >$W/two/fake.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>
typedef struct { int tag; } plan_t;
static plan_t *made(const char *how)
{
    printf("fake%d %s\n", TAG, how);
    plan_t *p = malloc(sizeof *p);
    p->tag = TAG;
    return p;
}
static void got(const char *what, const plan_t *p) { printf("fake%d %s, a plan of fake%d\n", TAG, what, p->tag); }
plan_t *fftw_plan_many_dft(int rank, const int *n, int howmany, void *in, const int *inembed, int istride, int idist,
                           void *out, const int *onembed, int ostride, int odist, int sign, unsigned flags)
{
    (void)rank, (void)n, (void)howmany, (void)in, (void)inembed, (void)istride, (void)idist, (void)out;
    (void)onembed, (void)ostride, (void)odist, (void)sign, (void)flags;
    return made("plan_many_dft");
}
plan_t *fftw_plan_dft_1d(int n, void *in, void *out, int sign, unsigned flags)
{
    printf("fake%d plan_dft_1d\n", TAG);
    return fftw_plan_many_dft(1, &n, 1, in, NULL, 1, 0, out, NULL, 1, 0, sign, flags);
}
plan_t *fftw_plan_r2r_1d(int n, void *in, void *out, int kind, unsigned flags)
{
    (void)n, (void)in, (void)out, (void)kind, (void)flags;
    return made("plan_r2r_1d");
}
void fftw_execute(const plan_t *p) { got("execute", p); }
void fftw_execute_dft(const plan_t *p, void *in, void *out) { (void)in, (void)out, got("execute_dft", p); }
void fftw_destroy_plan(plan_t *p) { got("destroy_plan", p), free(p); }
void fftw_cleanup(void) { printf("fake%d cleanup\n", TAG); }
EOF
cat >$W/two/caller.c <<'EOF'
typedef struct plan plan_t;
plan_t *fftw_plan_dft_1d(int n, void *in, void *out, int sign, unsigned flags);
plan_t *fftw_plan_many_dft(int rank, const int *n, int howmany, void *in, const int *inembed, int istride, int idist,
                           void *out, const int *onembed, int ostride, int odist, int sign, unsigned flags);
plan_t *fftw_plan_r2r_1d(int n, void *in, void *out, int kind, unsigned flags);
void fftw_execute(const plan_t *p);
void fftw_execute_dft(const plan_t *p, void *in, void *out);
void fftw_destroy_plan(plan_t *p);
void fftw_cleanup(void);
static plan_t *a, *b, *r;
static double in[32] __attribute__((aligned(16))), out[32] __attribute__((aligned(16)));
void two_plan(void)
{
    int n = 8;
    a = fftw_plan_dft_1d(8, in, out, -1, 64);
    b = fftw_plan_many_dft(1, &n, 2, in, 0, 1, 8, out, 0, 1, 8, 1, 64);
    r = fftw_plan_r2r_1d(8, in, out, 0, 64);
}
void two_exec(void) { fftw_execute(a), fftw_execute_dft(b, in, out), fftw_execute(r); }
void two_cleanup(void) { fftw_cleanup(); }
void two_destroy(void) { fftw_destroy_plan(a), fftw_destroy_plan(b), fftw_destroy_plan(r); }
EOF
cat >$W/two/main.c <<'EOF'
/* usage: main [global] CALLER1 CALLER2: both callers RTLD_LOCAL (the first RTLD_GLOBAL with "global"). */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
typedef void fn_t(void);
static void call(void *h, const char *name)
{
    fn_t *f;
    *(void **)&f = dlsym(h, name);
    f();
}
int main(int argc, char **argv)
{
    int g = argc > 1 && strcmp(argv[1], "global") == 0;
    void *h1 = dlopen(argv[1 + g], RTLD_NOW | (g ? RTLD_GLOBAL : RTLD_LOCAL));
    void *h2 = dlopen(argv[2 + g], RTLD_NOW | RTLD_LOCAL);
    if (!h1 || !h2)
        return printf("dlopen: %s\n", dlerror()), 1;
    printf("-- plan\n"), call(h1, "two_plan"), call(h2, "two_plan");
    printf("-- execute\n"), call(h1, "two_exec"), call(h2, "two_exec");
    printf("-- the second's destroy and plans again\n"), call(h2, "two_destroy"), call(h2, "two_plan");
    printf("-- the second's cleanup, the first's executes\n"), call(h2, "two_cleanup"), call(h1, "two_exec");
    printf("-- destroy\n"), call(h1, "two_destroy"), call(h2, "two_destroy");
    return 0;
}
EOF
for i in 1 2; do
    $CC -shared -fPIC -DTAG=$i -Wl,-soname,libfake$i.so -o $W/two/libfake$i.so $W/two/fake.c &&
        $CC -shared -fPIC -o $W/two/libcaller$i.so $W/two/caller.c -L$W/two -l:libfake$i.so -Wl,-rpath,$W/two
done
$CC -o $W/two/main $W/two/main.c -ldl
c1=$W/two/libcaller1.so c2=$W/two/libcaller2.so
# two_case NAME ARGS...: the program's calls without the shim and under it.
two_case() {
    n=$1
    shift
    $W/two/main "$@" >$W/two/$n.plain 2>&1
    shim GPUSHIM_LOG=$W/two/$n.log $W/two/main "$@" >$W/two/$n.shim 2>&1
    check "two FFTWs, $n: every call under the shim reaches the FFTW it reaches without ($(grep -c . $W/two/$n.plain) lines)" \
        sh -c "[ -s $W/two/$n.plain ] && { cmp -s $W/two/$n.plain $W/two/$n.shim || diff $W/two/$n.plain $W/two/$n.shim; }"
}
two_case first $c1 $c2
two_case second $c2 $c1
check "two FFTWs: without the shim, each runs its own plans and plan_dft_1d's nested planner is its own" sh -c "
    ! grep -qE 'fake1 .* of fake2|fake2 .* of fake1' $W/two/first.plain &&
    [ \$(grep -c 'a plan of fake2' $W/two/first.plain) = 9 ] &&
    grep -A1 'fake2 plan_dft_1d' $W/two/first.plain | grep -q 'fake2 plan_many_dft'"
check "two FFTWs: the log has the executes of known plans (r2r ones with their reason), and the second's cleanup leaves the first's plans known" sh -c "
    [ $(count $W/two/first.log -- routine=fftw_execute n=8 'shape=[[]8]' kind=dft) = 3 ] &&
    [ $(count $W/two/first.log -- routine=fftw_execute_dft n=8 b=2) = 3 ] &&
    [ $(count $W/two/first.log -- routine=fftw_execute kind=r2r why=r2r) = 3 ] &&
    [ $(count $W/two/first.log -- 'why=unknown plan') = 0 ]"
two_case global global $c1 $c2
check "two FFTWs, the first in the global scope: without the shim, every call reaches it" sh -c "
    ! grep -q fake2 $W/two/global.plain && [ \$(grep -c 'fake1 execute' $W/two/global.plain) = 9 ]"
# Twins: small plans made on 2 threads (fft_twin) are timed 4 executes on their own and 4 on a one-thread twin
# that FFTW plans for them (twins of 4 and 8 threads only for plans of more), and the faster runs the rest; a plan made again starts over, never inheriting the
# old plan's twin.  Results are FFTW's within rounding, logged or not: the twin is another FFTW plan, as is a
# second run's FFTW_MEASURE plan.
near() { # near FILE FILE: every value within 1e-9 (double) or 1e-4 (the float case) of the line's largest
    $PY - "$1" "$2" <<'PYEOF'
import sys
a, b = (open(f).read().split("\n") for f in sys.argv[1:3])
ok = len(a) == len(b) > 1
for x, y in zip(a, b):
    x, y = x.split(), y.split()
    if not x and not y:
        continue
    if x[:2] != y[:2] or len(x) != len(y):
        ok = False
        continue
    u, v = [float(t) for t in x[2:]], [float(t) for t in y[2:]]
    top = max([abs(t) for t in u] + [1.0])
    tol = 1e-4 if x[0] == "fc2c" else 1e-9
    ok = ok and all(abs(p - q) <= tol * top for p, q in zip(u, v))
sys.exit(0 if ok else 1)
PYEOF
}
# threads LOG SYMBOL SHAPE: the threads of each execute of the plan that LOG has for SYMBOL and SHAPE, in order.
threads() {
    $PY -c "
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r.get('symbol') == sys.argv[2] and r.get('shape') == json.loads(sys.argv[3]):
        print(r.get('threads', 0), end=' ')" "$@"
}
$T/fft_twin 2 16 >$W/twin.plain
shim GPUSHIM_LOG=$W/twin.log $T/fft_twin 2 16 >$W/twin.shim
shim $T/fft_twin 2 16 >$W/twin.short
both_near() { near $W/twin.plain $W/twin.shim && near $W/twin.plain $W/twin.short; }
check "twins: results as FFTW's within rounding, logged (the dispatcher's path) or not (the short path)" both_near
tried='2 2 2 2 1 1 1 1 '
again=$(threads $W/twin.log fftw_execute [1024])
again2=$(threads $W/twin.log fftw_execute_dft_r2c [32,32])
check "twins: plans made again half-way try afresh: 2 threads 4 times, the twin 4 times ($again)" \
    test "$again$again2" = "$tried$tried$tried$tried"
steady=$(threads $W/twin.log fftw_execute_dft_c2r [32,32])
steady2=$(threads $W/twin.log fftwf_execute [256])
check "twins: a plan kept tries once, then one of the two serves every execute ($steady)" sh -c "
    echo '$steady' | grep -Eq '^$tried(1 1 1 1 1 1 1 1 |2 2 2 2 2 2 2 2 )\$' &&
    echo '$steady2' | grep -Eq '^$tried(1 1 1 1 1 1 1 1 |2 2 2 2 2 2 2 2 )\$'"
# A plan made on 16 threads has three twins, of 1, 4 and 8 threads, each tried 4 times in that order.
shim GPUSHIM_LOG=$W/twin16.log $T/fft_twin 16 32 >$W/twin16.shim
many=$(threads $W/twin16.log fftw_execute_dft_c2r [32,32])
four() { printf "$1 $1 $1 $1 "; }
many_ok() {
    local head="$(four 16)$(four 1)$(four 4)$(four 8)" k
    for k in 16 1 4 8; do
        [ "$many" = "$head$(four $k)$(four $k)$(four $k)$(four $k)" ] && return 0
    done
    return 1
}
check "twins: a plan on 16 threads tries twins of 1, 4 and 8 threads, then one of the four serves ($many)" many_ok
# Above 4e6 flops (2^16 points), no one-thread twin: on 16 threads those of 4 and 8; on 2, none.
big16=$(threads $W/twin16.log fftw_execute [65536])
big2=$(threads $W/twin.log fftw_execute [65536])
big_ok() {
    local head="$(four 16)$(four 4)$(four 8)" k
    [ "$big2" = "$(printf '2 %.0s' $(seq 16))" ] || return 1
    for k in 16 4 8; do
        [ "$big16" = "$head$(four $k)$(four $k)$(four $k)$(four $k)$(four $k)" ] && return 0
    done
    return 1
}
check "twins: a 2^16-point plan on 16 threads tries twins of 4 and 8 only, on 2 threads none ($big16)" big_ok
shim GPUSHIM_FFTW_SERIAL=0 GPUSHIM_LOG=$W/twin_off.log $T/fft_twin 2 16 >$W/twin.off
off=$(threads $W/twin_off.log fftw_execute_dft_c2r [32,32])
off_ok() { near $W/twin.plain $W/twin.off && [ "$off" = "$(printf '2 %.0s' $(seq 16))" ]; }
check "twins: GPUSHIM_FFTW_SERIAL=0 runs every execute on the plan's 2 threads ($off)" off_ok

# Deferred measuring (GPUSHIM_FFTW_DEFER, planners.c): FFTW_MEASURE plans whose executes the policy's rates put on
# the GPU (an in-place r2c of 64^3 and its c2r, fft_defer) are made with FFTW_ESTIMATE, which leaves the array
# as it was where FFTW's measuring writes it, and their executes run on the GPU.  Where they come back to the
# CPU (every cuFFT execute failing), each plan's first such execute measures it on its arrays, and what the
# trials wrote there is put back.  With GPUSHIM_FFTW_DEFER=0 or GPUSHIM_OFFLOAD=never the planner measures as
# asked.  Results as FFTW's within rounding, through fftw_execute and the new-array executes.
# (Each run's standard output has the steps; its standard error, whether the planners left the array alone.)
$T/fft_defer 64 6 >$W/defer.plain 2>$W/defer.plain.err
shim GPUSHIM_LOG=$W/defer.log $T/fft_defer 64 6 >$W/defer.gpu 2>$W/defer.gpu.err
shim GS_STANDIN_FAIL=cufftExecD2Z,cufftExecZ2D GPUSHIM_LOG=$W/defer_cpu.log $T/fft_defer 64 6 >$W/defer.cpu \
    2>$W/defer.cpu.err
shim GPUSHIM_FFTW_DEFER=0 $T/fft_defer 64 6 >$W/defer.off 2>$W/defer.off.err
shim GPUSHIM_OFFLOAD=never $T/fft_defer 64 6 >$W/defer.never 2>$W/defer.never.err
steps_near() { near $W/defer.plain "$1"; }
measured() { grep -c '"event":"fftw_measured"' "$1"; }
intact() { grep intact "$W/defer.$1.err"; }
check "deferred: the planner left the array alone ($(intact gpu)), every execute on the GPU" \
    sh -c "[ '$(intact gpu)' = 'intact 1' ] && [ $(count $W/defer.log -- where=gpu) = 12 ] &&
        [ $(measured $W/defer.log) = 0 ]"
check "deferred: results as FFTW's within rounding" steps_near $W/defer.gpu
check "deferred, the GPU failing: each plan measured at its first execute on the CPU ($(measured \
    $W/defer_cpu.log) of 2)" \
    sh -c "[ $(measured $W/defer_cpu.log) = 2 ] && [ $(count $W/defer_cpu.log -- where=cpu) = 12 ]"
check "deferred, the GPU failing: results as FFTW's within rounding (the trials' writes put back)" \
    steps_near $W/defer.cpu
# While the GPU comes up (the stand-in's bring-up made slow), an execute sent to the CPU for that alone runs the
# FFTW_ESTIMATE plan: measuring there cost pyFFTW's 256^3 rfftn 2.3 s, more than the bring-up it stood in for.
shim GPUSHIM_WARMUP=eager GS_STANDIN_UP_MS=1500 GPUSHIM_LOG=$W/defer_up.log $T/fft_defer 64 6 >$W/defer.up \
    2>/dev/null
up=$(count $W/defer_up.log -- where=cpu 'why=gpu starting*')
check "deferred, the GPU coming up: no plan measured for the $up executes on the CPU meanwhile ($(measured \
    $W/defer_up.log) measured)" sh -c "[ $up -gt 0 ] && [ $(measured $W/defer_up.log) = 0 ]"
check "deferred, the GPU coming up: results as FFTW's within rounding" steps_near $W/defer.up
asked="$(intact off), $(intact never) against FFTW's $(intact plain)"
check "GPUSHIM_FFTW_DEFER=0, GPUSHIM_OFFLOAD=never: the planner measures as asked ($asked)" \
    test "$(intact off)$(intact never)" = "$(intact plain)$(intact plain)"
off_near() { steps_near $W/defer.off && steps_near $W/defer.never; }
check "GPUSHIM_FFTW_DEFER=0, GPUSHIM_OFFLOAD=never: results as FFTW's within rounding" off_near
finish
