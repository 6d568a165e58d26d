/* The one dispatcher (dispatch.h): the steps every intercepted call takes, whatever its family.  A call leaves
 * for the CPU library at the first step that says so, with the reason in the log; the order of the steps puts
 * the cheap ones first, so that a small call costs a few checks (bench/overhead.c). */
#include <math.h>

#include "dispatch/dispatch.h"
#include "log/record.h"
#include "log/site.h"

/* After the policy and the family chose the GPU: bring it up, run the operation there, or fall back. */
static int gs_dispatch_gpu(gs_call_t *c, const gs_family_t *f, void *args, const gs_operands_t *o)
{
    /* Its own predicted GPU time joins the queue that calls weighed meanwhile see ahead of them. */
    double own = c->pred_gpu - c->pred_wait - c->pred_queue;
    uint64_t queued = own > 0 ? (uint64_t)(own * 1e9) : 0;
    atomic_fetch_add_explicit(&gs.gpu_queued_ns, queued, memory_order_relaxed);
    /* A call that falls back is not noted in the model's history: its time is neither side's alone.  One whose
     * answer the GPU gave but the call could not use (an SVD that failed its test, INFO > 0) is: refused, on
     * both sides (history.c), so that a kind whose answers keep being refused (the H100's and H200's SVDs of
     * narrow Gaussians, bench/RESULTS.md 2026-12-06) goes back to the CPU rather than paying both every call. */
    int rc = gs_gpu_acquire(c);
    if (rc == GS_OK) {
        rc = gs_backend->op[gs_routines[c->routine].op](c, args, o);
        if (rc != GS_OK && rc != GS_EEXACT)
            gs_gpu_failed(c, rc);
        gs_gpu_release();
    }
    atomic_fetch_sub_explicit(&gs.gpu_queued_ns, queued, memory_order_relaxed);
    if (rc == GS_OK || rc == GS_EEXACT) /* its kernels loaded: its next calls bear no first call's cost */
        atomic_store_explicit(&gs.gpu_used[c->routine], 1, memory_order_relaxed);
    if (rc != GS_OK) {
        if ((c->refused = rc == GS_EEXACT))
            c->t_redo = gs_now_ns();
        else
            c->t_pred = 0;
        return gs_call_cpu(c, c->why), GS_RUN_CPU;
    }
    if (f->gpu_done)
        f->gpu_done(args);
    c->where = GS_WHERE_GPU;
    return GS_RUN_DONE;
}

/* The steps after the policy's threshold said GPU; apart, so that the many small calls that stop before it
 * run through a short function (bench/overhead.c). */
static __attribute__((noinline)) int gs_dispatch_further(gs_call_t *c, const gs_family_t *f, void *args)
{
    const char *why;
    /* Only a call the policy sends to the GPU pays for these checks (the SVD's scan of A among them). */
    if (f->exact && (why = f->exact(args)) != NULL)
        return gs_call_cpu(c, why), GS_RUN_CPU;
    double setup = gs_backend->setup(c, args);
    if (isinf(setup))
        return gs_call_cpu(c, "the gpu failed this shape's last calls"), GS_RUN_CPU;
    gs_operands_t o = {0};
    f->operands(args, &o);
    gs_traffic_t t;
    gs_backend->traffic(c, args, &o, &t);
    int sharing = atomic_fetch_add_explicit(&gs.calls_weighed, 1, memory_order_relaxed) + 1;
    c->sharing = (uint8_t)(sharing < 255 ? sharing : 255); /* counted down by gs_call_end */
    if (gs_policy_model(c, &t, setup, gs_gpu_left(c)) == GS_WHERE_CPU)
        return gs_call_cpu(c, c->why), GS_RUN_CPU;
    if (!f->has_work || !f->has_work(args))
        return gs_dispatch_gpu(c, f, args, &o);
    /* The query's work (the Python layer's input cast or padded for the GPU) only for a call that the GPU's
     * bring-up does not keep on the CPU: a kept numpy.fft.fft of 2^20 reals made its complex copy first, and cost
     * 20% more than NumPy's own (bench/pylayer_kept.py, H100, 2026-12-07). */
    if (gs_gpu_coming(c) != GS_OK)
        return gs_call_cpu(c, c->why), GS_RUN_CPU;
    /* The query is a call into the CPU library: the thread is marked as inside it. */
    gs_call_cpu(c, c->why);
    return GS_RUN_QUERY;
}

/* Whether the call comes from inside a CPU library (a routine gpushim does not interpose, calling the BLAS):
 * then it is the library's own, passed straight through, neither logged nor offloaded, as a call made while
 * gpushim's thread is inside the library is (gs_call_begin). */
static bool gs_dispatch_own(gs_call_t *c, const void *ret)
{
    if (!gs_site_cpu_library(ret))
        return false;
    c->nested = true;
    gs_call_cpu(c, NULL);
    return true;
}

