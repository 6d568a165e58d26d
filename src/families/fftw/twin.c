/* Twins of small plans made on many threads (fftw.h).  FFTW's threaded plan of a small transform spends most of
 * an execute waking its threads: on the H200 machine a 1024-point c2c planned on 16 threads with FFTW_MEASURE
 * took 50 to 60 us an execute (bench/results/fft.md), more than cuFFTW's round trip through the GPU, where one
 * thread computes it in a few; a c2c of 32^3 single took 75 to 80 on 16 threads, 52 on 8.  A candidate plan's
 * first GS_TWIN_TRIALS executes on the CPU are timed; then the real FFTW makes its twins, the same transform on
 * the same arrays with fewer threads (those of gs_twin_threads below the plan's own) and FFTW_ESTIMATE, which
 * leaves the arrays alone and takes microseconds; each twin's next executes are timed in turn, and the fastest
 * runs every later execute, a twin only when it beats the plan by a twentieth.  Planners, destroy_plan and
 * cleanup hold gs_fftw_planner_lock, since FFTW's planner is not thread safe and the twins are planned from
 * inside an execute, which may run on any thread. */
#include <fftw3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "families/fftw/fftw.h"

#define GS_TWIN_TRIALS 4
/* Candidates have at most this many flops an execute (a c2c of 2^18 points): beyond, FFTW's threads win.  Those
 * above GS_TWIN_FLOPS_ONE (a c2c of 2^15 points) get no one-thread twin, which would take milliseconds. */
#define GS_TWIN_FLOPS 3e7
#define GS_TWIN_FLOPS_ONE 4e6
/* The twins' threads (H200: one for 1024 points, 4 for 2^14, 8 for 32^3; bench/RESULTS.md). */
#define GS_TWIN_KINDS 3
static const int gs_twin_threads[GS_TWIN_KINDS] = {1, 4, 8};

typedef struct {
    _Atomic(void *) twin[GS_TWIN_KINDS];      /* by gs_twin_threads; NULL: none (not below the plan's threads) */
    atomic_bool made;                         /* the twins were planned */
    atomic_uint tried[1 + GS_TWIN_KINDS];     /* timed executes: the plan's (0), then each twin's */
    _Atomic uint64_t best[1 + GS_TWIN_KINDS]; /* their fastest, in ns */
    atomic_int choice;                        /* 0 while trying; else 1 + what runs (0 the plan, k twin k - 1) */
    int16_t threads;                          /* the plan's */
    uint8_t prec;
    bool large;                               /* above GS_TWIN_FLOPS_ONE */
} gs_twin_t;

_Atomic(const void *) gs_fftw_twin_of[GS_FFTW_TWINS];
static gs_twin_t gs_twins[GS_FFTW_TWINS];
pthread_mutex_t gs_fftw_planner_lock = PTHREAD_MUTEX_INITIALIZER;

/* The process-wide FFTW's fn (double or single), resolved once; NULL when no library has it, as
 * planner_nthreads without FFTW's threads library: not reported. */
