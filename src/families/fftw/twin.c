/* One-thread twins of small plans made on several threads (fftw.h).  FFTW's threaded plan of a small transform
 * spends most of an execute waking its threads: on the H200 machine a 1024-point c2c planned on 16 threads
 * with FFTW_MEASURE took 50 to 60 us an execute (bench/results/fft.md), more than cuFFTW's round trip through
 * the GPU, where one thread computes it in a few.  A candidate plan's first GS_TWIN_TRIALS executes on the CPU
 * are timed; then the real FFTW makes its twin, the same transform on the same arrays with one thread and
 * FFTW_ESTIMATE (which leaves the arrays alone), whose next executes are timed too; the faster of the two runs
 * every later execute.  Planners, destroy_plan and cleanup hold gs_fftw_planner_lock, since FFTW's planner is
 * not thread safe and the twin is planned from inside an execute, which may run on any thread. */
#include <fftw3.h>

#include "families/fftw/fftw.h"

#define GS_TWIN_TRIALS 3
/* Candidates have at most this many flops an execute (a c2c of 2^15 points): beyond, FFTW's threads win. */
#define GS_TWIN_FLOPS 4e6

typedef struct {
    _Atomic(void *) twin;       /* the one-thread plan, once made */
    atomic_bool given_up;       /* FFTW did not make it, or the slot's plan was replaced */
    atomic_uint tried[2];       /* timed executes of the plan (0) and of the twin (1) */
    _Atomic uint64_t best[2];   /* their fastest, in ns */
    atomic_int choice;          /* 0 while trying, 1 the plan, 2 the twin */
    uint8_t prec;
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
    unsigned s = gs_fftw_twin_slot(g->plan);
    const void *old = atomic_load(&gs_fftw_twin_of[s]);
    /* A plan this slot held that was freed without destroy_plan (FFTW's cleanup_threads, its own handle):
     * its twin may be freed too, and is forgotten, not destroyed. */
    if (old == g->plan)
        atomic_store(&gs_fftw_twin_of[s], old = NULL);
    if (old || !gs.opt.fftw_serial || g->lib || g->split || g->truncated || g->kind == GS_FFTW_R2R ||
        g->threads <= 1 || g->flops > GS_TWIN_FLOPS || g->flags & FFTW_WISDOM_ONLY)
        return;
    gs_twin_t *t = &gs_twins[s];
    atomic_store(&t->twin, NULL);
    atomic_store(&t->given_up, false);
    atomic_store(&t->choice, 0);
    for (int i = 0; i < 2; i++)
        atomic_store(&t->tried[i], 0), atomic_store(&t->best[i], UINT64_MAX);
    t->prec = g->prec;
    atomic_store_explicit(&gs_fftw_twin_of[s], g->plan, memory_order_release);
}

/* g's transform as one thread of the real FFTW plans it, or NULL.  With gs_fftw_planner_lock held. */
static void *gs_twin_make(const gs_fftw_geom_t *g)
{
    fftw_iodim64 d[GS_FFTW_DIMS_MAX]; /* fftwf_iodim64 is the same struct */
    for (int i = 0; i < g->rank + g->howmany_rank; i++)
        d[i] = (fftw_iodim64){g->dims[i].n, g->dims[i].is, g->dims[i].os};
    unsigned fl = (g->flags & ~(unsigned)(FFTW_PATIENT | FFTW_EXHAUSTIVE)) | FFTW_ESTIMATE;
    bool z = g->prec == GS_P_Z;
    void (*with)(int) = z ? GS_TWIN_REAL(fftw_plan_with_nthreads) : GS_TWIN_REAL(fftwf_plan_with_nthreads);
    if (!with)
        return NULL;
    void *in = (void *)g->in, *out = (void *)g->out, *p = NULL;
    const fftw_iodim64 *h = d + g->rank;
    const fftwf_iodim64 *fd = (const fftwf_iodim64 *)d, *fh = (const fftwf_iodim64 *)h;
    int r = g->rank, hr = g->howmany_rank, threads = gs_fftw_threads(g->prec);
    with(1);
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
    with(threads);
    return p;
}