/* gs_dispatch_at's steps, for a call that came through the Python function api (or NULL). */
static int gs_dispatch_named(gs_call_t *c, unsigned e, const gs_family_t *f, void *args, const void *ret,
                             const char *api)
{
    c->own_cpu = f->own_cpu;
    if (!gs_call_begin(c, e))
        return gs_call_cpu(c, NULL), GS_RUN_CPU;
    c->ret = ret, c->api = api;
    /* Asked only of a call that would be logged or offloaded: the others run on the CPU at no cost. */
    if (c->timed && gs_dispatch_own(c, ret))
        return GS_RUN_CPU;
    if (c->timed)
        f->describe(c, args);
    const char *why = f->check(c, args);
    if (why)
        return gs_call_cpu(c, why), GS_RUN_CPU;
    bool capable = gs_backend->op[gs_routines[c->routine].op] != NULL;
    if (gs.opt.warmup == GS_WARMUP_EAGER && capable && gs.opt.offload != GS_OFFLOAD_NEVER) {
        int family = gs_ops[gs_routines[c->routine].op].family;
        if (!atomic_load_explicit(&gs.gpu_ready[family], memory_order_relaxed))
            c->after = gs_warm_later, c->after_arg = family;
    }
    if (gs_policy_decide(c, capable) == GS_WHERE_CPU)
        return gs_call_cpu(c, c->why), GS_RUN_CPU;
    if (!c->timed && gs_dispatch_own(c, ret))
        return GS_RUN_CPU;
    return gs_dispatch_further(c, f, args);
}

int gs_dispatch_at(gs_call_t *c, unsigned e, const gs_family_t *f, void *args, const void *ret)
{
    return gs_dispatch_named(c, e, f, args, ret, NULL);
}

int gs_dispatch_queried(gs_call_t *c, const gs_family_t *f, void *args)
{
    int r = f->queried(c, args);
    if (r != GS_RUN_QUERY)
        return r;
    gs_operands_t o = {0}; /* the same as gs_dispatch found: a function of the arguments alone */
    f->operands(args, &o);
    return gs_dispatch_gpu(c, f, args, &o);
}

/* The calling thread's last Python layer call that the library kept on the CPU, kept for
 * gpushim_original_begin to time its original under (its shape and name copied: the family's arguments and the
 * caller's string end with the call), and whether that timing is open. */
static _Thread_local struct {
    gs_call_t c;
    int64_t shape[8];
    char api[64];
    bool kept, open;
} gs_orig;

static void gs_orig_keep(const gs_call_t *c)
{
    gs_call_t *k = &gs_orig.c;
    *k = *c;
    if (c->why == c->why_buf)
        k->why = k->why_buf;
    for (int i = 0; i < c->shape_rank && i < 8; i++)
        gs_orig.shape[i] = c->shape[i];
    k->shape = gs_orig.shape;
    gs_copy_str(gs_orig.api, sizeof gs_orig.api, c->api);
    k->api = gs_orig.api;
    k->inside = false, k->sharing = 0, k->after = NULL; /* done with at the decision */
    gs_orig.kept = true;
}

bool gs_dispatch_api(const char *api, unsigned e, const gs_family_t *f, void *args, const void *ret)
{
    gs_call_t call;
    gs_orig.kept = false;
    int r = gs_dispatch_named(&call, e, f, args, ret, api);
    if (r == GS_RUN_QUERY)
        r = gs_dispatch_queried(&call, f, args);
    bool done = r == GS_RUN_DONE;
    call.api = api;
    if (call.refused) /* the original's own LAPACK calls follow, each weighed and noted on its own */
        call.refused = false, call.t_pred = 0;
    /* Weighed by the model and kept on the CPU, or kept there by the GPU's bring-up: the original is timed as this
     * call, for the history (weighed) and the log, which so shows the calls the bring-up kept too. */
    if (!done && (call.t_pred || (call.timed && gs_warm_why(call.why))))
        gs_orig_keep(&call);
    if (!done)
        call.timed = false, call.t_pred = 0;
    gs_call_end(&call);
    return done;
}

GS_EXPORT int gpushim_original_begin(void)
{
    if (!gs_orig.kept || gs_orig.open)
        return 0;
    gs_call_t *c = &gs_orig.c;
    gs_orig.kept = false, gs_orig.open = true;
    c->t0 = gs_now_ns();
    c->t_pred = c->t_pred ? c->t0 : 0; /* the history notes weighed calls only */
    c->inside = true, gs_depth++; /* the original's own calls are the CPU library's: not logged, not offloaded */
    return 1;
}

GS_EXPORT void gpushim_original_end(void)
{
    if (!gs_orig.open)
        return;
    gs_orig.open = false;
    gs_call_end(&gs_orig.c);
}

int64_t gs_dispatch_least(int64_t from, bool (*wanted)(const void *arg, int64_t size), const void *arg)
{
    int64_t hi = from, lo;
    while (hi <= (INT64_C(1) << 40) && !wanted(arg, hi))
        hi *= 2;
    if (hi > (INT64_C(1) << 40))
        return INT64_MAX;
    for (lo = hi / 2; hi - lo > 1;) { /* the least lies in (lo, hi] */
        int64_t mid = lo + (hi - lo) / 2;
        *(wanted(arg, mid) ? &hi : &lo) = mid;
    }
    return hi;
}