#define GS_TWIN_REAL(fn) \
    ({ \
        static _Atomic(void *) gs_slot_; \
        static atomic_bool gs_quiet_ = true; \
        (__typeof__(&fn))gs_real_resolve(&gs_slot_, &gs_quiet_, #fn, ""); \
    })

int gs_fftw_threads(int prec)
{
    int (*n)(void) = prec == GS_P_Z ? GS_TWIN_REAL(fftw_planner_nthreads) : GS_TWIN_REAL(fftwf_planner_nthreads);
    return n ? n() : 1;
}

void gs_fftw_twin_mark(const gs_fftw_geom_t *g)
{
    int s = -1; /* the first free slot of g's probes */
    for (unsigned i = 0; i < GS_FFTW_TWIN_PROBES; i++) {
        unsigned p = gs_fftw_twin_slot(g->plan, i);
        const void *old = atomic_load(&gs_fftw_twin_of[p]);
        /* A plan at g's address that was freed without destroy_plan (FFTW's cleanup_threads, its own handle):
         * its twins may be freed too, and are forgotten, not destroyed. */
        if (old == g->plan)
            atomic_store(&gs_fftw_twin_of[p], old = NULL);
        if (!old && s < 0)
            s = (int)p;
    }
    if (s < 0 || !gs.opt.fftw_serial || g->lib || g->split || g->truncated || g->kind == GS_FFTW_R2R ||
        g->threads <= 1 || g->flops > GS_TWIN_FLOPS || g->flags & FFTW_WISDOM_ONLY || g->deferred)
        return;
    gs_twin_t *t = &gs_twins[s];
    for (int k = 0; k < GS_TWIN_KINDS; k++)
        atomic_store(&t->twin[k], NULL);
    atomic_store(&t->made, false);
    atomic_store(&t->choice, 0);
    for (int i = 0; i <= GS_TWIN_KINDS; i++)
        atomic_store(&t->tried[i], 0), atomic_store(&t->best[i], UINT64_MAX);
    t->threads = g->threads;
    t->prec = g->prec;
    t->large = g->flops > GS_TWIN_FLOPS_ONE;
    atomic_store_explicit(&gs_fftw_twin_of[s], g->plan, memory_order_release);
}

/* g's transform on its arrays as the real FFTW plans it on nthreads threads with flags fl, or NULL.  With
 * gs_fftw_planner_lock held. */
static void *gs_twin_make(const gs_fftw_geom_t *g, int nthreads, unsigned fl)
{
    fftw_iodim64 d[GS_FFTW_DIMS_MAX]; /* fftwf_iodim64 is the same struct */
    for (int i = 0; i < g->rank + g->howmany_rank; i++)
        d[i] = (fftw_iodim64){g->dims[i].n, g->dims[i].is, g->dims[i].os};
    bool z = g->prec == GS_P_Z;
    void (*with)(int) = z ? GS_TWIN_REAL(fftw_plan_with_nthreads) : GS_TWIN_REAL(fftwf_plan_with_nthreads);
    if (!with && nthreads > 1) /* without FFTW's threads library, one thread */
        return NULL;
    void *in = (void *)g->in, *out = (void *)g->out, *p = NULL;
    const fftw_iodim64 *h = d + g->rank;
    const fftwf_iodim64 *fd = (const fftwf_iodim64 *)d, *fh = (const fftwf_iodim64 *)h;
    int r = g->rank, hr = g->howmany_rank, threads = gs_fftw_threads(g->prec);
    if (with)
        with(nthreads);
    gs_depth++; /* planners FFTW calls through its exported names pass straight through */
    if (g->kind == GS_FFTW_DFT) {
        __typeof__(&fftw_plan_guru64_dft) zf = GS_TWIN_REAL(fftw_plan_guru64_dft);
        __typeof__(&fftwf_plan_guru64_dft) cf = GS_TWIN_REAL(fftwf_plan_guru64_dft);
        p = z ? (void *)(zf ? zf(r, d, hr, h, in, out, g->sign, fl) : NULL)
              : (void *)(cf ? cf(r, fd, hr, fh, in, out, g->sign, fl) : NULL);
    } else if (g->kind == GS_FFTW_R2C) {
        __typeof__(&fftw_plan_guru64_dft_r2c) zf = GS_TWIN_REAL(fftw_plan_guru64_dft_r2c);
        __typeof__(&fftwf_plan_guru64_dft_r2c) cf = GS_TWIN_REAL(fftwf_plan_guru64_dft_r2c);
        p = z ? (void *)(zf ? zf(r, d, hr, h, in, out, fl) : NULL)
              : (void *)(cf ? cf(r, fd, hr, fh, in, out, fl) : NULL);
    } else {
        __typeof__(&fftw_plan_guru64_dft_c2r) zf = GS_TWIN_REAL(fftw_plan_guru64_dft_c2r);
        __typeof__(&fftwf_plan_guru64_dft_c2r) cf = GS_TWIN_REAL(fftwf_plan_guru64_dft_c2r);
        p = z ? (void *)(zf ? zf(r, d, hr, h, in, out, fl) : NULL)
              : (void *)(cf ? cf(r, fd, hr, fh, in, out, fl) : NULL);
    }
    gs_depth--;
    if (with)
        with(threads);
    return p;
}

/* Frees slot t's twins; with gs_fftw_planner_lock held. */
static void gs_twin_free(gs_twin_t *t)
{
    __typeof__(&fftw_destroy_plan) zf = GS_TWIN_REAL(fftw_destroy_plan);
    __typeof__(&fftwf_destroy_plan) cf = GS_TWIN_REAL(fftwf_destroy_plan);
    for (int k = 0; k < GS_TWIN_KINDS; k++) {
        void *p = atomic_exchange(&t->twin[k], NULL);
        if (p && t->prec == GS_P_Z && zf)
            zf(p);
        else if (p && t->prec != GS_P_Z && cf)
            cf(p);
    }
}

/* Makes plan's twins, once, unless another thread plans meanwhile (then a later execute tries again).  Whether
 * they are made. */
static bool gs_twin_get(gs_twin_t *t, const void *plan)
{
    if (atomic_load(&t->made))
        return true;
    if (pthread_mutex_trylock(&gs_fftw_planner_lock) != 0)
        return false;
    gs_fftw_geom_t g;
    unsigned s = (unsigned)(t - gs_twins);
    if (!atomic_load(&t->made) && atomic_load(&gs_fftw_twin_of[s]) == plan) {
        int made = 0;
        bool known = gs_fftw_peek(plan, &g);
        unsigned fl = (g.flags & ~(unsigned)(FFTW_PATIENT | FFTW_EXHAUSTIVE)) | FFTW_ESTIMATE;
        for (int k = 0; k < GS_TWIN_KINDS && known; k++) {
            int n = gs_twin_threads[k];
            void *tw = n < t->threads && !(n == 1 && t->large) ? gs_twin_make(&g, n, fl) : NULL;
            atomic_store(&t->twin[k], tw);
            made += tw != NULL;
        }
        if (!made) /* FFTW made none: the plan runs on */
            atomic_store(&t->choice, 1);
        atomic_store(&t->made, true);
    }
    pthread_mutex_unlock(&gs_fftw_planner_lock);
    return atomic_load(&t->made);
}

const void *gs_fftw_twin_pick(const void *plan, unsigned s, gs_fftw_run_t *r)
{
    gs_twin_t *t = &gs_twins[s];
    int choice = atomic_load_explicit(&t->choice, memory_order_acquire);
    if (choice) {
        void *tw = choice > 1 ? atomic_load(&t->twin[choice - 2]) : NULL;
        if (tw)
            r->threads = (int8_t)gs_twin_threads[choice - 2];
        return tw ? tw : plan;
    }
    int i = 0; /* the next to try: the plan, then each twin */
    if (atomic_load(&t->tried[0]) >= GS_TWIN_TRIALS) {
        if (!gs_twin_get(t, plan))
            return plan;
        for (i = 1; i <= GS_TWIN_KINDS; i++)
            if (atomic_load(&t->twin[i - 1]) && atomic_load(&t->tried[i]) < GS_TWIN_TRIALS)
                break;
        if (i > GS_TWIN_KINDS) /* every one tried: the choice is landing */
            return plan;
    }
    r->slot = (int)s;
    r->which = (int8_t)i;
    r->threads = (int8_t)(i ? gs_twin_threads[i - 1] : 0);
    r->t0 = gs_now_ns();
    return i ? atomic_load(&t->twin[i - 1]) : plan;
}

/* The choice once the last twin's trials are in: the fastest, a twin only when a twentieth faster than the
 * plan. */
static void gs_twin_choose(gs_twin_t *t)
{
    uint64_t own = atomic_load(&t->best[0]), fastest = own;
    int choice = 1;
    for (int k = 0; k < GS_TWIN_KINDS; k++) {
        uint64_t b = atomic_load(&t->best[k + 1]);
        if (atomic_load(&t->twin[k]) && b < fastest && b * 20 < own * 19)
            fastest = b, choice = k + 2;
    }
    atomic_store_explicit(&t->choice, choice, memory_order_release);
}

void gs_fftw_twin_timed(const gs_fftw_run_t *r)
{
    uint64_t ns = gs_now_ns() - r->t0;
    gs_twin_t *t = &gs_twins[r->slot];
    uint64_t b = atomic_load(&t->best[r->which]);
    while (ns < b && !atomic_compare_exchange_weak(&t->best[r->which], &b, ns))
        ;
    if (atomic_fetch_add(&t->tried[r->which], 1) + 1 != GS_TWIN_TRIALS || r->which == 0)
        return;
    for (int k = r->which; k < GS_TWIN_KINDS; k++) /* a later twin still to try */
        if (atomic_load(&t->twin[k]))
            return;
    gs_twin_choose(t);
}

void gs_fftw_twin_drop(const void *plan, int prec, bool all)
{
    for (unsigned i = 0; i < (all ? GS_FFTW_TWINS : GS_FFTW_TWIN_PROBES); i++) {
        unsigned s = all ? i : gs_fftw_twin_slot(plan, i);
        const void *p = atomic_load(&gs_fftw_twin_of[s]);
        if (p && (all ? gs_twins[s].prec == prec : p == plan)) {
            atomic_store(&gs_fftw_twin_of[s], NULL);
            gs_twin_free(&gs_twins[s]);
        }
    }
}

/* The bytes of o's operands (one column each, as the family gives them), one after another; copied into kept,
 * or with back from kept into them, when kept is not NULL. */
static size_t gs_fftw_keep(const gs_operands_t *o, char *kept, bool back)
{
    size_t at = 0;
    for (int i = 0; i < o->n; i++) {
        size_t n = (size_t)o->o[i].rows * o->es;
        if (kept && back)
            memcpy((void *)o->o[i].host, kept + at, n);
        else if (kept)
            memcpy(kept + at, o->o[i].host, n);
        at += n;
    }
    return at;
}

/* g's measured plan, made with the flags asked on the arrays of p, the execute that needs it: what FFTW's trial
 * executes write in the regions that execute reads and writes (its operands) is put back.  NULL when FFTW makes
 * none or the copy of the regions finds no memory. */
static const void *gs_fftw_measure(gs_call_t *c, gs_fftw_geom_t *g, const gs_fftw_t *p)
{
    gs_operands_t o = {0};
    gs_fftw_family.operands(p, &o);
    char *kept = malloc(gs_fftw_keep(&o, NULL, false));
    if (!kept)
        return NULL;
    gs_fftw_keep(&o, kept, false);
    g->in = p->in, g->out = p->out;
    uint64_t t0 = gs_now_ns();
    void *m = gs_twin_make(g, g->threads, g->flags);
    gs_fftw_keep(&o, kept, true);
    free(kept);
    if (!m)
        return NULL;
    gs_fftw_set_measured(g->plan, m, p->in, p->out);
    c->t_pred = 0; /* its time is the measuring's too: not the CPU's speed on the transform */
    char what[200];
    snprintf(what, sizeof what, "an FFTW plan made with FFTW_ESTIMATE for the measuring it asked "
             "(GPUSHIM_FFTW_DEFER) measured at its first execute on the CPU, in %.3f s",
             (double)(gs_now_ns() - t0) * 1e-9);
    gs_log_event("fftw_measured", what);
    return m;
}

const void *gs_fftw_measured(gs_call_t *c, const gs_fftw_t *p)
{
    gs_fftw_geom_t g = p->g;
    /* An execute sent to the CPU only while the GPU comes up (or until its bring-up is worth starting) runs the
     * FFTW_ESTIMATE plan: measuring then cost pyFFTW's 256^3 rfftn 2.35 s on the H100 machine, more than twice
     * the bring-up it stood in for (1.0 s), and the executes after it went to the GPU. */
    if (!g.measured && !gs_warm_why(c->why) && pthread_mutex_trylock(&gs_fftw_planner_lock) == 0) {
        if (gs_fftw_peek(p->g.plan, &g) && !g.measured)
            g.measured = gs_fftw_measure(c, &g, p), g.measured_in = p->in, g.measured_out = p->out;
        pthread_mutex_unlock(&gs_fftw_planner_lock);
    }
    /* execute runs a plan on the arrays it was made on: the measured plan serves it on those alone */
    if (p->op == GS_OP_fftexec && (g.measured_in != p->in || g.measured_out != p->out))
        return NULL;
    return g.measured;
}

/* A forked child keeps the twins, but not a planner lock another thread of the parent may have held. */
static void gs_twin_atfork_child(void)
{
    pthread_mutex_init(&gs_fftw_planner_lock, NULL);
}
GS_LIFE_HOOK(GS_LIFE_FORK_CHILD, gs_twin_atfork_child);