/* Frees slot t's twin; with gs_fftw_planner_lock held. */
static void gs_twin_free(gs_twin_t *t)
{
    void *p = atomic_exchange(&t->twin, NULL);
    if (!p)
        return;
    if (t->prec == GS_P_Z) {
        __typeof__(&fftw_destroy_plan) f = GS_TWIN_REAL(fftw_destroy_plan);
        if (f)
            f(p);
    } else {
        __typeof__(&fftwf_destroy_plan) f = GS_TWIN_REAL(fftwf_destroy_plan);
        if (f)
            f(p);
    }
}

/* Makes plan's twin once its own trials are done, unless another thread plans meanwhile (it is tried again at
 * a later execute). */
static void *gs_twin_get(gs_twin_t *t, const void *plan)
{
    void *tw = atomic_load(&t->twin);
    if (tw || atomic_load(&t->given_up) || pthread_mutex_trylock(&gs_fftw_planner_lock) != 0)
        return tw;
    gs_fftw_geom_t g;
    unsigned s = (unsigned)(t - gs_twins);
    if (!(tw = atomic_load(&t->twin)) && atomic_load(&gs_fftw_twin_of[s]) == plan) {
        if (gs_fftw_peek(plan, &g) && (tw = gs_twin_make(&g)) != NULL)
            atomic_store(&t->twin, tw);
        else
            atomic_store(&t->given_up, true), atomic_store(&t->choice, 1);
    }
    pthread_mutex_unlock(&gs_fftw_planner_lock);
    return tw;
}

const void *gs_fftw_twin_pick(const void *plan, unsigned s, gs_fftw_run_t *r)
{
    gs_twin_t *t = &gs_twins[s];
    int choice = atomic_load_explicit(&t->choice, memory_order_acquire);
    void *tw;
    if (choice)
        return choice == 2 && (tw = atomic_load(&t->twin)) ? (r->twin = true, tw) : plan;
    int which = atomic_load(&t->tried[0]) < GS_TWIN_TRIALS ? 0 : 1;
    if (which == 1 && !(tw = gs_twin_get(t, plan)))
        return plan;
    r->slot = (int)s;
    r->which = (int8_t)which;
    r->twin = which == 1;
    r->t0 = gs_now_ns();
    return which ? tw : plan;
}

void gs_fftw_twin_timed(const gs_fftw_run_t *r)
{
    uint64_t ns = gs_now_ns() - r->t0;
    gs_twin_t *t = &gs_twins[r->slot];
    uint64_t b = atomic_load(&t->best[r->which]);
    while (ns < b && !atomic_compare_exchange_weak(&t->best[r->which], &b, ns))
        ;
    if (atomic_fetch_add(&t->tried[r->which], 1) + 1 == GS_TWIN_TRIALS && r->which == 1)
        atomic_store_explicit(&t->choice, atomic_load(&t->best[1]) < atomic_load(&t->best[0]) ? 2 : 1,
                              memory_order_release);
}

void gs_fftw_twin_drop(const void *plan, int prec, bool all)
{
    for (unsigned s = all ? 0 : gs_fftw_twin_slot(plan); s < GS_FFTW_TWINS; s++) {
        const void *p = atomic_load(&gs_fftw_twin_of[s]);
        if (p && (all ? gs_twins[s].prec == prec : p == plan)) {
            atomic_store(&gs_fftw_twin_of[s], NULL);
            gs_twin_free(&gs_twins[s]);
        }
        if (!all)
            break;
    }
}

/* A forked child keeps the twins, but not a planner lock another thread of the parent may have held. */
static void gs_twin_atfork_child(void)
{
    pthread_mutex_init(&gs_fftw_planner_lock, NULL);
}
GS_LIFE_HOOK(GS_LIFE_FORK_CHILD, gs_twin_atfork_child);
